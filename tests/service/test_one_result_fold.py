"""Issue 31's void reports on the fold: a restore written since says ``pending`` and gives the
opponent a fresh period; a log written before folds as it always did (an upgrade changes no
club's history), an auto-confirmation it holds of a void report included."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.service.events import Kind
from bot.service.state import ClubState, GameStatus
from bot.storage.repository import JsonValue, StoredEvent

START = datetime(2024, 3, 1, 19, 0)


def log(*rows: tuple[Kind, dict[str, JsonValue]]) -> list[StoredEvent]:
    """The club's events, one an hour from START."""
    head: list[tuple[Kind, dict[str, JsonValue]]] = [
        (Kind.LADDER_CREATED, {"ladder": "main", "system": "club", "params": {}}),
        (Kind.MEMBER_REGISTERED, {"user": "a", "name": "ann", "ladder": "main"}),
        (Kind.MEMBER_REGISTERED, {"user": "b", "name": "bob", "ladder": "main"}),
        (Kind.GAME_REPORTED, {"ladder": "main", "player_a": "a", "player_b": "b", "score_a": 1.0,
                              "handicap": 0.0, "colour": None, "event": None,
                              "played_at": START.isoformat(), "reported_by": "a",
                              "direct": False}),
    ]
    return [StoredEvent(n, str(kind), "x", START + timedelta(hours=n), data)
            for n, (kind, data) in enumerate([*head, *rows], start=1)]


def test_an_old_restore_of_a_void_disputed_report_folds_as_before() -> None:
    state = ClubState.build(log((Kind.GAME_DISPUTED, {"game": 4}),
                                (Kind.GAME_VOIDED, {"game": 4}),
                                (Kind.GAME_RESTORED, {"game": 4})))
    game = state.games[4]
    assert (game.status, game.voided, game.pending_since) == (GameStatus.DISPUTED, False, None)


def test_an_old_auto_confirmation_of_a_void_report_stays_in_the_history() -> None:
    state = ClubState.build(log((Kind.GAME_VOIDED, {"game": 4}),
                                (Kind.GAME_AUTO_CONFIRMED, {"game": 4})))
    game = state.games[4]
    assert (game.status, game.voided, game.counts) == (GameStatus.CONFIRMED, True, False)
    restored = ClubState.build(log((Kind.GAME_VOIDED, {"game": 4}),
                                   (Kind.GAME_AUTO_CONFIRMED, {"game": 4}),
                                   (Kind.GAME_RESTORED, {"game": 4})))
    assert restored.games[4].counts  # restored, it counts as it did before issue 31


def test_a_restore_written_since_waits_for_the_opponent_again() -> None:
    events = log((Kind.GAME_DISPUTED, {"game": 4}), (Kind.GAME_VOIDED, {"game": 4}),
                 (Kind.GAME_RESTORED, {"game": 4, "pending": True}))
    game = ClubState.build(events).games[4]
    assert (game.status, game.voided, game.dispute) == (GameStatus.PENDING, False, None)
    assert game.pending_since == events[-1].at
