"""Expected-score curves against the seeds' tables (SPEC 3.1)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings_core.curves import linear_expected, logistic_expected, normal_expected

# Seed 002 (イロレーティング, レーティングから算出される勝利確率): the higher-rated player's
# chance, in whole percent, for differences 0, 50, ..., 500.
LOGISTIC_TABLE = [50, 57, 64, 70, 76, 81, 85, 88, 91, 93, 95]
# Seed 002 (簡易イロレーティング): the linear curve for 0, 50, ..., 400. The seed rounds halves
# to even (62.5 % -> 62, 87.5 % -> 88), as Python's round() does.
LINEAR_TABLE = [50, 56, 62, 69, 75, 81, 88, 94, 100]


@pytest.mark.parametrize(("step", "percent"), list(enumerate(LOGISTIC_TABLE)))
def test_logistic_matches_seed_002_table(step: int, percent: int) -> None:
    assert round(100 * logistic_expected(50 * step)) == percent
    assert round(100 * logistic_expected(-50 * step)) == 100 - percent


@pytest.mark.parametrize(("step", "percent"), list(enumerate(LINEAR_TABLE)))
def test_linear_matches_seed_002_table(step: int, percent: int) -> None:
    assert round(100 * linear_expected(50 * step)) == percent


def test_logistic_odds_of_seed_000() -> None:
    # Seed 000: 400 points apart, an 11-game match ends 10:1; 32 points apart, 6:5.
    assert 11 * logistic_expected(400) == pytest.approx(10.0)
    assert 11 * logistic_expected(32) == pytest.approx(6.0, abs=0.01)


def test_normal_curve_uses_elo_sd() -> None:
    # Seed 004: FIDE's cumulative normal with standard deviation 282.84.
    assert normal_expected(0) == 0.5
    assert normal_expected(282.84) == pytest.approx(0.8413, abs=1e-4)
    # Seed 000: Elo calibrated his normal model so 200 points give about 3:1.
    assert normal_expected(200) == pytest.approx(0.76, abs=0.005)


def test_linear_curve_is_clipped() -> None:
    assert linear_expected(400) == 1.0
    assert linear_expected(1000) == 1.0
    assert linear_expected(-1000) == 0.0


@given(st.floats(-5000, 5000))
def test_curves_are_symmetric_and_bounded(difference: float) -> None:
    for curve in (logistic_expected, normal_expected, linear_expected):
        e = curve(difference)
        assert 0.0 <= e <= 1.0 and math.isfinite(e)
        assert e + curve(-difference) == pytest.approx(1.0)
