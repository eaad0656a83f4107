"""A club night as a FIDE TRF16 file (bot/pairing/trf.py): the columns of the ``001`` line, the
result codes of every kind of round, the header and the engines' lines, read back by py4swiss's
own parser as a check of the columns."""

from __future__ import annotations

import dataclasses
import datetime
import tempfile
from pathlib import Path

import pytest

from bot.pairing import trf
from bot.pairing.model import (
    Absence,
    Board,
    Mode,
    Night,
    Player,
    Result,
    Round,
    Settings,
    Status,
)

ANNA = Player("m1", "Anna", 1834.6, 1)
BORIS = Player("m2", "Boris", 1720.0, 2)
CARLA = Player("m3", "Carla", 1655.0, 3)
DAN = Player("m4", "Dan", 1500.0, 4)
EVA = Player("m5", "Eva", 1420.0, 5)


def night_of(*rounds: Round, players: tuple[Player, ...] = (ANNA, BORIS, CARLA, DAN, EVA),
             mode: Mode = Mode.FIDE_DUTCH, bye_points: float = 1.0) -> Night:
    return Night(players, rounds, Settings(mode=mode, rounds=5, bye_points=bye_points))


ROUND_1 = Round(1, (Board(1, "m1", "m3", Result.FIRST_WINS),
                    Board(2, "m4", "m2", Result.DRAW)), {"m5": Absence.PAIRING_BYE})
ROUND_2 = Round(2, (Board(1, "m5", "m1", Result.SECOND_FORFEIT_WIN),
                    Board(2, "m2", "m3", Result.SECOND_WINS)), {"m4": Absence.HALF_BYE})


def lines(text: str, code: str) -> list[str]:
    return [line for line in text.split("\r\n") if line.startswith(code)]


def player_line(text: str, number: int) -> str:
    return next(line for line in lines(text, "001") if int(line[4:8]) == number)


def test_the_001_line_puts_each_field_in_its_columns() -> None:
    """TRF16's columns, counted from 1: number 5-8, name 15-47, rating 49-52, points 81-84,
    rank 86-89, round 1 from 92 and round 2 from 102 (opponent, colour at +5, result at +7)."""
    text = trf.write(night_of(ROUND_1, ROUND_2), "Club night")
    line = player_line(text, 1)
    assert line[0:3] == "001"
    assert line[4:8] == "   1"
    assert line[14:47] == "Anna".ljust(33)
    assert line[48:52] == "1835"  # rounded
    assert line[80:84] == " 2.0"
    assert line[85:89] == "   1"
    assert line[91:99] == "   3 w 1"
    assert line[101:109] == "   5 b +"
    assert len(line) == 109


def test_every_kind_of_round_has_its_code() -> None:
    text = trf.write(night_of(ROUND_1, ROUND_2), "Club night")
    cells = {n: [player_line(text, n)[91 + 10 * i:99 + 10 * i] for i in range(2)]
             for n in range(1, 6)}
    assert cells[1] == ["   3 w 1", "   5 b +"]  # a win; a forfeit win with black
    assert cells[2] == ["   4 b =", "   3 w 0"]  # a draw; a loss
    assert cells[3] == ["   1 b 0", "   2 b 1"]
    assert cells[4] == ["   2 w =", "0000 - H"]  # a half-point bye
    assert cells[5] == ["0000 - U", "   1 w -"]  # the pairing-allocated bye; a forfeit loss


def test_points_and_ranks_count_every_code() -> None:
    text = trf.write(night_of(ROUND_1, ROUND_2), "Club night")
    points = {n: player_line(text, n)[80:84] for n in range(1, 6)}
    ranks = {n: player_line(text, n)[85:89].strip() for n in range(1, 6)}
    assert points == {1: " 2.0", 2: " 0.5", 3: " 1.0", 4: " 1.0", 5: " 1.0"}
    # ties share a rank: one more than the players with more points
    assert ranks == {1: "1", 2: "5", 3: "2", 4: "2", 5: "2"}


def test_a_pairing_bye_scores_the_nights_bye_points_and_says_so_to_both_engines() -> None:
    text = trf.write(night_of(ROUND_1, bye_points=0.5), "Club night")
    assert player_line(text, 5)[80:84] == " 0.5"
    assert lines(text, "XXS") == ["XXS PAB=0.5"]  # JaVaFo's and py4swiss's code
    assert lines(text, "BBU") == ["BBU  0.5"]  # bbpPairings'
    plain = trf.write(night_of(ROUND_1), "Club night")
    assert lines(plain, "XXS") == lines(plain, "BBU") == []


def test_whoever_a_round_does_not_mention_was_not_there() -> None:
    """A late joiner before they joined, a player who left: a zero-point bye (Z)."""
    late = Player("m6", "Fay", 1300.0, 6, joined_round=2)
    gone = dataclasses.replace(EVA, status=Status.OUT)
    round_2 = Round(2, (Board(1, "m6", "m1", Result.FIRST_WINS),
                        Board(2, "m2", "m3", Result.DRAW)), {"m4": Absence.ZERO})
    text = trf.write(night_of(ROUND_1, round_2, players=(ANNA, BORIS, CARLA, DAN, gone, late)),
                     "Club night")
    assert player_line(text, 6)[91:109] == "0000 - Z     1 w 1"
    assert player_line(text, 5)[101:109] == "0000 - Z"
    assert player_line(text, 4)[101:109] == "0000 - Z"


def test_a_round_still_being_played_is_left_out() -> None:
    playing = Round(2, (Board(1, "m5", "m1"), Board(2, "m2", "m3", Result.DRAW)), {})
    text = trf.write(night_of(ROUND_1, playing), "Club night")
    assert all(len(line) == 99 for line in lines(text, "001"))
    assert lines(text, "XXR") == ["XXR 5"]
    with pytest.raises(ValueError, match="^night: round 2"):
        trf.write(night_of(ROUND_1, playing), "Club night", next_round=True)


def test_the_next_round_enters_a_zero_bye_for_everyone_it_does_not_pair() -> None:
    """The input for pairing round 2: the paused and the gone already have their cell for it,
    which both engines read as "not in this round's pairing"; the others have none yet."""
    paused = dataclasses.replace(BORIS, status=Status.PAUSED)
    gone = dataclasses.replace(DAN, status=Status.OUT)
    night = night_of(ROUND_1, players=(ANNA, paused, CARLA, gone, EVA))
    text = trf.write(night, "Club night", next_round=True)
    assert player_line(text, 2)[91:] == "   4 b =  0000 - Z"
    assert player_line(text, 4)[91:] == "   2 w =  0000 - Z"
    assert player_line(text, 1)[91:] == "   3 w 1"


def test_the_header() -> None:
    text = trf.write(night_of(ROUND_1), "Thursday blitz", datetime.date(2026, 11, 26))
    assert text.split("\r\n")[:5] == [
        "012 Thursday blitz", "042 2026/11/26", "052 2026/11/26", "062 5",
        "092 Individual: Swiss-System (FIDE Dutch, C.04.3)"]
    assert text.endswith("\r\n")
    assert lines(trf.write(night_of(ROUND_1), "Night"), "042") == []


def test_the_engines_lines() -> None:
    night = dataclasses.replace(night_of(ROUND_1),
                                forbidden=frozenset({frozenset({"m4", "m2"}),
                                                     frozenset({"m1", "ghost"})}))
    text = trf.write(night, "Night")
    assert lines(text, "XX") == ["XXR 5", "XXC white1", "XXP 2 4"]
    # the top seed's white in round 1 is the fide-dutch mode's; other modes leave it out
    swiss = trf.write(night_of(ROUND_1, mode=Mode.SWISS), "Night")
    assert lines(swiss, "XXC") == []


@pytest.mark.parametrize(("mode", "rounds", "players", "played", "expected"), [
    (Mode.FIDE_DUTCH, 7, 5, 2, 7),
    (Mode.FIDE_DUTCH, 3, 5, 4, 4),  # never fewer than the rounds in the file
    (Mode.ROUNDROBIN, None, 6, 0, 5),  # everyone meets everyone once
    (Mode.ROUNDROBIN, None, 5, 0, 5),  # an odd table: each sits out once
    (Mode.SWISS, None, 5, 3, 3),
    (Mode.SWISS, None, 5, 0, 1),
])
def test_xxr_is_the_nights_number_of_rounds(mode: Mode, rounds: int | None, players: int,
                                            played: int, expected: int) -> None:
    everyone = tuple(Player(f"m{n}", f"P{n}", 1500.0, n) for n in range(1, players + 1))
    night = Night(everyone, (), Settings(mode=mode, rounds=rounds))
    assert trf.rounds_planned(night, played) == expected


def test_names_stay_on_their_line_and_in_their_columns() -> None:
    long = Player("m1", "Алексей Владимирович\nКонстантинопольский-Северный", 1600.0, 1)
    text = trf.write(night_of(players=(long, BORIS)), "Night\r\nwith a break")
    line = player_line(text, 1)
    assert line[14:47] == "Алексей Владимирович Константиноп"
    assert line[48:52] == "1600"
    assert lines(text, "012") == ["012 Night  with a break"]


def test_pairing_numbers_run_from_1_without_gaps() -> None:
    """A night's numbers already do; the file makes sure (TRF16 numbers every player)."""
    night = night_of(players=(dataclasses.replace(ANNA, number=5),
                              dataclasses.replace(BORIS, number=7), CARLA))
    assert trf.numbering(night) == {"m3": 1, "m1": 2, "m2": 3}


def test_py4swiss_reads_the_file_back_as_written() -> None:
    """py4swiss's own strict parser (its columns, and its check that the points add up)."""
    from py4swiss.trf import TrfParser  # type: ignore[import-untyped]

    text = trf.write(night_of(ROUND_1, ROUND_2, bye_points=0.5), "Club night",
                     datetime.date(2026, 11, 26))
    kept = [line for line in text.splitlines() if not line.startswith("BBU")]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "night.trf"
        path.write_text("\n".join(kept) + "\n", encoding="utf-8")
        parsed = TrfParser.parse(path, strict=True)
    first = parsed.player_sections[0]
    assert (first.starting_number, first.name, first.fide_rating) == (1, "Anna", 1835)
    assert first.points_times_ten == 20 and first.rank == 1
    assert [(r.id, r.color.value, r.result.value) for r in first.results] == [
        (3, "w", "1"), (5, "b", "+")]
    assert parsed.x_section.number_of_rounds == 5
    assert parsed.tournament_section.tournament_name == "Club night"
