"""Rated puzzles on Discord, through the real discord.py client and the fake Discord: problems
added with ``/puzzle add:`` (a picture as an attachment option), shown in messages only the
solver sees with an Answer button, the form that button opens, and the "Solve privately"
button of a puzzle post, which answers the presser alone and leaves the post as it was."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.adapters.discord import DiscordPublisher
from bot.chat.messages import text
from bot.scheduling.publishing import Button, Picture
from bot.storage.pictures import PictureStore
from tests.discord_harness import Running, club_state, press, running_bot, say
from tests.fake_discord import MANAGE_GUILD, FakeDiscord, Guild, Member

GUILD = 900000000000000001
#: a PNG of 2 x 1 pixels, as far as its header says (what Discord and the store read)
PNG = (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + (2).to_bytes(4, "big")
       + (1).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00" + b"\x00" * 32)


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake


class Club:
    def __init__(self, dc: FakeDiscord) -> None:
        self.guild: Guild = dc.guild(GUILD, "Chess club",
                                     owner=dc.user(900000000000000100, "owner"))
        managers = dc.role(self.guild, 900000000000000201, "Managers", MANAGE_GUILD)
        self.ada: Member = dc.member(self.guild, dc.user(900000000000000300, "ada"), managers)
        self.alice: Member = dc.member(self.guild, dc.user(900000000000000301, "alice"))
        self.bob: Member = dc.member(self.guild, dc.user(900000000000000302, "bob"))


@pytest.fixture
def club(dc: FakeDiscord) -> Club:
    return Club(dc)


@pytest.fixture
async def bot(tmp_path: Path, dc: FakeDiscord, club: Club) -> AsyncIterator[Running]:
    async with running_bot(tmp_path / "club.db", dc=dc) as running:
        running.front.pictures = PictureStore(tmp_path)
        yield running


async def puzzle_club(bot: Running, club: Club) -> None:
    """The puzzles ladder with p1 (with a picture) and p2 (rated 1800); alice and bob in."""
    created = await say(bot, club.guild, club.ada, "ladder", "create", name="puzzles",
                        system="tactics")
    assert "created" in created.plain, created.plain
    image = bot.dc.attachment("p1.png", PNG)
    added = await say(bot, club.guild, club.ada, "puzzle", add="p1", answers="Qh7|Qxh7",
                      prompt="White mates in one", image=image)
    assert added.ephemeral and added.plain.startswith("Problem p1 added to puzzles"), added
    added = await say(bot, club.guild, club.ada, "puzzle", add="p2", answers="Nf7",
                      rating=1800, prompt="Fork")
    assert added.ephemeral and "starting rating 1800" in added.plain, added.plain
    for member in (club.alice, club.bob):
        await say(bot, club.guild, member, "register")


async def test_a_problem_solved_in_the_form_its_answer_button_opens(
        bot: Running, club: Club, tmp_path: Path) -> None:
    await puzzle_club(bot, club)
    [kept] = (tmp_path / "pictures").iterdir()
    assert kept.read_bytes() == PNG

    shown = await say(bot, club.guild, club.alice, "puzzle")
    assert shown.kind == "reply" and shown.ephemeral
    assert shown.plain.startswith("Problem p1 (puzzles, rating 1500):\nWhite mates in one")
    assert "Qh7" not in shown.plain
    [(name, png)] = shown.files
    assert png == PNG and shown.embeds[0]["image"]["url"] == f"attachment://{name}"
    [[(label, answer_id)]] = shown.buttons
    assert label == "Answer" and re.fullmatch(r"p:answer:\d+", answer_id)

    opened = await press(bot, club.guild, club.alice, shown, answer_id)
    assert opened.kind == "modal" and opened.modal is not None
    assert opened.modal.title == text("answer_form_title", problem="p1")
    assert list(opened.modal.labels.values()) == ["Answer"]
    [field] = opened.modal.labels
    submitted = await bot.dc.submit_modal(club.guild, club.alice, opened, {field: "qxh7"})
    result = await bot.dc.output()
    assert result.kind == "reply" and result.ephemeral
    assert result.plain.startswith("Solved! p1 in"), result.plain
    assert "Accepted answers: Qh7 | Qxh7" in result.plain

    # The form delivered twice is answered once, and nothing changes.
    before = await club_state(bot, club.guild)
    await bot.dc.redeliver(submitted)
    board = await say(bot, club.guild, club.bob, "top", ladder="puzzles", problems=True)
    assert await club_state(bot, club.guild) == before
    assert [e[:2] for e in bot.dc.errors] == [(400, "POST")]
    assert not board.ephemeral
    assert board.plain.splitlines()[0] == "Problems of puzzles, hardest first:", board.plain
    assert "Qh7" not in board.plain

    # The Answer button of a problem already answered opens no form: only alice is told.
    again = await press(bot, club.guild, club.alice, shown, answer_id)
    assert again.kind == "reply" and again.ephemeral
    assert again.plain == text("problem_attempted", problem="p1")
    late = await say(bot, club.guild, club.alice, "answer", text="Qh7")
    assert late.ephemeral and late.plain == text("no_open_attempt")


async def test_answer_command_and_top_problems_without_a_ladder(bot: Running,
                                                                 club: Club) -> None:
    await puzzle_club(bot, club)
    first = await say(bot, club.guild, club.bob, "puzzle")
    assert first.ephemeral and first.plain.startswith("Problem p1"), first.plain
    again = await say(bot, club.guild, club.bob, "puzzle")
    assert again.ephemeral and again.plain.startswith("Problem p1"), again.plain
    assert "still open" in again.plain
    wrong = await say(bot, club.guild, club.bob, "answer", text="Kh1")
    assert wrong.ephemeral and wrong.plain.startswith("Not solved: p1"), wrong.plain
    # bob's failure in no time moved no one: an estimate at the rating it would replace
    board = await say(bot, club.guild, club.bob, "top", problems=True)
    assert board.plain.splitlines()[1:] == ["1. p2  1800  0 of 0 attempts solved",
                                            "2. p1  1500  0 of 1 attempt solved"], board.plain


async def test_only_moderators_add_problems_and_only_pictures(bot: Running, club: Club,
                                                              tmp_path: Path) -> None:
    await puzzle_club(bot, club)
    refused = await say(bot, club.guild, club.alice, "puzzle", add="p3", answers="e4",
                        prompt="Open")
    assert refused.ephemeral and refused.plain == text("moderators_only")
    not_picture = bot.dc.attachment("p4.png", b"<svg>no picture</svg>")
    refused = await say(bot, club.guild, club.ada, "puzzle", add="p4", answers="e4",
                        prompt="Open", image=not_picture)
    assert refused.ephemeral and refused.plain == text("bad_picture", limit=5)
    no_answers = await say(bot, club.guild, club.ada, "puzzle", add="p5", prompt="Open")
    assert no_answers.ephemeral and no_answers.plain.startswith("Usage"), no_answers.plain
    assert len(list((tmp_path / "pictures").iterdir())) == 1
    board = await say(bot, club.guild, club.ada, "top", ladder="puzzles", problems=True)
    assert [line.split()[1] for line in board.plain.splitlines()[1:]] == ["p2", "p1"]
    assert bot.dc.errors == []


async def test_a_posts_solve_button_answers_the_presser_alone(bot: Running, club: Club) -> None:
    await puzzle_club(bot, club)
    board = await say(bot, club.guild, club.ada, "top", ladder="puzzles", problems=True)
    assert "p2" in board.plain
    publisher = DiscordPublisher(bot.client)
    await publisher.publish(str(club.guild.channel.id), "Puzzle p2: Fork",
                            Picture(PNG, "p2.png"),
                            [Button("Solve privately", "p:solve:0", str(GUILD))])
    post = await bot.dc.output()
    assert post.kind == "post" and post.files and not post.ephemeral
    assert post.buttons == [[("Solve privately", "p:solve:0")]]
    before = dict(bot.dc.messages[post.message_id])

    shown = await press(bot, club.guild, club.bob, post, "p:solve:0")
    assert shown.kind == "reply" and shown.ephemeral
    assert shown.plain.startswith("Problem p1 (puzzles, rating 1500)"), shown.plain
    assert shown.files and [label for row in shown.buttons for label, _ in row] == ["Answer"]
    assert bot.dc.messages[post.message_id] == before
    # pressed again while p1 is open: p1 again, on the same clock
    again = await press(bot, club.guild, club.bob, post, "p:solve:0")
    assert again.ephemeral and "still open" in again.plain
    assert bot.dc.messages[post.message_id] == before
    assert bot.dc.errors == []


async def test_forms_of_one_problem_open_at_once_and_across_a_restart(
        tmp_path: Path, dc: FakeDiscord, club: Club) -> None:
    """Every solver's form of a problem has the same custom id (its button's): alice's and
    bob's, open at once, are each answered for whoever submits it, and a form opened before
    the bot restarted is answered after it."""
    async with running_bot(tmp_path / "club.db", dc=dc) as bot:
        bot.front.pictures = PictureStore(tmp_path)
        await puzzle_club(bot, club)
        forms = {}
        for member in (club.alice, club.bob):
            shown = await say(bot, club.guild, member, "puzzle")
            [[(_, answer_id)]] = shown.buttons
            forms[member.user.username] = await press(bot, club.guild, member, shown, answer_id)
        assert forms["alice"].modal is not None and forms["bob"].modal is not None
        assert forms["alice"].modal.custom_id == forms["bob"].modal.custom_id
        [field] = forms["alice"].modal.labels
        await bot.dc.submit_modal(club.guild, club.alice, forms["alice"], {field: "Qh7"})
        assert (await bot.dc.output()).plain.startswith("Solved! p1")
    async with running_bot(tmp_path / "club.db", dc=dc) as bot:
        await bot.dc.submit_modal(club.guild, club.bob, forms["bob"], {field: "e4"})
        failed = await bot.dc.output()
        assert failed.ephemeral and failed.plain.startswith("Not solved: p1"), failed.plain
    assert dc.errors == []
