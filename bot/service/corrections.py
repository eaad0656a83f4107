"""A moderator's correction of a game: previewed first (every rating that would change), kept
beside the log as the moderator's pending correction, and applied once when they press Apply,
whichever process gets the press and however much later.

An /undo that would move ratings is previewed and kept the same way: its kept JSON is
``{"undo": id}`` (the action it takes back), where a correction's is :meth:`Correction.kept`.
A /merge is too: ``{"merge": user, "into": user, "reason": text}`` (the two records by their
platform user ids), and a /system that would move ratings: ``{"system": name, "params": {...},
"ladder": name}``. A kept correction is filed under its game's number, a kept undo under minus
its action's id, a kept merge under minus the duplicate's member id (the id of its
registration): games are numbered from 1, and a registration is never an action /undo takes
back (``events.UNDOABLE``), so an Apply under one never takes another. A kept /system is filed
under minus its number (``ladders.system_key``: the id its change would have had, then six
digits of the switch), which a kept preview of another kind might come to share: an Apply or
Cancel that names a kept /system takes only a kept /system, and one that names anything else
leaves a kept /system where it was. A chat's merge or unlink (``/link CODE merge``,
``/unlink``) is kept by :mod:`bot.service.chats`, filed under 0; the same holds for it: an Apply
or Cancel takes it only when it names one (a link) or none.
"""

from __future__ import annotations

import dataclasses
import json

from . import chats, heavy, ladders, members, moderation, seasons
from .chats import Chats
from .identity import Caller, UserRef, Who
from .moderation import Correction
from .results import Notice, Preview, Result, decode
from .session import Session
from .state import DEFAULT_LADDER


class Corrections:
    def __init__(self, session: Session, chats: Chats) -> None:
        self._session = session
        self._chats = chats

    async def correct(
        self, caller: Caller, game: int, correction: Correction, *, apply: bool = False,
        reason: str = "", expected: int | None = None,
    ) -> Preview:
        """Change game #``game``'s result, players or handicap; without ``apply`` only a
        preview (see :func:`moderation.correct` for ``expected``)."""
        return await self._session.execute(caller, lambda club, now: moderation.correct(
            club, now, caller, game, correction, apply=apply, reason=reason,
            expected=expected))

    async def preview(self, caller: Caller, game: int, correction: Correction) -> Preview:
        """:meth:`correct`'s preview, kept as the caller's pending correction (replacing an
        earlier one) for :meth:`apply` or :meth:`cancel` to find, with the log's last event
        it was computed on. The answer says whether it replaces the caller's earlier preview
        of the same game (issue 31)."""
        answer = await self.correct(caller, game, correction)
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        repository = self._session.repository
        replaced = await repository.take_preview(club_id, caller.user, game) is not None
        await repository.keep_preview(club_id, caller.user, game, correction.kept(answer.at),
                                      self._session.clock.now())
        return dataclasses.replace(answer, replaces=replaced)

    async def set_system(self, caller: Caller, system: str, params: dict[str, str] | None,
                         ladder: str | None) -> Preview:
        """Preview switching a ladder's system (every rating that would change), kept as the
        caller's pending correction (replacing an earlier one) for :meth:`apply` or
        :meth:`cancel`; a switch that moves no rating (a ladder without games) is made at
        once."""
        answer = await self._switch(caller, system, params, ladder, apply=False)
        if answer.applied:
            return answer
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        kept = json.dumps({"system": system, "params": params or {}, "ladder": ladder})
        await self._session.repository.keep_preview(club_id, caller.user, -answer.game_id, kept,
                                                    self._session.clock.now())
        return answer

    async def apply(self, caller: Caller, game: int | None, undo: int | None,
                    merge: int | None = None, system: int | None = None,
                    link: int | None = None) -> Result | None:
        """Apply the caller's pending correction, undo, merge, /system or chat's merge or
        unlink (only if it is of game #``game``, undoes action ``undo``, merges member
        ``merge``, is the /system numbered ``system`` or is a chat's (``link``) when one is
        given: an older preview's button applies nothing); None when there is none. The
        preview is taken away first, so that it is applied once however often Apply is
        pressed; an update delivered again gets its first answer."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        repository = self._session.repository
        if caller.request_id is not None:
            stored = await self._session.first_answer(club_id, caller.request_id)
            if stored is not None:
                return decode(stored)
        taken = await self._take(caller, club_id, game, undo, merge, system, link)
        if taken is None:
            return None
        key, kept = taken
        chat = chats.kind_of(json.loads(kept))
        if chat is not None:
            return await self._chats.apply(caller, chat)
        switching = _system_of(kept)
        if switching is not None:
            name, params, ladder = switching
            return await self._switch(caller, name, params, ladder, apply=True)
        merging = _merge_of(kept)
        if merging is not None:
            duplicate, into, reason = merging
            # decided again on the club as it is now: refused if either record has gone since
            return await self._session.execute(caller, lambda club, now: members.merge(
                club, now, caller, UserRef(duplicate), UserRef(into), reason, apply=True,
                record=-key), off_loop=_preview_deadline())
        target = _undo_of(kept)
        if target is not None:
            return await self._session.execute(caller, lambda club, now: moderation.undo(
                club, now, caller, apply=True, target_id=target))
        # Applied only on the log the preview was computed on; else the new preview, kept
        # for another /apply (issue 31). One kept before issue 31 has no mark: previewed again.
        at = moderation.kept_at(kept)
        correction = Correction.from_kept(kept)
        answer = await self.correct(caller, key, correction, apply=True,
                                    expected=-1 if at is None else at)
        if answer.applied and correction.force:  # a closed season's table changed (issue 38)
            changed = await self._session.look(caller, lambda club, now: seasons.changed_by(
                club, key))
            if changed is not None:
                club_id = await self._session.club_id(caller.platform, caller.chat_id)
                self._session.announce(club_id, [changed])
        if not answer.applied:
            club_id = await self._session.club_id(caller.platform, caller.chat_id)
            await repository.keep_preview(club_id, caller.user, key, correction.kept(answer.at),
                                          self._session.clock.now())
        return answer

    async def merge(self, caller: Caller, duplicate: Who, into: Who, reason: str) -> Preview:
        """Preview merging the record ``duplicate`` into ``into`` (the games between them
        dropped, every rating that would change), kept as the caller's pending correction
        (replacing an earlier one) for :meth:`apply` or :meth:`cancel`."""
        answer, merged = await self._session.look(caller, lambda club, now: members.preview_merge(
            club, now, caller, duplicate, into, reason), off_loop=_preview_deadline())
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        kept = json.dumps({"merge": merged.from_, "into": merged.into, "reason": reason})
        await self._session.repository.keep_preview(club_id, caller.user, -answer.game_id, kept,
                                                    self._session.clock.now())
        return answer

    async def undo(self, caller: Caller) -> Preview:
        """Take back the latest moderator action; one that would move ratings is only previewed,
        and kept as the caller's pending correction (replacing an earlier one) for
        :meth:`apply` or :meth:`cancel`."""
        answer = await self._session.execute(
            caller, lambda club, now: moderation.undo(club, now, caller),
            off_loop=_preview_deadline())
        if not answer.applied:
            club_id = await self._session.club_id(caller.platform, caller.chat_id)
            await self._session.repository.keep_preview(
                club_id, caller.user, -answer.game_id, json.dumps({"undo": answer.game_id}),
                self._session.clock.now())
        return answer

    async def _switch(self, caller: Caller, system: str, params: dict[str, str] | None,
                      ladder: str | None, *, apply: bool) -> Preview:
        """:func:`ladders.set_system` in a worker thread (it folds the whole log again and
        re-rates the ladder: a second for 100,000 games), the event loop serving other clubs."""
        deadline = heavy.Deadline(heavy.SWITCH_SECONDS, "switch_too_slow",
                                  ladder=ladder or DEFAULT_LADDER)
        return await self._session.execute(caller, lambda club, now: ladders.set_system(
            club, now, caller, system, params, ladder, apply=apply), off_loop=deadline)

    async def _take(self, caller: Caller, club_id: int, game: int | None, undo: int | None,
                    merge: int | None, system: int | None, link: int | None
                    ) -> tuple[int, str] | None:
        """Take the caller's kept preview (its key and JSON), only if it is the one the button
        or command names (any, when it names none). One of another kind that came to share its
        number is kept again, untouched, and None is the answer."""
        repository = self._session.repository
        taken = await repository.take_preview(club_id, caller.user,
                                              _key(game, undo, merge, system, link))
        named = (game, undo, merge, system, link) != (None, None, None, None, None)
        if taken is None or not named:
            return taken
        kept = json.loads(taken[1])
        if ((_system_of(taken[1]) is None) == (system is None)
                and (chats.kind_of(kept) is None) == (link is None)):
            return taken
        await repository.keep_preview(club_id, caller.user, *taken, self._session.clock.now())
        return None

    async def cancel(self, caller: Caller, game: int | None, undo: int | None,
                     merge: int | None = None, system: int | None = None,
                     link: int | None = None) -> Notice | None:
        """Drop the caller's pending correction, undo, merge, /system or chat's merge or
        unlink (of game #``game``, of action ``undo``, of member ``merge``, numbered ``system``
        or a chat's (``link``) when one is given): what was cancelled, or None when there was
        none."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        taken = await self._take(caller, club_id, game, undo, merge, system, link)
        if taken is None:
            return None
        key, kept = taken
        chat = chats.kind_of(json.loads(kept))
        if chat is not None:
            return Notice("link_merge_cancelled" if chats.JOIN in chat else "unlink_cancelled")
        switching = _system_of(kept)
        if switching is not None:
            return Notice("system_cancelled", {"system": switching[0]})
        merging = _merge_of(kept)
        if merging is not None:
            into = merging[1]
            return await self._session.look(
                caller, lambda club, now: members.merge_cancelled(club, -key, into))
        target = _undo_of(kept)
        if target is not None:
            return Notice("undo_cancelled", {"id": target})
        return Notice("correction_cancelled", {"game": key})


def _preview_deadline() -> heavy.Deadline:
    """An /undo's or /merge's preview folds the whole log again and re-rates every ladder
    (1.2 s for 100,000 games): in a worker thread, under the club's lock, within this cap."""
    return heavy.Deadline(heavy.SWITCH_SECONDS, "preview_too_slow")


def _key(game: int | None, undo: int | None, merge: int | None = None,
         system: int | None = None, link: int | None = None) -> int | None:
    """What a kept preview is filed under: its game's number, minus the undone action's id,
    minus the duplicate's member id, minus a /system's number, or a chat's merge or unlink's
    (:data:`chats.KEPT_AS`)."""
    if link is not None:
        return chats.KEPT_AS
    if system is not None:
        return -system
    if merge is not None:
        return -merge
    return -undo if undo is not None else game


def _merge_of(kept: str) -> tuple[str, str, str] | None:
    """The users of a kept merge's two records and its reason; None for anything else."""
    fields = json.loads(kept)
    if not isinstance(fields, dict) or "merge" not in fields:
        return None
    reason = fields.get("reason")
    return (str(fields["merge"]), str(fields["into"]),
            reason if isinstance(reason, str) else "")


def _undo_of(kept: str) -> int | None:
    """The action a kept undo takes back; None for a kept correction."""
    fields = json.loads(kept)
    undo = fields.get("undo") if isinstance(fields, dict) else None
    return undo if isinstance(undo, int) else None


def _system_of(kept: str) -> tuple[str, dict[str, str], str | None] | None:
    """A kept /system's system, parameters (as typed) and ladder (None: the main one); None
    for anything else."""
    fields = json.loads(kept)
    if not isinstance(fields, dict) or "system" not in fields:
        return None
    params = fields.get("params")
    ladder = fields.get("ladder")
    return (str(fields["system"]),
            {str(k): str(v) for k, v in params.items()} if isinstance(params, dict) else {},
            ladder if isinstance(ladder, str) else None)
