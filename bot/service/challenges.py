"""Challenges: a member invites another to a game; the other accepts or declines before it
expires. Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from . import events as ev
from . import stakes, view
from .errors import Refusal
from .identity import Caller, Who
from .results import Notice
from .session import Decision
from .state import Challenge, expired
from .view import Club

#: open challenges one member may have issued at once: enough to line up an evening's games,
#: too few to challenge the whole club (spam); answered or expired ones free a place
MAX_OPEN_CHALLENGES = 3
#: what a member is told of a challenge no longer open, by how it was answered
ANSWERED = {"accepted": "challenge_was_accepted", "declined": "challenge_was_declined",
            "withdrawn": "challenge_was_withdrawn"}


def already_answered(challenge: Challenge) -> Refusal:
    """The refusal of an answer to a challenge that was answered already."""
    return Refusal(ANSWERED.get(challenge.status, "challenge_was_withdrawn"),
                   challenge=challenge.number)


def challenge(
    club: Club, now: datetime, caller: Caller, opponent: Who, ladder: str | None
) -> Decision[Notice]:
    """Challenge a member to a game; they accept or decline before it expires."""
    state = club.state
    me = view.me(club, caller)
    them = view.member(club, opponent)
    if them.id == me.id:
        raise Refusal("challenge_yourself")  # not "a game needs two players" (issue 31)
    lad = view.ladder(club, ladder)
    for c in state.challenges.values():
        pair = {state.member(c.challenger).id, state.member(c.opponent).id}
        if c.status == "open" and not expired(c, now) and pair == {me.id, them.id}:
            raise Refusal("challenge_exists", challenge=c.number, opponent=them.name)
    issued = sum(1 for c in state.challenges.values()
                 if c.status == "open" and not expired(c, now)
                 and state.member(c.challenger).id == me.id)
    if issued >= MAX_OPEN_CHALLENGES:
        raise Refusal("too_many_challenges", count=issued)
    expires = now + timedelta(hours=lad.settings.challenge_hours)
    event = ev.new_event(ev.ChallengeIssued(lad.name, me.user, them.user, expires.isoformat()),
                         caller.user, now)
    return [event], lambda: stakes.on_challenge(
        club, view.challenge_notice(club, club.state.last_id, "challenge_issued"), lad, me,
        them, now)


def answer(
    club: Club, now: datetime, caller: Caller, accept: bool, number: int | None
) -> Decision[Notice]:
    """Accept or decline a challenge addressed to the caller (challenge #``number``, or the
    only one)."""
    state = club.state
    me = view.me(club, caller)
    if number is not None:
        found = state.challenge_numbered(number)
        if found is None:
            raise Refusal("unknown_challenge", challenge=number)
        if state.member(found.opponent).id != me.id:
            raise Refusal("not_your_challenge", challenge=number)
    else:
        mine = [c for c in state.challenges.values()
                if state.member(c.opponent).id == me.id and c.status == "open"
                and not expired(c, now)]
        if not mine:
            lapsed = [c for c in state.challenges.values()
                      if state.member(c.opponent).id == me.id and expired(c, now)]
            if lapsed:
                raise Refusal("challenge_expired", challenge=lapsed[-1].number)
            raise Refusal("no_challenge")
        if len(mine) > 1:
            raise Refusal("which_challenge", ids=", ".join(str(c.number) for c in mine),
                          command="accept" if accept else "decline", first=mine[0].number)
        found = mine[0]
    if expired(found, now):
        raise Refusal("challenge_expired", challenge=found.number)
    if found.status != "open":
        raise already_answered(found)
    reply = ev.ChallengeAccepted if accept else ev.ChallengeDeclined
    event = ev.new_event(reply(found.id), caller.user, now)
    key = "challenge_accepted" if accept else "challenge_declined"
    return [event], lambda: view.challenge_notice(club, found.id, key)
