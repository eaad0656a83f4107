"""A long club history as EVENTS.csv, for the tests of heavy work (charts, /evaluate, imports)
that must not hold the event loop: ``games`` games among ``players`` players (p000, p001, ...),
half an hour apart, p000 in every ``every``-th game (a member with a long history)."""

from __future__ import annotations

import asyncio
import random
from datetime import datetime, timedelta
from pathlib import Path

from bot.history import read_events
from tests.chat import open_club

FIRST = datetime(2020, 1, 1)


def last_game(games: int) -> datetime:
    return FIRST + timedelta(minutes=30 * (games - 1))


def write_events(path: Path, games: int, players: int = 200, every: int = 2,
                 seed: int = 1) -> Path:
    rnd = random.Random(seed)
    names = [f"p{n:03d}" for n in range(players)]
    lines = ["played_at,event,player_a,player_b,score_a"]
    for n in range(games):
        a = "p000" if n % every == 0 else rnd.choice(names)
        b = rnd.choice(names)
        while b == a:
            b = rnd.choice(names)
        when = FIRST + timedelta(minutes=30 * n)
        lines.append(f"{when.isoformat()},,{a},{b},{rnd.choice(['1', '0', '0.5'])}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def imported_database(folder: Path, games: int) -> Path:
    """A console club's database in ``folder`` with :func:`write_events`' ``games`` games
    imported, its clock the day after the last one (made once by a module's fixture; its tests
    copy it)."""
    events = write_events(folder / "EVENTS.csv", games)

    async def imported() -> None:
        async with open_club(folder / "club.db",
                             start=last_game(games) + timedelta(days=1)) as chat:
            history = read_events(events)
            await chat.service.import_history("console", "local", history, history.labels)

    asyncio.run(imported())
    return folder / "club.db"
