"""Moderators' corrections of games: changing a result, its players or handicap (previewed
before it is applied), voiding and restoring a game, taking back the latest action, and the
audit of who did what.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

import bisect
import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import assert_never

from bot.storage.repository import NewEvent, StoredEvent
from ratings_core.replay import Checkpoint
from ratings_core.system import RatingSystem

from . import events as ev
from . import ladder_settings, reasons, seasons, teams, view
from . import parsing as parse
from .errors import Refusal
from .identity import Caller, Who, who_from_json, who_to_json
from .results import (
    Audit,
    AuditLine,
    GameLine,
    GameResult,
    Notice,
    Param,
    Preview,
    RatingChange,
)
from .session import SYSTEM_ACTOR, Decision
from .state import DEFAULT_LADDER, ClubState, GameRecord, GameStatus, Kind
from .team_rule import SIDE_JOINER
from .view import Club

#: the most entries one /audit shows
MAX_AUDIT = 100


@dataclass(frozen=True, slots=True)
class Correction:
    """What a moderator changes in a game; ``None`` keeps the value. ``result`` is player_a's
    (what a correction event stores, and what a correction kept before issue 31 meant);
    ``shown`` is the result of the player shown first in the game's line as recorded (the
    winner of a decisive game, player_a of a draw): what ``/correct N win|loss|draw`` says
    (issue 31, ERRATA)."""

    result: str | None = None
    player_a: Who | None = None
    player_b: Who | None = None
    handicap: str | None = None
    shown: str | None = None
    #: both sides anew (``sides=@a @b vs @c @d``, issue 37)
    sides: tuple[tuple[Who, ...], tuple[Who, ...]] | None = None
    #: a game inside a closed season is corrected all the same (``/correct 12 loss force``,
    #: issue 38)
    force: bool = False

    def kept(self, at: int | None = None) -> str:
        """As kept with a preview: JSON, a member named by user id as ``{"user": id}``;
        ``at``: the id of the log's last event the preview was computed on (issue 31)."""
        fields: dict[str, object] = dataclasses.asdict(self)
        for side in ("player_a", "player_b"):
            fields[side] = who_to_json(getattr(self, side))
        if self.shown is None:
            # as kept before issue 31: an older build reading it back finds its own fields
            del fields["shown"]
        if self.sides is None:
            del fields["sides"]  # as kept before issue 37
        else:
            fields["sides"] = [[who_to_json(who) for who in side] for side in self.sides]
        if not self.force:
            del fields["force"]  # as kept before issue 38
        if at is not None:
            fields["at"] = at
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def from_kept(cls, kept: str) -> Correction:
        fields = json.loads(kept)
        fields.pop("at", None)
        for side in ("player_a", "player_b"):
            fields[side] = who_from_json(fields.get(side))
        if fields.get("sides") is not None:
            a, b = ([who for who in map(who_from_json, side) if who is not None]
                    for side in fields["sides"])
            fields["sides"] = (tuple(a), tuple(b))
        return cls(**fields)


def kept_at(kept: str) -> int | None:
    """The id of the log's last event a kept correction's preview was computed on; None for
    one kept before issue 31 (nobody knows what it saw: it is previewed again)."""
    at = json.loads(kept).get("at")
    return at if isinstance(at, int) else None


def correct(
    club: Club, now: datetime, caller: Caller, number: int, correction: Correction, *,
    apply: bool, reason: str, expected: int | None = None,
) -> Decision[Preview]:
    """Change game #``number``'s result, players or handicap. Without ``apply`` nothing is
    written and the answer previews every rating that would change. With ``expected`` (the
    last event id a kept preview was computed on) it applies only if the log has not moved
    since; otherwise nothing is written and the answer is the new preview, ``outdated``
    (issue 31: a preview applied after the log moved changed ratings nobody saw)."""
    view.require_moderator(club, caller)
    why = view.reason(reason)
    game = view.game(club, number)
    if game.voided:
        raise Refusal("game_voided", game=number)
    if game.status is GameStatus.WITHDRAWN:
        raise Refusal("game_withdrawn", game=number)
    seasons.forced_check(club, game, correction.force)  # issue 38: a closed season's game
    corrected = replace(game, status=GameStatus.CONFIRMED, seq=game.seq or 10**18,
                        version=game.version + 1)
    changes = ev.GameChanges()
    if correction.result is not None:
        corrected.score_a = parse.score(correction.result)
        changes = replace(changes, score_a=corrected.score_a)
    if correction.shown is not None:
        # Read from the side shown first in the game's line as recorded: the winner, or
        # player_a of a draw (issue 31, ERRATA); stored as player_a's score, as ever.
        score = parse.score(correction.shown)
        # an attempt's line always shows the member first ("alice did not solve p2")
        attempt = game.seconds is not None
        corrected.score_a = 1.0 - score if game.score_a == 0.0 and not attempt else score
        changes = replace(changes, score_a=corrected.score_a)
    if correction.handicap is not None:
        corrected.handicap = view.bounded_handicap(  # rs-go: in stones (issue 31)
            club, club.state.ladders[game.ladder], parse.handicap(correction.handicap),
            correction.handicap)
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
    if correction.sides is not None:
        changes = _new_sides(club, game, corrected, correction.sides, changes)
    if state.member(corrected.player_a).id == state.member(corrected.player_b).id:
        raise Refusal("not_yourself")
    if changes == ev.GameChanges() and game.status is GameStatus.CONFIRMED:
        raise Refusal("nothing_to_correct")
    was, becomes = view.line(club, game), view.line(club, corrected)
    if (correction.shown is not None and game.status is GameStatus.CONFIRMED
            and _same_game(was, becomes)):
        # "/correct 3 win" on "frank beat erin": the result it names is the one recorded
        if attempt:
            raise Refusal("correction_no_change_attempt", game=number, member=was.player_a,
                          problem=was.player_b)
        first, second = ((was.player_b, was.player_a) if was.score_a == 0.0
                         else (was.player_a, was.player_b))
        raise Refusal("correction_no_change_draw" if was.score_a == 0.5
                      else "correction_no_change", game=number, a=first, b=second)
    ladder = state.ladders[game.ladder]
    before = view.ratings(club, ladder)
    outdated = apply and expected is not None and expected != state.last_id
    if not apply or outdated:
        preview = club.ratings[ladder.name].preview(state, ladder, corrected)
        moved = view.changes(club, ladder, before, preview)
        return [], lambda: Preview(number, moved, applied=False, was=was, becomes=becomes,
                                   at=state.last_id, outdated=outdated)
    event = ev.new_event(ev.GameCorrected(game.id, changes), caller.user, now, why)

    def applied() -> Preview:
        # The same numbers the preview showed: the corrected log, re-rated once.
        after = view.ratings(club, ladder)
        return Preview(number, view.changes(club, ladder, before, after), applied=True,
                       was=was, becomes=becomes)

    return [event], applied


def _new_sides(club: Club, game: GameRecord, corrected: GameRecord,
               sides: tuple[tuple[Who, ...], tuple[Who, ...]],
               changes: ev.GameChanges) -> ev.GameChanges:
    """A correction's new sides (issue 37) written into ``corrected`` and ``changes``, checked
    as a report's are; a game stays on its ladder, so a ladder whose team games go to its
    companion keeps one against one, and a companion keeps team games."""
    side_a = [view.member(club, who) for who in sides[0]]
    side_b = [view.member(club, who) for who in sides[1]]
    ladder = club.state.ladders[game.ladder]
    team = len(side_a) > 1 or len(side_b) > 1
    if (not team and ladder.parent is not None) or (
            team and not game.team and ladder.parent is None
            and ladder.settings.team_ladder != "shared"):
        raise Refusal("correct_sides_ladder", game=game.number, ladder=ladder.name)
    if team:
        teams.check_sides(club, ladder, side_a, side_b, retired=False)
    corrected.player_a, corrected.player_b = side_a[0].id, side_b[0].id
    corrected.partners_a = tuple(m.id for m in side_a[1:])
    corrected.partners_b = tuple(m.id for m in side_b[1:])
    return replace(changes, player_a=side_a[0].user, player_b=side_b[0].user,
                   partners_a=[m.user for m in side_a[1:]],
                   partners_b=[m.user for m in side_b[1:]])


def _same_game(was: GameLine, becomes: GameLine) -> bool:
    """Whether a correction leaves a game's players, result and handicap as they are."""
    return ((was.player_a, was.partners_a, was.player_b, was.partners_b, was.score_a,
             was.handicap)
            == (becomes.player_a, becomes.partners_a, becomes.player_b, becomes.partners_b,
                becomes.score_a, becomes.handicap))


def void(
    club: Club, now: datetime, caller: Caller, number: int, reason: str, restore: bool
) -> Decision[GameResult]:
    """Take game #``number`` out of the ratings (or put a voided one back).

    A report voided before it counted never counts by itself; restoring it makes it wait for
    its opponent again, with a fresh ``auto_confirm_hours`` to confirm or dispute it (issue
    31)."""
    view.require_moderator(club, caller)
    why = view.reason(reason)
    game = view.game(club, number)
    if restore and not game.voided:
        raise Refusal("game_not_voided", game=number)
    if not restore and game.voided:
        raise Refusal("game_voided", game=number)
    ladder = club.state.ladders[game.ladder]
    pending = restore and game.status is not GameStatus.CONFIRMED
    if pending:
        if game.status is GameStatus.WITHDRAWN:
            raise Refusal("game_withdrawn", game=number)
        held = ladder.tournaments.get((game.event or "").casefold())
        if held is not None and held.closed is not None:
            # confirmed now it would be rated after its event, not with it: reported again
            # instead, in an open event or none
            raise Refusal("restore_event_closed", game=number, event=held.name)
        event = ev.new_event(ev.GameRestored(game.id, pending=True), caller.user, now, why)
        counts_at = now + timedelta(hours=ladder.settings.auto_confirm_hours)
        return [event], lambda: GameResult(
            "restored_pending", view.line(club, game),
            counts_at=counts_at.isoformat(timespec="minutes"))
    before = view.ratings(club, ladder)
    change = ev.GameRestored if restore else ev.GameVoided
    event = ev.new_event(change(game.id), caller.user, now, why)

    def answer() -> GameResult:
        after = view.ratings(club, ladder)
        return GameResult("restored" if restore else "voided", view.line(club, game),
                          view.changes(club, ladder, before, after))

    return [event], answer


#: the actions whose undoing can move ratings: /undo previews those first, like /correct
_RATED = frozenset({
    Kind.GAME_REPORTED, Kind.GAME_CORRECTED, Kind.GAME_VOIDED, Kind.GAME_RESTORED,
    Kind.PLAYERS_MERGED, Kind.PLAYER_RETIRED, Kind.PLAYER_RETURNED, Kind.SETTINGS_CHANGED,
    Kind.EVENT_OPENED, Kind.EVENT_CLOSED,
})


def undo(
    club: Club, now: datetime, caller: Caller, *, apply: bool = False, target_id: int | None = None
) -> Decision[Preview]:
    """Take back the latest moderator action still in force. One that can move ratings is only
    previewed (every rating it would change) unless ``apply``; ``target_id``: the action the
    preview was of, which must still be the latest."""
    view.require_moderator(club, caller)
    # What the bot did by itself (the main ladder of a new club, retirements for inactivity) is
    # no moderator's action to take back.
    actions = [e for e in club.state.undoable if e.actor != SYSTEM_ACTOR]
    if not actions:
        raise Refusal("nothing_to_undo")
    target = actions[-1]
    if target_id is not None and target.id != target_id:
        raise Refusal("undo_moved", id=target_id)
    action = ev.decode(target.kind, target.data)
    if isinstance(action, ev.ModeratorNamed | ev.ModeratorRemoved) or (
            isinstance(action, ev.SettingsChanged) and "moderator_role" in action.settings):
        # Taking such an action back changes who moderates: the platform's moderators' alone.
        view.require_platform_moderator(caller)
    if target.kind == Kind.LADDER_CREATED and _ladder_used(club.state, target):
        raise Refusal("ladder_in_use", ladder=str(target.data.get("ladder")))
    what = sentence(club.state, target)
    rated = target.kind in _RATED
    if rated and not apply:
        # Worked out here, in the decision (off the loop when the caller asks: the whole log
        # is folded again), not in the answer, which runs on the event loop.
        changes = _undo_changes(club, target)
        return [], lambda: Preview(target.id, changes, applied=False, undo=what)
    before = everyone(club)
    event = ev.new_event(ev.ActionUndone(target.id), caller.user, now)

    def applied() -> Preview:
        changed = moved(club, before) if rated else []
        return Preview(target.id, changed, applied=True, undo=what, rates=rated)

    return [event], applied


def _undo_changes(club: Club, target: StoredEvent) -> list[RatingChange]:
    """Every rating that taking ``target`` back would change: the log without it, re-rated."""
    without = supposing(club, ev.ActionUndone(target.id), "", club.state.log[-1].at)
    return moved(without, everyone(club))


def supposing(club: Club, event: ev.Event, actor: str, at: datetime) -> Club:
    """``club`` as it would be with ``event`` at the end of its log, nothing written (what a
    preview rates): the log folded again, with ratings of its own, replayed when asked."""
    return supposing_all(club, [ev.new_event(event, actor, at)])


def supposing_all(club: Club, events: Sequence[NewEvent]) -> Club:
    """``club`` as it would be with ``events`` at the end of its log (:func:`supposing`)."""
    last = club.state.last_id
    entries = [StoredEvent(last + n, e.kind, e.actor, e.at, e.data, e.reason)
               for n, e in enumerate(events, 1)]
    return Club(club.id, ClubState.build([*club.state.log, *entries]))


def everyone(club: Club) -> dict[str, Checkpoint]:
    """Every ladder's ratings now, by ladder name (what :func:`moved` compares with)."""
    return {name: view.ratings(club, ladder) for name, ladder in club.state.ladders.items()}


def systems(club: Club) -> dict[str, RatingSystem]:
    """Every ladder's rating system now, by ladder name (:func:`moved`'s ``was``)."""
    return {name: view.system_of(club, ladder) for name, ladder in club.state.ladders.items()}


def moved(club: Club, before: dict[str, Checkpoint], named: Club | None = None,
          was: dict[str, RatingSystem] | None = None) -> list[RatingChange]:
    """The ratings of ``club``'s ladders that differ from ``before`` (a ladder's name beside
    its players' when more than one ladder moved). Players are named as ``named`` names them
    (``club`` unless told): a merge's preview names a record that ``club`` merged away by its
    own name, not its survivor's. ``was``: each ladder's system before a /system switch, so
    that a provisional mark the switch changes counts as a move (:func:`view.changes`)."""
    names = club if named is None else named
    by_ladder = {
        name: view.changes(names, names.state.ladders[name], before[name],
                           view.ratings(club, ladder), was=(was or {}).get(name))
        for name, ladder in club.state.ladders.items() if name in before
    }
    shifted = {name: changes for name, changes in by_ladder.items() if changes}
    if len(shifted) <= 1:
        return [c for changes in shifted.values() for c in changes]
    return [replace(c, name=f"{c.name} ({name})") for name, changes in shifted.items()
            for c in changes]


def audit(club: Club, caller: Caller, limit: int) -> Audit:
    """Who did what, when and why: the latest entries of the club's log."""
    view.require_moderator(club, caller)
    if not 1 <= limit <= MAX_AUDIT:
        raise Refusal("bad_audit_size", limit=MAX_AUDIT, text=str(limit)[:20])
    state = club.state
    undone = _undone(state)
    lines = []
    for e in state.log[::-1][:limit]:
        lines.append(AuditLine(e.id, e.at.isoformat(timespec="minutes"), _name(state, e.actor),
                               str(e.kind), _summary(e),
                               reasons.shown(e.reason, e.actor == SYSTEM_ACTOR),
                               what=sentence(state, e),
                               undone=e.id in undone, zone=_zone(state, e)))
    return Audit(lines)


def _zone(state: ClubState, event: StoredEvent) -> str:
    """The zone an entry's time is shown in: its ladder's, or the main ladder's."""
    named = event.data.get("ladder")
    return view.zone_of(state.ladders.get(named if isinstance(named, str) else DEFAULT_LADDER))


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


def _name(state: ClubState, user: str) -> str:
    """The name of the member with platform user id ``user`` as it was (a merged duplicate's
    own name), else ``user`` itself (the bot, an import)."""
    member_id = state.by_user.get(user)
    return user if member_id is None else state.members[member_id].name


def _side_name(state: ClubState, users: tuple[str, ...]) -> str:
    """A side's members' names (:func:`_name`), joined as a game's line joins them."""
    return SIDE_JOINER.join(_name(state, user) for user in users)


def _side_users(first: str, partners: list[str] | None) -> tuple[str, ...]:
    return (first, *(partners or ()))


#: a game's sides by user ids (side a, side b) and side a's score, as the audit names them
_Sides = tuple[tuple[str, ...], tuple[str, ...], float]


def _corrected_sides(state: ClubState, stored: StoredEvent, game: int
                     ) -> tuple[_Sides, _Sides] | None:
    """A game's players (platform user ids) and player_a's score just before and just after
    the correction ``stored``: its report, then the corrections of it in force up to
    ``stored`` (as the state folds them, undone ones left out). None when the report is not
    in the log."""
    log = state.log
    start = bisect.bisect_left(log, game, key=lambda e: e.id)
    end = bisect.bisect_left(log, stored.id, key=lambda e: e.id)
    if start >= len(log) or log[start].id != game or log[start].kind != Kind.GAME_REPORTED:
        return None
    report = ev.decode(log[start].kind, log[start].data)
    if not isinstance(report, ev.GameReported):
        return None
    undone = _undone(state)
    sides = (_side_users(report.player_a, report.partners_a),
             _side_users(report.player_b, report.partners_b), report.score_a)
    for each in log[start + 1:end]:
        if each.kind == Kind.GAME_CORRECTED and each.id not in undone:
            earlier = ev.decode(each.kind, each.data)
            if isinstance(earlier, ev.GameCorrected) and earlier.game == game:
                sides = _changed(sides, earlier.changes)
    this = ev.decode(stored.kind, stored.data)
    assert isinstance(this, ev.GameCorrected)
    return sides, _changed(sides, this.changes)


def _changed(sides: _Sides, changes: ev.GameChanges) -> _Sides:
    """A game's sides and side a's score after ``changes``."""
    a, b, score_a = sides
    a = (a[0] if changes.player_a is None else changes.player_a,
         *(a[1:] if changes.partners_a is None else changes.partners_a))
    b = (b[0] if changes.player_b is None else changes.player_b,
         *(b[1:] if changes.partners_b is None else changes.partners_b))
    return a, b, score_a if changes.score_a is None else float(changes.score_a)


def _joined(separator: str, parts: list[Notice]) -> tuple[Notice, ...]:
    """``parts`` with the notice ``separator`` between each two: one part of a sentence."""
    joined: list[Notice] = []
    for part in parts:
        if joined:
            joined.append(Notice(separator))
        joined.append(part)
    return tuple(joined)


def _value(value: object) -> str:
    """A stored value as a moderator types it (a setting's rule: 24, yes/no), parameters as
    key=value."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, bool | int | float | str):
        return ladder_settings.shown(value)
    return "none" if value is None else str(value)


def sentence(state: ClubState, stored: StoredEvent) -> Notice:
    """What one entry of the log says, as a sentence: a message key (``said_`` and the kind)
    and its parameters, members by name."""
    who = _name(state, stored.actor)
    event = ev.decode(stored.kind, stored.data)
    key = f"said_{stored.kind}"
    params: dict[str, Param]
    match event:
        case ev.LadderCreated(ladder, system, given):
            params = {"ladder": ladder, "system": system,
                      "params": _value(given) or Notice("part_defaults")}
        case ev.SettingsChanged(ladder, settings) if "system" in settings:
            params = {"ladder": ladder, "system": _value(settings["system"]),
                      "params": _value(settings.get("params") or {}) or Notice("part_defaults")}
            key = "said_system_changed"
        case ev.SettingsChanged(ladder, settings):
            params = {"ladder": ladder, "settings": _joined("part_settings_separator", [
                Notice("part_setting_to", {"setting": name, "value": _value(value)})
                for name, value in settings.items()])}
        case ev.MemberRegistered(_, name, ladder):
            params = {"name": name}
            if ladder is None:
                key = "said_member_added"
        case ev.PlayerJoined(ladder, member) | ev.PlayerRetired(ladder, member) \
                | ev.PlayerReturned(ladder, member):
            params = {"ladder": ladder, "member": _name(state, member)}
        case ev.PlayersMerged(from_, into):
            params = {"duplicate": _name(state, from_), "into": _name(state, into)}
        case ev.ModeratorNamed(member) | ev.ModeratorRemoved(member):
            params = {"member": _name(state, member)}
        case ev.ChallengeIssued(ladder, _, opponent):
            params = {"ladder": ladder, "opponent": _name(state, opponent)}
        case ev.ChallengeAccepted(challenge) | ev.ChallengeDeclined(challenge) \
                | ev.ChallengeWithdrawn(challenge):
            params = {"challenge": state.number_of[challenge]}
        case ev.GameReported(ladder=ladder, player_a=a, player_b=b, score_a=score_a,
                             seconds=seconds) if seconds is not None:
            # an attempt at a problem: the time it took, and the problem by its id
            params = {"game": state.number_of[stored.id], "ladder": ladder,
                      "member": _name(state, a), "problem": _name(state, b),
                      "seconds": f"{seconds:g}"}
            key = "said_attempt_solved" if score_a == 1.0 else "said_attempt_failed"
        case ev.GameReported(ladder, player_a, player_b, score_a, handicap, colour, event_name,
                             _, _, direct, partners_a=partners_a, partners_b=partners_b):
            # the winner first, as a game's line says it
            a = _side_name(state, _side_users(player_a, partners_a))
            b = _side_name(state, _side_users(player_b, partners_b))
            first, second = (b, a) if score_a == 0.0 else (a, b)
            params = {"game": state.number_of[stored.id], "ladder": ladder,
                      "a": first, "b": second,
                      "extra": tuple(part for part in (
                          Notice("part_handicap", {
                              "handicap": f"{abs(handicap):g}",
                              "member": a if handicap > 0 else b})
                          if handicap else None,
                          Notice("part_colour", {"member": a,
                                                      "colour": colour}) if colour else None,
                          Notice("part_event", {"event": event_name})
                          if event_name else None) if part is not None)}
            key = ("said_game_recorded" if direct else key) + ("_draw" if score_a == 0.5 else "")
        case ev.GameConfirmed(game) | ev.GameAutoConfirmed(game) | ev.GameDisputed(game) \
                | ev.GameWithdrawn(game) | ev.GameVoided(game) | ev.GameRestored(game, _):
            params = {"game": state.number_of[game]}
        case ev.GameCorrected(game, changes) if (
                changes.score_a is not None or changes.player_a is not None
                or changes.player_b is not None or changes.partners_a is not None
                or changes.partners_b is not None) and (
                    sides := _corrected_sides(state, stored, game)) is not None:
            # the result in words before and after, each winner first as a game's line says
            # it (issue 31), not "the first player's result to loss"
            (was_a, was_b, was), (now_a_side, now_b_side, now_a) = sides
            shown = [*((was_b, was_a) if was == 0.0 else (was_a, was_b)),
                     *((now_b_side, now_a_side) if now_a == 0.0 else (now_a_side, now_b_side))]
            key = (f"said_game_corrected_{'d' if was == 0.5 else 'w'}"
                   f"{'d' if now_a == 0.5 else 'w'}")
            params = {"game": state.number_of[game],
                      **{letter: _side_name(state, side) for letter, side in zip(
                          "abcd", shown, strict=True)},
                      "changes": (Notice("part_handicap_to",
                                         {"handicap": f"{changes.handicap:g}"})
                                  if changes.handicap is not None else "")}
        case ev.GameCorrected(game, changes):
            parts = []
            if changes.score_a is not None:
                parts.append(Notice("part_change_result",
                                    {"result": parse.result_word(changes.score_a)}))
            if changes.handicap is not None:
                parts.append(Notice("part_change_handicap",
                                    {"handicap": f"{changes.handicap:g}"}))
            if changes.player_a is not None:
                parts.append(Notice("part_change_first",
                                    {"member": _name(state, changes.player_a)}))
            if changes.player_b is not None:
                parts.append(Notice("part_change_second",
                                    {"member": _name(state, changes.player_b)}))
            params = {"game": state.number_of[game],
                      "changes": _joined("list_separator", parts) or Notice("part_nothing")}
        case ev.EventOpened(ladder, name) | ev.EventClosed(ladder, name):
            params = {"ladder": ladder, "event": name}
        case ev.ActionUndone(target):
            params = {"target": target}
        case ev.ScheduleSet(ladder, cron, timezone, channel, size):
            params = {"ladder": ladder, "cron": cron, "size": size,
                      "timezone": timezone or Notice("part_ladder_time_zone"),
                      "channel": Notice("part_into_channel", {"channel": channel})
                      if channel else ""}
        case ev.SchedulePaused(ladder) | ev.ScheduleResumed(ladder):
            params = {"ladder": ladder}
        case ev.HistoryImported(ladder, _, file):
            params = {"ladder": ladder, "file": file}
        case ev.ClaimRequested(member, claimant):
            params = {"member": _name(state, member), "claimant": _name(state, claimant)}
        case ev.ClaimApproved(claim) | ev.ClaimDeclined(claim):
            params = {"claim": claim}
        case ev.LanguageChosen(member, language):
            params = {"member": _name(state, member),
                      "language": language or Notice("part_app_language")}
        case ev.HandleChanged(member, handle):
            params = {"member": _name(state, member), "handle": handle}
        case ev.LinkCodeIssued(kind, _, member, _):  # never the code
            params = {"member": _name(state, member) if member else ""}
            if kind == "member":
                key = "said_link_code_member"
        case ev.ChatLinked(platform, chat_id, _, merge):
            params = {"platform": platform.title(), "chat": chat_id}
            if merge:
                key = "said_chat_merging"
        case ev.HistoryMerged(platform, chat_id, games):
            params = {"platform": platform.title(), "chat": chat_id, "games": games}
        case ev.ChatUnlinked(platform, chat_id):
            params = {"platform": platform.title(), "chat": chat_id}
        case ev.ChatMoved(club) | ev.ChatReturned(club):
            params = {"club": club}
        case ev.MemberLinked(member, identity, _):
            params = {"member": _name(state, member), "identity": identity}
        case ev.ChatSettingSet(chat, setting, value):
            platform, _, chat_id = chat.partition(":")
            params = {"platform": platform.title(), "chat": chat_id, "setting": setting}
            if value is None:
                key = "said_chat_setting_off"
            else:
                params["value"] = value
        case ev.NightOpened(ladder, mode, rounds):
            params = {"ladder": ladder, "mode": mode, "rounds": rounds or 0}
        case ev.NightEntered(ladder, member, status):
            params = {"ladder": ladder, "member": _name(state, member)}
            key = {"in": "said_night_entered", "out": "said_night_left"}.get(
                status, "said_night_paused")
        case ev.RoundPaired(ladder, number) | ev.RoundPublished(ladder, number):
            params = {"ladder": ladder, "round": number}
        case ev.BoardForfeited(ladder, number, board, result):
            params = {"ladder": ladder, "round": number, "board": board, "result": result}
        case ev.NightClosed(ladder):
            params = {"ladder": ladder}
        case ev.PairForbidden(ladder, first, second):
            params = {"ladder": ladder, "first": _name(state, first),
                      "second": _name(state, second)}
        case ev.BandAdded(ladder, name, minimum):
            params = {"ladder": ladder, "band": name, "minimum": minimum}
        case ev.BandRemoved(ladder, name):
            params = {"ladder": ladder, "band": name}
        case ev.BandRolesPaused(ladder) | ev.BandRolesResumed(ladder):
            params = {"ladder": ladder}
        case ev.ProblemAdded(ladder, problem):  # never its answers: /audit is read in the group
            params = {"ladder": ladder, "problem": problem}
        case ev.AttemptStarted(ladder, problem, member):
            params = {"ladder": ladder, "problem": problem, "member": _name(state, member)}
        case ev.PuzzlePosted(ladder, problem, revealed):
            parts = []
            if problem:
                parts.append(Notice("part_puzzle_shown", {"problem": problem}))
            if revealed:
                parts.append(Notice("part_solution_shown", {"problem": revealed}))
            params = {"ladder": ladder, "what": _joined("list_separator", parts)}
        case ev.LiveBoardStarted(ladder, platform, chat_id):
            params = {"ladder": ladder, "platform": platform.title(), "chat": chat_id}
        case ev.LiveBoardMoved(ladder, _, message):
            params = {"ladder": ladder, "message": message}
        case ev.LiveBoardStopped(ladder, why):
            params = {"ladder": ladder}
            if why == "failed":
                key = "said_live_board_failed"
        case ev.SeasonClosed(ladder, name):
            params = {"ladder": ladder, "season": name}
        case _:
            assert_never(event)
    return Notice(key, {"who": who, **params})
