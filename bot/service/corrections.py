"""A moderator's correction of a game: previewed first (every rating that would change), kept
beside the log as the moderator's pending correction, and applied once when they press Apply,
whichever process gets the press and however much later.
"""

from __future__ import annotations

from . import moderation
from .identity import Caller
from .moderation import Correction
from .results import Preview, Result, decode
from .session import Session


class Corrections:
    def __init__(self, session: Session) -> None:
        self._session = session

    async def correct(
        self, caller: Caller, game_id: int, correction: Correction, *, apply: bool = False,
        reason: str = "",
    ) -> Preview:
        """Change a game's result, players or handicap; without ``apply`` only a preview."""
        return await self._session.execute(caller, lambda club, now: moderation.correct(
            club, now, caller, game_id, correction, apply=apply, reason=reason))

    async def preview(self, caller: Caller, game_id: int, correction: Correction) -> Preview:
        """:meth:`correct`'s preview, kept as the caller's pending correction (replacing an
        earlier one) for :meth:`apply` or :meth:`cancel` to find."""
        answer = await self.correct(caller, game_id, correction)
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        await self._session.repository.keep_preview(club_id, caller.user, game_id,
                                                    correction.kept(), self._session.clock.now())
        return answer

    async def apply(self, caller: Caller, game_id: int | None) -> Result | None:
        """Apply the caller's pending correction (only if it is of ``game_id`` when given: an
        older preview's button applies nothing); None when there is none. The preview is taken
        away first, so that it is applied once however often Apply is pressed; an update
        delivered again gets its first answer."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        repository = self._session.repository
        if caller.request_id is not None:
            stored = await repository.answer(club_id, caller.request_id)
            if stored is not None:
                return decode(stored)
        taken = await repository.take_preview(club_id, caller.user, game_id)
        if taken is None:
            return None
        game, kept = taken
        return await self.correct(caller, game, Correction.from_kept(kept), apply=True)

    async def cancel(self, caller: Caller, game_id: int | None) -> int | None:
        """Drop the caller's pending correction (of ``game_id`` when given); its game, or None
        when there was none."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        taken = await self._session.repository.take_preview(club_id, caller.user, game_id)
        return None if taken is None else taken[0]
