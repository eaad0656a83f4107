"""Moderators' corrections of games: changing a result, its players or handicap (previewed
before it is applied), voiding and restoring a game, taking back the latest action, and the
audit of who did what.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, replace
from datetime import datetime

from bot.storage.repository import StoredEvent

from . import events as ev
from . import parsing as parse
from . import view
from .errors import Refusal
from .identity import Caller, Who, who_from_json, who_to_json
from .results import Audit, AuditLine, GameResult, Notice, Preview
from .session import SYSTEM_ACTOR, Decision
from .state import ClubState, GameStatus, Kind
from .view import Club

#: the most entries one /audit shows
MAX_AUDIT = 100


@dataclass(frozen=True, slots=True)
class Correction:
    """What a moderator changes in a game; ``None`` keeps the value. ``result`` is player_a's."""

    result: str | None = None
    player_a: Who | None = None
    player_b: Who | None = None
    handicap: str | None = None

    def kept(self) -> str:
        """As kept with a preview: JSON, a member named by user id as ``{"user": id}``."""
        fields = dataclasses.asdict(self)
        for side in ("player_a", "player_b"):
            fields[side] = who_to_json(getattr(self, side))
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def from_kept(cls, kept: str) -> Correction:
        fields = json.loads(kept)
        for side in ("player_a", "player_b"):
            fields[side] = who_from_json(fields.get(side))
        return cls(**fields)


def correct(
    club: Club, now: datetime, caller: Caller, game_id: int, correction: Correction, *,
    apply: bool, reason: str,
) -> Decision[Preview]:
    """Change a game's result, players or handicap. Without ``apply`` nothing is written and the
    answer previews every rating that would change."""
    view.require_moderator(club, caller)
    why = view.reason(reason)
    game = view.game(club, game_id)
    if game.voided:
        raise Refusal("game_voided", game=game_id)
    if game.status is GameStatus.WITHDRAWN:
        raise Refusal("game_withdrawn", game=game_id)
    corrected = replace(game, status=GameStatus.CONFIRMED, seq=game.seq or 10**18,
                        version=game.version + 1)
    changes = ev.GameChanges()
    if correction.result is not None:
        corrected.score_a = parse.score(correction.result)
        changes = replace(changes, score_a=corrected.score_a)
    if correction.handicap is not None:
        corrected.handicap = parse.handicap(correction.handicap)
        changes = replace(changes, handicap=corrected.handicap)
    if correction.player_a is not None:
        member = view.member(club, correction.player_a)
        corrected.player_a = member.id
        changes = replace(changes, player_a=member.user)
    if correction.player_b is not None:
        member = view.member(club, correction.player_b)
        corrected.player_b = member.id
        changes = replace(changes, player_b=member.user)
    state = club.state
    if state.member(corrected.player_a).id == state.member(corrected.player_b).id:
        raise Refusal("not_yourself")
    if changes == ev.GameChanges() and game.status is GameStatus.CONFIRMED:
        raise Refusal("nothing_to_correct")
    ladder = state.ladders[game.ladder]
    before = view.ratings(club, ladder)
    if not apply:
        preview = club.ratings[ladder.name].preview(state, ladder, corrected)
        moved = view.changes(club, ladder, before, preview)
        return [], lambda: Preview(game_id, moved, applied=False)
    event = ev.new_event(ev.GameCorrected(game_id, changes), caller.user, now, why)

    def applied() -> Preview:
        # The same numbers the preview showed: the corrected log, re-rated once.
        after = view.ratings(club, ladder)
        return Preview(game_id, view.changes(club, ladder, before, after), applied=True)

    return [event], applied


def void(
    club: Club, now: datetime, caller: Caller, game_id: int, reason: str, restore: bool
) -> Decision[GameResult]:
    """Take a game out of the ratings (or put a voided one back)."""
    view.require_moderator(club, caller)
    why = view.reason(reason)
    game = view.game(club, game_id)
    if restore and not game.voided:
        raise Refusal("game_not_voided", game=game_id)
    if restore and game.status is not GameStatus.CONFIRMED:
        # voided before it ever counted (a disputed report, say): there is nothing to restore
        raise Refusal("never_counted", game=game_id)
    if not restore and game.voided:
        raise Refusal("game_voided", game=game_id)
    ladder = club.state.ladders[game.ladder]
    before = view.ratings(club, ladder)
    change = ev.GameRestored if restore else ev.GameVoided
    event = ev.new_event(change(game_id), caller.user, now, why)

    def answer() -> GameResult:
        after = view.ratings(club, ladder)
        return GameResult("restored" if restore else "voided", view.line(club, game),
                          view.changes(club, ladder, before, after))

    return [event], answer


def undo(club: Club, now: datetime, caller: Caller) -> Decision[Notice]:
    """Take back the latest moderator action still in force."""
    view.require_moderator(club, caller)
    # What the bot did by itself (the main ladder of a new club, retirements for inactivity) is
    # no moderator's action to take back.
    actions = [e for e in club.state.undoable if e.actor != SYSTEM_ACTOR]
    if not actions:
        raise Refusal("nothing_to_undo")
    target = actions[-1]
    if target.kind == Kind.LADDER_CREATED and _ladder_used(club.state, target):
        raise Refusal("ladder_in_use", ladder=str(target.data.get("ladder")))
    event = ev.new_event(ev.ActionUndone(target.id), caller.user, now)
    return [event], lambda: Notice("undone", {"action": str(target.kind), "id": target.id,
                                              "summary": _summary(target)})


def audit(club: Club, caller: Caller, limit: int) -> Audit:
    """Who did what, when and why: the latest entries of the club's log."""
    view.require_moderator(club, caller)
    if not 1 <= limit <= MAX_AUDIT:
        raise Refusal("bad_audit_size", limit=MAX_AUDIT, text=str(limit)[:20])
    log = club.state.log
    undone = _undone(club.state)
    lines = []
    for e in log[::-1][:limit]:
        summary = _summary(e)
        if e.id in undone:
            summary += " (undone)"
        lines.append(AuditLine(e.id, e.at.isoformat(timespec="minutes"), e.actor, str(e.kind),
                               summary, e.reason))
    return Audit(lines)


def _ladder_used(state: ClubState, created: StoredEvent) -> bool:
    """Whether anything still in force happened on the ladder since ``created`` made it."""
    undone = _undone(state)
    name = created.data.get("ladder")
    return any(
        e.id > created.id and e.id not in undone and e.data.get("ladder") == name
        for e in state.log
    )


def _undone(state: ClubState) -> set[int]:
    """The ids of the actions taken back with /undo."""
    return {payload.target for payload in (ev.decode(e.kind, e.data) for e in state.log
                                          if e.kind == Kind.ACTION_UNDONE)
            if isinstance(payload, ev.ActionUndone)}


def _summary(event: StoredEvent) -> str:
    parts = [f"{k}={v}" for k, v in event.data.items() if v not in (None, "", {}, [])]
    return ", ".join(parts)[:200]
