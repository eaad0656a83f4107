"""``clubrating migrate-db``: move every club from a SQLite file to a PostgreSQL server, then
prove the move changed nothing.

Every club's whole log goes over with its ids, together with the answers to handled requests
(a platform redelivering an update after the move still gets its first answer), the claimed
scheduled posts (none is posted twice) and the outbox's rows (a post claimed but not yet sent
is sent after the move). A club whose chat already has a log on the server is refused, and then
nothing at all is copied. After the copy, each club's log is read back from the server and
each ladder's ratings are derived on both sides and compared. Stop the bot before moving: the
SQLite file is read as it is at the start.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.storage.backends import describe, is_postgres

if TYPE_CHECKING:
    from bot.storage.postgres import PostgresRepository
    from bot.storage.repository import StoredEvent
    from bot.storage.transfer import ClubCopy

# The service and the transfer are imported where a move needs them: every ``clubrating``
# command builds this command's parser, and ``clubrating replay`` should not pay for them.


class MoveError(Exception):
    """A move that cannot be done, or whose check failed; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Moved:
    clubs: int
    events: int
    answers: int
    posts: int
    ladders: int


def add_migrate_db_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    move = commands.add_parser(
        "migrate-db", help="copy every club from a SQLite file to PostgreSQL and verify",
        description="Copy every club's whole log (and answered requests and claimed posts) from "
                    "a SQLite file to a PostgreSQL server, then check that every ladder's "
                    "ratings are the same on both. Stop the bot first.",
    )
    move.add_argument("--from", dest="source", required=True, metavar="sqlite:FILE")
    move.add_argument("--to", dest="target", required=True, metavar="postgresql://...")


def sqlite_file(source: str) -> Path:
    """``sqlite:FILE`` (or just FILE)."""
    if "://" in source:
        raise MoveError(f"--from takes sqlite:FILE, not {source!r}")
    return Path(source.removeprefix("sqlite:"))


def ratings_of(events: list[StoredEvent]) -> dict[str, object]:
    """Every ladder's final ratings and pool, derived from a log from scratch."""
    from bot.service.ratings import LadderRatings
    from bot.service.state import ClubState

    state = ClubState.build(events)
    derived: dict[str, object] = {}
    for name, ladder in state.ladders.items():
        final = LadderRatings().sync(state, ladder)
        derived[name] = (dict(final.players), final.pool)
    return derived


async def move(source: Path, target: str) -> Moved:
    from bot.storage.postgres import PostgresRepository
    from bot.storage.transfer import TargetNotEmpty, read_sqlite

    if not is_postgres(target):
        raise MoveError(f"--to takes a postgresql:// address, not {target!r}")
    try:
        clubs = await read_sqlite(source)
    except FileNotFoundError as error:
        raise MoveError(str(error)) from None
    repository = await PostgresRepository.open(target)
    try:
        try:
            ids = await repository.copy_in(clubs)
        except TargetNotEmpty as error:
            raise MoveError(str(error)) from None
        ladders = 0
        for club, club_id in zip(clubs, ids, strict=True):
            ladders += await _verify(repository, club, club_id)
    finally:
        await repository.close()
    return Moved(len(clubs), sum(len(c.events) for c in clubs),
                 sum(len(c.answers) for c in clubs), sum(len(c.posts) for c in clubs), ladders)


async def _verify(repository: PostgresRepository, club: ClubCopy, club_id: int) -> int:
    """Read the club back from the server; its log and every ladder's ratings must be the
    source's. Returns the number of ladders compared."""
    where = f"{club.platform}:{club.chat_id}"
    copied = await repository.events(club_id)
    if copied != club.events:
        raise MoveError(f"the copy of {where} differs from its source log")
    before, after = ratings_of(club.events), ratings_of(copied)
    for name in before:
        if after.get(name) != before[name]:
            raise MoveError(f"the ratings of ladder {name!r} of {where} differ after the move")
    for request_id, response, _ in club.answers:
        if await repository.answer(club_id, request_id) != response:
            raise MoveError(f"the answer to request {request_id!r} of {where} differs")
    return len(before)


async def migrate_db_command(args: argparse.Namespace) -> str:
    moved = await move(sqlite_file(args.source), args.target)
    return (f"migrate-db: {moved.clubs} clubs, {moved.events:,} events, {moved.answers:,} "
            f"answers, {moved.posts} posts copied to {describe(args.target)}; the ratings of "
            f"all {moved.ladders} ladders match")
