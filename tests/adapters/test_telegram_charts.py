"""/chart and /card on Telegram: the real python-telegram-bot Application uploads the pictures as
photos (multipart sendPhoto) to the fake Bot API server."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from bot.charts import card_size, chart_size
from bot.chat.messages import text
from tests.adapters.test_charts import png_size
from tests.fake_telegram import Output
from tests.telegram_harness import Running, running_bot, say

GROUP = -1001


@pytest.fixture
async def bot(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_bot(tmp_path / "club.db") as running:
        yield running


def uploaded(bot: Running, output: Output) -> bytes:
    """The bytes of the photo the bot sent (as the fake server received them)."""
    message = bot.tg.message(GROUP, output.message_id)
    assert message is not None
    return bot.tg.files[message["photo"][-1]["file_id"]]


async def test_chart_and_card_arrive_as_photos(bot: Running) -> None:
    tg = bot.tg
    admin, alice, boris = tg.user(1, "Ada", "ada"), tg.user(2, "Alice", "alice"), tg.user(
        3, "Борис", "boris")
    group = tg.group(GROUP, "Chess club", admins=[admin])
    for user in (alice, boris):
        await say(bot, group, user, "/register")
    for result in ("win", "loss", "win"):
        bot.clock.advance(days=1)
        recorded = await say(bot, group, admin, f"/report @alice @boris {result}")
        assert "recorded" in recorded.plain

    chart = await say(bot, group, alice, "/chart")
    assert chart.kind == "photo"
    assert png_size(uploaded(bot, chart)) == chart_size()
    assert chart.size == len(uploaded(bot, chart))
    assert chart.plain.startswith("alice (main): ")

    both = await say(bot, group, alice, "/chart @alice @boris theme=light")
    assert both.kind == "photo"
    assert both.plain == html.unescape(text("chart_title_two", name="alice", other="boris",
                                            ladder="main"))
    assert png_size(uploaded(bot, both)) == chart_size()

    card = await say(bot, group, boris, "/card")
    assert card.kind == "photo"
    assert card.plain == text("card_caption", ladder="main")
    assert png_size(uploaded(bot, card)) == card_size(2)

    # A refusal is still a sentence.
    refused = await say(bot, group, boris, "/chart theme=sepia")
    assert (refused.kind, refused.plain) == ("send", text("bad_theme", text="sepia"))
    assert tg.called("sendPhoto")[0]["chat_id"] == GROUP
