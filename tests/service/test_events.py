"""The typed event payloads (bot.service.events): every writer's JSON comes back byte for byte,
and a log written by an earlier build still decodes and folds to the same club."""

from __future__ import annotations

import json
import sqlite3
from datetime import date, datetime
from pathlib import Path

import pytest

from bot.adapters import console
from bot.history import read_events
from bot.service.events import (
    CLASSES,
    GameChanges,
    GameConfirmed,
    GameCorrected,
    GameReported,
    Kind,
    MemberRegistered,
    PlayerJoined,
    PlayersMerged,
    decode,
    encode,
    new_event,
)
from bot.service.identity import Caller
from bot.service.ratings import LadderRatings
from bot.service.state import ClubState, GameStatus
from bot.storage.repository import JsonValue, NewEvent, StoredEvent
from tests.chat import START, open_club

DATA = Path(__file__).parent.parent / "system" / "data"
NOW = datetime(2024, 3, 1, 19, 0)


def stored_text(data: dict[str, JsonValue]) -> str:
    """An event's data as the storage writes it (bot.storage.sqlite, bot.storage.postgres)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


#: the JSON of each writer in bot/service (club and its modules, importing), one or more shapes
#: per kind, with the keys in the order the writers put them
SHAPES: list[tuple[str, dict[str, JsonValue]]] = [
    # a new club's main ladder (by the bot), and /ladder create
    ("ladder_created", {"ladder": "main", "system": "club", "params": {}}),
    ("ladder_created", {"ladder": "blitz", "system": "elo", "params": {"k": "40"}}),
    # /system, and /set with each kind of value
    ("settings_changed", {"ladder": "main", "settings": {"system": "elo", "params": {}}}),
    ("settings_changed",
     {"ladder": "main", "settings": {"system": "club", "params": {"k": "24", "w": "10"}}}),
    ("settings_changed", {"ladder": "main", "settings": {"announce": True}}),
    ("settings_changed", {"ladder": "main", "settings": {"auto_confirm_hours": 12.0}}),
    ("settings_changed", {"ladder": "main", "settings": {"inactivity_days": None}}),
    ("settings_changed", {"ladder": "blitz", "settings": {"timezone": "Europe/Paris"}}),
    ("settings_changed", {"ladder": "main", "settings": {"moderator_role": "123456"}}),
    # /register in the chat (with and without birth date and handle), and the import's
    ("member_registered", {"user": "u1", "name": "alice", "ladder": "main",
                           "birth_date": None, "handle": None}),
    ("member_registered", {"user": "u2", "name": "Bob Ö", "ladder": "main",
                           "birth_date": "2015-05-01", "handle": "bob"}),
    ("member_registered", {"user": "import:zed", "name": "zed", "birth_date": None}),
    # /retire, /return and the retirement for inactivity; the import's rows
    ("player_retired", {"ladder": "main", "member": "u1"}),
    ("player_returned", {"ladder": "main", "member": "u1"}),
    ("player_joined", {"ladder": "main", "member": "u1", "event": None,
                       "played_at": "2024-02-01T00:00:00"}),
    ("player_retired", {"ladder": "main", "member": "u1", "event": "cup",
                        "played_at": "2024-02-01T00:00:00"}),
    ("player_returned", {"ladder": "main", "member": "u1", "event": None,
                         "played_at": "2024-02-01T10:30:00"}),
    ("players_merged", {"from": "u3", "into": "u1"}),
    ("moderator_named", {"member": "u2"}),
    ("moderator_removed", {"member": "u2"}),
    ("challenge_issued", {"ladder": "main", "challenger": "u1", "opponent": "u2",
                          "expires_at": "2024-03-03T19:00:00"}),
    ("challenge_accepted", {"challenge": 12}),
    ("challenge_declined", {"challenge": 13}),
    ("challenge_withdrawn", {"challenge": 14}),
    # a member's report, a moderator's (direct), the import's (with a colour, in an event)
    ("game_reported", {"ladder": "main", "player_a": "u1", "player_b": "u2", "score_a": 1.0,
                       "handicap": 0.0, "colour": None, "event": None,
                       "played_at": "2024-03-01T19:00:00", "reported_by": "u1",
                       "direct": False}),
    ("game_reported", {"ladder": "main", "player_a": "u1", "player_b": "u2", "score_a": 0.5,
                       "handicap": 25.5, "colour": "white", "event": "Spring",
                       "played_at": "2024-03-01T19:00:00.123456", "reported_by": None,
                       "direct": True}),
    ("game_reported", {"ladder": "hist", "player_a": "import:zed", "player_b": "import:yan",
                       "score_a": 0, "handicap": -1, "colour": "black", "event": "cup",
                       "played_at": "2024-02-02T00:00:00", "reported_by": None,
                       "direct": True}),
    ("game_confirmed", {"game": 7}),
    ("game_auto_confirmed", {"game": 7}),
    ("game_disputed", {"game": 7}),
    ("game_withdrawn", {"game": 7}),
    # /correct: any of the four changes, in this order, or none (settling a pending report)
    ("game_corrected", {"game": 7, "changes": {"score_a": 0.0}}),
    ("game_corrected", {"game": 7, "changes": {"handicap": 12.0, "player_b": "u3"}}),
    ("game_corrected", {"game": 7, "changes": {"score_a": 0.5, "handicap": 0.0,
                                               "player_a": "u2", "player_b": "u1"}}),
    ("game_corrected", {"game": 7, "changes": {}}),
    ("game_voided", {"game": 7}),
    ("game_restored", {"game": 7}),
    # issue 31: a restore of a report voided before it counted
    ("game_restored", {"game": 7, "pending": True}),
    ("event_opened", {"ladder": "main", "name": "Spring"}),
    ("event_closed", {"ladder": "main", "name": "Spring"}),
    ("action_undone", {"target": 9}),
    ("schedule_set", {"ladder": "main", "cron": "0 18 * * FRI", "timezone": "Europe/Berlin",
                      "channel": "-100999", "size": 5}),
    ("schedule_set", {"ladder": "main", "cron": "0 9 * * MON", "timezone": None,
                      "channel": None, "size": 10}),
    ("schedule_paused", {"ladder": "main"}),
    ("schedule_resumed", {"ladder": "main"}),
    # clubrating import, after the events of the file's rows
    ("history_imported", {"ladder": "main", "fingerprint": "9f86d081884c7d65", "file": "E.csv"}),
    # /claim NAME, and a moderator's answer (issue 15)
    ("claim_requested", {"member": "import:Ann", "claimant": "tg:42"}),
    ("claim_approved", {"claim": 40}),
    ("claim_declined", {"claim": 40}),
    # a member's command carrying a username other than the one kept (issue 30)
    ("handle_changed", {"member": "tg:42", "handle": "victoria_v"}),
    # /set mylanguage LANG, and off (issue 33)
    ("language_chosen", {"member": "tg:42", "language": "ru"}),
    ("language_chosen", {"member": "tg:42", "language": None}),
    # rated problems: /puzzle add (with and without a picture and a rating), /puzzle, /answer,
    # an attempt's end by time, the scheduled puzzle post
    ("problem_added", {"ladder": "puzzles", "problem": "p1", "prompt": "White to move",
                       "answers": ["Qh7", "Qh7#"], "image": None, "rating": None}),
    ("problem_added", {"ladder": "puzzles", "problem": "p2", "prompt": "Mate in 2",
                       "answers": ["Rd8"], "image": "3f2a.png", "rating": 1800.0}),
    ("attempt_started", {"ladder": "puzzles", "problem": "p1", "member": "tg:42"}),
    ("game_reported", {"ladder": "puzzles", "player_a": "tg:42",
                       "player_b": "problem:puzzles:p1", "score_a": 1.0, "handicap": 0.0,
                       "colour": None, "event": None, "played_at": "2026-11-20T10:00:12",
                       "reported_by": "tg:42", "direct": True, "seconds": 12.0,
                       "answer": "qh7"}),
    ("game_reported", {"ladder": "puzzles", "player_a": "tg:42",
                       "player_b": "problem:puzzles:p1", "score_a": 0.0, "handicap": 0.0,
                       "colour": None, "event": None, "played_at": "2026-11-20T10:30:00",
                       "reported_by": None, "direct": True, "seconds": 1800.0}),
    ("puzzle_posted", {"ladder": "puzzles", "problem": "p2", "revealed": "p1"}),
    ("puzzle_posted", {"ladder": "puzzles", "problem": None, "revealed": "p2"}),
    # one club on several chats (issue 35): codes (their hashes), a chat joining, the marker
    # in its own log, two accounts made one member
    ("link_code_issued", {"kind": "chat", "code": "ab" * 32, "member": None,
                          "expires_at": "2026-11-20T10:10:00"}),
    ("link_code_issued", {"kind": "member", "code": "cd" * 32, "member": "tg:42",
                          "expires_at": "2026-11-20T10:10:00"}),
    ("chat_linked", {"platform": "discord", "chat_id": "9001", "code": "ab" * 32}),
    ("chat_moved", {"club": 1}),
    ("member_linked", {"member": "tg:42", "identity": "9101", "code": "cd" * 32}),
    # a chat joining with its games (the marker that opens them, the one that merges them by
    # date), a chat leaving, and the marker in its own log
    ("chat_linked", {"platform": "telegram", "chat_id": "-1002", "code": "ef" * 32,
                     "merge": True}),
    ("history_merged", {"platform": "telegram", "chat_id": "-1002", "games": 2}),
    ("chat_unlinked", {"platform": "discord", "chat_id": "9001"}),
    ("chat_returned", {"club": 1}),
    # a joined chat's own time zone and language (/set there), and back to the club's
    ("chat_setting_set", {"chat": "discord:9001", "setting": "timezone",
                          "value": "Asia/Tokyo"}),
    ("chat_setting_set", {"chat": "discord:9001", "setting": "language", "value": None}),
    # a club night (issue 36): opened, a check-in, a round paired and published, a board's game,
    # a forfeit, closed
    ("night_opened", {"ladder": "main", "mode": "swiss", "rounds": 4}),
    ("night_opened", {"ladder": "main", "mode": "roundrobin", "rounds": None}),
    ("night_entered", {"ladder": "main", "member": "tg:42", "status": "in"}),
    ("round_paired", {"ladder": "main", "round": 1, "boards": [["tg:42", "tg:43", 0]],
                      "bye": "tg:44", "reasons": {"1": "colour"},
                      "numbers": ["tg:42", "tg:43", "tg:44"], "rules": None}),
    ("pair_forbidden", {"ladder": "main", "first": "tg:42", "second": "tg:44"}),
    ("round_published", {"ladder": "main", "round": 1}),
    ("game_reported", {"ladder": "main", "player_a": "tg:42", "player_b": "tg:43",
                       "score_a": 1.0, "handicap": 0.0, "colour": None, "event": None,
                       "played_at": "2026-11-20T19:30:00", "reported_by": "tg:42",
                       "direct": False, "night": 100, "round": 1, "board": 1}),
    ("board_forfeited", {"ladder": "main", "round": 1, "board": 1, "result": "+-"}),
    ("night_closed", {"ladder": "main"}),
    # rating bands (issue 38): /band add, with a Discord role and without; /band remove; the
    # role sync paused by a refusal of Discord's, and resumed by /band sync
    ("band_added", {"ladder": "main", "name": "Gold", "minimum": 1400, "role": None}),
    ("band_added", {"ladder": "main", "name": "Gold", "minimum": 1400,
                    "role": "900000000000000001"}),
    ("band_removed", {"ladder": "main", "name": "Gold"}),
    ("band_roles_paused", {"ladder": "main", "role": "900000000000000001"}),
    ("band_roles_resumed", {"ladder": "main"}),
    # the live leaderboard (issue 38): /board here, the front-end's post, /board off or its
    # failures
    ("live_board_started", {"ladder": "main", "platform": "telegram", "chat": "-1001"}),
    ("live_board_started", {"ladder": "blitz", "platform": "discord", "chat": "9001",
                            "channel": "9101"}),
    ("live_board_moved", {"ladder": "main", "board": 120, "message": "17"}),
    ("live_board_stopped", {"ladder": "main", "reason": "off"}),
    ("live_board_stopped", {"ladder": "main", "reason": "failed"}),
    ("season_closed", {"ladder": "main", "name": "S1", "reset": "soft", "factor": 0.5,
                       "automatic": False}),
]


def test_every_kind_has_one_payload_class() -> None:
    assert set(CLASSES) == set(Kind)
    for kind, cls in CLASSES.items():
        assert kind == cls.KIND
    assert {kind for kind, _ in SHAPES} == set(Kind)


@pytest.mark.parametrize(("kind", "data"), SHAPES, ids=[kind for kind, _ in SHAPES])
def test_every_writers_shape_comes_back_byte_for_byte(
        kind: str, data: dict[str, JsonValue]) -> None:
    written = json.loads(stored_text(data))  # as read back from the database
    event = decode(kind, written)
    assert type(event) is CLASSES[kind]
    again_kind, again = encode(event)
    assert (again_kind, again) == (kind, data)
    assert stored_text(again) == stored_text(data)  # the same keys in the same order


def test_payloads_read_as_their_fields() -> None:
    reported = decode("game_reported", {
        "ladder": "main", "player_a": "u1", "player_b": "u2", "score_a": 0.5, "handicap": 25.5,
        "colour": "white", "event": "Spring", "played_at": "2024-03-01T19:00:00.123456",
        "reported_by": None, "direct": True})
    assert reported == GameReported("main", "u1", "u2", 0.5, 25.5, "white", "Spring",
                                    "2024-03-01T19:00:00.123456", None, True)
    assert decode("players_merged", {"from": "u3", "into": "u1"}) == PlayersMerged("u3", "u1")
    assert decode("game_corrected", {"game": 7, "changes": {"handicap": 12.0}}) == (
        GameCorrected(7, GameChanges(handicap=12.0)))


def test_new_event_is_the_storage_event_a_writer_made() -> None:
    made = new_event(GameConfirmed(game=7), "bob", NOW)
    assert made == NewEvent("game_confirmed", "bob", NOW, {"game": 7})
    assert made.kind is Kind.GAME_CONFIRMED
    merged = new_event(PlayersMerged(from_="u3", into="u1"), "mod", NOW, "same person")
    assert merged == NewEvent("players_merged", "mod", NOW, {"from": "u3", "into": "u1"},
                              "same person")


def test_a_value_its_shape_cannot_hold_is_refused_not_lost() -> None:
    # A handle is written with the ladder joined; an import's row with its date.
    with pytest.raises(ValueError, match="handle"):
        encode(MemberRegistered("u1", "alice", handle="al"))
    with pytest.raises(ValueError, match="event"):
        encode(PlayerJoined("main", "u1", event="cup"))


@pytest.mark.parametrize(("kind", "data"), [
    ("game_exploded", {"game": 1}),
    ("game_confirmed", {}),
    ("game_confirmed", {"game": 1, "by": "u1"}),
    ("players_merged", {"from_": "u1", "into": "u2"}),
    ("game_corrected", {"game": 1, "changes": {"colour": "white"}}),
])
def test_what_this_build_does_not_know_is_refused(kind: str, data: dict[str, JsonValue]) -> None:
    with pytest.raises(ValueError, match=kind):
        decode(kind, data)


def test_shapes_of_earlier_builds_decode_with_their_defaults() -> None:
    # before members had handles (9788509), and the import's rows before they kept their
    # dates (04869ab)
    member = decode("member_registered",
                    {"user": "u1", "name": "alice", "ladder": "main", "birth_date": None})
    assert member == MemberRegistered("u1", "alice", "main", None, None)
    joined = decode("player_joined", {"ladder": "main", "member": "u1", "event": "cup"})
    assert joined == PlayerJoined("main", "u1", "cup", None)
    log = [
        StoredEvent(1, "ladder_created", "system", NOW,
                    {"ladder": "main", "system": "club", "params": {}}),
        StoredEvent(2, "member_registered", "u1", NOW,
                    {"user": "u1", "name": "alice", "ladder": "main", "birth_date": None}),
        StoredEvent(3, "event_opened", "mod", NOW, {"ladder": "main", "name": "Cup"}),
        StoredEvent(4, "player_retired", "import", NOW,
                    {"ladder": "main", "member": "u1", "event": "cup"}),
    ]
    state = ClubState.build(log)
    assert state.members[2].handle is None
    assert [(m.seq, m.kind, m.at, m.event) for m in state.ladders["main"].membership] == [
        (2, Kind.PLAYER_JOINED, NOW, None), (4, Kind.PLAYER_RETIRED, NOW, "cup")]


# -- a log written by an earlier build ---------------------------------------------------------


def old_log() -> list[StoredEvent]:
    """The events of ``clubrating-6fa0741.sql`` (see tests/system/test_upgrade.py), read as the
    SQLite backend reads them."""
    database = sqlite3.connect(":memory:")
    try:
        database.executescript((DATA / "clubrating-6fa0741.sql").read_text(encoding="utf-8"))
        rows = database.execute(
            "SELECT id, kind, actor, at, reason, data FROM events ORDER BY id").fetchall()
    finally:
        database.close()
    return [StoredEvent(int(r[0]), str(r[1]), str(r[2]), datetime.fromisoformat(r[3]),
                        json.loads(r[5]), str(r[4])) for r in rows]


def test_the_old_log_decodes_and_its_writers_shapes_come_back() -> None:
    log = old_log()
    assert len(log) == 10
    for event in log:
        kind, data = encode(decode(event.kind, event.data))
        assert kind == event.kind and stored_text(data) == stored_text(event.data)


def test_the_old_log_folds_to_the_club_it_was() -> None:
    """Figures pinned from the fold before the payloads were typed."""
    state = ClubState.build(old_log())
    assert state.last_id == 10 and len(state.log) == 10
    assert [e.id for e in state.undoable] == [1, 5, 6, 7, 8, 9, 10]
    assert {m.id: (m.user, m.name, m.birth_date, m.handle) for m in state.members.values()} == {
        2: ("bob", "bob", None, None),
        3: ("alice", "alice", None, None),
        4: ("carol", "carol_k", date(2015, 1, 1), "carol"),
    }
    assert state.moderators == set() and state.merged_into == {} and state.open_reports == {}
    main, blitz = state.ladders["main"], state.ladders["blitz"]
    assert list(state.ladders) == ["main", "blitz"]
    assert (main.settings.system, main.settings.params, main.settings.announce) == (
        "club", (("k", "24"),), True)
    assert (blitz.settings.system, blitz.settings.params, blitz.settings.announce) == (
        "elo", (("k", "40"),), False)
    assert main.inputs == [("member", 0), ("member", 1), ("member", 2), ("game", 5), ("game", 6)]
    assert blitz.inputs == [("game", 8)]
    assert (main.generation, blitz.generation) == (1, 0)
    assert [(m.seq, m.kind, m.member) for m in main.membership] == [
        (2, Kind.PLAYER_JOINED, 2), (3, Kind.PLAYER_JOINED, 3), (4, Kind.PLAYER_JOINED, 4)]
    assert {g.id: (g.ladder, g.player_a, g.player_b, g.score_a, g.handicap, g.status, g.seq)
            for g in state.games.values()} == {
        5: ("main", 3, 2, 1.0, 0.0, GameStatus.CONFIRMED, 5),
        6: ("main", 3, 4, 0.5, 50.0, GameStatus.CONFIRMED, 6),
        8: ("blitz", 2, 4, 1.0, 0.0, GameStatus.CONFIRMED, 8),
    }
    ratings = {
        name: {key: (p.rating, p.games)
               for key, p in LadderRatings().sync(state, ladder).players.items()}
        for name, ladder in state.ladders.items()
    }
    # what test_upgrade's leaderboards show rounded: alice 1538?, carol_k 1499?, bob 1464?
    assert ratings == {
        "main": {"m3": (1537.5, 2), "m4": (1498.7603305785124, 1), "m2": (1463.6363636363637, 1)},
        "blitz": {"m2": (1603.6363636363637, 1), "m4": (1200.0, 1)},
    }


# -- every event the service writes ------------------------------------------------------------


async def test_every_event_the_service_writes_comes_back_byte_for_byte(tmp_path: Path) -> None:
    """A club's life touching every writer; then each stored row's JSON text, decoded and
    encoded again, is the same text."""
    database = tmp_path / "club.db"

    def last_game() -> int:
        """The number of the club's latest game: its reports so far (the club is the file's
        only one)."""
        with sqlite3.connect(database) as reading:
            return int(reading.execute(
                "SELECT COUNT(*) FROM events WHERE kind = 'game_reported'").fetchone()[0])

    history = tmp_path / "EVENTS.csv"
    history.write_text(
        "played_at,event,player_a,player_b,score_a,handicap,kind,colour\n"
        "2024-02-01,,zed,,,,join,\n"
        "2024-02-02,,zed,yan,1,0,game,white\n"
        "2024-02-03,cup,zed,yan,0.5,20,game,\n"
        "2024-02-03,cup,xia,,,,join,\n"
        "2024-02-04,,yan,,,,retire,\n"
        "2024-02-05,,yan,,,,return,\n", encoding="utf-8")
    async with open_club(database, start=START, rate=None) as chat:
        for user in ("alice", "carol", "dan"):
            await chat.as_(user, "/register")
        await chat.as_("bob", "/register birth=2010-05-01")
        await chat.as_("alice_phone", '/register "Alice P"')
        await chat.as_("mod!", "/moderator add @bob", "/moderator remove @bob",
                       "/ladder create blitz elo k=40", "/ladder create hist",
                       "/system elo k=24", "/apply", "/system club", "/apply",
                       "/set announce yes",
                       "/set auto_confirm_hours 12", "/set timezone Europe/Paris",
                       "/set inactivity_days off")
        await chat.as_("carol", "/set mylanguage ja", "/set mylanguage off")
        await chat.as_("alice", "/challenge @bob")
        await chat.as_("bob", "/accept")
        await chat.as_("carol", "/challenge @alice")
        await chat.as_("alice", "/decline")
        await chat.as_("alice", "/report @bob win")
        await chat.as_("bob", "/confirm")
        await chat.as_("alice", "/report @carol draw")
        disputed = last_game()
        await chat.as_("carol", "/dispute I won")
        await chat.as_("dan", "/report @alice loss", "/withdraw", "/challenge @carol",
                       "/withdraw")
        await chat.as_("mod!", "/report @alice @carol win handicap=25 colour=white")
        direct = last_game()
        await chat.as_("mod!", f"/void {direct} wrong pairing", f"/restore {direct}",
                       f"/correct {direct} loss a=@dan handicap=10", "/apply",
                       f"/correct {disputed}", "/apply",
                       "/merge @alice_phone @alice", "/apply", "/retire @dan", "/return @dan",
                       "/event open Spring")
        await chat.as_("alice", "/report @bob win event=Spring")
        await chat.as_("bob", "/confirm")  # an event closes once its reports are settled
        await chat.as_("mod!", "/event close Spring",
                       '/schedule cron="0 18 * * FRI" tz=Europe/Berlin size=5',
                       "/schedule pause", "/schedule resume", "/retire @carol", "/undo",
                       "/apply")
        csv = read_events(history)
        await chat.service.import_history(console.PLATFORM, console.CHAT, csv, csv.labels,
                                          "hist")
        await chat.as_("eve", "/register", "/claim zed")
        await chat.as_("fay", "/register", "/claim yan")
        await chat.as_("mod!", "/claim approve zed", "/claim decline yan")
        await chat.as_("mod!", "/set inactivity_days 2")
        await chat.as_("alice", "/report @bob draw")
        chat.clock.advance(hours=49)  # confirms itself, then retires the idle
        await chat.as_("mod!", "/top")
        # rated puzzles (issue 34): problems, attempts, one out of time, a puzzle post
        await chat.as_("mod!", "/ladder create puzzles tactics",
                       "/puzzle add p1 rating=1600 answers=Qh7|Qh7# White mates",
                       "/puzzle add p2 answers=e4 The first move")
        await chat.as_("alice", "/puzzle", "/answer qh7", "/puzzle")
        chat.clock.advance(minutes=31)
        await chat.as_("alice", "/top puzzles")
        await chat.service.puzzle_post(Caller(console.PLATFORM, console.CHAT, "system",
                                              "system", moderator=True), "puzzles")
        # one club on several chats (issue 35): a Discord server joins, an account links
        mod = Caller(console.PLATFORM, console.CHAT, "mod", "mod", moderator=True)
        code = (await chat.service.link_code(mod)).params["code"]
        assert isinstance(code, str)
        await chat.service.link(Caller("discord", "9001", "d1", "d1", moderator=True), code)
        alice = Caller(console.PLATFORM, console.CHAT, "alice", "alice")
        mine = (await chat.service.link_code(alice, member=True)).params["code"]
        assert isinstance(mine, str)
        await chat.service.link(Caller("discord", "9001", "9101", "9101"), mine, member=True)
        # the server's own time zone, and its language back to the club's
        server_mod = Caller("discord", "9001", "d1", "d1", moderator=True)
        await chat.service.set_setting(server_mod, "timezone", "Asia/Tokyo")
        await chat.service.set_setting(server_mod, "language", "off")
        # a group with a game merges into the club; the server leaves it again
        group_mod = Caller("telegram", "-1002", "t1", "t1", moderator=True)
        for user in ("t2", "t3"):
            await chat.service.register(Caller("telegram", "-1002", user, user), f"g{user}")
        await chat.service.report(group_mod, "gt3", "win", player="gt2")
        code = (await chat.service.link_code(mod)).params["code"]
        assert isinstance(code, str)
        await chat.service.link(group_mod, code, merge=True)
        await chat.service.apply_correction(group_mod)
        await chat.service.unlink(server_mod)
        await chat.service.apply_correction(server_mod)
        # a club night (issue 36): check-ins, a forbidden pair, two rounds, a forfeit, a board's
        # game, the close
        await chat.as_("mod!", "/night open swiss rounds=2")
        for user in ("alice", "bob", "carol"):
            await chat.as_(user, "/in")
        await chat.as_("mod!", "/forbid @alice @bob", "/pair", "/publish", "/result 1 +-",
                       "/pair", "/publish", "/result 1 1-0", "/night close")
        # rating bands (issue 38): added, one removed; role sync paused by Discord, resumed
        await chat.as_("mod!", "/band add Gold 1600", "/band add Silver 1500",
                       "/band remove Silver")
        await chat.service.pause_band_roles(console.PLATFORM, console.CHAT, "main", "900")
        await chat.service.resume_band_roles(mod, "main")
        # a live leaderboard (issue 38): started, posted by a front-end, stopped by its
        # failures; started again and ended by /board off
        await chat.as_("mod!", "/board here")
        board_caller = Caller(console.PLATFORM, console.CHAT, "mod", "mod", moderator=True)
        club_id, board = (await chat.service.live_boards(console.PLATFORM))[0]
        assert await chat.service.live_board_moved(club_id, board, "1")
        assert await chat.service.live_board_failed(club_id, board)
        await chat.service.start_board(board_caller)
        await chat.service.stop_board(board_caller)
        # a season closed (issue 38)
        await chat.as_("mod!", "/season close S1 confirm")
        # dan's username changed: his next command, a read, keeps the new one
        await chat.service.leaderboard(Caller(console.PLATFORM, console.CHAT, "dan", "dan",
                                              handle="dan_v2"))
    with sqlite3.connect(database) as reading:
        rows = reading.execute("SELECT kind, data FROM events ORDER BY id").fetchall()
    reading.close()
    assert {kind for kind, _ in rows} == set(Kind)
    for kind, text in rows:
        again_kind, again = encode(decode(kind, json.loads(text)))
        assert (again_kind, stored_text(again)) == (kind, text)
