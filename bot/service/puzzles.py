"""Rated puzzles (seed 004): problems on a ``tactics`` ladder, solved privately against the
bot's clock, each attempt rated when it ends.

- A moderator adds a problem (``/puzzle add``, or ``clubrating puzzles import``): its id, its
  prompt, the answers accepted, an optional picture and starting rating.
- ``/puzzle`` delivers a member the problem they have not tried whose rating is closest to
  theirs (or the one a post's button names); the delivery is an :class:`AttemptStarted` event,
  and the clock runs from its time. ``/answer`` ends the attempt: a :class:`GameReported`
  between the member and the problem, solved (1) or failed (0), with its seconds, rated at once
  like any game, so corrections, exports and replays treat attempts as games.
- An attempt not answered within :data:`ATTEMPT_MINUTES` ends as a failure at its deadline
  (:func:`timed_out`, applied with what else time makes due); so does every attempt still open
  at a problem whose solution a scheduled post shows (:func:`post`).
- One attempt per problem per member, and none at a problem whose solution has been shown: the
  answers are never shown to anyone whose attempt could still be open.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.storage.repository import NewEvent
from ratings_core.systems import EDITION

from . import events as ev
from . import view
from .errors import Refusal
from .identity import Caller
from .ladder_settings import PUZZLE_SYSTEM
from .ratings import player_key
from .reasons import automatic
from .results import (
    AttemptResult,
    Notice,
    ProblemBoard,
    ProblemCard,
    ProblemLine,
    PuzzleInvite,
    PuzzlePost,
    PuzzleShown,
    Solver,
)
from .session import SYSTEM_ACTOR, Decision
from .state import Attempt, Ladder, LadderSettings, Problem
from .view import Club

#: how long a member has to answer a problem delivered to them
ATTEMPT_MINUTES = 30
ATTEMPT_TIME = timedelta(minutes=ATTEMPT_MINUTES)
#: the ladder puzzle commands use unless told otherwise
DEFAULT_PUZZLE_LADDER = "puzzles"
#: a problem's id: letters, digits, ``_`` and ``-`` (it travels in buttons and links)
PROBLEM_CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
MAX_PROMPT = 1000
MAX_ANSWERS = 20
MAX_ANSWER = 100
#: a problem's starting rating lies within tactics' own bounds of a starting rating
MIN_RATING, MAX_RATING = 0.0, 4000.0
#: the fastest solvers a post names
SOLVERS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class NewProblem:
    """A problem as a moderator or a file gives it, before it is checked."""

    code: str
    prompt: str
    answers: Sequence[str]
    image: str | None = None
    rating: str | None = None


# -- which ladder -----------------------------------------------------------------------------


def puzzle_ladder(club: Club, name: str | None) -> Ladder:
    """The ``tactics`` ladder ``name``; without a name, the one called ``puzzles``, else the
    club's only ``tactics`` ladder."""
    if name is not None:
        lad = view.ladder(club, name)
        if lad.settings.system != PUZZLE_SYSTEM:
            raise Refusal("not_puzzle_ladder", ladder=lad.name)
        return lad
    found = club.state.ladder(DEFAULT_PUZZLE_LADDER)
    if found is not None and found.settings.system == PUZZLE_SYSTEM:
        return found
    puzzles = [lad for lad in club.state.ladders.values()
               if lad.settings.system == PUZZLE_SYSTEM]
    if len(puzzles) == 1:
        return puzzles[0]
    if not puzzles:
        raise Refusal("no_puzzle_ladder", ladder=DEFAULT_PUZZLE_LADDER)
    raise Refusal("which_puzzle_ladder", ladders=", ".join(sorted(p.name for p in puzzles)))


def invite(club: Club, caller: Caller, ladder: str | None) -> PuzzleInvite:
    """Where a member asking in a group solves the ladder's problems: privately (the answer's
    button opens their private chat with the bot)."""
    view.me(club, caller)
    return PuzzleInvite(puzzle_ladder(club, ladder).name)


# -- adding problems ----------------------------------------------------------------------------


def checked(new: NewProblem, ladder: Ladder, taken: set[str] | None = None
            ) -> ev.ProblemAdded:
    """The event that adds ``new`` to ``ladder``, or the refusal of what is wrong with it;
    ``taken`` holds the folded ids of problems added before it in the same batch."""
    code = new.code.strip()
    if not PROBLEM_CODE.fullmatch(code):
        raise Refusal("bad_problem_id", text=code[:40])
    if ladder.problem(code) is not None or code.casefold() in (taken or set()):
        raise Refusal("problem_exists", problem=code, ladder=ladder.name)
    # a prompt of several lines (a diagram in a file's cell) keeps its lines; one typed in a
    # chat command is one line of words
    prompt = new.prompt.strip() if "\n" in new.prompt else " ".join(new.prompt.split())
    if not prompt:
        raise Refusal("problem_prompt_missing")
    if len(prompt) > MAX_PROMPT:
        raise Refusal("problem_prompt_too_long", limit=MAX_PROMPT)
    answers = [" ".join(a.split()) for a in new.answers]
    answers = [a for a in answers if a]
    if not answers:
        raise Refusal("problem_answers_missing")
    if len(answers) > MAX_ANSWERS or any(len(a) > MAX_ANSWER for a in answers):
        raise Refusal("problem_answers_too_long", count=MAX_ANSWERS, limit=MAX_ANSWER)
    rating = None
    if new.rating is not None and new.rating.strip():
        try:
            rating = float(new.rating)
        except ValueError:
            rating = math.nan
        if not (math.isfinite(rating) and MIN_RATING <= rating <= MAX_RATING):
            raise Refusal("bad_problem_rating", text=new.rating[:20],
                          low=f"{MIN_RATING:g}", high=f"{MAX_RATING:g}")
    return ev.ProblemAdded(ladder.name, code, prompt, answers, new.image, rating)


def add(club: Club, now: datetime, caller: Caller, new: NewProblem, ladder: str | None
        ) -> Decision[Notice]:
    """A moderator adds one problem (``/puzzle add``)."""
    view.require_moderator(club, caller)
    lad = puzzle_ladder(club, ladder)
    added = checked(new, lad)
    key = "problem_added_picture" if added.image else "problem_added"
    return [ev.new_event(added, caller.user, now)], lambda: Notice(key, {
        "problem": added.problem, "ladder": lad.name, "answers": len(added.answers),
        "rating": f"{starting_rating(club, lad, added.rating):.0f}"})


def add_many(club: Club, now: datetime, problems: Sequence[NewProblem], ladder: str | None,
             actor: str) -> Decision[Notice]:
    """``clubrating puzzles import``: every problem of a file, or none. A refusal names the row
    (``row``: 2 is the first problem, after the header). A ``tactics`` ladder called
    ``ladder`` (default ``puzzles``) is created when the club has none."""
    name = (ladder or DEFAULT_PUZZLE_LADDER).casefold()
    out: list[NewEvent] = []
    lad = club.state.ladder(name)
    if lad is None:
        out.append(ev.new_event(ev.LadderCreated(name, PUZZLE_SYSTEM, {}, edition=EDITION),
                                actor, now))
        lad = Ladder(name, LadderSettings(system=PUZZLE_SYSTEM, edition=EDITION))
    elif lad.settings.system != PUZZLE_SYSTEM:
        raise Refusal("not_puzzle_ladder", ladder=lad.name)
    taken: set[str] = set()
    for row, new in enumerate(problems, start=2):
        try:
            added = checked(new, lad, taken)
        except Refusal as refusal:
            raise Refusal(refusal.key, **refusal.params, row=row) from None
        taken.add(added.problem.casefold())
        out.append(ev.new_event(added, actor, now))
    return out, lambda: Notice("problems_imported", {"problems": len(problems), "ladder": name})


def starting_rating(club: Club, ladder: Ladder, rating: float | None) -> float:
    """A problem's starting rating: the one it was given, else the system's for a newcomer."""
    if rating is not None:
        return rating
    return view.newcomer_rating(club, ladder)


# -- solving ------------------------------------------------------------------------------------


def card(club: Club, ladder: Ladder, problem: Problem) -> ProblemCard:
    """How ``problem`` is shown to solve: with its current rating, never its answers."""
    state = view.ratings(club, ladder).state(player_key(problem.id))
    rating = state.rating if state is not None else starting_rating(club, ladder, problem.rating)
    return ProblemCard(ladder.name, problem.code, problem.id, problem.prompt, rating,
                       problem.image)


def _shown(club: Club, ladder: Ladder, attempt: Attempt, now: datetime, again: bool
           ) -> PuzzleShown:
    """The attempt's problem to solve, with the minutes left to answer it (whole minutes,
    rounded up: "1 minute" until the very end)."""
    problem = _problem_by_id(ladder, attempt.problem)
    deadline = attempt.started_at + ATTEMPT_TIME
    left = max(1, math.ceil((deadline - now) / timedelta(minutes=1)))
    return PuzzleShown(card(club, ladder, problem), deadline.isoformat(timespec="seconds"),
                       left, again)


def _problem_by_id(ladder: Ladder, problem_id: int) -> Problem:
    return next(p for p in ladder.problems.values() if p.id == problem_id)


def serve(club: Club, now: datetime, caller: Caller, ladder: str | None, ref: int | None
          ) -> Decision[PuzzleShown]:
    """Deliver the caller a problem: their open attempt again (same clock); else problem
    ``ref`` (a post's button), else the untried problem whose rating is closest to theirs."""
    me = view.me(club, caller)
    lad = _ladder_of_problem(club, ref) if ref and ladder is None else None
    lad = lad or puzzle_ladder(club, ladder)
    open_attempt = lad.open_attempts.get(me.id)
    if open_attempt is not None:
        return [], lambda: _shown(club, lad, open_attempt, now, again=True)
    if ref:
        problem = next((p for p in lad.problems.values() if p.id == ref), None)
        if problem is None:
            raise Refusal("unknown_problem", ladder=lad.name)
        if (me.id, problem.id) in lad.attempts:
            raise Refusal("problem_attempted", problem=problem.code)
        if problem.revealed_at is not None:
            raise Refusal("problem_revealed", problem=problem.code)
    else:
        problem = _closest(club, lad, me.id)
    started = ev.AttemptStarted(lad.name, problem.code, me.user)

    def shown() -> PuzzleShown:
        return _shown(club, lad, lad.open_attempts[me.id], now, again=False)

    return [ev.new_event(started, caller.user, now)], shown


def _ladder_of_problem(club: Club, ref: int) -> Ladder | None:
    """The puzzle ladder of the problem with id ``ref`` (a button names no ladder)."""
    return next((lad for lad in club.state.ladders.values()
                 if any(p.id == ref for p in lad.problems.values())), None)


def _closest(club: Club, ladder: Ladder, member: int) -> Problem:
    """The problem ``member`` has not tried, whose solution is not shown, whose current rating
    is closest to the member's (theirs as a newcomer's before their first attempt); the one
    added first among equals."""
    final = view.ratings(club, ladder)
    mine = final.state(player_key(member))
    rating = mine.rating if mine is not None else starting_rating(club, ladder, None)
    open_ones = [p for p in ladder.problems.values()
                 if (member, p.id) not in ladder.attempts and p.revealed_at is None]
    if not open_ones:
        raise Refusal("no_problems_left", ladder=ladder.name)

    def distance(problem: Problem) -> tuple[float, int]:
        state = final.state(player_key(problem.id))
        current = (state.rating if state is not None
                   else starting_rating(club, ladder, problem.rating))
        return abs(current - rating), problem.id

    return min(open_ones, key=distance)


def answer(club: Club, now: datetime, caller: Caller, typed: str, ladder: str | None
           ) -> Decision[AttemptResult]:
    """The caller's answer to their open attempt: solved when it is one of the problem's
    answers under the ladder's ``normalise`` rule; rated at once."""
    from .answers import accepted

    me = view.me(club, caller)
    lad = _ladder_of_open_attempt(club, me.id, ladder)
    attempt = lad.open_attempts[me.id]
    problem = _problem_by_id(lad, attempt.problem)
    seconds = _seconds(now - attempt.started_at)
    solved = accepted(typed, problem.answers, lad.settings.normalise)
    before = view.ratings(club, lad)
    event = _ended(lad, me.user, problem, solved, seconds, now, typed[:MAX_ANSWER], me.user)

    def result() -> AttemptResult:
        after = view.ratings(club, lad)
        game = lad.attempts[(me.id, problem.id)].game
        assert game is not None
        return AttemptResult(lad.name, problem.code, solved, seconds, list(problem.answers),
                             view.changes(club, lad, before, after, [me.id, problem.id]),
                             club.state.number_of[game])

    return [ev.new_event(event, caller.user, now)], result


def _ladder_of_open_attempt(club: Club, member: int, ladder: str | None) -> Ladder:
    """The puzzle ladder where ``member`` has an open attempt (the one named, if any); refused
    naming the problem when their latest attempt ran out of time."""
    ladders = ([puzzle_ladder(club, ladder)] if ladder is not None
               else [lad for lad in club.state.ladders.values()
                     if lad.settings.system == PUZZLE_SYSTEM])
    for lad in ladders:
        if member in lad.open_attempts:
            return lad
    latest = max(((lad, a) for lad in ladders for a in lad.attempts.values()
                  if a.member == member), key=lambda pair: pair[1].started_at, default=None)
    if latest is not None:
        lad, attempt = latest
        game = club.state.games.get(attempt.game) if attempt.game is not None else None
        if game is not None and game.answer is None and game.reported_by is None:
            # ended by the bot: out of time, or its solution was posted first
            code = _problem_by_id(lad, attempt.problem).code
            if (game.seconds or 0.0) >= ATTEMPT_TIME.total_seconds():
                raise Refusal("attempt_timed_out", problem=code, minutes=ATTEMPT_MINUTES)
            raise Refusal("attempt_revealed", problem=code)
    raise Refusal("no_open_attempt")


def _seconds(taken: timedelta) -> float:
    """An attempt's time in seconds, to the hundredth, never 0 (the time adjustment takes its
    logarithm) nor beyond the time allowed."""
    seconds = round(taken.total_seconds(), 2)
    return min(max(seconds, 0.01), ATTEMPT_TIME.total_seconds())


def _ended(ladder: Ladder, user: str, problem: Problem, solved: bool, seconds: float,
           at: datetime, typed: str | None, reported_by: str | None) -> ev.GameReported:
    """The report that ends an attempt: the member against the problem, rated at once."""
    return ev.GameReported(
        ladder.name, user, ev.problem_user(ladder.name, problem.code), 1.0 if solved else 0.0,
        0.0, None, None, at.isoformat(), reported_by=reported_by, direct=True,
        seconds=seconds, answer=typed)


def timed_out(club: Club, ladder: Ladder, attempt: Attempt, deadline: datetime,
              now: datetime) -> NewEvent:
    """The attempt whose time ran out (:func:`bot.service.dues.time_outs`) ended as a failure
    at its deadline, taking the whole time allowed (written by the bot, whenever it first
    looks after the deadline)."""
    return _failed(club, ladder, attempt, deadline, now, automatic(
        "reason_time_up", minutes=ATTEMPT_MINUTES))


def _failed(club: Club, ladder: Ladder, attempt: Attempt, at: datetime, now: datetime,
            reason: str) -> NewEvent:
    """The bot ends an open attempt as a failure at ``at`` (its deadline, or when the
    problem's solution is shown), with the time taken until then."""
    problem = _problem_by_id(ladder, attempt.problem)
    user = club.state.members[attempt.member].user
    ended = _ended(ladder, user, problem, False, _seconds(at - attempt.started_at), at, None,
                   None)
    return ev.new_event(ended, SYSTEM_ACTOR, now, reason)


# -- what the ladder shows ----------------------------------------------------------------------


def board(club: Club, ladder: str | None) -> ProblemBoard:
    """The ladder's problems, hardest (highest rated) first, without their answers."""
    lad = puzzle_ladder(club, ladder)
    rows = []
    for problem in lad.problems.values():
        ended = [club.state.games[a.game] for a in lad.attempts.values()
                 if a.problem == problem.id and a.game is not None]
        counted = [g for g in ended if g.counts]
        rows.append(ProblemLine(problem.code, card(club, lad, problem).rating, len(counted),
                                sum(1 for g in counted if g.score_a == 1.0)))
    rows.sort(key=lambda row: (-row.rating, row.problem.casefold()))
    return ProblemBoard(lad.name, rows)


def post(club: Club, now: datetime, ladder: str) -> Decision[PuzzlePost | None]:
    """A puzzle ladder's scheduled post: the solution of the problem the last post showed (its
    open attempts end as failures first, and it takes no attempts from then on), then the next
    problem never posted, in the order they were added. None when there is neither."""
    lad = puzzle_ladder(club, ladder)
    revealed = lad.problem(lad.posted) if lad.posted is not None else None
    if revealed is not None and revealed.revealed_at is not None:
        revealed = None
    upcoming = next((p for p in lad.problems.values()
                     if p.posted_at is None and p.revealed_at is None), None)
    if revealed is None and upcoming is None:
        return [], lambda: None
    out: list[NewEvent] = []
    if revealed is not None:
        out.extend(_failed(club, lad, attempt, now, now, automatic("reason_solution_shown"))
                   for attempt in lad.open_attempts.values() if attempt.problem == revealed.id)
    out.append(ev.new_event(ev.PuzzlePosted(
        lad.name, None if upcoming is None else upcoming.code,
        None if revealed is None else revealed.code), SYSTEM_ACTOR, now))

    def shown() -> PuzzlePost:
        shown_card = None if upcoming is None else card(club, lad, upcoming)
        if revealed is None:
            return PuzzlePost(lad.name, shown_card)
        games = [club.state.games[a.game] for a in lad.attempts.values()
                 if a.problem == revealed.id and a.game is not None]
        counted = [g for g in games if g.counts]
        solvers = sorted((g for g in counted if g.score_a == 1.0 and g.seconds is not None),
                         key=lambda g: (g.seconds or 0.0, g.id))
        return PuzzlePost(lad.name, shown_card, revealed.code, list(revealed.answers),
                          [Solver(club.state.member(g.player_a).name, g.seconds or 0.0)
                           for g in solvers[:SOLVERS_SHOWN]], len(counted))

    return out, shown


def exported(club: Club, ladder: str | None) -> list[NewProblem]:
    """The ladder's problems as ``clubrating puzzles export`` writes them (the operator's:
    answers included), each with the starting rating it was given."""
    lad = puzzle_ladder(club, ladder)
    return [NewProblem(p.code, p.prompt, list(p.answers), p.image,
                       None if p.rating is None else f"{p.rating:g}")
            for p in lad.problems.values()]
