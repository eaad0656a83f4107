"""Numbers people can use (issue 15): each club numbers its games from #1 in the order they were
reported, and its challenges from #1 apart from them; the numbers come from the log alone, so
they are the same after a restart, on either backend, after ``export`` then ``import`` into an
empty club, and for the games of a database written before they existed (migration 0005 files
the previews a moderator kept under the new numbers).
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from importlib.resources import as_file
from pathlib import Path

import aiosqlite

from bot.history import read_events, write_events
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.identity import Caller, UserRef, Who
from bot.service.moderation import Correction
from bot.service.results import GameResult, Notice, Preview
from bot.storage.backends import open_repository
from bot.storage.migrations import MIGRATIONS
from bot.storage.sqlite import SqliteRepository

START = datetime(2024, 3, 1, 19, 0)


def caller(chat: str, user: str, moderator: bool = False) -> Caller:
    return Caller("telegram", chat, user, user, moderator=moderator)


def who(user: str) -> Who:
    return UserRef(user)


async def play(service: ClubService, chat: str) -> list[int]:
    """A club night in ``chat``: three members, a challenge, four reports (one withdrawn, one
    recorded by a moderator and undone); the numbers the answers gave."""
    mod = caller(chat, "mod", moderator=True)
    for name in ("ann", "ben", "cy"):
        await service.register(caller(chat, name))
    numbers = []
    first = await service.report(caller(chat, "ann"), who("ben"), "win")
    numbers.append(first.game.id)
    await service.challenge(caller(chat, "cy"), who("ann"))
    await service.confirm(caller(chat, "ben"), first.game.id)
    recorded = await service.report(mod, who("cy"), "draw", player=who("ben"))
    numbers.append(recorded.game.id)
    await service.undo(mod)  # moves ratings: previewed, then applied
    await service.apply_correction(mod)
    withdrawn = await service.report(caller(chat, "cy"), who("ann"), "loss")
    numbers.append(withdrawn.game.id)
    await service.withdraw(caller(chat, "cy"), withdrawn.game.id)
    last = await service.report(caller(chat, "cy"), who("ben"), "win")
    numbers.append(last.game.id)
    await service.confirm(caller(chat, "ben"))
    return numbers


async def test_each_club_numbers_its_games_and_challenges_from_one(
        database: Path | str) -> None:
    """Two clubs of one database, their logs interleaved: each counts from #1, an undone or
    withdrawn report keeps its number, and a restart changes none."""
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(START))
    try:
        assert await play(service, "-1") == [1, 2, 3, 4]
        assert await play(service, "-2") == [1, 2, 3, 4]
        issued = await service.challenge(caller("-2", "ben"), who("cy"))
        assert issued.params["challenge"] == 2
        assert (await service.answer_challenge(caller("-2", "cy"), True, 2)).key == (
            "challenge_accepted")
    finally:
        await repository.close()
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(START))
    try:
        history = await service.history(caller("-1", "ben"))
        assert [line.id for line in history.games] == [4, 1]
        nothing = await service.history(caller("-1", "ben"), who("cy"))
        assert [line.id for line in nothing.games] == [4]
        fifth = await service.report(caller("-1", "ann"), who("cy"), "win")
        assert fifth.game.id == 5
    finally:
        await repository.close()


async def test_export_then_import_into_an_empty_club_keeps_the_numbers(
        database: Path | str, tmp_path: Path) -> None:
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(START))
    try:
        for name in ("ann", "ben", "cy"):
            await service.register(caller("-1", name))
        for player, opponent in (("ann", "ben"), ("ben", "cy"), ("cy", "ann")):
            reported = await service.report(caller("-1", player), who(opponent), "win")
            await service.confirm(caller("-1", opponent), reported.game.id)
        exported = await service.export_history("telegram", "-1")
        (tmp_path / "EVENTS.csv").write_text(write_events(*exported), encoding="utf-8")
        history = read_events(tmp_path / "EVENTS.csv")
        await service.import_history("telegram", "-9", history, history.labels)
        before = await service.history(caller("-1", "ann"))
        after = await service.history(caller("-9", "mod", moderator=True), "ann")
        assert [(g.id, g.player_a, g.player_b) for g in after.games] == [
            (g.id, g.player_a, g.player_b) for g in before.games]
        assert {g.id for g in before.games} == {1, 3}
    finally:
        await repository.close()


async def test_previews_kept_before_numbers_are_filed_under_them(tmp_path: Path) -> None:
    """A database of the build before (migrations 0001-0004) where one moderator kept an undo
    of the club's second game, recorded last, and another a correction of its first game (both
    under their events' ids, the club's log following another club's): after the upgrade, the
    undo's Apply takes game #2 back, /apply corrects game #1, and a kept correction of a game
    the log lacks is dropped."""
    older = tmp_path / "schema-0004"
    older.mkdir()
    with as_file(MIGRATIONS) as schema:
        for migration in Path(schema).glob("000[1-4]_*.sql"):
            shutil.copy(migration, older / migration.name)
    database = tmp_path / "club.db"
    repository = await SqliteRepository.open(database, older)
    # Today's service writes that build's events, and the directory it keeps beside them and
    # each event's platform sequence (issue 41), which that build had not: the table and the
    # column are dropped before the upgrade.
    with as_file(MIGRATIONS) as schema:
        directory = (Path(schema) / "0008_directory.sql").read_text(encoding="utf-8")
        sequence = (Path(schema) / "0012_platform_sequence.sql").read_text(encoding="utf-8")
    async with aiosqlite.connect(database) as connection:
        await connection.executescript(directory + sequence)
    service = ClubService(repository, FakeClock(START))
    chat = "-1"
    mod, other = caller(chat, "mod", moderator=True), caller(chat, "other", moderator=True)
    try:
        await play(service, "-5")  # event ids are no game numbers in the club that follows
        for name in ("ann", "ben", "cy"):
            await service.register(caller(chat, name))
        await service.report(mod, who("ben"), "win", player=who("ann"))
        await service.report(mod, who("cy"), "win", player=who("ben"))
        club = await repository.club_id("telegram", chat, START)
        log = await repository.events(club)
        first, second = [e.id for e in log if e.kind == "game_reported"]
        correction = Correction(result="loss").kept()
        # what the earlier build kept: games and undone actions by their events' ids
        await repository.keep_preview(club, "mod", first, correction, START)
        await repository.keep_preview(club, "other", second, json.dumps({"undo": second}), START)
        await repository.keep_preview(club, "gone", 999, correction, START)
    finally:
        await repository.close()
    async with aiosqlite.connect(database) as connection:
        await connection.execute("DROP TABLE directory")
        await connection.execute("ALTER TABLE events DROP COLUMN platform_sequence")

    repository = await SqliteRepository.open(database)
    service = ClubService(repository, FakeClock(START))
    try:
        club = await repository.club_id("telegram", chat, START)
        assert await repository.take_preview(club, "gone") is None
        assert await service.apply_correction(other, 2) is None  # it is no correction of #2
        undone = await service.apply_correction(other, undo=second)
        assert isinstance(undone, Preview) and undone.applied and undone.undo is not None
        assert not (await service.history(mod, who("cy"))).games
        # kept without the log it was computed on: previewed again, applied at the next /apply
        # (issue 31), still as player_a's result, as the earlier build meant it
        again = await service.apply_correction(mod, 1)
        assert isinstance(again, Preview) and again.outdated and not again.applied
        applied = await service.apply_correction(mod, 1)
        assert isinstance(applied, Preview) and applied.applied and applied.game_id == 1
        history = await service.history(mod, who("ann"))
        assert [(g.id, g.player_a, g.score_a) for g in history.games] == [(1, "ann", 0.0)]
    finally:
        await repository.close()


async def test_a_game_number_is_not_a_challenge_number(tmp_path: Path) -> None:
    repository = await open_repository(tmp_path / "club.db")
    service = ClubService(repository, FakeClock(START))
    try:
        for name in ("ann", "ben"):
            await service.register(caller("-1", name))
        game = await service.report(caller("-1", "ann"), who("ben"), "win")
        issued = await service.challenge(caller("-1", "ben"), who("ann"))
        assert isinstance(game, GameResult) and game.game.id == 1
        assert isinstance(issued, Notice) and issued.params["challenge"] == 1
        assert (await service.answer_challenge(caller("-1", "ann"), False, 1)).key == (
            "challenge_declined")
        assert (await service.confirm(caller("-1", "ben"), 1)).key == "confirmed"
    finally:
        await repository.close()
