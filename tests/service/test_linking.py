"""One club on several chats (issue 35): a Telegram group and a Discord server linked by a
moderator's one-time code, members' two accounts made one, reports across the platforms."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.presenter import render
from bot.service import linking
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import GameResult, Leaderboard, Notice, Preview
from bot.storage.backends import open_repository
from bot.storage.repository import Repository

START = datetime(2026, 11, 20, 10, 0)
GROUP, SERVER = ("telegram", "-1001"), ("discord", "9001")


def code_of(answer: Notice) -> str:
    code = answer.params["code"]
    assert isinstance(code, str) and re.fullmatch(r"[A-Z2-7]{16}", code), code
    return code


def on(chat: tuple[str, str], user: str, moderator: bool = False) -> Caller:
    return Caller(chat[0], chat[1], user, user, moderator)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[tuple[ClubService, Repository, FakeClock]]:
    repository = await open_repository(tmp_path / "club.db")
    clock = FakeClock(START)
    try:
        yield ClubService(repository, clock), repository, clock
    finally:
        await repository.close()


async def test_a_chat_without_games_joins_and_both_see_one_club(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    club, repository, _ = service
    await club.register(on(GROUP, "11"), "alice")
    await club.register(on(GROUP, "12"), "bob")
    await club.register(on(SERVER, "9101"), "carol")  # the server's own member
    await club.register(on(SERVER, "9102"), "alice")  # a name the group's club has
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    joined = await club.link(on(SERVER, "2", moderator=True), code)
    assert render(joined) == ("This chat is now part of the club: one ladder, one log. "
                              "2 members joined from here.")
    # the server's own log says where it went, for any process
    own = await repository.find_club(*SERVER)
    assert own is not None and [e.kind for e in await repository.events(own)][-1] == "chat_moved"
    # a report across the platforms, confirmed from the opponent's own chat
    report = await club.report(on(SERVER, "9101"), "bob", "win")
    assert isinstance(report, GameResult) and report.game.player_b == "bob"
    await club.confirm(on(GROUP, "12"))
    group_board = render(await club.leaderboard(on(GROUP, "11")))
    assert group_board == render(await club.leaderboard(on(SERVER, "9101")))
    assert "alice (Discord)" in group_board or "carol" in group_board
    # the code was used once
    with pytest.raises(Refusal) as again:
        await club.link(on(("discord", "9002"), "3", moderator=True), code)
    assert again.value.key == "link_code_unknown"


async def test_codes_expire_and_only_moderators_link_chats(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    club, _, clock = service
    await club.register(on(GROUP, "11"), "alice")
    with pytest.raises(Refusal) as refused:
        await club.link_code(on(GROUP, "11"))
    assert refused.value.key == "moderators_only"
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    with pytest.raises(Refusal) as member:
        await club.link(on(SERVER, "9101"), code)  # no moderator of the joining chat
    assert member.value.key == "moderators_only"
    clock.advance(minutes=11)
    with pytest.raises(Refusal) as expired:
        await club.link(on(SERVER, "2", moderator=True), code)
    assert expired.value.key == "link_code_unknown"
    with pytest.raises(Refusal) as own:
        await club.link(on(GROUP, "1", moderator=True),
                        code_of(await club.link_code(on(GROUP, "1", moderator=True))))
    assert own.value.key == "link_same_club"


async def test_a_chat_with_games_does_not_join(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    club, repository, _ = service
    await club.register(on(SERVER, "9101"), "carol")
    await club.register(on(SERVER, "9102"), "dan")
    await club.report(on(SERVER, "2", moderator=True), "dan", "win", player="carol")
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    with pytest.raises(Refusal) as refused:
        await club.link(on(SERVER, "2", moderator=True), code)
    assert refused.value.key == "link_has_games"
    own = await repository.find_club(*SERVER)
    assert own is not None
    assert "chat_moved" not in [e.kind for e in await repository.events(own)]


GROUP2, CONTROL = ("telegram", "-1002"), ("telegram", "-1003")


def ratings_of(board: Leaderboard) -> dict[str, tuple[float, int]]:
    return {row.name: (row.rating, row.games) for row in board.rows}


async def test_a_chat_with_games_merges_by_date_after_a_preview(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """Two Telegram groups where alice plays in both: merged, their games are rated in the
    order they were played, exactly as one group that had all of them; the preview changes
    nothing and names the ratings that move."""
    club, repository, clock = service
    for chat, people in ((GROUP, ("11", "alice", "12", "bob")),
                         (GROUP2, ("11", "alice", "13", "carol")),
                         (CONTROL, ("11", "alice", "12", "bob", "13", "carol"))):
        for user, name in zip(people[::2], people[1::2], strict=True):
            await club.register(on(chat, user), name)
    games = [(GROUP, "alice", "win", "bob"), (GROUP2, "carol", "win", "alice"),
             (GROUP, "bob", "win", "alice"), (GROUP2, "alice", "draw", "carol"),
             (GROUP, "alice", "win", "bob")]
    for chat, player, result, opponent in games:
        clock.advance(days=1)
        for where in (chat, CONTROL):  # the control group has every game, in order
            await club.report(on(where, "1", moderator=True), opponent, result, player=player)
    clock.advance(days=1)
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    moderator = on(GROUP2, "2", moderator=True)
    before = ratings_of(await club.leaderboard(on(GROUP, "11")))
    preview = await club.link(moderator, code, merge=True)
    assert isinstance(preview, Preview) and not preview.applied
    assert render(preview).splitlines()[0] == (
        "Merging this chat into the club (preview): 2 games on main, rated among the club's "
        "by date, and 1 new member. Ratings that change:")
    assert {c.name for c in preview.changes} == {"alice", "bob", "carol"}
    assert ratings_of(await club.leaderboard(on(GROUP, "11"))) == before  # nothing yet
    applied = await club.apply_correction(moderator)
    assert isinstance(applied, Preview) and applied.applied
    merged = ratings_of(await club.leaderboard(on(GROUP, "11")))
    assert merged == ratings_of(await club.leaderboard(on(CONTROL, "11")))
    assert merged["alice"][1] == 5
    assert ratings_of(await club.leaderboard(on(GROUP2, "13"))) == merged  # one club now
    # the preview named exactly the ratings the merge made
    assert {c.name: c.after for c in preview.changes} == {
        name: rating for name, (rating, _) in merged.items()}
    kinds = [e.kind for e in await repository.events(await club._session.club_id(*GROUP))]
    assert kinds[-1] == "history_merged" and "chat_linked" in kinds
    audit = render(await club.audit(on(GROUP, "1", moderator=True), 20))
    assert "linked the Telegram chat -1002 to the club with its games" in audit
    assert "2 games of the Telegram chat -1002 merged by date" in audit


async def test_a_merge_is_cancelled_or_refused_and_changes_nothing(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    club, repository, _ = service
    await club.register(on(GROUP2, "13"), "carol")
    await club.register(on(GROUP2, "14"), "dan")
    await club.report(on(GROUP2, "2", moderator=True), "dan", "win", player="carol")
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    with pytest.raises(Refusal) as stranger:
        await club.link(on(GROUP2, "13"), code, merge=True)
    assert stranger.value.key == "moderators_only"
    moderator = on(GROUP2, "2", moderator=True)
    await club.link(moderator, code, merge=True)
    cancelled = await club.cancel_correction(moderator)
    assert cancelled is not None and cancelled.key == "link_merge_cancelled"
    assert await club.apply_correction(moderator) is None
    issuing = await club._session.club_id(*GROUP)
    assert "chat_linked" not in [e.kind for e in await repository.events(issuing)]
    assert "carol" not in render(await club.leaderboard(on(GROUP, "1")))


async def test_a_chat_that_joined_leaves_empty_and_the_club_keeps_its_history(
        tmp_path: Path) -> None:
    """/unlink in the chat that joined: a preview that changes nothing, then Apply; the club
    keeps every game and member, the chat starts empty, a process that knew the route before
    follows it, and the audit says so."""
    first_repo = await open_repository(tmp_path / "club.db")
    second_repo = await open_repository(tmp_path / "club.db")
    clock = FakeClock(START)
    club, second = ClubService(first_repo, clock), ClubService(second_repo, clock)
    try:
        await club.register(on(GROUP, "11"), "alice")
        await club.register(on(SERVER, "9101"), "carol")
        code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
        await club.link(on(SERVER, "2", moderator=True), code)
        await club.report(on(SERVER, "9101"), "alice", "win")
        await club.confirm(on(GROUP, "11"), 1)
        await second.leaderboard(on(SERVER, "9101"))  # the second process knows the route
        board = render(await club.leaderboard(on(GROUP, "11")))
        with pytest.raises(Refusal) as home:
            await club.unlink(on(GROUP, "1", moderator=True))
        assert home.value.key == "unlink_home"
        with pytest.raises(Refusal) as member:
            await club.unlink(on(SERVER, "9101"))
        assert member.value.key == "moderators_only"
        moderator = on(SERVER, "2", moderator=True)
        preview = await club.unlink(moderator)
        assert render(preview) == (
            "Unlinking this chat (preview): the club keeps its 1 game and 2 members, and its "
            "other chats. This chat starts as an empty club of its own: /export first what "
            "you want to keep.")
        assert "carol" in render(await club.leaderboard(on(SERVER, "9101")))  # not yet
        done = await club.apply_correction(moderator)
        assert done is not None and render(done) == (
            "This chat has left the club and starts empty. The club keeps its 1 game and 2 "
            "members.")
        assert render(await club.leaderboard(on(GROUP, "11"))) == board
        for service in (club, second):
            with pytest.raises(Refusal) as empty:
                await service.profile(on(SERVER, "9101"))
            assert empty.value.key == "not_registered", service
        with pytest.raises(Refusal) as alone:
            await club.unlink(moderator)
        assert alone.value.key == "unlink_alone"
        audit = render(await club.audit(on(GROUP, "1", moderator=True), 5))
        assert "unlinked the Discord chat 9001 from the club" in audit
    finally:
        await first_repo.close()
        await second_repo.close()


async def test_two_accounts_become_one_member(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    club, _, clock = service
    await club.register(on(GROUP, "11"), "alice")
    await club.register(on(GROUP, "12"), "bob")
    await club.report(on(GROUP, "1", moderator=True), "bob", "win", player="alice")
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    await club.link(on(SERVER, "2", moderator=True), code)
    # alice on Discord (account 9101), never registered there: her code, used by her
    # Telegram account
    mine = code_of(await club.link_code(on(SERVER, "9101"), member=True))
    assert render(await club.link(on(GROUP, "11"), mine, member=True)) == (
        "Linked: both accounts are alice now.")
    profile = render(await club.profile(on(SERVER, "9101")))
    assert profile.startswith("alice (main): ") and "1 game" in profile
    # her Discord account reports as alice; bob confirms on Telegram
    await club.report(on(SERVER, "9101"), "bob", "draw")
    await club.confirm(on(GROUP, "12"))
    assert "2 games" in render(await club.profile(on(GROUP, "11")))
    # two accounts that both played stay two
    await club.register(on(SERVER, "9103"), "eve")
    await club.report(on(SERVER, "2", moderator=True), "bob", "loss", player="eve")
    clock.advance(minutes=1)
    code = code_of(await club.link_code(on(SERVER, "9103"), member=True))
    with pytest.raises(Refusal) as both:
        await club.link(on(GROUP, "12"), code, member=True)
    assert both.value.key == "link_me_both_played"
    assert clock.now() < START + timedelta(hours=1)


async def test_a_process_that_looked_the_chat_up_before_follows_it(
        tmp_path: Path) -> None:
    """Two services on one database (two processes): the second one knew the joining chat's
    old club; its next command there acts on the club the chat joined."""
    first_repo = await open_repository(tmp_path / "club.db")
    second_repo = await open_repository(tmp_path / "club.db")
    clock = FakeClock(START)
    first, second = ClubService(first_repo, clock), ClubService(second_repo, clock)
    try:
        await first.register(on(GROUP, "11"), "alice")
        await second.register(on(SERVER, "9101"), "carol")  # the second knows the server
        code = code_of(await first.link_code(on(GROUP, "1", moderator=True)))
        await first.link(on(SERVER, "2", moderator=True), code)
        await second.register(on(SERVER, "9102"), "dan")  # written to the joined club
        board = render(await first.leaderboard(on(GROUP, "11")))
        members = await first.clubs_of("discord", "9102")
        assert members == ["9001"], (board, members)
    finally:
        await first_repo.close()
        await second_repo.close()


async def test_a_link_sent_again_finishes_a_join_the_chat_was_not_told_of(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """The club wrote the join, then the process stopped before the chat's own log was told:
    the same /link CODE finishes it (nothing is joined twice)."""
    club, repository, _ = service
    await club.register(on(GROUP, "11"), "alice")
    await club.register(on(SERVER, "9101"), "carol")
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    moderator = on(SERVER, "2", moderator=True)
    chat = await club._session.look(moderator, lambda c, now: linking.joining(c, moderator))
    issuing = await club._session.club_id(*GROUP)
    await club._session.execute(moderator, lambda c, now: linking.join(
        c, now, moderator, code, chat), club_id=issuing)  # ... and no move
    assert "alice" not in render(await club.leaderboard(on(SERVER, "9101")))  # its own club
    await club.link(moderator, code)
    assert "alice" in render(await club.leaderboard(on(SERVER, "9101")))
    assert [e.kind for e in await repository.events(issuing)].count("chat_linked") == 1


async def test_the_opponent_is_asked_where_they_are(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """Each account is known in the chat it registered or was linked in (the club's own chat
    for those from before the first link): a report is to be answered there."""
    club, _, _ = service
    await club.register(on(GROUP, "12"), "bob")
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    await club.register(on(SERVER, "9101"), "carol")
    await club.link(on(SERVER, "2", moderator=True), code)
    await club.register(on(SERVER, "9102"), "dan")  # registered after the link, in the server
    carol = await club.report(on(SERVER, "9101"), "bob", "win")
    assert isinstance(carol, GameResult)
    assert await club.elsewhere(on(SERVER, "9101"), carol.game.id) == [("telegram", "-1001")]
    bob = await club.report(on(GROUP, "12"), "dan", "draw")
    assert isinstance(bob, GameResult)
    assert await club.elsewhere(on(GROUP, "12"), bob.game.id) == [("discord", "9001")]
    dan = await club.report(on(SERVER, "9102"), "carol", "loss")  # both in the server
    assert isinstance(dan, GameResult)
    assert await club.elsewhere(on(SERVER, "9102"), dan.game.id) == []


async def test_a_joined_chat_has_its_own_time_zone_and_language(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """Issue 35 (ERRATA): a chat that joined the club sets its own time zone and language for
    its own posts; the club's own chat sets its ladders' as ever; "off" gives the joined chat
    the club's again; each change is in /audit and /undo takes it back."""
    club, repository, _ = service
    group_mod, server_mod = on(GROUP, "1", moderator=True), on(SERVER, "2", moderator=True)
    await club.register(on(GROUP, "11"), "alice")
    await club.link(server_mod, code_of(await club.link_code(group_mod)))
    assert render(await club.set_setting(group_mod, "timezone", "Europe/London")) == (
        "timezone of main is now Europe/London.")
    assert render(await club.set_setting(server_mod, "timezone", "Asia/Tokyo")) == (
        "This chat's own time zone is now Asia/Tokyo: its scheduled posts come and are dated "
        "in it. The club's ladders keep theirs.")
    # the chat's, for every ladder, whichever one the command names
    assert (await club.set_setting(server_mod, "language", "ja", ladder="main")).key == (
        "chat_language_set")

    async def zones() -> dict[str, str]:
        return {plan.platform: plan.timezone for plan in await club.schedules()}

    assert await zones() == {"telegram": "Europe/London", "discord": "Asia/Tokyo"}
    assert (await club.language(*SERVER), await club.language(*GROUP)) == ("ja", None)
    assert (await club.digest(on(SERVER, "2"))).zone == "Asia/Tokyo"
    # /schedule there says when its own next post comes, in its zone
    shown = await club.show_schedule(server_mod)
    assert (shown.timezone, shown.channel) == ("Asia/Tokyo", None)
    assert (await club.show_schedule(on(GROUP, "1", moderator=True))).timezone == (
        "Europe/London")
    # and /settings there shows them
    assert "Asia/Tokyo" in render(await club.settings(server_mod))
    assert "Asia/Tokyo" not in render(await club.settings(on(GROUP, "1", moderator=True)))
    assert (await club.digest(on(GROUP, "11"))).zone == "Europe/London"
    home = await repository.find_club(*GROUP)
    assert home is not None
    assert [e.data for e in await repository.events(home) if e.kind == "chat_setting_set"] == [
        {"chat": "discord:9001", "setting": "timezone", "value": "Asia/Tokyo"},
        {"chat": "discord:9001", "setting": "language", "value": "ja"}]
    said = render(await club.audit(group_mod, 2))
    assert "2 set the Discord chat 9001's own language to ja" in said, said
    assert "2 set the Discord chat 9001's own timezone to Asia/Tokyo" in said, said

    # off: the club's again (the club's own chat has no "off" for a zone: refused as before)
    assert render(await club.set_setting(server_mod, "language", "off")) == (
        "This chat has no language of its own now: it uses the club's again.")
    assert await club.language(*SERVER) is None
    assert "2 gave the Discord chat 9001 the club's language again" in render(
        await club.audit(server_mod, 1))
    with pytest.raises(Refusal) as refused:
        await club.set_setting(group_mod, "timezone", "off")
    assert refused.value.key == "bad_timezone"
    with pytest.raises(Refusal) as bad:
        await club.set_setting(server_mod, "timezone", "Mars/Olympus")
    assert bad.value.key == "bad_timezone"
    # /undo takes the latest back: the language off, then the zone
    assert (await club.undo(server_mod)).applied
    assert await club.language(*SERVER) == "ja"
    await club.undo(server_mod)
    await club.undo(server_mod)
    assert await zones() == {"telegram": "Europe/London", "discord": "Europe/London"}
    assert await club.language(*SERVER) is None


async def test_in_a_club_of_one_chat_the_time_zone_is_the_ladders(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    club, repository, _ = service
    moderator = on(GROUP, "1", moderator=True)
    answer = await club.set_setting(moderator, "timezone", "Asia/Tokyo")
    assert render(answer) == "timezone of main is now Asia/Tokyo."
    assert [plan.timezone for plan in await club.schedules()] == ["Asia/Tokyo"]
    own = await repository.find_club(*GROUP)
    assert own is not None
    assert "chat_setting_set" not in [e.kind for e in await repository.events(own)]


async def test_no_code_is_kept_in_the_database(
        service: tuple[ClubService, Repository, FakeClock], tmp_path: Path) -> None:
    """The log keeps a code's hash; the answer that showed it is not kept for a redelivered
    update (which gets a fresh code): no code can be read back from the database file."""
    club, repository, _ = service
    moderator = Caller(*GROUP, "1", "1", True, request_id="update-7")
    code = code_of(await club.link_code(moderator))
    again = code_of(await club.link_code(moderator))
    assert again != code
    club_id = await club._session.club_id(*GROUP)
    assert await repository.answer(club_id, "update-7") is None
    database = b"".join(path.read_bytes() for path in tmp_path.glob("club.db*"))
    assert code.encode() not in database and again.encode() not in database
    assert linking.code_hash(code).encode() in database
async def test_only_the_platforms_moderators_link_chats(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """Linking a chat changes who moderates the club (the joining chat's administrators and
    named moderators become its moderators): like naming a moderator, it is for the platform's
    own moderators alone (issue 30). A moderator the club named, or a holder of its moderator
    role, issues no chat's code and joins no chat, else nina, named by the group, could make
    her own group's people the club's moderators: the moderators she may not name."""
    club, repository, _ = service
    await club.register(on(GROUP, "11"), "alice")
    await club.register(on(GROUP, "13"), "nina")
    await club.name_moderator(on(GROUP, "1", moderator=True), "nina", True)
    nina = on(GROUP, "13")
    role_holder = Caller(*GROUP, "14", "14", role_moderator=True)
    for caller in (nina, role_holder):
        with pytest.raises(Refusal) as refused:
            await club.link_code(caller)
        assert refused.value.key == "platform_moderators_only"
    # nina's own group, where she named sock a moderator; a code from the club's group
    own = ("telegram", "-1005")
    await club.register(on(own, "13"), "nina")
    await club.register(on(own, "15"), "sock")
    await club.name_moderator(on(own, "13", moderator=True), "sock", True)
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    for caller in (on(own, "15"), Caller(*own, "16", "16", role_moderator=True)):
        with pytest.raises(Refusal) as refused:
            await club.link(caller, code)
        assert refused.value.key == "platform_moderators_only"
    issuing = await repository.find_club(*GROUP)
    assert issuing is not None
    assert "chat_linked" not in [e.kind for e in await repository.events(issuing)]
    # her group's administrator may, as he may name its moderators
    assert render(await club.link(on(own, "17", moderator=True), code)) == (
        "This chat is now part of the club: one ladder, one log. 1 member joined from here.")
    # a member's own code is anybody's, named moderators' too
    assert code_of(await club.link_code(nina, member=True))


async def test_a_chat_that_joined_a_club_shows_its_old_public_board_no_more(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """A chat's own ladder was public (its page read, so the service knew where); the chat
    joins another club: its old club is gone from the web at once, and the address is the
    club's it joined when that club makes its ladder public there."""
    club, _, clock = service
    own = ("telegram", "-1005")
    await club.register(on(own, "21"), "xavier")
    await club.set_setting(on(own, "2", moderator=True), "public", "on")
    board = await club.public_board("main", clock.now())
    assert board is not None and [row.player for row in board.players] == ["xavier"]
    await club.register(on(GROUP, "11"), "alice")
    await club.register(on(GROUP, "12"), "bob")
    await club.report(on(GROUP, "1", moderator=True), "bob", "win", player="alice")
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    await club.link(on(own, "2", moderator=True), code)
    assert await club.public_board("main", clock.now()) is None
    assert await club.public_version("main") is None
    await club.set_setting(on(GROUP, "1", moderator=True), "public", "on")
    board = await club.public_board("main", clock.now())
    assert board is not None
    assert [row.player for row in board.players] == ["alice", "xavier", "bob"]


async def test_every_chat_of_the_club_gets_the_announcements_once(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """A result that counted by itself earned an announcement (an upset): each chat of the
    club collects it once, whichever asks first."""
    club, _, clock = service
    moderator = on(GROUP, "1", moderator=True)
    await club.set_system(moderator, "shogi24", None, None)
    await club.register(on(GROUP, "11"), "alice")
    await club.register(on(GROUP, "12"), "dave")
    code = code_of(await club.link_code(moderator))
    await club.link(on(SERVER, "2", moderator=True), code)
    for _ in range(9):  # the gap grows to 212
        await club.report(moderator, "dave", "win", player="alice")
    await club.set_setting(moderator, "announce", "yes")
    await club.report(on(GROUP, "12"), "alice", "win")  # waits for alice
    clock.advance(hours=49)
    group, server = await club.due(*GROUP), await club.due(*SERVER)
    assert [n.key for n in group] == ["announce_upset"] and server == group
    assert await club.due(*GROUP) == [] and await club.due(*SERVER) == []


async def test_a_ladder_only_the_joining_chat_has_comes_along(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """ERRATA: the club keeps its ladders' systems; a ladder of the joining chat's that the
    club has none of comes with its system and parameters."""
    club, _, _ = service
    group_mod, server_mod = on(GROUP, "1", moderator=True), on(SERVER, "2", moderator=True)
    await club.create_ladder(server_mod, "blitz", "elo", {"k": "40"})
    await club.set_system(server_mod, "glicko", None, None)  # the server's main: no games
    await club.register(on(SERVER, "9101"), "carol")
    await club.link(server_mod, code_of(await club.link_code(group_mod)))
    blitz = render(await club.settings(group_mod, "blitz"))
    assert "elo" in blitz and "k=40" in blitz, blitz
    main = render(await club.settings(group_mod))
    assert "glicko" not in main, main


async def test_a_chat_merges_its_team_games_onto_the_clubs_companion(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """Issue 37: the joining chat's team games, rated on its companion main-teams, come along
    on a companion of the club's main ladder, counted among the games the preview names; the
    club's next team report goes to that companion."""
    club, _, clock = service
    for user, name in (("11", "alice"), ("12", "bob"), ("13", "carol"), ("14", "dan")):
        await club.register(on(GROUP2, user), name)
    await club.report(on(GROUP2, "1", moderator=True), "carol", "win", player="alice",
                      mates=["bob"], opponents=["dan"])
    clock.advance(days=1)
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    moderator = on(GROUP2, "2", moderator=True)
    preview = await club.link(moderator, code, merge=True)
    assert isinstance(preview, Preview)
    assert render(preview).splitlines()[0] == (
        "Merging this chat into the club (preview): 1 game on main, main-teams, rated among "
        "the club's by date, and 4 new members. Ratings that change:")
    await club.apply_correction(moderator)
    teams = ratings_of(await club.leaderboard(on(GROUP, "11"), "main-teams"))
    assert set(teams) == {"alice", "bob", "carol", "dan"}
    reported = await club.report(on(GROUP, "11"), "carol", "win", mates=["bob"],
                                 opponents=["dan"])
    assert reported.game.ladder == "main-teams"


async def test_a_chat_merges_its_seasons_resets_by_date(
        service: tuple[ClubService, Repository, FakeClock]) -> None:
    """A group whose season closed with a soft reset merges into the club (its history goes
    in as an import's, the reset a season row's boundary, issue 38): the club's ladder has the
    season, named as the group named it by default, and its ratings are those of one group
    that had every game and the reset."""
    club, _, clock = service
    for chat, people in ((GROUP, ("11", "alice", "12", "bob")),
                         (GROUP2, ("11", "alice", "13", "carol")),
                         (CONTROL, ("11", "alice", "12", "bob", "13", "carol"))):
        for user, name in zip(people[::2], people[1::2], strict=True):
            await club.register(on(chat, user), name)
    clock.advance(days=1)
    for where in (GROUP, CONTROL):
        await club.report(on(where, "1", moderator=True), "bob", "win", player="alice")
    clock.advance(days=1)
    for where in (GROUP2, CONTROL):
        await club.report(on(where, "1", moderator=True), "carol", "win", player="alice")
    clock.advance(days=1)
    for where in (GROUP2, CONTROL):
        moderator = on(where, "1", moderator=True)
        await club.set_setting(moderator, "season_reset", "soft")
        await club.close_season(moderator, confirm=True)
    clock.advance(days=1)
    for where in (GROUP2, CONTROL):
        await club.report(on(where, "1", moderator=True), "alice", "win", player="carol")
    clock.advance(days=1)
    code = code_of(await club.link_code(on(GROUP, "1", moderator=True)))
    moderator = on(GROUP2, "2", moderator=True)
    await club.link(moderator, code, merge=True)
    applied = await club.apply_correction(moderator)
    assert isinstance(applied, Preview) and applied.applied
    merged = ratings_of(await club.leaderboard(on(GROUP, "11")))
    assert merged == ratings_of(await club.leaderboard(on(CONTROL, "11")))
    # the reset moved bob, who never played in the group that had it: 1447 -> 1473
    assert round(merged["bob"][0]) == 1473
    assert render(await club.season_list(on(GROUP, "11"))).splitlines()[1].startswith("1. S1 ")
