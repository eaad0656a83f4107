"""One club on several chats (issue 35), as the chats ask for it: link codes, a chat joining a
club (at once, or with its games after a preview), a chat leaving it after a preview, and where
to ask a member known in another chat. The decisions are :mod:`bot.service.linking`'s; this is
the order they are carried out in across two clubs' logs.

A chat joins by two writes: the club's log takes the chat (and its members, and its games when
it merges them), then the chat's own log says where it went (:meth:`Session.move`). A chat
leaves the other way round: the club's log lets it go, then its own log says it is back
(:meth:`Session.leave`). A crash between the two is finished by the next command from the chat
(a ``/link`` sent again; the route looked up again, :meth:`Session.club_id`).

A previewed merge or unlink is kept as the caller's pending correction, filed under 0 (no
game, undo, merge or /system is): ``{"join": code hash}`` in the joining chat's own club,
``{"leave": "platform:chat id"}`` in the club.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime

from . import directory, heavy, linking, view
from .errors import Refusal
from .identity import Caller
from .results import Notice, Preview
from .session import Session

#: what a kept merge or unlink is filed under
KEPT_AS = 0
JOIN, LEAVE = "join", "leave"


class Chats:
    def __init__(self, session: Session) -> None:
        self._session = session

    async def link_code(self, caller: Caller, member: bool = False) -> Notice:
        """A one-time code to link another chat (a moderator's) or the caller's other identity
        (``member``), for the caller alone to see. Its answer is not kept for a redelivery of
        the update (which gets a code of its own): the database holds no code, only hashes."""
        code = linking.new_code()
        kind = linking.MEMBER if member else linking.CHAT
        unkept = dataclasses.replace(caller, request_id=None)
        return await self._session.execute(unkept, lambda club, now: linking.issue(
            club, now, unkept, kind, code))

    async def link(self, caller: Caller, code: str, member: bool = False,
                   merge: bool = False) -> Notice | Preview:
        """``/link CODE``: the caller's chat joins the club that issued the code; with
        ``merge``, only a preview of merging its games, kept for /apply. ``/link me CODE``
        (``member``): the caller's identity and the code's become one member."""
        if member:
            return await self._session.execute(caller, lambda club, now: linking.link_member(
                club, now, caller, code))
        digest = linking.code_hash(code)
        issuing, done = await self._issuing(caller, digest)
        if done:  # joined, but the chat's own log was not told: tell it now
            await self._session.move(caller.platform, caller.chat_id, issuing, caller.user)
            return Notice("chat_linked", {"members": 0})
        if merge:
            preview = await self._merge(caller, digest, issuing, apply=False)
            await self._keep(caller, {JOIN: digest})
            return preview
        chat = await self._session.look(caller, lambda club, now: linking.joining(club, caller))
        answer = await self._session.execute(
            caller, lambda club, now: linking.join(club, now, caller, code, chat),
            club_id=issuing)
        # The chat's own log says where it went: every process follows it from there.
        await self._session.move(caller.platform, caller.chat_id, issuing, caller.user)
        return answer

    async def unlink(self, caller: Caller) -> Preview:
        """``/unlink``: a preview of the caller's chat leaving its club, kept for /apply."""
        preview = await self._session.execute(caller, lambda club, now: linking.unlink(
            club, now, caller, apply=False))
        await self._keep(caller, {LEAVE: linking.chat_of(caller)})
        return preview

    async def apply(self, caller: Caller, kept: dict[str, str]) -> Preview | None:
        """Carry out a kept merge or unlink (:func:`kind_of` says it is one); None when it was
        previewed for another chat."""
        if JOIN in kept:
            issuing, done = await self._issuing(caller, kept[JOIN])
            if done:
                raise Refusal("link_same_club")
            return await self._merge(caller, kept[JOIN], issuing, apply=True)
        if kept[LEAVE] != linking.chat_of(caller):
            return None
        answer = await self._session.execute(caller, lambda club, now: linking.unlink(
            club, now, caller, apply=True))
        await self._session.leave(caller.platform, caller.chat_id, caller.user)
        return answer

    async def elsewhere(self, caller: Caller, number: int) -> list[tuple[str, str]]:
        """The chats of the club, other than the caller's, where the player of game
        #``number`` who must answer it (the one who did not report it) is known: where to ask
        them. None in a club of one chat."""
        def look(club: view.Club, now: datetime) -> list[tuple[str, str]]:
            state = club.state
            game = state.game_numbered(number)
            if game is None or not state.linked_chats:
                return []
            reporter = game.reported_by
            # the side that did not report it answers: any one of its members (issue 37)
            others = game.side_b if reporter is None or state.member(reporter).id in \
                view.side_ids(club, game.side_a) else game.side_a
            here = linking.chat_of(caller)
            chats = {chat for other in others for chat in state.chats_of(other)}
            return sorted((platform, chat_id) for platform, _, chat_id in
                          (chat.partition(":") for chat in chats)
                          if f"{platform}:{chat_id}" != here)
        return await self._session.look(caller, look)

    async def _issuing(self, caller: Caller, digest: str) -> tuple[int, bool]:
        """The club that issued the chat code of hash ``digest``, and whether the caller's chat
        joined it with that code already; refused when no club has it open."""
        now = self._session.clock.now()
        issuing, done = None, False
        for club_id, _, _ in await self._session.repository.directory(directory.CODE, digest):
            state = await self._session.current(club_id)
            if linking.open_code(state, digest, linking.CHAT, now) is not None:
                issuing = club_id
            elif linking.joined_with(state, digest, caller.platform, caller.chat_id):
                issuing, done = club_id, True
        if issuing is None:
            raise Refusal("link_code_unknown")
        own = await self._session.club_id(caller.platform, caller.chat_id)
        if own == issuing and not done:
            raise Refusal("link_same_club")
        return issuing, done

    async def _merge(self, caller: Caller, digest: str, issuing: int, apply: bool) -> Preview:
        """The caller's chat joining club ``issuing`` with its games: previewed, or done. Its
        history is read under its own club's lock, then decided on the club's in a worker
        thread (every ladder it touches is replayed)."""
        chat = await self._session.look(caller, lambda club, now: linking.joining(
            club, caller, merge=True))
        deadline = heavy.Deadline(heavy.SWITCH_SECONDS, "link_too_slow")
        answer = await self._session.execute(
            caller, lambda club, now: linking.merge_join(club, now, caller, digest, chat, apply),
            off_loop=deadline, club_id=issuing)
        if apply:
            await self._session.move(caller.platform, caller.chat_id, issuing, caller.user)
        return answer

    async def _keep(self, caller: Caller, kept: dict[str, str]) -> None:
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        await self._session.repository.keep_preview(club_id, caller.user, KEPT_AS,
                                                    json.dumps(kept), self._session.clock.now())


def kind_of(kept: object) -> dict[str, str] | None:
    """A kept preview's JSON (decoded) if it is a merge or an unlink of a chat; else None."""
    if isinstance(kept, dict) and (JOIN in kept or LEAVE in kept):
        return {str(k): str(v) for k, v in kept.items()}
    return None
