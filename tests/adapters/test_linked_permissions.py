"""The permission matrix of a club of two chats (issue 35): who may do what in the chat that
joined a club, and that nothing of a club shows in a chat that is not one of its own.

Club A is :func:`tests.adapters.test_permissions.club_a`'s club in its chat A1, where mod (A1's
platform moderator) also named nina a moderator; A2 is a chat of its own, run by mod2 (its
platform moderator), where erin and fay registered and mod2 named fay a moderator, and which
then joined club A with mod's ``/link`` code (``/link CODE`` sent by mod2 in A2, through the
front-end). Club B is :func:`~tests.adapters.test_permissions.club_b`'s: olga and oscar, not
linked to anything.

The roles of the matrix, typing in A2 (and a few in A1):

- ``nonmember``: zed, registered nowhere;
- ``a2_member``: erin, who registered in A2 before it joined: a member of club A;
- ``a1_member``: dave, a member of club A from A1 (the same account: one platform);
- ``a2_moderator``: mod2, A2's platform moderator (group administrator, Manage Server,
  ``/as mod2!``): moderates the club in A2, never registered;
- ``a1_moderator``: mod, A1's platform moderator, who is no platform moderator of A2 and never
  registered: nobody there;
- ``a1_named``: nina, a member A1's moderator named a moderator: the club's moderator in every
  chat of it (but not one who changes who moderates: names moderators, sets the moderator
  role, links a chat);
- ``a2_named``: fay, whom A2 named a moderator before it joined: :func:`bot.service.linking.join`
  makes her the club's;
- ``other_club``: olga, a member of club B only.

Each cell runs on a fresh club A (both chats) through the real front-end, as the permission
matrix does; a refusal must show the refusal's own answer and change no log (club A's, A2's
own, club B's), and what is carried out is written to club A's log alone. In A1, A2's people
are checked too: fay moderates there, erin is a member, mod2 is nobody.

Then, on one club A and club B: nothing of either club shows in the other's chats (their
members' answers, their moderators', the host's export), A's people are strangers in B and its
moderators no moderators there; and link codes work in their own club alone (a chat's code is
refused in B to its member and its moderator, a used or ten-minute-old code is unknown, a
member's code is looked up in the caller's club).
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import cli
from bot.chat import intake
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.clock import FakeClock
from bot.service.club import Caller
from bot.service.linking import CODE_MINUTES
from bot.service.results import Notice
from tests.adapters.test_permissions import (
    CLUB_A_NAMES,
    CLUB_B_LINES,
    DISCORD_PEOPLE,
    RUNNERS,
    DiscordRunner,
    Runner,
    TelegramRunner,
    _user_of,
    club_a,
    club_b,
    log_size,
    no_drawing,  # noqa: F401 (a fixture of the matrix, used here too)
    recording,
    service_of,
)

ROLES = ["nonmember", "a2_member", "a1_member", "a2_moderator", "a1_moderator", "a1_named",
         "a2_named", "other_club"]
PEOPLE = {"nonmember": "zed", "a2_member": "erin", "a1_member": "dave", "a2_moderator": "mod2",
          "a1_moderator": "mod", "a1_named": "nina", "a2_named": "fay", "other_club": "olga"}
#: the people the permission matrix's runners do not have
NEW_PEOPLE = ("mod2", "nina", "erin", "fay")
#: everyone's name in club A: nothing of them may show in club B
CLUB_A_ALL = (*CLUB_A_NAMES, "nina", "erin", "fay")
CLUB_B_NAMES = ("olga", "oscar")
UNKNOWN = text("link_code_unknown")

#: moderators of the club in A2: mod2 (the platform's), nina and fay (named)
MODERATORS = "DDDADAAD"
#: only A2's platform moderator
PLATFORM = "DDDADDDD"
#: command line typed in A2 -> outcome per role, in the order of ROLES; placeholders as in the
#: permission matrix (club A's games: {pending}, {confirmed}, {voided}, {challenge})
IN_A2: dict[str, str] = {
    "/void {confirmed} wrong":      MODERATORS,
    "/restore {voided}":            MODERATORS,
    "/correct {confirmed} draw":    MODERATORS,
    "/report @alice @dave win":     MODERATORS,
    "/retire @dave":                MODERATORS,
    "/set challenge_hours 12":      MODERATORS,
    "/event open spring":           MODERATORS,
    "/ladder create blitz":         MODERATORS,
    "/audit":                       MODERATORS,
    "/schedule":                    MODERATORS,
    "/moderator add @dave":         PLATFORM,
    "/set moderator_role 5":        PLATFORM,
    # linking a chat changes who moderates too (bot.service.linking.may_link)
    "/link":                        PLATFORM,
    # the club's last change that can be undone is the join's naming of fay: a change of who
    # moderates, which only a platform moderator undoes
    "/undo":                        PLATFORM,
    # a preview of the chat leaving the club: a moderator's, and it writes nothing yet
    "/unlink":                      MODERATORS,
    # what members do: the members of club A, whichever chat they came from
    "/top":                         "AAAAAAAA",
    "/rating @alice":               "AAAAAAAA",
    "/rating":                      "DAADDAAD",
    "/history":                     "DAADDAAD",
    "/pending":                     "DAAADAAD",
    "/report @bob win":             "DAADDAAD",
    "/link me":                     "AAAAAAAA",
}
#: in A1, the people of A2: fay (named there) moderates, erin is a member, mod2 is nobody
A1_ROLES = ["a2_member", "a2_moderator", "a2_named"]
IN_A1: dict[str, str] = {
    "/void {confirmed} wrong":      "DDA",
    "/set challenge_hours 12":      "DDA",
    "/audit":                       "DDA",
    "/moderator add @dave":         "DDD",
    "/rating":                      "ADA",
    "/report @bob win":             "ADA",
}
#: what a refused line answers, by how the line starts; else ``moderators_only``, and the
#: platform's own refusal to the club's named moderators for a line of PLATFORM's
REFUSED_AS: dict[str, str] = {"/rating": "not_registered", "/history": "not_registered",
                              "/pending": "not_registered", "/report @bob": "not_registered"}
#: lines that write to club A's log when carried out
WRITES = frozenset(line for line in IN_A2 if line.split()[0] not in (
    "/correct", "/audit", "/schedule", "/top", "/rating", "/history", "/pending", "/unlink"))


def refusal_key(runner: Runner, line: str, role: str) -> str:
    """What refusing ``line`` to ``role`` answers (the key of its text)."""
    # naming a moderator asks for the platform's moderator first; the others, for a moderator
    if line.startswith("/moderator") or (IN_A2.get(line) == PLATFORM
                                         and role in ("a1_named", "a2_named")):
        return "server_managers_only" if runner.platform == "discord" else (
            "platform_moderators_only")
    return next((key for start, key in REFUSED_AS.items() if line.startswith(start)),
                "moderators_only")


def add_people(runner: Runner) -> None:
    """The new people on the runner's platform (before its first chat: on Discord every person
    is a member of every server)."""
    for n, name in enumerate(NEW_PEOPLE):
        if isinstance(runner, TelegramRunner):
            runner.users[name] = runner.bot.tg.user(300 + n, name.title(), name)
        elif isinstance(runner, DiscordRunner):
            runner.users[name] = runner.bot.dc.user(DISCORD_PEOPLE + 500 + n, name)


def person(runner: Runner, chat: str, name: str, moderator: bool = False) -> Caller:
    """``name`` in ``chat`` as its front-end names them (``moderator``: the chat's platform
    moderator)."""
    user, shown = _user_of(runner, name)
    return Caller(runner.platform, chat, user, shown, moderator,
                  handle=None if runner.platform == "console" else name)


@dataclass
class Linked:
    a1: str
    a2: str
    ids: dict[str, int]
    code: str  # the code A2 joined with


async def linked_club(runner: Runner) -> Linked:
    """Club A on A1 and A2, as the module says."""
    service = service_of(runner)
    a1, ids = await club_a(runner)
    mod = runner.caller(a1, "moderator")
    await service.register(person(runner, a1, "nina"))
    await service.name_moderator(mod, "nina", True)
    a2 = await runner.new_club(moderator="mod2")
    for name in ("erin", "fay"):
        await service.register(person(runner, a2, name))
    await service.name_moderator(person(runner, a2, "mod2", moderator=True), "fay", True)
    code = await service.link_code(mod)
    assert isinstance(code.params["code"], str)
    joined = await runner.say(a2, "mod2", f"/link {code.params['code']}")
    assert joined == text("chat_linked", members=2), joined
    return Linked(a1, a2, ids, code.params["code"])


async def logs(runner: Runner, *chats: str) -> list[int]:
    """The number of events in each chat's own club's log."""
    return [await log_size(runner, chat) for chat in chats]


async def run_cell(runner: Runner, b: str, where: str, line: str, role: str
                   ) -> tuple[bool, str]:
    """(carried out?, the answer shown) for ``line`` typed by ``role`` in ``where`` (A1 or A2)
    of a fresh club A; checks that a refusal is answered as such and writes nothing, and that
    what is carried out writes to club A's log alone."""
    linked = await linked_club(runner)
    chat = {"A1": linked.a1, "A2": linked.a2}[where]
    before = await logs(runner, linked.a1, linked.a2, b)
    runner.outcome.__init__()  # type: ignore[misc]
    shown = await runner.say(chat, PEOPLE[role], line.format(**linked.ids))
    outcome = runner.outcome
    after = await logs(runner, linked.a1, linked.a2, b)
    refused = (not outcome.called or outcome.refused is not None
               or outcome.answer in (text("no_preview"), text("no_preview_to_cancel")))
    cell = (where, line, role)
    if refused:
        assert after == before, f"{cell} was refused but wrote"
        assert outcome.refused is not None, cell
        assert outcome.refused.key == refusal_key(runner, line, role), (cell, shown)
        assert shown == render(outcome.refused), (cell, shown)
    else:
        assert after[1:] == before[1:], f"{cell} wrote elsewhere than club A"
        if line in WRITES:
            assert after[0] > before[0], f"{cell} was carried out but wrote nothing"
        assert not isinstance(outcome.answer, Notice) or "_only" not in outcome.answer.key
    return not refused, shown


@pytest.mark.usefixtures("no_drawing")
@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_permission_matrix_of_a_linked_chat(
        front_end: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with RUNNERS[front_end](tmp_path / "club.db") as runner:
        add_people(runner)
        monkeypatch.setattr(intake, "execute", recording(runner.outcome))
        b = await club_b(runner)  # olga is a member of another club for real
        wrong: list[tuple[str, str, str, str, str]] = []
        cells = 0
        for where, matrix, roles in (("A2", IN_A2, ROLES), ("A1", IN_A1, A1_ROLES)):
            for line, expected in matrix.items():
                for role, allowed in zip(roles, expected, strict=True):
                    cells += 1
                    done, shown = await run_cell(runner, b, where, line, role)
                    if done != (allowed == "A"):
                        wrong.append((where, line, role, allowed, shown))
        print(f"\nlinked permission matrix on {front_end}: {cells} cells")
        assert cells == len(IN_A2) * len(ROLES) + len(IN_A1) * len(A1_ROLES)
        assert wrong == []


def named_in(shown: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` the answer shows (as words)."""
    return [name for name in names if re.search(rf"\b{name}\b", shown, re.IGNORECASE)]


async def export(monkeypatch: pytest.MonkeyPatch, path: Path, platform: str, chat: str) -> str:
    """``clubrating export --chat PLATFORM:CHAT`` on the runner's database: the EVENTS.csv."""
    monkeypatch.setenv("CLUBRATING_DB", str(path))
    return await cli.export_command(argparse.Namespace(
        chat=f"{platform}:{chat}", ladder=None, output=None, players=None))


@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_no_data_of_a_linked_club_is_visible_in_another(
        front_end: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Club B's chat shows nothing of club A (either chat of it), club A's chats nothing of
    club B; club A's people are strangers in B, its moderators (the platform's of A2, the
    named ones) no moderators there; and the host's export of each chat is its club's."""
    path = tmp_path / "club.db"
    async with RUNNERS[front_end](path) as runner:
        add_people(runner)
        linked = await linked_club(runner)
        b = await club_b(runner)
        # a game played across club A's chats: erin (A2) beat dave (A1), confirmed in A1
        reported = await runner.say(linked.a2, PEOPLE["a2_member"], "/report @dave win")
        assert reported.startswith("Game #5: erin beat dave. dave, please /confirm"), reported
        confirmed = await runner.say(linked.a1, PEOPLE["a1_member"], "/confirm 5")
        assert confirmed.startswith("Game #5 confirmed: erin beat dave."), confirmed
        before = await logs(runner, linked.a1, linked.a2, b)

        # In B, as its member and its moderator: nothing of A.
        for line in [*CLUB_B_LINES, "/rating @erin", "/history @fay", "/h2h @nina"]:
            for who in ("olga", "mod"):
                shown = await runner.say(b, who, line)
                named = line.split("@")[1] if "@" in line else None
                if named is not None:  # club B has none of A's people
                    assert shown in (text("unknown_member", name=named),
                                     text("not_registered")), (line, who, shown)
                else:
                    assert named_in(shown, CLUB_A_ALL) == [], (line, who, shown)
        board = await runner.say(b, "olga", "/top")
        assert named_in(board, CLUB_B_NAMES) == ["olga", "oscar"], board
        # In A's chats, as members and moderators of either: nothing of B.
        for chat, people in ((linked.a1, ("dave", "mod", "nina")),
                             (linked.a2, ("erin", "mod2", "fay"))):
            for who in people:
                for line in ("/top", "/history", "/pending", "/audit", "/rating @olga",
                             "/history @oscar"):
                    shown = await runner.say(chat, who, line)
                    if "@" in line:
                        named = line.split("@")[1]
                        assert shown in (text("unknown_member", name=named),
                                         text("not_registered")), (line, who, shown)
                    else:
                        assert named_in(shown, CLUB_B_NAMES) == [], (line, who, shown)
        # One board in both of A's chats, with A2's members on it.
        assert await runner.say(linked.a1, "dave", "/top") == await runner.say(
            linked.a2, "erin", "/top")
        assert named_in(await runner.say(linked.a2, "erin", "/top"), ("erin", "fay",
                                                                      "alice")) == [
            "erin", "fay", "alice"]

        # Club A's people in B are strangers, its moderators no moderators of B's.
        for who in ("dave", "erin", "fay", "nina"):
            assert await runner.say(b, who, "/rating") == text("not_registered"), who
        for who in ("fay", "nina", "mod2"):
            for line in ("/void 1 wrong", "/retire @olga", "/audit", "/link"):
                assert await runner.say(b, who, line) == text("moderators_only"), (who, line)
        assert await logs(runner, linked.a1, linked.a2, b) == before

        # The host's export: B's has B's games alone; A1's and A2's are the one club's.
        b_csv = await export(monkeypatch, path, runner.platform, b)
        assert named_in(b_csv, CLUB_A_ALL) == [] and named_in(b_csv, CLUB_B_NAMES) == [
            "olga", "oscar"], b_csv
        a_csv = await export(monkeypatch, path, runner.platform, linked.a1)
        assert await export(monkeypatch, path, runner.platform, linked.a2) == a_csv
        assert named_in(a_csv, CLUB_B_NAMES) == [], a_csv
        assert named_in(a_csv, ("erin", "dave")) == ["erin", "dave"], a_csv


@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_link_codes_work_only_in_their_club(front_end: str, tmp_path: Path) -> None:
    """A chat's code from A used in B: refused to B's member, and to B's moderator too (B has
    games; once used, and after ten minutes, it is unknown). A member's code from A is unknown
    in B (codes are looked up in the caller's club), and works in A's other chat."""
    async with RUNNERS[front_end](tmp_path / "club.db") as runner:
        add_people(runner)
        service = service_of(runner)
        clock = service.clock
        assert isinstance(clock, FakeClock)
        linked = await linked_club(runner)
        b = await club_b(runner)
        c = await runner.new_club()  # a third chat, without games, that mod runs
        mod = runner.caller(linked.a1, "moderator")

        async def unchanged(*lines: tuple[str, str, str, str]) -> None:
            """Each (chat, who, line, answer): answered so, and no log changed."""
            before = await logs(runner, linked.a1, linked.a2, b, c)
            for chat, who, line, answer in lines:
                assert await runner.say(chat, who, line) == answer, (chat, who, line)
            assert await logs(runner, linked.a1, linked.a2, b, c) == before

        async def code(caller: Caller, member: bool = False) -> str:
            issued = (await service.link_code(caller, member)).params["code"]
            assert isinstance(issued, str)
            return issued

        # A chat's code: B's member is no moderator; B's moderator may not bring B's games.
        fresh = await code(mod)
        await unchanged((b, "olga", f"/link {fresh}", text("moderators_only")),
                        (b, "mod", f"/link {fresh}", text("link_has_games", games=1)))
        # The code A2 joined with is used; a code is good for ten minutes, not a second more.
        late = await code(mod)
        clock.advance(minutes=CODE_MINUTES)
        await unchanged((c, "mod", f"/link {linked.code}", UNKNOWN),
                        (b, "mod", f"/link {linked.code}", UNKNOWN),
                        (c, "mod", f"/link {late}", UNKNOWN),
                        (c, "mod", f"/link {fresh}", UNKNOWN))
        # A chat's code is no member's code, nor a member's a chat's.
        chats = await code(mod)
        daves = await code(person(runner, linked.a1, "dave"), member=True)
        await unchanged((linked.a2, "erin", f"/link me {chats}", UNKNOWN),
                        (c, "mod", f"/link {daves}", UNKNOWN))

        # dave's own code (A1): unknown in B, to its member and its moderator alike...
        await unchanged((b, "olga", f"/link me {daves}", UNKNOWN),
                        (b, "mod", f"/link me {daves}", UNKNOWN))
        # ... and olga's (B) in A's chats
        olgas = await code(person(runner, b, "olga"), member=True)
        await unchanged((linked.a1, "dave", f"/link me {olgas}", UNKNOWN),
                        (linked.a2, "zed", f"/link me {olgas}", UNKNOWN))
        # In A2, a chat of dave's club, zed's account becomes dave's; still nobody in B.
        assert await runner.say(linked.a2, "zed", f"/link me {daves}") == text(
            "member_linked", name="dave")
        assert (await runner.say(linked.a2, "zed", "/rating")).startswith("dave (main): ")
        assert await runner.say(b, "zed", "/rating") == text("not_registered")
        # and C joins A with a code it is given in time
        assert await runner.say(c, "mod", f"/link {await code(mod)}") == text(
            "chat_linked", members=0)
        assert await runner.say(c, "zed", "/top") == await runner.say(linked.a1, "dave", "/top")
