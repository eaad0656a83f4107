"""Identity (issue 21): a member the platform points at is carried by user id, typed text is
only a name, and a handle is kept only when it is a valid username of its platform."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.chat.commands import parse
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.chat.words import Pointed
from bot.service.club import Caller, Correction
from bot.service.errors import Refusal
from bot.service.identity import UserRef, valid_handle
from tests.chat import open_club


@pytest.mark.parametrize(("platform", "handle", "valid"), [
    ("telegram", "alice_99", True), ("telegram", "A" + "b" * 31, True),
    ("telegram", "bob", False),  # too short
    ("telegram", "1001", False), ("telegram", "1alice", False), ("telegram", "_alice", False),
    ("telegram", "Alice Smith", False), ("telegram", "alice.smith", False),
    ("telegram", "A" + "b" * 32, False), ("telegram", None, False), ("telegram", "", False),
    ("discord", "alice.smith_2", True), ("discord", "al", True),
    ("discord", "Alice", False), ("discord", "a", False), ("discord", "alice..smith", False),
    ("discord", "alice smith", False), ("discord", "a" * 33, False),
    ("console", "bob", True), ("console", "two words", False),
])
def test_a_handle_is_a_valid_username_of_its_platform(platform: str, handle: str | None,
                                                      valid: bool) -> None:
    assert valid_handle(platform, handle) is valid


def test_a_pointed_member_is_a_user_id_whatever_the_text() -> None:
    pointed = Pointed()
    alice = UserRef("1001", "Alice")
    token = pointed.mark(alice)
    command, words = parse(f'/correct 4 draw a={token} {token} @1001 "{token} quoted"', pointed)
    assert command == "correct"
    assert words.args == ["4", "draw", "Alice", "@1001", "Alice quoted"]
    assert [words.who(n) for n in range(4)] == ["4", "draw", alice, "@1001"]
    assert words.take_who("a") == alice and words.options == {}
    # Another message's token (or one typed by hand) is only text.
    other = Pointed()
    _, typed = parse(f"/rating {token}", other)
    assert typed.who(0) == token and typed.members == {}


def test_a_kept_correction_reads_back_its_user_ids() -> None:
    correction = Correction("draw", UserRef("1001", "Alice"), "@bob", None)
    assert Correction.from_kept(correction.kept()) == correction
    # a correction kept before user ids were carried: its text stays text
    assert Correction.from_kept('{"result":null,"player_a":"@bob","player_b":null,'
                                '"handicap":"1"}') == Correction(None, "@bob", None, "1")


async def test_typed_text_never_names_a_member_by_user_id(tmp_path: Path) -> None:
    """Typed text finds members by display name or handle only; a user id only as a UserRef."""
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        alice = Caller("telegram", "-1", "1001", "Alice Smith", handle=None)
        mallory = Caller("telegram", "-1", "66", "1001", handle="mallory_m")
        await service.register(alice)
        await service.register(mallory, "Mallory")
        for who, name in [(UserRef("1001"), "Alice Smith"), (UserRef("66"), "Mallory"),
                          ("@mallory_m", "Mallory"), ("Alice Smith", "Alice Smith")]:
            assert getattr(await service.profile(mallory, who), "name", None) == name
        for typed in ("@1001", "1001", "@66", "@Alice"):
            with pytest.raises(Refusal) as refused:
                await service.profile(mallory, typed)
            assert refused.value.key == "unknown_member"
        with pytest.raises(Refusal) as refused:
            await service.profile(mallory, UserRef("77", "Stranger"))
        assert render(refused.value) == text("unknown_member", name="Stranger")
