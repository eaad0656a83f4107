"""``clubrating run`` killed with SIGKILL while members confirm results in its Telegram groups: no
result the bot acknowledged is lost or counted twice, and the database it leaves serves a restart.

One bot process serves ``GROUPS`` groups, each its own club of four members who play each other
once (six games a group). The bot keeps within Telegram's limit of 20 messages a minute in one
group (every Bot API call naming the group counts), so the results are spread over the groups:
each group hears from one bot process well under 20 times, and nothing waits on that pacing.

A result is acknowledged when the bot's edit of the report message saying "Game #n confirmed"
has reached the fake Bot API: that is what the members saw. Every pair of members plays at most
once in the whole test, so a game is known in its club's exported history by its pair alone; a
report the fake delivers again after a kill (Telegram keeps updates until the next
``getUpdates`` offset confirms them) must not make a second game. After each restart the test
delivers every report and press since the previous start again, in every group, as Telegram
would had the kill come before the bot's next ``getUpdates``. A kill between a write's commit
and the keeping of its answer (issue 41: the answer is worked out after the commit) leaves the
redelivery only "Done: this was recorded.": the members then act on what the log holds (the
opponent of a report whose message never came confirms it with ``/confirm N``).

The second test kills the bot at random points while 200 updates of members are in flight and
delivers nothing again itself: the fake Bot API keeps every update until a ``getUpdates``
offset confirms it, as Telegram does. Every update must then be answered exactly once (issue
41: python-telegram-bot's own polling confirmed a batch before its handlers ran, and a kill lost
27-31 of 200).
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import random
import re
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from pathlib import Path

import pytest

from bot.chat.messages import text
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User

from .clubs import FRIDAY, GROUP, chess_club, telegram_bot
from .process import Bot, FakeClock, clubrating

#: how many groups (clubs) the one bot process serves
GROUPS = 8
#: the members of group n are these with n after them: no username is a part of another
NAMES = ("ann", "ben", "cid", "dot")
#: per round (a third of every group's games): how many of its confirmations, in all the
#: groups, are acknowledged before the kill
KILL_AFTER = (2, 6, 10)
#: the most Bot API calls naming one group that one bot process may make here: under
#: Telegram's 20 a minute, so no answer waits on the bot's pacing
PACED_AFTER = 20
REPORTED = re.compile(r"Game #(\d+): (\w+) beat (\w+)\. (\w+), please /confirm")
#: what a report or press gets when it comes again after a kill that fell between its commit and
#: the keeping of its answer (issue 41): the bot says it was recorded, and writes nothing more
RECORDED = text("request_recorded")
CONFIRMED = re.compile(r"Game #(\d+) confirmed: (\w+) beat (\w+)\.")

Pair = tuple[str, str]  # (winner, loser)


@dataclass
class Group:
    """What the members of one group see of the bot there, and their presses of Confirm: every
    report message is confirmed by its opponent as soon as it appears."""

    chat: Chat
    members: dict[str, User]
    games: dict[int, Pair] = field(default_factory=dict)  # reported, by game number
    pressed: set[int] = field(default_factory=set)
    acknowledged: dict[int, Pair] = field(default_factory=dict)
    sent: int = 0  # reports sent (not delivered again)
    seen: int = 0
    recorded: int = 0  # answers saying only "recorded" (RECORDED)

    async def look(self, tg: FakeTelegram, updates: list[int]) -> None:
        """Read the group's new outputs and press Confirm on each new report."""
        outputs = tg.outputs(self.chat)
        for output in outputs[self.seen:]:
            if output.kind == "send" and (found := REPORTED.match(output.plain)):
                game, opponent = int(found[1]), found[4]
                self.games.setdefault(game, (found[2], found[3]))
                assert self.games[game] == (found[2], found[3]), output.plain
                updates.append(await tg.press(self.chat, self.members[opponent], output,
                                              f"g:confirm:#{game}"))
                self.pressed.add(game)
            elif found := CONFIRMED.match(output.plain):  # a press's edit, or a /confirm's
                self.acknowledged[int(found[1])] = (found[2], found[3])
            elif output.plain == RECORDED:
                self.recorded += 1
        self.seen = len(outputs)

    async def recorded_only(self, tg: FakeTelegram, database: Path,
                            updates: list[int]) -> None:
        """After answers saying only "recorded": what the bot recorded, as its log says. A
        report whose message never came is confirmed by its opponent with ``/confirm N``; a
        press so answered was acknowledged ("recorded" is what its member saw)."""
        users = {user.id: name for name, user in self.members.items()}
        with sqlite3.connect(database) as db:
            rows = db.execute(
                "SELECT e.id, e.kind, e.data FROM events e JOIN clubs c ON c.id = e.club_id"
                " WHERE c.chat_id = ? AND e.kind IN ('game_reported', 'game_confirmed')"
                " ORDER BY e.id", (str(self.chat.id),)).fetchall()
        numbers: dict[int, int] = {}  # report event id -> game number (reports only here)
        for event_id, kind, data in rows:
            fields = json.loads(data)
            if kind == "game_reported":
                numbers[event_id] = game = len(numbers) + 1
                a, b = users[int(fields["player_a"])], users[int(fields["player_b"])]
                pair = (a, b) if fields["score_a"] == 1.0 else (b, a)
                if game not in self.games:
                    self.games[game] = pair
                    opponent = b if users[int(fields["reported_by"])] == a else a
                    updates.append(await tg.send(self.chat, self.members[opponent],
                                                 f"/confirm {game}"))
                    self.pressed.add(game)
            elif (game := numbers[int(fields["game"])]) in self.pressed:
                self.acknowledged.setdefault(game, self.games[game])
        self.recorded = 0


@dataclass
class Groups:
    """The groups of the one bot process, its folder and clock."""

    tg: FakeTelegram
    groups: list[Group]
    folder: Path
    clock: FakeClock
    updates: list[int] = field(default_factory=list)  # of reports and presses, since a restart

    def bot(self) -> Bot:
        return telegram_bot(self.tg, self.folder, self.clock, CLUBRATING_RATE_LIMIT="off")

    async def follow(self) -> None:
        """Every group's members at work, until cancelled."""
        while True:
            for group in self.groups:
                await group.look(self.tg, self.updates)
                if group.recorded:
                    await group.recorded_only(self.tg, self.folder / "club.db", self.updates)
            await asyncio.sleep(0.005)

    def acknowledged(self) -> int:
        return sum(len(group.acknowledged) for group in self.groups)

    def settled(self) -> bool:
        """Every report sent so far was answered, and its game confirmed."""
        return all(len(group.games) == group.sent and group.acknowledged == group.games
                   for group in self.groups)


@asynccontextmanager
async def many_groups(folder: Path, count: int) -> AsyncIterator[Groups]:
    """``count`` groups of four members on a fake Bot API, for one bot in ``folder``."""
    async with FakeTelegram(token=TOKEN) as tg:
        ada = tg.user(1, "Ada", "ada")
        chats = [chess_club(tg, ada)] + [
            tg.group(GROUP - n, f"Chess club {n + 1}", admins=[ada], creator=ada)
            for n in range(1, count)]
        yield Groups(tg, [Group(chat, {f"{name}{n + 1}": tg.user(
            100 + 10 * n + k, f"{name.title()} {n + 1}", f"{name}{n + 1}")
            for k, name in enumerate(NAMES)}) for n, chat in enumerate(chats)],
            folder, FakeClock(folder, FRIDAY))


@pytest.fixture
async def groups(tmp_path: Path) -> AsyncIterator[Groups]:
    async with many_groups(tmp_path, GROUPS) as made:
        yield made


async def until(condition: Callable[[], bool], follower: asyncio.Task[None], what: str,
                timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if follower.done():
            follower.result()  # its failure
        assert asyncio.get_running_loop().time() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.005)


async def quiet(groups: Groups, follower: asyncio.Task[None], seconds: float = 1.5,
                done: Callable[[], bool] = lambda: False) -> None:
    """Wait until the bot has said and answered nothing in any group for ``seconds``, or
    until ``done``."""
    def activity() -> tuple[int, ...]:
        return (len(groups.tg.callback_answers),
                *(len(groups.tg.outputs(group.chat)) for group in groups.groups))

    last, since = activity(), asyncio.get_running_loop().time()
    while asyncio.get_running_loop().time() - since < seconds and not done():
        await asyncio.sleep(0.05)
        if follower.done():
            follower.result()
        if activity() != last:
            last, since = activity(), asyncio.get_running_loop().time()


def calls_per_group(tg: FakeTelegram, start: int, end: int | None) -> Counter[int]:
    """The Bot API calls naming a group among the calls ``start`` to ``end``, by group."""
    return Counter(int(params["chat_id"]) for _, params in tg.calls[start:end]
                   if str(params.get("chat_id", "")).startswith("-"))


async def exported(bot: Bot, chat: Chat) -> Counter[Pair]:
    """The games of ``clubrating export`` for the club of ``chat``, as (winner, loser) counts."""
    done = await asyncio.to_thread(clubrating, bot.env, "export", "--chat",
                                   f"telegram:{chat.id}")
    assert done.returncode == 0, done.stderr
    games: Counter[Pair] = Counter()
    for row in csv.DictReader(io.StringIO(done.stdout)):
        if row.get("kind", "") not in ("", "game"):
            continue
        a, b, score = row["player_a"], row["player_b"], float(row["score_a"])
        assert score in (0.0, 1.0), row  # every game here has a winner
        games[(a, b) if score == 1.0 else (b, a)] += 1
    return games


def check(history: Counter[Pair], group: Group) -> None:
    """Every acknowledged result exactly once; no pair twice; no pair under two numbers; only
    the group's own members."""
    twice = {pair: n for pair, n in history.items() if n > 1}
    assert not twice, f"games counted twice in {group.chat.id}: {twice}"
    pairs = Counter(frozenset(pair) for pair in history)
    assert max(pairs.values(), default=1) == 1, f"a pair played twice: {pairs}"
    numbers = Counter(group.games.values())
    assert max(numbers.values(), default=1) == 1, f"a report made two games: {group.games}"
    lost = {game: pair for game, pair in group.acknowledged.items() if pair not in history}
    assert not lost, f"acknowledged results lost in {group.chat.id}: {lost}"
    assert set(history) <= set(group.games.values()), f"a game nobody reported: {history}"
    assert {name for pair in history for name in pair} <= set(group.members), history


async def test_sigkill_during_confirmations_loses_no_acknowledged_result(groups: Groups) -> None:
    rng = random.Random(20261120)
    rounds: list[list[tuple[Group, str, str]]] = [[] for _ in KILL_AFTER]
    for group in groups.groups:
        pairs = list(combinations(group.members, 2))
        rng.shuffle(pairs)
        for n, games in enumerate(rounds):
            games += [(group, a, b) for a, b in pairs[n::len(KILL_AFTER)]]
    for games in rounds:
        rng.shuffle(games)  # the groups' reports interleaved
    tg = groups.tg
    bot = groups.bot()
    starts = [len(tg.calls)]
    await bot.start()
    follower = asyncio.create_task(groups.follow())
    try:
        for group in groups.groups:  # all at once
            for member in group.members.values():
                await tg.send(group.chat, member, "/register")
        await until(lambda: all(sum(o.plain.startswith("Welcome, ") for o in tg.outputs(g.chat))
                                == len(NAMES) for g in groups.groups),
                    follower, "every member registered")

        in_flight: list[int] = []  # per kill: presses made since the last kill, unacknowledged
        unacknowledged: set[tuple[int, int]] = set()
        at_kills: list[int] = []  # results acknowledged when each kill came
        for games, kill_after in zip(rounds, KILL_AFTER, strict=True):
            acknowledged = groups.acknowledged()
            for group, a, b in games:  # a burst of reports, the loser reporting every other time
                reporter, line = (a, f"/report @{b} win") if rng.random() < 0.5 else (
                    b, f"/report @{a} loss")
                groups.updates.append(await tg.send(group.chat, group.members[reporter], line))
                group.sent += 1
            await until(lambda: groups.acknowledged() - acknowledged >= kill_after,  # noqa: B023
                        follower, f"{kill_after} confirmations acknowledged")
            fresh = {(group.chat.id, game) for group in groups.groups
                     for game in group.pressed - set(group.acknowledged)} - unacknowledged
            in_flight.append(len(fresh))
            at_kills.append(groups.acknowledged())
            unacknowledged |= fresh
            assert await bot.kill() == -9

            with sqlite3.connect(groups.folder / "club.db") as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            histories = await asyncio.gather(*(exported(bot, g.chat) for g in groups.groups))
            for group, history in zip(groups.groups, histories, strict=True):
                check(history, group)
            starts.append(len(tg.calls))
            await bot.start()  # on what the kill left; updates not yet confirmed come again
            # The kill might have come before getUpdates confirmed any of them: every report
            # and press since the last start comes again (same update_id), and changes nothing.
            for update in groups.updates:
                await tg.redeliver(update)
            groups.updates.clear()
            # the next kill comes in its own burst
            await until(groups.settled, follower, "every report so far answered and confirmed")
            await quiet(groups, follower)

        # After the last restart (and the deliveries again) every report was answered and
        # confirmed: each reported game counts exactly once, and every board says so.
        exports = 0
        histories = await asyncio.gather(*(exported(bot, g.chat) for g in groups.groups))
        for group, history in zip(groups.groups, histories, strict=True):
            assert group.acknowledged == group.games
            check(history, group)
            assert set(history) == set(group.games.values())
            assert len(history) == len(NAMES) * (len(NAMES) - 1) // 2
            # each club's games are numbered #1, #2, ... however the kills fell
            assert sorted(group.games) == list(range(1, len(history) + 1)), group.games
            exports += sum(history.values())

            board_at = len(tg.outputs(group.chat))
            await tg.send(group.chat, next(iter(group.members.values())), "/top")

            def boards(chat: Chat = group.chat, after: int = board_at) -> list[str]:
                return [o.plain for o in tg.outputs(chat)[after:] if o.kind == "send"
                        and o.plain.startswith("  1. ", o.plain.find("\n") + 1)]

            await until(lambda: bool(boards()), follower, "the answer to /top")  # noqa: B023
            board = boards()[0]
            counts = [int(n) for n in re.findall(r"(\d+) games?$", board, re.MULTILINE)]
            assert len(counts) == len(NAMES), board
            assert sum(counts) == 2 * sum(history.values()), board
            assert all(name in board for name in group.members), board

        calls = [calls_per_group(tg, start, end)
                 for start, end in zip(starts, [*starts[1:], None], strict=True)]
        busiest = max(max(counter.values()) for counter in calls)
        print(f"\nSIGKILLs {len(KILL_AFTER)}, acknowledged at the kills {at_kills}, presses in "
              f"flight at the kills {in_flight}, acknowledged in all {groups.acknowledged()}, "
              f"games exported {exports} in {GROUPS} groups, most calls naming one group by "
              f"one process {busiest}")
        assert all(in_flight), f"a kill came with no confirmation in flight: {in_flight}"
        assert busiest <= PACED_AFTER, f"a group was paced: {calls}"
        assert await bot.stop() == 0
        assert "Traceback" not in bot.text(), bot.text()
    finally:
        follower.cancel()
        if bot.process is not None and bot.process.returncode is None:
            await bot.kill()


# -- every update answered once -------------------------------------------------------------------

#: groups of the second test: 16 updates each (4 /register, 6 /report, 6 presses of Confirm),
#: and one private /rating of each member: 10 x 16 + 40 = 200 updates
EVERY_UPDATE_GROUPS = 10
#: the rounds of the second test; a kill at a random point of each
ROUNDS = 4
#: how long after a round's burst its kill comes (seconds), at random
KILL_WITHIN = (0.02, 0.4)
WELCOME = re.compile(r"Welcome, (\w+)!")


def answers_to(tg: FakeTelegram, update_id: int) -> int:
    """How often the members saw the bot answer the update ``update_id``. A press is answered
    by answerCallbackQuery of its query (Telegram takes one answer per press: a second is
    refused, and seen by nobody); /register by "Welcome, NAME!" in its group, /report by "Game
    #n: WINNER beat LOSER" there (each member registers once, each pair plays once); a private
    command by any message in that private chat (each member sends one)."""
    update = tg.updates[update_id]
    if "callback_query" in update:
        query = update["callback_query"]["id"]
        return sum(answer["id"] == query for answer in tg.callback_answers)
    message = update["message"]
    line = message["text"]
    sent = [o.plain for o in tg.outputs(message["chat"]["id"]) if o.kind == "send"]
    if message["chat"]["type"] == "private":
        return len(sent)
    if line == "/register":
        return sum(bool((found := WELCOME.match(t)) and found[1] == message["from"]["username"])
                   for t in sent)
    reporter = message["from"]["username"]
    named, result = line.split()[1:]
    pair = (reporter, named[1:]) if result == "win" else (named[1:], reporter)
    return sum(bool((found := REPORTED.match(t)) and (found[2], found[3]) == pair)
               for t in sent)


async def test_sigkill_at_random_points_every_update_is_answered_once(tmp_path: Path) -> None:
    rng = random.Random(20261127)
    async with many_groups(tmp_path, EVERY_UPDATE_GROUPS) as groups:
        tg = groups.tg
        members = [(group, name, user) for group in groups.groups
                   for name, user in group.members.items()]
        registers = list(members)
        privates = list(members)
        reports: list[tuple[Group, str, str]] = []
        for group in groups.groups:
            for a, b in combinations(group.members, 2):
                reports.append((group, a, b) if rng.random() < 0.5 else (group, b, a))
        rng.shuffle(registers)
        rng.shuffle(privates)
        rng.shuffle(reports)
        # round 1: every member registers; then the reports; the private reads in every round
        rounds: list[list[Callable[[], Awaitable[int]]]] = [[] for _ in range(ROUNDS)]
        for group, _, user in registers:
            rounds[0].append(partial(tg.send, group.chat, user, "/register"))

        async def report(group: Group, winner: str, loser: str) -> int:
            group.sent += 1
            return await tg.send(group.chat, group.members[winner], f"/report @{loser} win")

        for n, (group, winner, loser) in enumerate(reports):
            rounds[1 + n % (ROUNDS - 1)].append(partial(report, group, winner, loser))
        for n, (_, _, user) in enumerate(privates):
            rounds[n % ROUNDS].append(partial(tg.send, tg.private(user), user, "/rating"))
        for burst in rounds:
            rng.shuffle(burst)

        bot = groups.bot()
        await bot.start()
        follower = asyncio.create_task(groups.follow())  # presses Confirm on every report
        sent: list[int] = []

        def unanswered() -> list[int]:
            return [u for u in [*sent, *groups.updates] if answers_to(tg, u) == 0]

        in_flight: list[int] = []  # per kill: updates not yet answered
        caught: set[int] = set()  # updates a kill caught answered but not yet marked handled
        try:
            for burst in rounds:
                for send in burst:
                    sent.append(await send())
                await asyncio.sleep(rng.uniform(*KILL_WITHIN))
                assert await bot.kill() == -9
                in_flight.append(len(unanswered()))
                with sqlite3.connect(groups.folder / "club.db") as db:
                    assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
                    kept = {int(row[0]) for row in db.execute(
                        "SELECT update_id FROM received_updates WHERE body IS NOT NULL")}
                # answered, and killed before it was marked handled: it is handled again
                caught |= {u for u in kept if answers_to(tg, u)}
                await bot.start()  # Telegram (the fake) delivers what was not confirmed
                # until every update so far is answered, or the bot did nothing for a while
                # (what is still unanswered then was lost: counted at the end)
                await quiet(groups, follower, 3.0, done=lambda: not unanswered())
                await quiet(groups, follower)

            updates = [*sent, *groups.updates]
            answers = Counter(answers_to(tg, u) for u in updates)
            lost = answers[0]
            twice = {u: answers_to(tg, u) for u in updates if answers_to(tg, u) > 1}
            # a press is answered by Telegram once however often the bot tries
            again = {u: 2 for u in caught if "message" in tg.updates[u]}
            refused = sum(error[0] == "answerCallbackQuery" for error in tg.errors)
            print(f"\nSIGKILLs {len(in_flight)}, updates unanswered at the kills {in_flight}, "
                  f"updates {len(updates)}: lost {lost}, answered twice {len(twice)}, caught "
                  f"by a kill between their answer and its mark {len(caught)} (presses answered "
                  f"again, refused by Telegram: {refused})")
            assert all(in_flight), f"a kill came with every update answered: {in_flight}"
            assert lost == 0, answers
            # Answered twice are only the messages a kill caught in the instant between
            # Telegram taking their answer and the bot marking them handled (Telegram's
            # sendMessage has no idempotency key: at least once is the best there is).
            assert twice == again, (twice, caught)
            # every update of the members once (and each press of a report message the bot
            # sent twice)
            assert len(updates) == EVERY_UPDATE_GROUPS * 16 + len(members) + len(
                [u for u in again if tg.updates[u]["message"]["text"].startswith("/report")])
            histories = await asyncio.gather(*(exported(bot, g.chat) for g in groups.groups))
            for group, history in zip(groups.groups, histories, strict=True):
                assert group.acknowledged == group.games  # every game confirmed, once
                check(history, group)
                assert set(history) == set(group.games.values())
                assert len(history) == len(NAMES) * (len(NAMES) - 1) // 2
                assert sorted(group.games) == list(range(1, len(history) + 1)), group.games
            assert await bot.stop() == 0
            assert "Traceback" not in bot.text(), bot.text()
        finally:
            follower.cancel()
            if bot.process is not None and bot.process.returncode is None:
                await bot.kill()
