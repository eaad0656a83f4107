"""Club nights (issue 36): a moderator opens a night on a ladder, members check in, each round
is paired (a preview), published and played, and the standings follow the boards' results.

Everything is an event of the club's log (:mod:`bot.service.events`, ``night_*``,
``round_*``, ``board_forfeited``), and a paired round is stored whole: a replay never pairs
again, so it gives the same pairings. The pairing itself is :mod:`bot.pairing`'s, on a
:class:`~bot.pairing.model.Night` made here from the ladder's state (:func:`night_of`).

A game reported between the two players of a board of the published round, while the board has
no result, is that board's (:func:`board_of`); a moderator's ``/result`` records one at once.
A pairing bye or a forfeit is never rated.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime

from bot import pairing
from bot.pairing import errors, tiebreaks
from bot.pairing.errors import NoPairing
from bot.pairing.model import Absence, Board, Mode, Night, Player, Result, Round, Settings, Status
from bot.storage.repository import JsonValue

from . import events as ev
from . import members, view
from . import parsing as parse
from .errors import Refusal
from .identity import Caller, UserRef, Who
from .ratings import player_key
from .results import (
    BoardLine,
    GameResult,
    NightRoundShown,
    NightStanding,
    NightStandings,
    Notice,
)
from .session import Decision
from .state import ClubNight, GameRecord, GameStatus, Ladder, NightBoard, NightRound
from .view import Club

#: what ``/result`` reads, as typed, and the board's result it means (``=`` a draw)
RESULTS = {"1-0": Result.FIRST_WINS, "0-1": Result.SECOND_WINS, "½-½": Result.DRAW,
           "1/2-1/2": Result.DRAW, "=": Result.DRAW, "+-": Result.FIRST_FORFEIT_WIN,
           "-+": Result.SECOND_FORFEIT_WIN}
#: the most rounds a night may have
MAX_ROUNDS = 30


# -- opening and closing ---------------------------------------------------------------------


def ladder_of(club: Club, typed: str | None) -> str | None:
    """The ladder a night's command means: the one named, else the only ladder with an open
    night, else the main one."""
    if typed is not None:
        return typed
    open_on = [lad.name for lad in club.state.ladders.values() if lad.night is not None]
    return open_on[0] if len(open_on) == 1 else None


def ladder_of_night(club: Club, night: int) -> str:
    """The ladder whose open night is ``night`` (a check-in button's); refused once it closed."""
    for lad in club.state.ladders.values():
        if lad.night is not None and lad.night.id == night:
            return lad.name
    raise Refusal("night_closed")


def open_night(club: Club, now: datetime, caller: Caller, mode: str | None, rounds: int | None,
               ladder: str | None) -> Decision[Notice]:
    """A moderator opens the ladder's night: ``swiss`` unless another mode is named (``mcmahon``
    on a ladder whose system uses handicaps); every mode but ``roundrobin`` needs ``rounds``
    (ERRATA)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    if lad.night is not None:
        raise Refusal("night_open_already", ladder=lad.name)
    chosen = _mode(club, lad, mode)
    if rounds is None and chosen is not Mode.ROUNDROBIN:
        raise Refusal("night_rounds_needed", mode=chosen.value)
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise Refusal("night_bad_rounds", limit=MAX_ROUNDS)
    if chosen is Mode.FIDE_DUTCH:
        from bot.pairing import dutch

        if not dutch.available():
            raise Refusal("night_fide_missing")
    opened = [ev.new_event(ev.NightOpened(lad.name, chosen.value, rounds), caller.user, now)]
    if view.system_of(club, lad).rates_competitions:
        name = event_name(lad, len(lad.nights) + 1)
        if name.casefold() in lad.tournaments:
            raise Refusal("event_exists", event=name)
        opened.append(ev.new_event(ev.EventOpened(lad.name, name), caller.user, now))
    return opened, lambda: Notice("night_opened" if rounds else "night_opened_everyone", {
        "ladder": lad.name, "mode": chosen.value, "rounds": rounds or 0,
        "night": lad.nights[-1].id})


def event_name(ladder: Ladder, number: int) -> str:
    """The rating event a night is on a ladder whose system rates by event: ``night-N``."""
    return f"night-{number}"


def rated_event(ladder: Ladder, night: ClubNight) -> str | None:
    """The event a night's games are rated in, on a ladder whose system rates a competition as
    one period (``rates_competitions``: the Quebec rules, the Russian go rules); None: each
    game on its own. The night opened it (:func:`open_night`)."""
    name = event_name(ladder, ladder.nights.index(night) + 1)
    found = ladder.tournaments.get(name.casefold())
    return None if found is None or found.closed is not None else found.name


def _mode(club: Club, ladder: Ladder, typed: str | None) -> Mode:
    if typed is None:
        return Mode.MCMAHON if _stones(club, ladder) is not None else Mode.SWISS
    try:
        return Mode(typed.casefold())
    except ValueError:
        raise Refusal("night_bad_mode", mode=typed[:20],
                      modes=", ".join(m.value for m in Mode)) from None


def _stones(club: Club, ladder: Ladder) -> float | None:
    """The ladder's handicap limit in stones, where its system counts handicaps so (go): such
    a ladder's nights pair by McMahon, without chess's colours."""
    return view.system_of(club, ladder).max_handicap


def close_night(club: Club, now: datetime, caller: Caller, ladder: str | None
                ) -> Decision[NightStandings]:
    """A moderator closes the ladder's night: its final standings."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    night = _open(lad)
    final = standings_of(club, lad, night, final=True)
    closed = [ev.new_event(ev.NightClosed(lad.name), caller.user, now)]
    event = rated_event(lad, night)
    if event is not None:  # its games are rated now, together
        closed.append(ev.new_event(ev.EventClosed(lad.name, event), caller.user, now))
    return closed, lambda: final


def _open(ladder: Ladder) -> ClubNight:
    night = ladder.night
    if night is None:
        raise Refusal("night_none", ladder=ladder.name)
    return night


# -- checking in -----------------------------------------------------------------------------


def enter(club: Club, now: datetime, caller: Caller, status: str, who: Who | None,
          ladder: str | None) -> Decision[Notice]:
    """``/in``, ``/out``, ``/pause`` (the caller's own, or a moderator's for ``who``). A
    newcomer who checks in is registered first. Joining is refused once half the rounds have
    started (a round robin's: once its first has), and after the last round."""
    lad = view.ladder(club, ladder)
    night = _open(lad)
    if who is not None:
        view.require_moderator(club, caller)
    found = view.member(club, who) if who is not None else club.state.member_of_user(
        caller.user)
    if found is None:  # a newcomer checking in registers on the way
        if status != "in":
            raise Refusal("not_registered")
        registered, _ = members.register(club, now, caller, None, None)
        name = str(registered[0].data["name"])
        return [*registered, ev.new_event(ev.NightEntered(lad.name, caller.user, "in"),
                                          caller.user, now)], lambda: Notice(
            "night_in", {"name": name})
    member = found
    current = night.entrants.get(member.id)
    started = len(night.published)
    if status == "in":
        if current == "in" and night.paused.get(member.id) is None:
            raise Refusal("night_in_already", name=member.name)
        if current == "out":  # /out is for the night: never paired again
            raise Refusal("night_left", name=member.name)
        if current is None:
            _may_join(night, started)
    elif current is None or current == "out":
        raise Refusal("night_not_in", name=member.name)
    event = ev.NightEntered(lad.name, member.user, status)
    return [ev.new_event(event, caller.user, now)], lambda: Notice(
        f"night_{status}", {"name": member.name})


def _may_join(night: ClubNight, started: int) -> None:
    """A late player may join until half the rounds have started (a round robin: before its
    first), never after the last."""
    if night.mode == Mode.ROUNDROBIN and started:
        raise Refusal("night_roundrobin_late")
    total = night.rounds_wanted
    if total is not None and started >= total:
        raise Refusal("night_over")
    if total is not None and started * 2 > total:
        raise Refusal("night_too_late", rounds=started)


# -- pairing ---------------------------------------------------------------------------------


def pair(club: Club, now: datetime, caller: Caller, ladder: str | None
         ) -> Decision[NightRoundShown]:
    """A moderator's ``/pair``: the next round, previewed (stored as paired, not published). A
    round is paired once the previous one has every result; a round paired and not published
    is shown again rather than paired twice."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    night = _open(lad)
    if night.pending is not None:
        raise Refusal("night_paired_already", round=night.pending.number)
    if night.published:
        playing = [b.number for b in night.published[-1].boards if _result(club, b) is None]
        if playing:
            raise Refusal("night_boards_playing", boards=", ".join(map(str, playing)),
                          count=len(playing))
    total = _total_rounds(night)
    if total is not None and len(night.published) >= total:
        raise Refusal("night_over")
    event = _paired(club, lad, night)
    return [ev.new_event(event, caller.user, now)], lambda: round_shown(
        club, lad, night, night.rounds[-1])


def _total_rounds(night: ClubNight) -> int | None:
    if night.rounds_wanted is not None:
        return night.rounds_wanted
    if night.mode == Mode.ROUNDROBIN and night.numbers:
        count = len(night.numbers)
        return count - 1 if count % 2 == 0 else count
    return None


def _paired(club: Club, ladder: Ladder, night: ClubNight, *,
            forbid: frozenset[int] | None = None, bye: int | None = None) -> ev.RoundPaired:
    """The next round as the night's mode pairs it, as the event that stores it; with a pair
    never to meet (``forbid``: a /forbid) or a player given the bye (``bye``: a /bye) besides
    what the night holds."""
    numbers = list(night.numbers)
    if not numbers:  # the first round: by rating, highest first, then name
        ratings = _ratings(club, ladder)
        state = club.state
        numbers = sorted(night.entrants, key=lambda m: (-ratings.get(m, 0.0),
                                                        state.members[m].name.casefold()))
    numbers += [m for m in night.entrants if m not in numbers]  # late joiners, in order
    seen = night_of(club, ladder, night, numbers)
    if forbid is not None:
        seen = dataclasses.replace(seen, forbidden=seen.forbidden | {
            frozenset(player_key(m) for m in forbid)})
    if bye is not None:  # paired without them: the bye is theirs
        seen = dataclasses.replace(seen, players=tuple(
            dataclasses.replace(p, status=Status.PAUSED) if p.key == player_key(bye) else p
            for p in seen.players))
    if len(pairing.model.eligible(seen)) < 2:
        raise Refusal("night_too_few")
    try:
        proposed = pairing.pair(seen)
    except NoPairing as none:
        raise Refusal({errors.TOO_FEW_PLAYERS: "night_too_few",
                       errors.COMPLETE: "night_over"}.get(none.reason, "night_no_pairing")
                      ) from None
    user = {player_key(m): club.state.members[m].user for m in numbers}
    boards: list[list[JsonValue]] = [[user[b.first], user[b.second], b.handicap]
                                     for b in proposed.boards]
    given = proposed.bye if bye is None else player_key(bye)
    return ev.RoundPaired(
        ladder.name, len(night.published) + 1, boards, None if given is None else user[given],
        {str(k): v for k, v in proposed.reasons.items()},
        [club.state.members[m].user for m in numbers], proposed.rules)


def _preview(club: Club, caller: Caller, ladder: str | None) -> tuple[Ladder, ClubNight,
                                                                       NightRound]:
    """A moderator's change of the round paired and not yet published."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    night = _open(lad)
    if night.pending is None:
        raise Refusal("night_nothing_paired")
    return lad, night, night.pending


def swap(club: Club, now: datetime, caller: Caller, first: Who, second: Who,
         ladder: str | None) -> Decision[NightRoundShown]:
    """``/swap @a @b``: the two players change places in the paired round (a board's side, or
    the bye); the reasons of the boards they leave go."""
    lad, night, paired = _preview(club, caller, ladder)
    a, b = view.member(club, first).id, view.member(club, second).id
    seats = {m: n for n, board in enumerate(paired.boards, 1)
             for m in (board.first, board.second)}
    if paired.bye is not None:
        seats[paired.bye] = 0
    for member in (a, b):
        if member not in seats:
            raise Refusal("night_not_in_round", name=club.state.members[member].name)
    if a == b:
        raise Refusal("not_yourself")
    other = {a: b, b: a}
    users = club.state.members
    boards: list[list[JsonValue]] = [
        [users[other.get(x.first, x.first)].user, users[other.get(x.second, x.second)].user,
         x.handicap] for x in paired.boards]
    bye = None if paired.bye is None else users[other.get(paired.bye, paired.bye)].user
    moved = {seats[a], seats[b]}
    reasons = {str(n): why for n, why in paired.reasons.items() if n not in moved}
    event = ev.RoundPaired(lad.name, paired.number, boards, bye, reasons,
                           [users[m].user for m in night.numbers], paired.rules)
    return [ev.new_event(event, caller.user, now)], lambda: round_shown(
        club, lad, night, night.rounds[-1])


def forbid(club: Club, now: datetime, caller: Caller, first: Who, second: Who,
           ladder: str | None) -> Decision[NightRoundShown | Notice]:
    """``/forbid @a @b``: the two never meet tonight; a round paired and not published is
    paired again without their board."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    night = _open(lad)
    a, b = view.member(club, first), view.member(club, second)
    if a.id == b.id:
        raise Refusal("not_yourself")
    out = [ev.new_event(ev.PairForbidden(lad.name, a.user, b.user), caller.user, now)]
    if night.pending is None:
        return out, lambda: Notice("night_forbidden", {"first": a.name, "second": b.name})
    again = _paired(club, lad, night, forbid=frozenset((a.id, b.id)))
    return [*out, ev.new_event(again, caller.user, now)], lambda: round_shown(
        club, lad, night, night.rounds[-1])


def give_bye(club: Club, now: datetime, caller: Caller, who: Who, ladder: str | None
             ) -> Decision[NightRoundShown]:
    """``/bye @member``: the paired round is paired again with the bye theirs (only where the
    round has one: an odd number of players)."""
    lad, night, paired = _preview(club, caller, ladder)
    member = view.member(club, who)
    if paired.bye is None:
        raise Refusal("night_no_bye")
    if member.id not in {m for b in paired.boards for m in (b.first, b.second)} | {paired.bye}:
        raise Refusal("night_not_in_round", name=member.name)
    again = _paired(club, lad, night, bye=member.id)
    return [ev.new_event(again, caller.user, now)], lambda: round_shown(
        club, lad, night, night.rounds[-1])


def publish(club: Club, now: datetime, caller: Caller, ladder: str | None
            ) -> Decision[NightRoundShown]:
    """A moderator publishes the paired round: its boards are played from now on."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    night = _open(lad)
    paired = night.pending
    if paired is None:
        raise Refusal("night_nothing_paired")
    out = [ev.new_event(ev.RoundPublished(lad.name, paired.number), caller.user, now)]
    if night.mode == Mode.ROUNDROBIN:
        # ERRATA: a player who left a round robin forfeits the games left in its table
        for board in paired.boards:
            gone = [night.entrants.get(m) == "out" for m in (board.first, board.second)]
            if any(gone):
                result = "-+" if gone[0] else "+-"
                out.append(ev.new_event(ev.BoardForfeited(lad.name, paired.number,
                                                          board.number, result),
                                        caller.user, now))
    return out, lambda: round_shown(club, lad, night, paired)


def current_round(club: Club, caller: Caller, ladder: str | None) -> NightRoundShown:
    """The round being played (or the one paired, to its moderators)."""
    lad = view.ladder(club, ladder)
    night = _open(lad)
    if night.pending is not None and view.is_moderator(club, caller):
        return round_shown(club, lad, night, night.pending)
    if not night.published:
        raise Refusal("night_nothing_published")
    return round_shown(club, lad, night, night.published[-1])


# -- results ---------------------------------------------------------------------------------


def board_of(club: Club, ladder: Ladder, first: int, second: int
             ) -> tuple[ClubNight, NightRound, NightBoard] | None:
    """The board of the ladder's published round where these two members play, while nothing
    stands on it: a game reported between them is that board's."""
    night = ladder.night
    if night is None or not night.published:
        return None
    played = night.published[-1]
    for board in played.boards:
        if {board.first, board.second} == {first, second} and not _taken(club, board):
            return night, played, board
    return None


def _taken(club: Club, board: NightBoard) -> bool:
    """Whether a board has its result, or a report of it waits (a voided, disputed or withdrawn
    one leaves it free)."""
    return board.forfeit is not None or any(
        club.state.games[g].status in (GameStatus.PENDING, GameStatus.CONFIRMED)
        and not club.state.games[g].voided for g in board.games)


def result(club: Club, now: datetime, caller: Caller, number: int, typed: str,
           ladder: str | None) -> Decision[Notice]:
    """A moderator's ``/result BOARD 1-0``: the board's result, counted at once (a forfeit is
    recorded, never rated). A board that has one is refused: its game is corrected as any
    game."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    night = _open(lad)
    if not night.published:
        raise Refusal("night_nothing_published")
    played = night.published[-1]
    if not 1 <= number <= len(played.boards):
        raise Refusal("night_no_board", board=number, boards=len(played.boards))
    board = played.boards[number - 1]
    outcome = RESULTS.get(typed.strip())
    if outcome is None:
        raise Refusal("night_bad_result", text=typed[:20])
    if _taken(club, board):
        raise Refusal("night_board_has_result", board=number)
    state = club.state
    first, second = state.members[board.first], state.members[board.second]
    if outcome.forfeit:
        event: ev.Event = ev.BoardForfeited(lad.name, played.number, number, outcome.value)
    else:
        event = ev.GameReported(
            lad.name, first.user, second.user, outcome.first_score, float(board.handicap),
            None, rated_event(lad, night), now.isoformat(timespec="seconds"), None, True,
            night=night.id, round=played.number, board=number)
    return [ev.new_event(event, caller.user, now)], lambda: Notice("night_result", {
        "board": number, "first": first.name, "second": second.name,
        "result": outcome.value})


def press(club: Club, now: datetime, caller: Caller, night_id: int, number: int, board: int,
          typed: str) -> Decision[Notice | GameResult]:
    """A press of one of a board's buttons under a published round (the first wins, a draw,
    the second wins: ``typed`` as /result reads it). A moderator's is their ``/result``,
    counted at once; one of the board's two players' is their report of it from their side,
    which the opponent confirms as any report; anyone else's is refused as ``/result`` is. The
    button names its night, round and board: one of a night that closed, or of a round that is
    over, is refused, so a button left above in the chat never scores a board of a later
    round."""
    lad = view.ladder(club, ladder_of_night(club, night_id))
    night = _open(lad)
    if not night.published or night.published[-1].number != number:
        raise Refusal("night_round_over", round=number)
    outcome = RESULTS.get(typed)
    if outcome is None or outcome.forfeit:  # a button never records a forfeit
        raise Refusal("night_bad_result", text=typed[:20])
    if view.is_moderator(club, caller):
        return result(club, now, caller, board, typed, lad.name)
    played = night.published[-1]
    if not 1 <= board <= len(played.boards):
        raise Refusal("night_no_board", board=board, boards=len(played.boards))
    on = played.boards[board - 1]
    me = club.state.member_of_user(caller.user)
    if me is None or me.id not in (on.first, on.second):
        view.require_moderator(club, caller)  # refused: it is a moderator's /result
    if _taken(club, on):
        raise Refusal("night_board_has_result", board=board)
    first = me is not None and me.id == on.first
    mine = outcome.first_score if first else 1.0 - outcome.first_score
    opponent = club.state.members[on.second if first else on.first]
    stones = on.handicap if first else -on.handicap  # from the reporter's side, as /result's
    # games imports this module (a report between a board's players is that board's)
    from . import games

    return games.report(club, now, caller, UserRef(opponent.user, opponent.name),
                        parse.result_word(mine), player=None,
                        handicap=str(stones) if stones else None, colour=None, event=None,
                        ladder=lad.name)


def _result(club: Club, board: NightBoard) -> Result | None:
    """A board's result: its forfeit, else its first game that counts, from the first
    player's side."""
    if board.forfeit is not None:
        return Result(board.forfeit)
    for game_id in board.games:
        game = club.state.games[game_id]
        if game.counts:
            return _as_result(club, board, game)
    return None


def _as_result(club: Club, board: NightBoard, game: GameRecord) -> Result:
    first = club.state.member(game.player_a).id == club.state.member(board.first).id
    score = game.score_a if first else 1.0 - game.score_a
    return {1.0: Result.FIRST_WINS, 0.0: Result.SECOND_WINS}.get(score, Result.DRAW)


# -- what the pairing and the standings read --------------------------------------------------


def _ratings(club: Club, ladder: Ladder) -> dict[int, float]:
    """Each member's rating on the ladder now, by member id (a newcomer: the system's)."""
    final = view.ratings(club, ladder)
    start = view.newcomer_rating(club, ladder)
    out = {}
    for member in club.state.members.values():
        found = final.state(player_key(member.id))
        out[member.id] = start if found is None else found.rating
    return out


def night_of(club: Club, ladder: Ladder, night: ClubNight, numbers: list[int] | None = None
             ) -> Night:
    """The night as :mod:`bot.pairing` reads it: its players by pairing number, its published
    rounds with their results and absences, its forbidden pairs and rules."""
    state = club.state
    ratings = _ratings(club, ladder)
    order = numbers if numbers is not None else night.numbers + [
        m for m in night.entrants if m not in night.numbers]
    coming = len(night.published) + 1
    players = []
    for n, member in enumerate(order, 1):
        status = Status(night.entrants.get(member, "out"))
        if status is Status.IN and night.paused.get(member) == coming:
            status = Status.PAUSED
        players.append(Player(player_key(member), state.members[member].name,
                              ratings.get(member, 0.0), n, status,
                              night.joined.get(member, 1)))
    rounds = []
    for played in night.published:
        boards = tuple(Board(b.number, player_key(b.first), player_key(b.second),
                             _result(club, b), b.handicap) for b in played.boards)
        on_board = {m for b in played.boards for m in (b.first, b.second)}
        absent = {player_key(m): (Absence.PAIRING_BYE if m == played.bye else Absence.ZERO)
                  for m in order if m not in on_board}
        rounds.append(Round(played.number, boards, absent))
    stones = _stones(club, ladder)
    chosen = ladder.settings.night_tiebreaks
    settings = Settings(Mode(night.mode), night.rounds_wanted,
                        bye_points=float(ladder.settings.night_bye_points),
                        tiebreaks=tuple(chosen.split(",")) if chosen else (),
                        colours=stones is None,
                        handicap_limit=9 if stones is None else int(stones), seed=night.id)
    forbidden = frozenset(frozenset(player_key(m) for m in pair) for pair in night.forbidden)
    return Night(tuple(players), tuple(rounds), settings, forbidden)


def round_shown(club: Club, ladder: Ladder, night: ClubNight, played: NightRound
                ) -> NightRoundShown:
    state = club.state

    def name(member: int) -> str:
        return state.member(member).name

    boards = []
    for b in played.boards:
        found = _result(club, b)
        game = next((state.games[g].number for g in b.games if state.games[g].counts), None)
        boards.append(BoardLine(b.number, name(b.first), name(b.second), b.handicap,
                                None if found is None else found.value, game,
                                played.reasons.get(b.number)))
    return NightRoundShown(ladder.name, played.number, not played.published, boards,
                           None if played.bye is None else name(played.bye), played.rules,
                           night.id)


def standings_of(club: Club, ladder: Ladder, night: ClubNight, final: bool = False
                 ) -> NightStandings:
    seen = night_of(club, ladder, night)
    names = {p.key: p.name for p in seen.players}
    rows = [NightStanding(s.place, names[s.key], s.points, list(s.tiebreaks))
            for s in pairing.standings(seen)]
    return NightStandings(ladder.name, len(night.published), final,
                          list(seen.settings.tiebreaks or tiebreaks.TIEBREAKS[seen.settings.mode]),
                          rows)


def exported(club: Club, ladder: str | None, number: int | None
             ) -> tuple[Night, str, date]:
    """The ladder's ``number``th night (from 1; None: the latest, open or closed) as the
    pairing reads it, its title (the ladder and the night) and the day it was opened."""
    lad = view.ladder(club, ladder)
    if not lad.nights:
        raise Refusal("night_none", ladder=lad.name)
    if number is not None and not 1 <= number <= len(lad.nights):
        raise Refusal("night_no_such", number=number, nights=len(lad.nights))
    chosen = lad.nights[-1 if number is None else number - 1]
    shown = lad.nights.index(chosen) + 1
    return night_of(club, lad, chosen), f"{lad.name} night {shown}", chosen.opened_at.date()


def standings(club: Club, caller: Caller, ladder: str | None) -> NightStandings:
    """The open night's standings; without one, the last night's final standings."""
    lad = view.ladder(club, ladder)
    if lad.night is not None:
        return standings_of(club, lad, lad.night)
    if not lad.nights:
        raise Refusal("night_none", ladder=lad.name)
    return standings_of(club, lad, lad.nights[-1], final=True)
