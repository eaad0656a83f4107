"""Every preset's defaults, pinned: a change of a default must be a deliberate edit here."""

from __future__ import annotations

import dataclasses

import pytest

from ratings_core.systems import DEFAULT_SYSTEM, PRESETS, make_system

DEFAULTS: dict[str, dict[str, object]] = {
    "club": {"base": 1500.0, "k": 32.0, "k_master": 16.0, "master_rating": 2400.0,
             "uncertainty": "deviation", "initial_deviation": 150.0, "newcomer_spread": 1.25,
             "max_deviation": 350.0, "information": 0.75, "first_opponents": 0.5,
             "deviation_growth": 10.0,
             "provisional_games": 24, "provisional_margin": 50.0, "prior_games": 10.0,
             "performance_cap": 400.0,
             "pool_cap": 200.0, "first_move_advantage": 30.0},
    "elo": {"curve": "logistic", "k": 32.0, "k_master": 16.0, "master_rating": 2400.0,
            "veteran_games": None, "adult_rating": 1600.0, "junior_rating": 1200.0,
            "junior_age": 14, "floor": 1200.0, "ratchet": 1400.0, "first_move_advantage": 0.0},
    "shogi24": {"initial": 1500.0, "k": 32.0, "min_change": 1, "max_change": 31},
    "taisen": {"initial": 1500.0, "k": 24.0, "min_change": 1, "max_change": 23},
    "asymmetric": {"initial": 1500.0, "k": 32.0, "loss_factor": 0.75,
                   "first_move_advantage": 0.0},
    "fqe": {"k": 32.0, "unrated_opponent": 1100.0, "adjustment_threshold": 1200.0,
            "provisional_games": 24, "bonus_rounds": 4, "bonus_limit": 24.0, "bonus_step": 2.0,
            "halving_threshold": 2300.0, "match_cap": 50.0},
    "glicko": {"initial": 1500.0, "initial_deviation": 350.0, "max_deviation": 350.0,
               "min_deviation": 30.0, "c": 63.2, "period_days": 30.0,
               "provisional_deviation": 110.0, "first_move_advantage": 0.0},
    "glicko2": {"initial": 1500.0, "initial_deviation": 350.0, "initial_volatility": 0.06,
                "tau": 0.5, "max_deviation": 350.0, "min_deviation": 30.0,
                "max_volatility": 0.1, "period_days": 30.0, "provisional_deviation": 110.0,
                "first_move_advantage": 0.0},
    "rs-go": {"initial": 1000.0, "scale_ratio": 9.0, "absence_growth": 40.0, "period_days": 30.0,
              "z_low": 2.0, "z_high": 4.0, "anomaly_penalty": 3.0, "small_sample": 6,
              "anomaly_min_games": 6, "expert_trust": 1.0, "performance_margin": 500.0,
              "rating_min": 0.0, "rating_max": 2950.0, "min_deviation": 1.0},
    "tactics": {"initial": 1500.0, "target_seconds": 30.0, "doubling_points": 125.0,
                "time_cap": 400.0, "result_points": 400.0},
}


def test_every_preset_is_pinned() -> None:
    assert set(PRESETS) == set(DEFAULTS)
    assert DEFAULT_SYSTEM == "club"


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_defaults(name: str) -> None:
    params = make_system(name).params
    assert dataclasses.asdict(params) == DEFAULTS[name]


def test_past_editions_of_club_differ_from_today_only_in_the_uncertainty_rule() -> None:
    # Ladders set up before issue 19 keep edition 1 (rated by games); those set up with its
    # first deviation rule keep edition 2 (every newcomer at 150, all of a game's information);
    # those set up before issue 31 edition 3 (? for any deviation above an established one's).
    third = {**DEFAULTS["club"], "provisional_margin": 0.0}
    assert dataclasses.asdict(make_system("club", edition=3).params) == third
    second = {**third, "newcomer_spread": 0.0, "information": 1.0, "first_opponents": 0.0}
    assert dataclasses.asdict(make_system("club", edition=2).params) == second
    assert dataclasses.asdict(make_system("club", edition=1).params) == {
        **second, "uncertainty": "games", "provisional_margin": 50.0}  # marks by games


def test_overrides_apply_and_validate() -> None:
    assert make_system("club", {"k": "24", "pool_cap": "100"}).params.k == 24.0
    assert make_system("elo", {"veteran_games": "30"}).params.veteran_games == 30
    assert make_system("elo", {"floor": "none"}).params.floor is None
    with pytest.raises(ValueError, match="must be a whole number"):
        make_system("club", {"provisional_games": "2.5"})
