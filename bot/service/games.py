"""Games: reporting a result, the opponent confirming or disputing it, the reporter withdrawing
it, and a member's open business.

A member's report waits for the opponent; a moderator's counts at once. Each use case is a
decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from ratings_core.model import Game
from ratings_core.replay import Checkpoint, replay

from . import events as ev
from . import ladder_settings, nights, stakes, teams, view
from . import parsing as parse
from .challenges import already_answered
from .errors import Refusal
from .identity import Caller, Who
from .parsing import MAX_NAME
from .ratings import player_key, waits_for_event
from .results import Dispute, GameResult, Notice, Pending
from .session import Decision
from .state import Challenge, GameRecord, GameStatus, Ladder, Member, expired
from .view import Club


def report(
    club: Club, now: datetime, caller: Caller, opponent: Who, result: str, *,
    player: Who | None, handicap: str | None, colour: str | None, event: str | None,
    ladder: str | None, repeat: bool = False, mates: Sequence[Who] = (),
    opponents: Sequence[Who] = (),
) -> Decision[GameResult]:
    """Report a game: ``result`` is the first side's (the caller's, or ``player``'s when a
    moderator reports for other members). ``mates`` are the first side's further members and
    ``opponents`` the other side's beside ``opponent`` (a team game, issue 37).

    Whoever reports their own game waits for the other side to confirm it, moderators too: a
    result counts at once only when a moderator records it for other members (a club
    night's results from the score sheet). A second report of a pair while one waits is
    refused (issue 31, the per-opponent cap of issue 30); a moderator who played the same
    opponent again says ``repeat``. ``event`` without ``ladder``: the only ladder where that
    event is open (issue 31)."""
    if repeat and not view.is_moderator(club, caller):
        # only a moderator's word that it is another game, not the same one twice
        raise Refusal("repeat_moderators_only")
    if player is not None:
        view.require_moderator(club, caller)
        first = view.member(club, player)
    else:
        first = view.me(club, caller)
    side_a, side_b, team = teams.named_sides(club, first, mates, opponent, opponents)
    if not team and first.id == side_b[0].id:
        raise Refusal("not_yourself")
    score = parse.score(result)
    points = parse.handicap(handicap)
    side = parse.colour(colour)
    me = club.state.member_of_user(caller.user)
    playing = {m.id for m in (*side_a, *side_b)}
    direct = player is not None and (me is None or me.id not in playing)
    if not direct and player is not None and me is not None and me.id in {m.id for m in side_b}:
        # A moderator's own game named second (/report @alice @me win): reported as theirs,
        # from their side, so that alice (or her side) is the one who confirms it.
        side_a, side_b, score, points = side_b, side_a, 1.0 - score, -points
        side = {"white": "black", "black": "white"}.get(side or "")
    first, second = side_a[0], side_b[0]
    named = view.ladder(club, ladder if ladder or not event else _event_ladder(club, event))
    lad, rated_on, create = teams.rating_ladder(club, named, team)
    if team:
        teams.check_sides(club, lad, side_a, side_b)
    if not direct:
        _within_caps(club, lad, first, second, per_opponent=not repeat, on=rated_on)
    system = view.system_of(club, lad)
    if team and not system.rates_teams:
        raise Refusal("system_cannot_rate_teams", system=lad.settings.system)
    before = view.ratings(club, lad) if not create else replay(system, ()).final
    points = view.bounded_handicap(club, lad, points, handicap)  # rs-go: in stones
    try:
        system.check(Game("a", "b", score, now, points))
    except ValueError:
        raise Refusal("system_cannot_rate", system=lad.settings.system) from None
    tournament = None
    if event:
        found = lad.tournaments.get(event.casefold()) if not create else None
        if found is None or found.closed is not None:
            raise Refusal("no_open_event", event=event[:MAX_NAME])
        tournament = found.name
    # a game between the two players of a board of the night's round is that board's
    board = None if team else nights.board_of(club, lad, first.id, second.id)
    night, played, on = (None, None, None) if board is None else (
        board[0].id, board[1].number, board[2].number)
    if board is not None and tournament is None:  # a night rated as one event
        tournament = nights.rated_event(lad, board[0])
    created = [teams.companion_created(lad, caller.user, now)] if create else []
    new = ev.new_event(ev.GameReported(
        rated_on, first.user, second.user, score, points, side, tournament, now.isoformat(),
        reported_by=caller.user if not direct else None, direct=direct, night=night,
        round=played, board=on,
        partners_a=[m.user for m in side_a[1:]] or None,
        partners_b=[m.user for m in side_b[1:]] or None,
    ), caller.user, now)

    def answer() -> GameResult:
        game = club.state.games[club.state.last_id]
        rated = club.state.ladders[rated_on]
        if not direct:
            # unanswered, it counts by itself after the ladder's auto_confirm_hours
            counts_at = now + timedelta(hours=rated.settings.auto_confirm_hours)
            return GameResult("reported", view.line(club, game), held=tournament,
                              counts_at=counts_at.isoformat(timespec="minutes"),
                              stake=stakes.on_report(club, rated, game))
        return _counted(club, rated, game, "recorded", before)

    return [*created, new], answer


def _event_ladder(club: Club, event: str) -> str | None:
    """The ladder a report's ``event=`` means when it names no ladder: the only one where the
    event is open (None: none is, the main ladder's refusal names the event; several: ask)."""
    open_on = sorted(lad.name for lad in club.state.ladders.values()
                     if (t := lad.tournaments.get(event.casefold())) and t.closed is None)
    if len(open_on) > 1:
        raise Refusal("event_on_ladders", event=event[:MAX_NAME], ladders=", ".join(open_on),
                      first=open_on[0])
    return open_on[0] if open_on else None


def _within_caps(club: Club, ladder: Ladder, reporter: Member, opponent: Member, *,
                 per_opponent: bool = True, on: str | None = None) -> None:
    """Refuse a member's report while too many of their own wait on the ladder: each waiting
    report counts by itself unless its opponent disputes it, so without a cap one member could
    bury another in results. A refusal names the reports that wait (the per-opponent one first:
    a second report of a pair is most often the same game twice). A moderator's record of two
    other members' game counts at once and never waits, so it is never capped; a moderator's
    ``repeat`` of their own game (``per_opponent`` False) passes the per-opponent cap only.
    ``on``: the ladder the report goes to, by name, where ``ladder`` (whose caps count) is
    not made yet (a companion's first team game: its parent's)."""
    state = club.state
    waiting = [g for g in state.open_reports.values()
               if g.ladder == (on or ladder.name) and not g.voided and g.reported_by is not None
               and state.member(g.reported_by).id == reporter.id]
    against = [g for g in waiting if opponent.id in view.player_ids(club, g)]
    caps = [(waiting, ladder.settings.open_reports, "open_reports_full")]
    if per_opponent:
        caps.insert(0, (against, ladder_settings.open_reports_per_opponent(ladder.settings),
                        "open_reports_against"))
    for games, limit, key in caps:
        if len(games) >= limit:
            numbers = sorted(g.number for g in games)
            raise Refusal(key + ("_one" if len(numbers) == 1 else ""), count=len(numbers),
                          games=", ".join(f"#{n}" for n in numbers), first=numbers[0],
                          opponent=opponent.name)


def confirm(
    club: Club, now: datetime, caller: Caller, number: int | None
) -> Decision[GameResult]:
    """The opponent confirms a reported result; it counts from now."""
    me = view.me(club, caller)
    game = _pending_for(club, me, number, as_reporter=False, command="confirm")
    if game.status is GameStatus.DISPUTED:
        raise Refusal("game_disputed", game=game.number)
    ladder = club.state.ladders[game.ladder]
    before = view.ratings(club, ladder)
    event = ev.new_event(ev.GameConfirmed(game.id), caller.user, now)

    return [event], lambda: _counted(club, ladder, game, "confirmed", before)


def _counted(
    club: Club, ladder: Ladder, game: GameRecord, key: str, before: Checkpoint
) -> GameResult:
    """The answer when a game counts: the players' rating changes, what the ladder announces,
    and a retired player who played being back; or, in an open event, that it waits for the
    event to close (its games are rated together then)."""
    line = view.line(club, game)
    if waits_for_event(ladder, game):
        return GameResult(key, line, held=game.event)
    after = view.ratings(club, ladder)
    players = list({m.id: m for m in map(club.state.member, game.players)}.values())
    back = [p.name for p in players if _retired(before, p) and not _retired(after, p)]
    return GameResult(key, line, view.changes(club, ladder, before, after,
                                              [p.id for p in players]),
                      view.announce(club, ladder, before, after, [game]), back=back)


def _retired(ratings: Checkpoint, member: Member) -> bool:
    state = ratings.state(player_key(member.id))
    return state is not None and state.status != "active"


def dispute(
    club: Club, now: datetime, caller: Caller, number: int | None, reason: str
) -> Decision[GameResult]:
    """The opponent disputes a reported result; a moderator settles it."""
    me = view.me(club, caller)
    why = view.reason(reason)
    game = _pending_for(club, me, number, as_reporter=False, command="dispute")
    if game.status is GameStatus.DISPUTED:
        raise Refusal("game_disputed", game=game.number)
    event = ev.new_event(ev.GameDisputed(game.id), caller.user, now, why)
    # The club's named moderators, by name: they find it in their /pending too.
    moderators = sorted((club.state.member(m).name for m in club.state.moderators),
                        key=str.casefold)
    return [event], lambda: GameResult("disputed", view.line(club, game),
                                       moderators=moderators)


def withdraw(
    club: Club, now: datetime, caller: Caller, number: int | None, kind: str | None = None
) -> Decision[GameResult | Notice]:
    """A member takes back their own report before it counts, or their own open challenge
    (issue 31). Games and challenges are numbered apart, so the rule is: ``kind`` "game" or
    "challenge" says which (``/withdraw challenge 2``); else ``/withdraw N`` is the caller's
    waiting report #N or their open challenge #N, whichever of the two is theirs (both: a
    refusal naming both forms), and ``/withdraw`` their only waiting report, or with none
    waiting their only open challenge."""
    me = view.me(club, caller)
    state = club.state
    challenges = [c for c in state.challenges.values()
                  if c.status == "open" and not expired(c, now)
                  and state.member(c.challenger).id == me.id]
    if kind == "challenge":
        return _withdraw_challenge(club, now, caller, me, number, challenges)
    if kind is None and number is None and not _own_reports(club, me) and challenges:
        return _withdraw_challenge(club, now, caller, me, None, challenges)
    if kind is None and number is not None:
        report = state.game_numbered(number)
        mine = (report is not None and report.reported_by == me.id
                and report.status in (GameStatus.PENDING, GameStatus.DISPUTED))
        challenge = any(c.number == number for c in challenges)
        if mine and challenge:
            raise Refusal("which_withdraw", number=number)
        if challenge:
            return _withdraw_challenge(club, now, caller, me, number, challenges)
    game = _pending_for(club, me, number, as_reporter=True, command="withdraw")
    event = ev.new_event(ev.GameWithdrawn(game.id), caller.user, now)
    return [event], lambda: GameResult("withdrawn", view.line(club, game))


def _own_reports(club: Club, me: Member) -> list[GameRecord]:
    """The caller's own reports still waiting (pending or disputed, not void)."""
    return [g for g in club.state.open_reports.values()
            if g.reported_by == me.id and not g.voided
            and g.status in (GameStatus.PENDING, GameStatus.DISPUTED)]


def _withdraw_challenge(
    club: Club, now: datetime, caller: Caller, me: Member, number: int | None,
    mine: list[Challenge],
) -> Decision[GameResult | Notice]:
    """The challenger takes back challenge #``number`` (or their only open one)."""
    if number is None:
        if not mine:
            raise Refusal("no_challenge_to_withdraw")
        if len(mine) > 1:
            raise Refusal("which_challenge", ids=", ".join(str(c.number) for c in mine),
                          command="withdraw challenge", first=mine[0].number)
        found = mine[0]
    else:
        challenge = club.state.challenge_numbered(number)
        if challenge is None:
            raise Refusal("unknown_challenge", challenge=number)
        if club.state.member(challenge.challenger).id != me.id:
            raise Refusal("not_your_challenge_to_withdraw", challenge=number)
        if expired(challenge, now):
            raise Refusal("challenge_expired", challenge=number)
        if challenge.status != "open":
            raise already_answered(challenge)
        found = challenge
    event = ev.new_event(ev.ChallengeWithdrawn(found.id), caller.user, now)
    return [event], lambda: view.challenge_notice(club, found.id, "challenge_withdrawn")


def pending(club: Club, now: datetime, caller: Caller) -> Pending:
    """The caller's open business: reports to answer, own reports waiting, challenges; for a
    moderator (registered or not), every disputed game with its reason, oldest first."""
    state = club.state
    disputes: list[Dispute] = []
    claims: list[Notice] = []
    if view.is_moderator(club, caller):
        disputes = [Dispute(view.line(club, g), g.dispute or "")
                    for g in state.open_reports.values()
                    if g.status is GameStatus.DISPUTED and not g.voided]  # void settles it
        # A filed /claim waits for a moderator too (issue 31), oldest first.
        claims = [Notice("pending_claim", {"member": state.member(c.claimant).name,
                                           "name": state.member(c.record).name})
                  for c in state.claims.values() if c.status == "open"]
        if state.member_of_user(caller.user) is None:
            return Pending([], [], [], disputes, claims)
    me = view.me(club, caller)
    to_confirm, waiting = [], []
    for game in state.open_reports.values():
        if game.voided:  # waits for nobody until restored (issue 31)
            continue
        if _answers(club, game, me) and game.status is GameStatus.PENDING:
            to_confirm.append(view.line(club, game))
        elif game.reported_by == me.id:
            waiting.append(view.line(club, game))
    challenges = [
        view.challenge_notice(club, c.id)
        for c in state.challenges.values()
        if c.status == "open" and not expired(c, now)
        and me.id in (state.member(c.challenger).id, state.member(c.opponent).id)
    ]
    return Pending(to_confirm, waiting, challenges, disputes, claims)


def _own_report(club: Club, game: GameRecord) -> Refusal:
    """The reporter's own /confirm or /dispute: the opponent answers a report (issue 31: the
    refusal said "no report waiting for you", as if there were none)."""
    # player_b is the one who answers a report (see _pending_for)
    return Refusal("own_report", game=game.number, opponent=club.state.member(game.player_b).name)


def _answers(club: Club, game: GameRecord, me: Member) -> bool:
    """Whether ``me`` answers the report ``game``: any one member of the side that did not
    report it (the reporter's side is side a; issue 37), never the reporter."""
    return game.reported_by != me.id and me.id in view.side_ids(club, game.side_b)


def _pending_for(
    club: Club, me: Member, number: int | None, *, as_reporter: bool, command: str
) -> GameRecord:
    """The game a confirm, dispute or withdraw (``command``) is about: game #``number``, or
    the only one (several: a refusal showing the command with the first of them)."""
    state = club.state
    if number is not None:
        game = view.game(club, number)
        if me.id not in view.player_ids(club, game):
            raise Refusal("not_your_game", game=number)
        mine = game.reported_by == me.id if as_reporter else _answers(club, game, me)
        if (not mine and not as_reporter and game.reported_by == me.id
                and game.status is GameStatus.PENDING and not game.voided):
            raise _own_report(club, game)
        if not mine:
            raise Refusal("not_yours_to_answer" if not as_reporter else "not_your_report",
                          game=number)
        if game.status is GameStatus.CONFIRMED:
            raise Refusal("already_confirmed", game=number)
        if game.status is GameStatus.WITHDRAWN:
            raise Refusal("game_withdrawn", game=number)
        if game.voided and not as_reporter:
            # a void report waits for nobody (issue 31): a moderator's /restore puts it back
            raise Refusal("game_voided", game=number)
        return game
    candidates = [
        g
        for g in state.open_reports.values()
        if not g.voided and g.status in ((GameStatus.PENDING, GameStatus.DISPUTED) if as_reporter
                        else (GameStatus.PENDING,))
        and (g.reported_by == me.id if as_reporter else _answers(club, g, me))
    ]
    if not candidates:
        own = [g for g in state.open_reports.values() if g.reported_by == me.id
               and not g.voided and g.status is GameStatus.PENDING]
        if own and not as_reporter:
            raise _own_report(club, own[0])
        raise Refusal("nothing_pending")
    if len(candidates) > 1:
        raise Refusal("which_game", ids=", ".join(str(g.number) for g in candidates),
                      command=command, first=candidates[0].number)
    return candidates[0]
