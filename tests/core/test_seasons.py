"""A season's reset inside the replay (issue 38 and its errata): soft and hard, per system."""

from __future__ import annotations

import pytest

from ratings_core.club import ClubElo
from ratings_core.evidence import established_deviation
from ratings_core.model import Join, PlayerState, Retire, Return, SeasonStart, Status, Step
from ratings_core.replay import replay
from ratings_core.system import widened_deviation
from ratings_core.systems import PRESETS, make_system
from tests.helpers import day, game


def _listed(**ratings: tuple[float, float | None]) -> dict[str, PlayerState]:
    """Players with 40 games each, at a rating and a deviation."""
    return {name: PlayerState(rating=r, games=40, deviation=d, peak=r)
            for name, (r, d) in ratings.items()}


def test_elo_soft_and_hard_exact() -> None:
    elo = make_system("elo")
    players = _listed(ann=(1800.0, None), bob=(1400.0, None))
    soft = replay(elo, [SeasonStart(day(1), "soft", 0.5)], players=players).players
    assert (soft["ann"].rating, soft["bob"].rating) == (1700.0, 1500.0)  # T = 1600 (adults)
    assert (soft["ann"].games, soft["ann"].peak) == (40, 1800.0)
    quarter = replay(elo, [SeasonStart(day(1), "soft", 0.25)], players=players).players
    assert (quarter["ann"].rating, quarter["bob"].rating) == (1650.0, 1550.0)
    hard = replay(elo, [SeasonStart(day(1), "hard", 0.5)], players=players).players
    assert [(s.rating, s.games, s.peak) for s in hard.values()] == [
        (1600.0, 0, 1800.0), (1600.0, 0, 1600.0)]


def test_glicko_soft_widens_below_the_provisional_mark() -> None:
    glicko = make_system("glicko")
    players = _listed(ann=(1800.0, 60.0), bob=(1300.0, 200.0))
    soft = replay(glicko, [SeasonStart(day(1), "soft", 0.5)], players=players).players
    ann, bob = soft["ann"], soft["bob"]
    # T = 1500; ann's 60 would widen to 205 but stays at the mark (110): still established
    assert (ann.rating, ann.deviation, glicko.is_provisional(ann)) == (1650.0, 110.0, False)
    # bob was provisional (200 > 110): widened halfway to 350, provisional still
    assert (bob.rating, bob.deviation, glicko.is_provisional(bob)) == (1400.0, 275.0, True)
    hard = replay(glicko, [SeasonStart(day(1), "hard", 0.5)], players=players).players
    assert [(s.rating, s.deviation, s.games) for s in hard.values()] == [(1500.0, 350.0, 0)] * 2
    assert all(glicko.is_provisional(s) for s in hard.values())


def test_glicko2_keeps_established_members_established() -> None:
    glicko2 = make_system("glicko2")
    players = {"ann": PlayerState(rating=1900.0, games=40, deviation=50.0, volatility=0.06,
                                  peak=1900.0)}
    ann = replay(glicko2, [SeasonStart(day(1), "soft", 0.5)], players=players).players["ann"]
    assert (ann.rating, ann.deviation, ann.volatility) == (1700.0, 110.0, 0.06)
    assert not glicko2.is_provisional(ann)


def test_club_soft_and_hard_exact() -> None:
    club = make_system("club")
    assert isinstance(club, ClubElo)
    floor = established_deviation(32.0)
    players = _listed(ann=(1700.0, floor + 10.0), bob=(1420.0, floor + 60.0))
    soft = replay(club, [SeasonStart(day(1), "soft", 0.5)], players=players).players
    ann, bob = soft["ann"], soft["bob"]
    # T = 1500 (the base, no share of the pool); the mark is 50 above the floor
    assert (ann.rating, ann.deviation) == (1600.0, (floor + 10.0) + (150.0 - (floor + 10.0)) / 2)
    assert not club.is_provisional(ann)
    far = replay(club, [SeasonStart(day(1), "soft", 0.1)], players=players).players["ann"]
    assert (far.rating, far.deviation) == (1520.0, floor + 50.0)  # capped at the mark
    assert not club.is_provisional(far)
    assert bob.rating == 1460.0
    assert bob.deviation == (floor + 60.0) + (150.0 - (floor + 60.0)) * 0.5
    assert club.is_provisional(bob)
    hard = replay(club, [SeasonStart(day(1), "hard", 0.5)], players=players).players
    assert [(s.rating, s.games, s.deviation) for s in hard.values()] == [(1500.0, 0, None)] * 2
    assert all(club.is_provisional(s) for s in hard.values())


def test_the_widening_rule() -> None:
    assert widened_deviation(60.0, 350.0, 110.0, 0.5) == 110.0
    assert widened_deviation(60.0, 350.0, 110.0, 1.0) == 60.0  # no pull, no widening
    assert widened_deviation(200.0, 350.0, 110.0, 0.5) == 275.0
    assert widened_deviation(400.0, 350.0, 110.0, 0.5) == 400.0  # never narrowed


def test_retired_players_and_the_pool_are_left_alone() -> None:
    club = make_system("club")
    steps: list[Step] = [game("ann", "bob", 1.0, 0), game("cat", "bob", 1.0, 1),
                         game("ann", "cat", 0.0, 2), Retire("cat", day(3))]
    before = replay(club, steps)
    after = replay(club, [*steps, SeasonStart(day(4), "soft", 0.5)])
    assert after.players["cat"] == before.players["cat"]
    assert after.players["cat"].status == Status.RETIRED
    assert after.pool == before.pool
    assert after.players["ann"].rating == 1500.0 + (before.players["ann"].rating - 1500.0) / 2
    back = replay(club, [*steps, SeasonStart(day(4), "soft", 0.5), Return("cat", day(5))])
    assert back.players["cat"].rating == before.players["cat"].rating


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("reset", ["soft", "hard"])
def test_replay_from_a_checkpoint_equals_replay_from_the_start(name: str, reset: str) -> None:
    system = make_system(name)
    opponent = "problem x" if system.uses_seconds else "bob"

    def played(a: str, b: str, score: float, n: int) -> Step:
        g = game(a, b, score, n)
        if system.uses_seconds:
            from ratings_core.model import Game
            return Game(g.player_a, g.player_b, score, g.played_at, 0.0, 30.0)
        return g

    players = ["ann", "cat", "dan"]
    steps: list[Step] = [Join("eve", day(0))]
    for n in range(12):
        steps.append(played(players[n % 3], opponent, float(n % 2), n))
        if n == 5:
            steps.append(SeasonStart(day(n), reset, 0.4))
    whole = replay(system, steps, checkpoint_every=3)
    for checkpoint in whole.checkpoints:
        rest = replay(system, steps[checkpoint.position:], start=checkpoint)
        assert rest.final == whole.final


def test_a_boundary_between_games_resets_only_then() -> None:
    elo = make_system("elo")
    steps: list[Step] = [game("ann", "bob", 1.0, 0)]
    first = replay(elo, steps).players
    reset = replay(elo, [*steps, SeasonStart(day(1), "soft", 0.5)]).players
    assert reset["ann"].rating == 1600.0 + (first["ann"].rating - 1600.0) * 0.5
    assert reset["ann"].last_played == first["ann"].last_played


def test_a_bad_reset_is_refused() -> None:
    with pytest.raises(ValueError, match="soft or hard"):
        SeasonStart(day(0), "none", 0.5)
    with pytest.raises(ValueError, match="factor"):
        SeasonStart(day(0), "soft", 1.5)
