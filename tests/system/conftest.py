"""Every test under tests/system starts ``clubrating`` as a process: marked ``system`` and run
after all the others (``pytest -m "not system"`` leaves them out, ``-m system`` runs them alone).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fake_discord import FakeDiscord
from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import DiscordClub, TelegramClub

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.system)
    items.sort(key=lambda item: item.get_closest_marker("system") is not None)


@pytest.fixture
async def telegram(tmp_path: Path) -> AsyncIterator[TelegramClub]:
    """A club's group on the fake Bot API, for ``clubrating run`` to serve."""
    async with FakeTelegram(token=TOKEN) as tg:
        yield TelegramClub.on(tg, tmp_path)


@pytest.fixture
async def discord(tmp_path: Path) -> AsyncIterator[DiscordClub]:
    """A club's server on the fake Discord, for ``clubrating run`` to serve."""
    async with FakeDiscord() as dc:
        yield DiscordClub.on(dc, tmp_path)
