"""Standings and tie-breaks: worked examples computed by hand (FIDE C.07, 2023), with unplayed
rounds by Article 16 (a dummy opponent with the player's own score)."""

from __future__ import annotations

from bot.pairing import standings
from bot.pairing.model import Absence, Mode, Night, Standing
from bot.pairing.tiebreaks import TIEBREAKS, record

from .nights import night, players, round_

FIVE = players("abcde")


def swiss_night() -> Night:
    # R1 a-c 1-0, d-b 0-1, e pairing bye; R2 a-b ½, e-c 1-0, d pairing bye;
    # R3 b-e 1-0, c-d won by c by forfeit, a half bye
    return night(FIVE,
                 round_(1, "a-c 1-0, d-b 0-1", e=Absence.PAIRING_BYE),
                 round_(2, "a-b =, e-c 1-0", d=Absence.PAIRING_BYE),
                 round_(3, "b-e 1-0, c-d +-", a=Absence.HALF_BYE))


def by_key(table: list[Standing]) -> dict[str, Standing]:
    return {s.key: s for s in table}


def test_the_modes_tiebreak_ids() -> None:
    assert TIEBREAKS[Mode.SWISS] == ("buchholz_cut1", "buchholz", "sonneborn_berger",
                                     "direct_encounter")
    assert TIEBREAKS[Mode.FIDE_DUTCH] == TIEBREAKS[Mode.NEAREST] == TIEBREAKS[Mode.SWISS]
    assert TIEBREAKS[Mode.ROUNDROBIN] == ("sonneborn_berger", "direct_encounter", "wins")
    assert TIEBREAKS[Mode.MCMAHON] == ("sos", "sosos")
    assert set(TIEBREAKS) == set(Mode)


def test_swiss_worked_example_with_unplayed_rounds() -> None:
    # Points: a 1+½+½ = 2, b 1+½+1 = 2.5, c 0+0+1 (forfeit win) = 1, d 0+1 (bye)+0 = 1,
    # e 1 (bye)+1+0 = 2.
    # Scores as opponents (16.3): d's last round is a forfeit loss, voluntarily unplayed and
    # the last: it counts as a draw, so d counts 0+1+½ = 1.5; a's half bye is worth ½ anyway.
    # Buchholz, a dummy opponent with the player's own score for each unplayed round (16.2):
    #   a: c 1 + b 2.5 + dummy 2 = 5.5      b: d 1.5 + a 2 + e 2 = 5.5
    #   c: a 2 + e 2 + dummy 1 = 5          d: b 2.5 + dummy 1 + dummy 1 = 4.5
    #   e: dummy 2 + c 1 + b 2.5 = 5.5
    # Cut-1, a voluntarily unplayed round's value cut first (16.4):
    #   a: 5.5 - 2 (the half bye) = 3.5     b: 5.5 - 1.5 = 4    c: 5 - 1 = 4
    #   d: 4.5 - 1 (the forfeit loss) = 3.5 e: 5.5 - 1 = 4.5
    # Sonneborn-Berger, each round's points times the opponent's (or dummy's) score:
    #   a: 1×1 + ½×2.5 + ½×2 = 3.25         b: 1×1.5 + ½×2 + 1×2 = 4.5
    #   c: 0 + 0 + 1×1 = 1                  d: 0 + 1×1 + 0 = 1     e: 1×2 + 1×1 + 0 = 3
    table = standings(swiss_night())
    assert [(s.place, s.key, s.points) for s in table] == [
        (1, "b", 2.5), (2, "e", 2.0), (3, "a", 2.0), (4, "c", 1.0), (5, "d", 1.0)]
    assert by_key(table)["a"].tiebreaks == (3.5, 5.5, 3.25, 0.0)
    assert by_key(table)["b"].tiebreaks == (4.0, 5.5, 4.5, 0.0)
    assert by_key(table)["c"].tiebreaks == (4.0, 5.0, 1.0, 0.0)
    assert by_key(table)["d"].tiebreaks == (3.5, 4.5, 1.0, 0.0)
    assert by_key(table)["e"].tiebreaks == (4.5, 5.5, 3.0, 0.0)


def test_a_result_not_in_yet_counts_nothing() -> None:
    # round 4 on: a-e not in yet. Points stay; the game counts for Buchholz (e's score).
    played = swiss_night()
    pending = night(FIVE, *played.rounds, round_(4, "a-e ?, b-c ?", d=Absence.PAIRING_BYE))
    table = by_key(standings(pending))
    assert table["a"].points == 2.0 and table["d"].points == 2.0
    # a: c 1 + b 2.5 + dummy 2 + e 2 = 7.5; d now: 0+1+0 then bye 1: its forfeit loss is no
    # longer the last round, so it counts 0: d is 2 as an opponent
    assert table["a"].tiebreaks[1] == 7.5
    assert table["b"].tiebreaks[1] == 2.0 + 2.0 + 2.0 + 1.0


def test_roundrobin_direct_encounter_separates_equal_sonneborn_berger() -> None:
    # Berger table of 4: R1 a-d 1-0, b-c 1-0; R2 d-c 1-0, a-b 0-1; R3 b-d ½, c-a ½.
    # Points a 1.5, b 2.5, c 0.5, d 1.5. SB: a = d 1.5 + ½×c 0.5 = 1.75; d = c 0.5 + ½×b 2.5
    # = 1.75: equal. Direct encounter: a beat d, 1 to 0. Wins: b 2, a 1, d 1, c 0.
    played = night(players("abcd"), round_(1, "a-d 1-0, b-c 1-0"),
                   round_(2, "d-c 1-0, a-b 0-1"), round_(3, "b-d =, c-a ="),
                   mode=Mode.ROUNDROBIN)
    assert [(s.place, s.key, s.points, s.tiebreaks) for s in standings(played)] == [
        (1, "b", 2.5, (2.75, 0.0, 2.0)), (2, "a", 1.5, (1.75, 1.0, 1.0)),
        (3, "d", 1.5, (1.75, 0.0, 1.0)), (4, "c", 0.5, (0.75, 0.0, 0.0))]


def test_equal_everything_shares_the_place() -> None:
    # three players, each sits out once (a pairing bye, 1 point) and each beats one other:
    # 2 points each; SB: the win's opponent 2 + the bye's dummy 2 = 4 each; all met, 1 point
    # each among them; 2 wins each (the bye is worth a win)
    played = night(players("abc"), round_(1, "b-c 1-0", a=Absence.PAIRING_BYE),
                   round_(2, "a-b 1-0", c=Absence.PAIRING_BYE),
                   round_(3, "c-a 1-0", b=Absence.PAIRING_BYE), mode=Mode.ROUNDROBIN)
    table = standings(played)
    assert [(s.place, s.key) for s in table] == [(1, "a"), (1, "b"), (1, "c")]
    assert {s.tiebreaks for s in table} == {(4.0, 1.0, 2.0)}


def test_mcmahon_sos_and_sosos_with_a_dummy_opponent() -> None:
    # bands (width 100): a 21, b 21, c 19, d 18; bar 1: a and b start 3, c 1, d 0.
    # R1 a-b 1-0, c-d 0-1; R2 a absent, b-c 1-0, d pairing bye.
    # McMahon scores: a 3+1 = 4, b 3+0+1 = 4, c 1+0+0 = 1, d 0+1+1 = 2.
    # SOS: a b 4 + dummy 4 = 8; b a 4 + c 1 = 5; c d 2 + b 4 = 6; d c 1 + dummy 2 = 3.
    # SOSOS: a SOS(b) 5 + dummy 8 = 13; b 8 + 6 = 14; c 3 + 5 = 8; d 6 + dummy 3 = 9.
    people = (players("ab", top=2150, step=30) + players("c", top=1950)
              + players("d", top=1800))
    people = tuple(p.__class__(p.key, p.name, p.rating, i + 1) for i, p in enumerate(people))
    played = night(people, round_(1, "a-b 1-0, c-d 0-1"),
                   round_(2, "b-c 1-0", a=Absence.ZERO, d=Absence.PAIRING_BYE),
                   mode=Mode.MCMAHON)
    assert [(s.place, s.key, s.points, s.tiebreaks) for s in standings(played)] == [
        (1, "a", 4.0, (8.0, 13.0)), (2, "b", 4.0, (5.0, 14.0)), (3, "d", 2.0, (3.0, 9.0)),
        (4, "c", 1.0, (6.0, 8.0))]


def test_record_marks_what_was_chosen() -> None:
    entries = record(swiss_night())
    assert [(e.opponent, e.points, e.voluntary, e.win) for e in entries["d"]] == [
        ("b", 0.0, False, False), (None, 1.0, False, True), (None, 0.0, True, False)]
    assert [(e.opponent, e.voluntary) for e in entries["c"]][2] == (None, False)


def test_the_package_dispatches_by_mode() -> None:
    from bot.pairing import NoPairing, pair

    for mode in (Mode.SWISS, Mode.NEAREST, Mode.ROUNDROBIN, Mode.MCMAHON):
        assert len(pair(night(FIVE, mode=mode)).boards) == 2
        assert len(standings(night(FIVE, mode=mode))) == 5
    assert issubclass(NoPairing, Exception)
