"""Usernames and who moderates (issue 30).

A typed ``@name`` is the member whose current platform username it is: the session keeps each
member's username (handle) as their latest command or press gave it, a display name that is
another member's username is refused at /register, and a name that could mean two members is
refused naming both. Who moderates is the platform's own moderators' to change: a holder of the
club's moderator role, or a member the club named, moderates but names nobody, sets no
moderator role, and takes neither back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import Notice
from tests.chat import open_club

CHAT = "-100"


def tg(user: str, name: str, handle: str | None = None, *, admin: bool = False) -> Caller:
    return Caller("telegram", CHAT, user, name, admin, handle=handle)


async def refused(call: object) -> Refusal:
    with pytest.raises(Refusal) as caught:
        await call  # type: ignore[misc]
    return caught.value


def events(database: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT kind, data FROM events ORDER BY id").fetchall()
    db.close()
    return rows


async def named(service: ClubService, who: str) -> str:
    profile = await service.profile(tg("1", "ada", "ada_admin", admin=True), who)
    return profile.name


async def test_a_typed_username_names_its_current_holder_never_one_merely_called_so(
        tmp_path: Path) -> None:
    """Victoria registers as Vicky; Mallory as "victoria_v"; Victoria's username becomes
    victoria_v and her next command, a read, keeps it: @victoria_v is Victoria from then on,
    the plain words "victoria_v" could be either and are refused naming both."""
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        await service.register(tg("10", "Victoria", "vicky_old"), "Vicky")
        await service.register(tg("66", "Mallory", "mallory_m"), "victoria_v")
        assert await named(service, "@victoria_v") == "victoria_v"  # nobody's username yet
        assert await named(service, "@vicky_old") == "Vicky"

        await service.leaderboard(tg("10", "Victoria", "victoria_v"))
        assert await named(service, "@victoria_v") == "Vicky"
        assert await named(service, "@Victoria_V") == "Vicky"  # usernames ignore case
        assert (await refused(service.profile(tg("1", "ada"), "@vicky_old"))).key == \
            "unknown_member"  # no longer hers
        ambiguous = await refused(service.profile(tg("1", "ada"), "victoria_v"))
        assert render(ambiguous) == text("ambiguous_member", name="victoria_v",
                                         first="victoria_v", second="Vicky")
        answer = await service.name_moderator(tg("1", "ada", admin=True), "@victoria_v", True)
        assert answer == Notice("moderator_named", {"name": "Vicky"})
        assert (await refused(service.audit(tg("66", "Mallory", "mallory_m"), 5))).key == \
            "moderators_only"
        audit = await service.audit(tg("10", "Victoria", "victoria_v"), 5)
        said = [render(line.what) for line in audit.lines if line.what is not None]
        assert "Vicky's username is victoria_v now" in said


async def test_the_username_is_written_once_per_change_and_never_for_a_stranger(
        tmp_path: Path) -> None:
    database = tmp_path / "club.db"
    async with open_club(database) as chat:
        service = chat.service
        await service.register(tg("10", "Victoria", "vicky_old"), "Vicky")
        before = len(events(database))
        for _ in range(3):  # the same username again and again: nothing more
            await service.leaderboard(tg("10", "Victoria", "vicky_old"))
        # a refused command keeps a new username too; a caller without one, or with a name
        # that is no username of the platform, changes nothing
        await refused(service.confirm(tg("10", "Victoria", "victoria_v")))
        await service.leaderboard(tg("10", "Victoria", "victoria_v"))
        await service.leaderboard(tg("10", "Victoria", None))
        await service.leaderboard(tg("10", "Victoria", "Vicky V"))
        # a stranger, whatever username they carry, writes nothing
        await service.leaderboard(tg("77", "Stranger", "stranger_s"))
        await refused(service.confirm(tg("77", "Stranger", "stranger_s")))
        written = events(database)[before:]
        assert written == [("handle_changed", '{"member":"10","handle":"victoria_v"}')]


async def test_a_name_that_is_a_members_username_is_refused_at_register(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        await service.register(tg("10", "Victoria", "vicky_old"), "Vicky")
        await service.leaderboard(tg("10", "Victoria", "victoria_v"))
        for name in ("victoria_v", "VICTORIA_V"):
            refusal = await refused(service.register(tg("66", "Mallory", "mallory_m"), name))
            assert render(refusal) == text("name_is_username", name=name, member="Vicky")
        # her former username is free again
        await service.register(tg("66", "Mallory", "mallory_m"), "vicky_old")


async def test_two_members_with_one_username_kept_are_refused_naming_both(
        tmp_path: Path) -> None:
    """Bob's kept username is out of date (he has not written since he gave it up); Carol
    has it now. A typed @shared_nm could be either: refused, naming both; each is still
    named by the platform (a reply, a mention) or by their name."""
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        await service.register(tg("20", "Bob", "shared_nm"), "Bob")
        await service.register(tg("30", "Carol", "shared_nm"), "Carol")
        refusal = await refused(service.profile(tg("1", "ada"), "@shared_nm"))
        assert render(refusal) == text("ambiguous_member", name="@shared_nm", first="Bob",
                                       second="Carol")
        assert (await refused(service.name_moderator(tg("1", "ada", admin=True), "@shared_nm",
                                                     True))).key == "ambiguous_member"
        await service.leaderboard(tg("20", "Bob", "bob_new"))  # Bob writes again
        assert await named(service, "@shared_nm") == "Carol"


async def test_a_display_name_still_names_its_member_when_nobody_has_it_as_username(
        tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        await service.register(tg("10", "Victoria", None), "Vicky")
        assert await named(service, "@Vicky") == "Vicky"
        assert await named(service, "vicky") == "Vicky"


# -- who moderates ----------------------------------------------------------------------------


def dc(user: str, *, manager: bool = False, holder: bool = False) -> Caller:
    return Caller("discord", "900", user, f"user{user}", manager, handle=f"user{user}",
                  role_moderator=holder)


async def test_a_role_holder_moderates_but_changes_nobody_who_moderates(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        for user in ("1", "2", "3"):
            await service.register(dc(user))
        await service.set_setting(dc("9", manager=True), "moderator_role", "555")
        holder = dc("1", holder=True)
        answer = await service.set_setting(holder, "challenge_hours", "12")
        assert answer.key == "setting_set"
        for attempt in (service.set_setting(holder, "moderator_role", "666"),
                        service.set_setting(holder, "moderator_role", "off"),
                        service.name_moderator(holder, "user2", True)):
            assert render(await refused(attempt)) == text("server_managers_only")
        assert await service.moderator_role("discord", "900") == "555"
        await service.name_moderator(dc("9", manager=True), "user2", True)
        named_one = dc("2")
        assert render(await refused(service.set_setting(named_one, "moderator_role", "666"))
                      ) == text("server_managers_only")
        # nor can they take back the naming (an /undo) or merge a member into a moderator
        assert render(await refused(service.undo(named_one))) == text("server_managers_only")
        assert render(await refused(service.merge(named_one, "user3", "user2"))) == text(
            "server_managers_only")
        assert render(await refused(service.merge(holder, "user2", "user3"))) == text(
            "server_managers_only")
        # the server's managers may do all of it
        assert (await service.merge(dc("9", manager=True), "user3", "user2")).merge is not None


async def test_a_named_moderator_on_telegram_sets_no_moderator_role(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        service = chat.service
        await service.register(tg("10", "Victoria", "victoria_v"))
        await service.name_moderator(tg("1", "ada", admin=True), "@victoria_v", True)
        victoria = tg("10", "Victoria", "victoria_v")
        assert (await service.set_setting(victoria, "announce", "yes")).key == "setting_set"
        assert render(await refused(service.set_setting(victoria, "moderator_role", "5"))
                      ) == text("platform_moderators_only")
        assert (await service.set_setting(tg("1", "ada", admin=True), "moderator_role", "5")
                ).key == "club_setting_set"
        # the administrator's latest action, the role, is theirs to take back
        assert render(await refused(service.undo(victoria))) == text(
            "platform_moderators_only")
