"""A ladder keeps rating by the edition of the defaults it was set up with, to the last bit.

The digests below are of the ratings that the builds which made each edition the default gave
on the history built here (edition 1: ``make_system("club")`` of commit 0f2b009, the build
before issue 19; edition 2: that of commit 8fcfbdd; edition 3: that of commit 110b54d, before
issue 31), and today's ``make_system("club", edition=N)`` must give them: a new edition, or any
change to the loops, that moved one bit of an older ladder's ratings fails here (README,
"Editions of the defaults"). An edition's ``?`` marks are its own too: :data:`MARKS` are the
marks of both players after each game, as that build gave them."""

from __future__ import annotations

import hashlib
import random
from datetime import timedelta

import pytest

from ratings_core.model import Game, RatingPeriod, Retire, Return, Step, games_of
from ratings_core.replay import OpenReplay, replay
from ratings_core.systems import make_system
from tests.helpers import DAY0

DIGESTS = {
    1: "c78476018e1201f43ac4de61d1fa40afa79e31ea949ce8403bab78967f216291",
    2: "09c51b1cb01cdc6d2eecf102da06905bad54a5ee5fa759ba78758598571273cb",
    3: "98223b141b1bc4d70a41ef5861dbb11c7ec7752ce3af1c61c0efc0b9474b51e8",
}
#: the ``?`` marks (issue 31 changed what they mean in edition 4)
MARKS = {
    3: "f301591fba03218d934acbe41a3b5465bf58b18a2f380e497fbaac510b71dcc6",
}


def history() -> list[Step]:
    """Games of 60 players over six years: long absences, handicaps, colours, periods of
    several games, a retirement and a return."""
    rng = random.Random(19)
    names = [f"p{i:02d}" for i in range(60)]
    steps: list[Step] = []
    when = DAY0
    for n in range(3000):
        when += timedelta(hours=rng.choice((1, 5, 20, 24 * 40)))
        a, b = rng.sample(names[: 10 + n // 60], 2)
        game = Game(a, b, rng.choice((0.0, 0.5, 1.0)), when,
                    handicap=rng.choice((0.0, 0.0, 50.0)), first_move=rng.choice((0, 1, -1)))
        if n % 97 == 0:
            c, d = rng.sample([x for x in names[: 10 + n // 60] if x not in (a, b)], 2)
            steps.append(RatingPeriod((game, Game(c, d, 1.0, when))))
        else:
            steps.append(game)
    # p03 leaves (their deficit goes to the newcomers' pool) and comes back at once
    at = steps[1500].played_at if isinstance(steps[1500], Game) else when
    steps[1500:1500] = [Retire("p03", at), Return("p03", at)]
    return steps


def digest(edition: int) -> str:
    players = replay(make_system("club", edition=edition), history()).players
    text = "\n".join(f"{name} {s.rating!r} {s.deviation!r} {s.games} {s.peak!r}"
                     for name, s in sorted(players.items()))
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("edition", sorted(DIGESTS))
def test_a_past_edition_rates_as_the_build_that_made_it(edition: int) -> None:
    assert digest(edition) == DIGESTS[edition]


def marks(edition: int) -> str:
    system = make_system("club", edition=edition)
    rated = OpenReplay(system)
    shown = []
    for step in history():
        rated.apply(step)
        for game in games_of(step):
            for name in (game.player_a, game.player_b):
                state = rated.state(name)
                shown.append("?" if state is not None and system.is_provisional(state) else ".")
    return hashlib.sha256("".join(shown).encode()).hexdigest()


@pytest.mark.parametrize("edition", sorted(MARKS))
def test_a_past_edition_marks_as_the_build_that_made_it(edition: int) -> None:
    assert marks(edition) == MARKS[edition]
