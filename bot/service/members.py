"""Members: joining the club, what a member's record shows, and the moderators' changes to who
is who (merging a duplicate record, retiring and bringing back, naming club moderators).

Each use case is a decision over the club's state (:mod:`bot.service.session`): it returns the
events to append and the answer, or raises a :class:`Refusal`; nothing here reads a clock or a
database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from . import bands, heavy, ladder_settings, moderation, timeline, view
from . import events as ev
from . import parsing as parse
from .errors import Refusal
from .identity import Caller, UserRef, Who, valid_handle
from .ratings import player_key
from .results import (
    HeadToHead,
    History,
    Notice,
    Preview,
    Profile,
    RatingHistory,
    RatingPoint,
    TeamStanding,
)
from .session import Decision
from .state import DEFAULT_LADDER, Claim, Ladder, Member
from .view import Club


def register(
    club: Club, now: datetime, caller: Caller, name: str | None, birth_date: str | None
) -> Decision[Notice]:
    """Join the club (and its main ladder) under a display name."""
    existing = club.state.member_of_user(caller.user)
    if existing is not None:
        raise Refusal("already_registered", name=existing.name)
    display = parse.display_name(name if name else caller.name)
    shown, handled = club.state.members_called(display)
    if shown:
        imported = [m for m in shown if m.user.startswith(IMPORTED)]
        if imported:
            # An imported player's real person: name the way to their record (issue 31).
            raise Refusal("name_taken_imported", name=imported[0].name)
        raise Refusal("name_taken", name=display)
    if handled:
        # Another member's username: a typed @name would mean them, so nobody else is called so.
        raise Refusal("name_is_username", name=display, member=handled[0].name)
    # Nor a name that only looks like a member's (a Cyrillic а in "alice"): new names only, the
    # names members already have stay as they are.
    similar = club.state.member_like(display)
    if similar is not None:
        raise Refusal("name_like", name=display, member=similar.name)
    born = parse.birth_date(birth_date, now) if birth_date else None
    event = ev.new_event(ev.MemberRegistered(
        caller.user, display, DEFAULT_LADDER, born.isoformat() if born else None,
        # Members are also found by their platform username: a valid one only (a full name, or
        # a number, is no handle); kept even when it is the display name, so that the session
        # finds it current (and writes no change for it).
        handle=caller.handle if valid_handle(caller.platform, caller.handle) else None,
        # in a club of several chats, where the member is asked to confirm results (issue 35)
        chat=f"{caller.platform}:{caller.chat_id}" if club.state.linked_chats else None,
    ), caller.user, now)
    return [event], lambda: Notice("registered", {"name": display, "ladder": DEFAULT_LADDER})


# -- a member's record ----------------------------------------------------------------------------


def profile(
    club: Club, caller: Caller, who: Who | None, ladder: str | None
) -> Profile | Callable[[heavy.Deadline], Profile]:
    """Rating, rank, games, W/D/L, peak and the last five results of a member.

    The peak is the highest established (not provisional) rating the member reached, the one
    /chart marks, so that both say the same (``None``: never established, or no games). When
    the current rating is established and the highest ever, it is read from the ratings;
    otherwise it takes the member's trajectory, a replay: the answer is then work for a worker
    thread, on a frozen copy of the ladder's ratings, like a chart's."""
    member = view.member_or_me(club, caller, who)
    lad = view.ladder(club, ladder)
    shown = replace(view.profile(club, lad, member), team=_team_standing(club, lad, member))
    band = bands.band_of(club, lad, member)
    if band is not None:  # issue 38
        shown = replace(shown, band=band.name)
    state = view.standing(club, lad, member)
    if shown.games == 0 or state is None:
        return shown
    system = view.system_of(club, lad)
    if (state.peak is not None and state.rating >= state.peak
            and not system.is_provisional(state)):
        return replace(shown, peak=state.rating)
    frozen = timeline.freeze(club.ratings[lad.name], club.state)
    key = player_key(member.id)

    def peaked(deadline: heavy.Deadline) -> Profile:
        best: float | None = None
        for _, point in timeline.trajectory(frozen, key, deadline.check):
            if not system.is_provisional(point) and (best is None or point.rating > best):
                best = point.rating
        return replace(shown, peak=best)

    return peaked


def _team_standing(club: Club, ladder: Ladder, member: Member) -> TeamStanding | None:
    """The member's rating on the ladder's companion and their latest team game there (issue
    37), when they have played one."""
    teams = club.state.companion(ladder)
    state = None if teams is None else view.standing(club, teams, member)
    if teams is None or state is None or not state.games:
        return None
    system = view.system_of(club, teams)
    games = view.games_of(club, teams, member)
    return TeamStanding(teams.name, state.rating, system.is_provisional(state),
                        system.shown_deviation(state), state.games,
                        view.line(club, games[-1][0]) if games else None)


def history(
    club: Club, caller: Caller, who: Who | None, ladder: str | None, limit: int
) -> History:
    """A member's latest games, newest first."""
    member = view.member_or_me(club, caller, who)
    lad = view.ladder(club, ladder)
    # a ladder's team games, rated on its companion, are the member's games too (issue 37)
    games = view.games_of(club, lad, member, companion=True)[::-1][:limit]
    return History(member.name, lad.name, [view.line(club, g) for g, _ in games])


def head_to_head(club: Club, caller: Caller, other: Who, ladder: str | None,
                 partners: bool = False) -> HeadToHead:
    """The caller's record against another member, or beside them (``partners``, issue 37),
    the ladder's team games among its singles."""
    me = view.me(club, caller)
    them = view.member(club, other)
    if them.id == me.id:
        raise Refusal("h2h_yourself")  # nothing to compare, rather than "a game needs..." (31)
    lad = view.ladder(club, ladder)
    games = view.games_of(club, lad, me, them, partner=partners, companion=True)
    wins = sum(1 for _, s in games if s == 1.0)
    losses = sum(1 for _, s in games if s == 0.0)
    return HeadToHead(me.name, them.name, lad.name, wins, len(games) - wins - losses, losses,
                      [view.line(club, g) for g, _ in games[::-1][:10]], partners=partners)


def rating_history(
    club: Club, caller: Caller, who: Who | None, ladder: str | None
) -> Callable[[heavy.Deadline], RatingHistory]:
    """A member's rating after every step of the ladder that concerned them (a chart), to be
    worked out in a worker thread from a frozen copy of the ladder's ratings."""
    member = view.member_or_me(club, caller, who)
    lad = view.ladder(club, ladder)
    view.ratings(club, lad)
    frozen = timeline.freeze(club.ratings[lad.name], club.state)
    system, key = frozen.system, player_key(member.id)
    name, ladder_name = member.name, lad.name

    def points(deadline: heavy.Deadline) -> RatingHistory:
        return RatingHistory(name, ladder_name, [
            RatingPoint(at.isoformat(), state.rating, system.is_provisional(state),
                        system.shown_deviation(state), state.games)
            for at, state in timeline.trajectory(frozen, key, deadline.check)
        ])

    return points


# -- moderators' changes ---------------------------------------------------------------------------


def merge(
    club: Club, now: datetime, caller: Caller, duplicate: Who, into: Who, reason: str, *,
    apply: bool = False, record: int | None = None,
) -> Decision[Preview]:
    """Fold a duplicate member record into the real one: its games become theirs, and the games
    between the two stop counting. Without ``apply`` nothing is written and the answer previews
    the games dropped and every rating that would change. ``record``: an Apply's, the member id
    of the duplicate its preview was of; both records must still be records of their own."""
    preview, merged = _merging(club, now, caller, duplicate, into, reason, record)
    if not apply:
        return [], lambda: preview
    event = ev.new_event(merged, caller.user, now, view.reason(reason))
    # The numbers the preview showed: the same log, re-rated (nothing else ran in between,
    # under the club's lock).
    return [event], lambda: replace(preview, applied=True)


def preview_merge(
    club: Club, now: datetime, caller: Caller, duplicate: Who, into: Who, reason: str
) -> tuple[Preview, ev.PlayersMerged]:
    """:func:`merge`'s preview, and the merge it previews (the two records by user: what is
    kept for an Apply)."""
    return _merging(club, now, caller, duplicate, into, reason, None)


def merge_cancelled(club: Club, record: int, into: str) -> Notice:
    """What cancelling the preview of merging member ``record`` into user ``into`` says: the
    records by their own names."""
    state = club.state
    # Only a /merge keeps a merge, so both records exist (records are never removed).
    return Notice("merge_cancelled", {"from": state.members[record].name,
                                      "into": state.members[state.by_user[into]].name})


def _merging(
    club: Club, now: datetime, caller: Caller, duplicate: Who, into: Who, reason: str,
    record: int | None,
) -> tuple[Preview, ev.PlayersMerged]:
    view.require_moderator(club, caller)
    view.reason(reason)
    gone, kept = view.member(club, duplicate), view.member(club, into)
    state = club.state
    if record is not None:
        # An Apply: a record merged away (or claimed) since its preview is refused as it would
        # be if named again.
        if gone.id != record:
            raise Refusal("unknown_member", name=state.members[record].name)
        own = state.by_user.get(into.user) if isinstance(into, UserRef) else None
        if own is not None and own != kept.id:
            raise Refusal("unknown_member", name=state.members[own].name)
    if gone.id == kept.id:
        raise Refusal("same_member", name=kept.name)
    if (gone.id in state.moderators) != (kept.id in state.moderators):
        # The duplicate's user acts as the record it is merged into: merging would name a
        # moderator, or remove one, which only the platform's moderators may.
        view.require_platform_moderator(caller)
    # The games between the two records: one person's games with themselves, which the
    # ratings skip once the records are one (ratings._Derivation.game), and /history too.
    pair = {gone.id, kept.id}
    dropped = sorted(g.number for g in state.games.values()
                     if g.counts and pair <= view.player_ids(club, g))
    merged = ev.PlayersMerged(gone.user, kept.user)
    changes = moderation.moved(moderation.supposing(club, merged, caller.user, now),
                               moderation.everyone(club), named=club)
    sentence = Notice("merged", {"from": gone.name, "into": kept.name,
                                 "games": ", ".join(f"#{n}" for n in dropped),
                                 "dropped": len(dropped)})
    return Preview(gone.id, changes, applied=False, merge=sentence), merged


def set_membership(
    club: Club, now: datetime, caller: Caller, who: Who, retire: bool, ladder: str | None,
    reason: str,
) -> Decision[Notice]:
    """Retire a player (their deficit goes to the newcomers' pool) or bring them back."""
    view.require_moderator(club, caller)
    why = view.reason(reason)
    member = view.member(club, who)
    lad = view.ladder(club, ladder)
    state = view.standing(club, lad, member)
    if state is None:
        raise Refusal("not_in_ladder", name=member.name, ladder=lad.name)
    active = state.status == "active"
    if retire and not active:
        raise Refusal("already_retired", name=member.name)
    if not retire and active:
        raise Refusal("not_retired", name=member.name)
    change = ev.PlayerRetired if retire else ev.PlayerReturned
    event = ev.new_event(change(lad.name, member.user), caller.user, now, why)
    key = "retired" if retire else "returned"
    return [event], lambda: Notice(key, {"name": member.name, "ladder": lad.name})


def choose_language(club: Club, now: datetime, caller: Caller, text: str
                    ) -> Decision[Notice]:
    """``/set mylanguage LANG``: what only the member sees (their private chat, answers only
    they see) is written in LANG from now on; ``off``: in their app's language again."""
    me = view.me(club, caller)
    value = text.strip().casefold()
    language = None if value in ("off", "none") else value
    if language is not None and language not in ladder_settings.LANGUAGES:
        raise Refusal("bad_language", text=text[:20],
                      languages=", ".join(ladder_settings.LANGUAGES))
    event = ev.new_event(ev.LanguageChosen(me.user, language), caller.user, now)
    return [event], lambda: (Notice("my_language_set", {"language": language}) if language
                             else Notice("my_language_off"))


def name_moderator(
    club: Club, now: datetime, caller: Caller, who: Who, named: bool
) -> Decision[Notice]:
    """The platform's moderators name a member moderator of the club (or take it back)."""
    view.require_platform_moderator(caller)
    member = view.member(club, who)
    if named == (member.id in club.state.moderators):
        raise Refusal("already_moderator" if named else "not_moderator", name=member.name)
    change = ev.ModeratorNamed if named else ev.ModeratorRemoved
    event = ev.new_event(change(member.user), caller.user, now)
    key = "moderator_named" if named else "moderator_removed"
    return [event], lambda: Notice(key, {"name": member.name})


# -- claiming an imported record ----------------------------------------------------------------

#: the user key of a record ``clubrating import`` registered (:mod:`bot.service.history_io`)
IMPORTED = "import:"


def claim(
    caller: Caller, verb: str, target: Who | int
) -> Callable[[Club, datetime], Decision[Notice]]:
    """``/claim NAME`` (``verb`` "request"): a registered member without games asks to be the
    imported player NAME; a moderator answers ("approve" or "decline", ``target`` the name or
    the claim's number from a button). On approval the claimant's platform user becomes the
    record's user: its games and ratings are theirs, and their own empty record is folded into
    it (:class:`~bot.service.events.ClaimApproved`, which ``/undo`` takes back). No rating
    changes. Only a member who is registered can claim: the claimant is a record of the club
    before and, after an undo, again."""

    def decide(club: Club, now: datetime) -> Decision[Notice]:
        if verb == "request":
            return _request_claim(club, now, caller, str(target) if isinstance(target, int)
                                  else target)
        return _answer_claim(club, now, caller, verb == "approve", target)

    return decide


def _request_claim(club: Club, now: datetime, caller: Caller, name: Who) -> Decision[Notice]:
    me = view.me(club, caller)
    record = view.member(club, name)
    claims = club.state.claims.values()
    if any(c.record == record.id and c.status == "approved" for c in claims):
        raise Refusal("claim_taken", name=record.name)
    if not record.user.startswith(IMPORTED):
        raise Refusal("claim_not_imported", name=record.name)
    waiting = next((c for c in claims if c.status == "open"
                    and (c.record == record.id or c.claimant == me.id)), None)
    if waiting is not None:
        raise Refusal("claim_waiting", name=club.state.member(waiting.record).name,
                      member=club.state.member(waiting.claimant).name)
    if view.games_count(club, me):
        raise Refusal("claim_has_games", member=me.name, name=record.name)
    event = ev.new_event(ev.ClaimRequested(record.user, me.user), caller.user, now)
    games = view.games_count(club, record)
    return [event], lambda: Notice("claim_requested", {
        "claim": club.state.last_id, "member": me.name, "name": record.name, "games": games})


def _answer_claim(club: Club, now: datetime, caller: Caller, approve: bool,
                  target: Who | int) -> Decision[Notice]:
    view.require_moderator(club, caller)
    state = club.state
    found: Claim | None
    if isinstance(target, int):
        found = state.claims.get(target)
        shown = f"#{target}" if found is None else state.member(found.record).name
    else:
        record = view.member(club, target)
        found = next((c for c in state.claims.values()
                      if c.record == record.id and c.status == "open"), None)
        shown = record.name
    if found is None or found.status != "open":
        raise Refusal("no_claim", name=shown)
    record_name = state.members[found.record].name
    claimant = state.member(found.claimant)
    change = ev.ClaimApproved if approve else ev.ClaimDeclined
    event = ev.new_event(change(found.id), caller.user, now)
    key = "claim_approved" if approve else "claim_declined"
    return [event], lambda: Notice(key, {"member": claimant.name, "name": record_name})
