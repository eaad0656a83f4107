"""One group floods the bot; do the other clubs notice? (issue 30)

    .venv/bin/python bench/flood.py                       # 30 s, 60 commands a second, 20 clubs
    .venv/bin/python bench/flood.py --seconds 10 --clubs 5

``clubrating run`` is started as a process, as a club runs it, against the fake Bot API of the
test-suite (``tests/fake_telegram.py``) in this process, on a SQLite file of its own. Twenty
clubs (``--clubs``) each have a member who sends ``/top`` every 2 s (``--every``); in one more
group, one member who is not even registered sends ``--flood`` (60) commands a second - ``/top``,
an unknown ``/nosuchK`` and an unparsable ``/top "unbalanced`` in turn - for ``--seconds`` (30).
The same run is made twice, without the flood (the reference) and with it: the clubs' answer
times (from the update's queueing at the fake server to the answer's arrival there) side by side,
and the messages the flooder's group received. Target: the clubs' p99 at most 1 s above the
reference; the flooder answered within their rate, then told once per window.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User  # noqa: E402
from tests.system.process import Bot, environment  # noqa: E402

#: the flooder's lines, in turn: a command, an unknown one, one that cannot be parsed
FLOOD_LINES = ("/top", "/nosuchK", '/top "unbalanced')


class TimedTelegram(FakeTelegram):
    """The fake Bot API, noting when each output reached it."""

    def __init__(self) -> None:
        super().__init__(token=TOKEN)
        self.arrived: dict[int, list[float]] = {}

    def _output(self, kind: str, message: dict[str, Any], parse_mode: str | None,
                size: int | None = None) -> dict[str, Any]:
        self.arrived.setdefault(message["chat"]["id"], []).append(time.monotonic())
        return super()._output(kind, message, parse_mode, size)


@dataclass
class Run:
    """One run's figures."""

    flood: bool
    latencies: list[float] = field(default_factory=list)
    unanswered: int = 0
    flood_sent: int = 0
    flood_answers: int = 0
    stopped: bool = True  # the bot stopped within a minute of SIGTERM

    def line(self) -> str:
        q = statistics.quantiles(self.latencies, n=100) if len(self.latencies) > 1 else [0] * 99
        what = "with the flood" if self.flood else "reference (no flood)"
        text = (f"{what:>22}: clubs' answers p50 {q[49] * 1000:7.1f} ms, p99 {q[98] * 1000:7.1f}"
                f" ms, max {max(self.latencies, default=0) * 1000:7.1f} ms "
                f"({len(self.latencies)} answered, {self.unanswered} unanswered)")
        if self.flood:
            text += (f"\n{'':>22}  the flooder sent {self.flood_sent} commands; their group "
                     f"received {self.flood_answers} messages")
        if not self.stopped:
            text += f"\n{'':>22}  the bot did not stop within a minute of SIGTERM"
        return text


async def one_run(folder: Path, args: argparse.Namespace, flood: bool) -> Run:
    run = Run(flood)
    async with TimedTelegram() as tg:
        admin = tg.user(1, "Ada", "ada_admin")
        clubs: list[tuple[Chat, User]] = []
        for n in range(args.clubs):
            group = tg.group(-2000 - n, f"Club {n}", admins=[admin], creator=admin)
            clubs.append((group, tg.user(100 + n, f"Member{n}", f"member_{n}")))
        flooded = tg.group(-1999, "Flooded", admins=[admin], creator=admin)
        flooder = tg.user(99, "Flooder", "flooder")
        env = environment(folder, None, TELEGRAM_TOKEN=TOKEN,
                          TELEGRAM_BASE_URL=f"{tg.url}/bot")
        bot = await Bot(env, folder / "bot.log").start()
        try:
            # Every chat once before the clock starts: its club exists and its admins are known.
            for group, member in [*clubs, (flooded, flooder)]:
                await tg.send(group, member, "/top")
                await tg.reply(group, 30.0)
            sent: dict[int, list[float]] = {group.id: [] for group, _ in clubs}
            began = time.monotonic()
            flood_before = len(tg.arrived.get(flooded.id, []))

            async def member(group: Chat, user: User, offset: float) -> None:
                await asyncio.sleep(offset)
                while time.monotonic() - began < args.seconds:
                    sent[group.id].append(time.monotonic())
                    await tg.send(group, user, "/top")
                    await asyncio.sleep(args.every)

            async def flooding() -> None:
                gap = 1 / args.flood
                while (elapsed := time.monotonic() - began) < args.seconds:
                    due = int(elapsed * args.flood) + 1
                    while run.flood_sent < due:
                        await tg.send(flooded, flooder, FLOOD_LINES[run.flood_sent % 3])
                        run.flood_sent += 1
                    await asyncio.sleep(gap)

            tasks = [member(group, user, args.every * n / len(clubs))
                     for n, (group, user) in enumerate(clubs)]
            await asyncio.gather(*tasks, *([flooding()] if flood else []))
            await asyncio.sleep(args.settle)
            for group, _ in clubs:
                asked = sent[group.id]
                answered = tg.arrived.get(group.id, [])[1:]  # after the warm-up's answer
                run.latencies += [a - s for s, a in zip(asked, answered, strict=False)]
                run.unanswered += max(0, len(asked) - len(answered))
            run.flood_answers = len(tg.arrived.get(flooded.id, [])) - flood_before
        finally:
            try:
                await bot.stop()
            except AssertionError:  # still sending a backlog: killed
                run.stopped = False
    return run


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--flood", type=int, default=60, help="the flooder's commands a second")
    parser.add_argument("--clubs", type=int, default=20)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between a club's /top")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="seconds to wait for the last answers")
    args = parser.parse_args()
    print(f"{args.clubs} clubs, /top every {args.every:g} s each; one group floods "
          f"{args.flood} commands a second; {args.seconds:g} s")
    for flood in (False, True):
        with tempfile.TemporaryDirectory() as folder:
            print((await one_run(Path(folder), args, flood)).line(), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
