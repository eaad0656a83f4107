"""Moderators: the platform's administrators, plus the members the club names."""

from pathlib import Path

from bot.chat.messages import text
from tests.chat import open_club


async def test_a_named_member_moderates_until_the_name_is_taken_back(database: Path | str) -> None:
    async with open_club(database) as chat:
        for name in ("alice", "bob", "carol"):
            await chat.as_(name, "/register")
        await chat.as_("bob", "/report @carol win")
        assert await chat.as_("alice", "/void 1") == text("moderators_only")

        assert await chat.as_("admin!", "/moderator add @alice") == text(
            "moderator_named", name="alice")
        assert await chat.say("/moderator add @alice") == text("already_moderator", name="alice")
        voided = await chat.as_("alice", "/void 1 reported by mistake")
        assert voided.startswith("Game #1 is now void")
        # Named moderators moderate; naming others stays with the platform's administrators.
        assert await chat.say("/moderator add @bob") == text("platform_moderators_only")

        assert await chat.as_("admin!", "/moderator remove @alice") == text(
            "moderator_removed", name="alice")
        assert await chat.as_("alice", "/restore 1") == text("moderators_only")
        assert await chat.as_("admin!", "/moderator remove @alice") == text(
            "not_moderator", name="alice")
        # Undo takes a naming back like any other moderator action.
        await chat.say("/moderator add @carol")
        assert await chat.say("/undo") == "Undone #9: admin named carol a moderator of the club."
        assert await chat.as_("carol", "/restore 1") == text("moderators_only")


async def test_a_disputed_game_is_not_disputed_twice(database: Path | str) -> None:
    async with open_club(database) as chat:
        for name in ("alice", "bob"):
            await chat.as_(name, "/register")
        await chat.as_("alice", "/report @bob win")
        assert (await chat.as_("bob", "/dispute 1 I won")).startswith("Game #1 is disputed")
        log_before = await chat.as_("admin!", "/audit 50")
        assert await chat.as_("bob", "/dispute 1") == text("game_disputed", game=1)
        assert await chat.as_("admin!", "/audit 50") == log_before
