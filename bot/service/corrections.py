"""A moderator's correction of a game: previewed first (every rating that would change), kept
beside the log as the moderator's pending correction, and applied once when they press Apply,
whichever process gets the press and however much later.

An /undo that would move ratings is previewed and kept the same way: its kept JSON is
``{"undo": id}`` (the action it takes back), where a correction's is :meth:`Correction.kept`.
A kept correction is filed under its game's number, a kept undo under minus its action's id:
games are numbered from 1, so an Apply under one never takes the other.
"""

from __future__ import annotations

import json

from . import moderation
from .identity import Caller
from .moderation import Correction
from .results import Notice, Preview, Result, decode
from .session import Session


class Corrections:
    def __init__(self, session: Session) -> None:
        self._session = session

    async def correct(
        self, caller: Caller, game: int, correction: Correction, *, apply: bool = False,
        reason: str = "",
    ) -> Preview:
        """Change game #``game``'s result, players or handicap; without ``apply`` only a
        preview."""
        return await self._session.execute(caller, lambda club, now: moderation.correct(
            club, now, caller, game, correction, apply=apply, reason=reason))

    async def preview(self, caller: Caller, game: int, correction: Correction) -> Preview:
        """:meth:`correct`'s preview, kept as the caller's pending correction (replacing an
        earlier one) for :meth:`apply` or :meth:`cancel` to find."""
        answer = await self.correct(caller, game, correction)
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        await self._session.repository.keep_preview(club_id, caller.user, game,
                                                    correction.kept(), self._session.clock.now())
        return answer

    async def apply(self, caller: Caller, game: int | None, undo: int | None) -> Result | None:
        """Apply the caller's pending correction or undo (only if it is of game #``game`` or
        undoes action ``undo`` when one is given: an older preview's button applies nothing);
        None when there is none. The preview is taken away first, so that it is applied once
        however often Apply is pressed; an update delivered again gets its first answer."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        repository = self._session.repository
        if caller.request_id is not None:
            stored = await repository.answer(club_id, caller.request_id)
            if stored is not None:
                return decode(stored)
        taken = await repository.take_preview(club_id, caller.user, _key(game, undo))
        if taken is None:
            return None
        key, kept = taken
        target = _undo_of(kept)
        if target is not None:
            return await self._session.execute(caller, lambda club, now: moderation.undo(
                club, now, caller, apply=True, target_id=target))
        return await self.correct(caller, key, Correction.from_kept(kept), apply=True)

    async def undo(self, caller: Caller) -> Preview:
        """Take back the latest moderator action; one that would move ratings is only previewed,
        and kept as the caller's pending correction (replacing an earlier one) for
        :meth:`apply` or :meth:`cancel`."""
        answer = await self._session.execute(
            caller, lambda club, now: moderation.undo(club, now, caller))
        if not answer.applied:
            club_id = await self._session.club_id(caller.platform, caller.chat_id)
            await self._session.repository.keep_preview(
                club_id, caller.user, -answer.game_id, json.dumps({"undo": answer.game_id}),
                self._session.clock.now())
        return answer

    async def cancel(self, caller: Caller, game: int | None, undo: int | None) -> Notice | None:
        """Drop the caller's pending correction or undo (of game #``game`` or of action
        ``undo`` when one is given): what was cancelled, or None when there was none."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        taken = await self._session.repository.take_preview(club_id, caller.user,
                                                            _key(game, undo))
        if taken is None:
            return None
        key, kept = taken
        target = _undo_of(kept)
        if target is not None:
            return Notice("undo_cancelled", {"id": target})
        return Notice("correction_cancelled", {"game": key})


def _key(game: int | None, undo: int | None) -> int | None:
    """What a kept preview is filed under: its game's number, or minus the undone action's id."""
    return -undo if undo is not None else game


def _undo_of(kept: str) -> int | None:
    """The action a kept undo takes back; None for a kept correction."""
    fields = json.loads(kept)
    undo = fields.get("undo") if isinstance(fields, dict) else None
    return undo if isinstance(undo, int) else None
