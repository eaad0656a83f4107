"""The console chat: type what members type in a chat, as anyone, on the club ``console:local``.

With a terminal it prompts; otherwise it reads one command per line and answers each in turn,
so a session can be scripted (``clubrating run < session.txt``). ``/as alice`` speaks as alice,
``/as admin!`` as a moderator called admin. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.chat import intake
from bot.chat.commands import Context, parse
from bot.chat.language import writing_in
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.chat.ratelimit import RateLimiter
from bot.chat.words import Words
from bot.scheduling.publishing import Button, Picture
from bot.service.boards import changed
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import Preview

log = logging.getLogger(__name__)

PLATFORM = "console"
CHAT = "local"


async def operator_channel(channel: str) -> None:
    """The console is the host's own terminal: the host may name any chat (as with the shell's
    ``clubrating schedule``)."""


class Console:
    """``limiter`` counts the commands typed, per user, as on the chat platforms (the console
    is a club like theirs); ``folder`` is where pictures (/chart, /card) are written (default:
    the current directory)."""

    def __init__(self, service: ClubService, limiter: RateLimiter, user: str = "guest",
                 folder: Path | None = None) -> None:
        self.service = service
        self.limiter = limiter
        self.user = user
        self.folder = folder
        self.moderator = False

    @property
    def caller(self) -> Caller:
        return Caller(PLATFORM, CHAT, self.user, self.user, self.moderator, handle=self.user)

    def welcome(self) -> str:
        return text("console_welcome", club=f"{PLATFORM}:{CHAT}", user=self.user)

    async def handle(self, line: str) -> str:
        """The answer to one line typed by the current user ("" past the rate, once told)."""
        line = line.strip()
        if not line or line.startswith("#"):
            return ""
        if line.split(maxsplit=1)[0].lower() == "/as":  # the operator's own switch, not a command
            try:
                return self._become(parse(line)[1])
            except Refusal as refusal:
                return render(refusal)
        try:
            # the operator's own terminal: what only a member may see shows here
            ctx = Context(self.service, self.caller, self.limiter, operator_channel, alone=True)
            reply = await intake.command(ctx, lambda: parse(line), line.split()[0].lstrip("/"))
        except Exception:
            log.exception("console command failed: %r", line)
            return text("internal_error")
        if reply is None:
            return ""
        answer = reply.answer
        if isinstance(answer, str):
            return answer
        if isinstance(answer, Picture):
            return await self._save(answer)
        if isinstance(answer, Preview) and not answer.applied:
            hint = ("apply_hint_undo" if answer.undo is not None else
                    "apply_hint_merge" if answer.merge is not None else
                    "apply_hint_system" if answer.system is not None else
                    "apply_hint_link" if answer.link is not None else "apply_hint")
            return render(answer) + "\n" + text(hint)
        return render(answer)

    async def _save(self, picture: Picture) -> str:
        """Write the picture to a file and say where (and what it shows)."""
        path = (self.folder or Path.cwd()) / picture.filename
        await asyncio.to_thread(path.write_bytes, picture.png)
        saved = text("console_picture", path=path)
        return f"{picture.caption}\n{saved}" if picture.caption else saved

    def _become(self, words: Words) -> str:
        if len(words.args) != 1:
            return text("usage", usage=text("help_as"))
        name = words.args[0]
        self.moderator = name.endswith("!")
        self.user = name.rstrip("!").removeprefix("@") or "guest"
        role = text("console_moderator") if self.moderator else ""
        return text("console_as", user=self.user, role=role)


async def run_console(service: ClubService, limiter: RateLimiter, lines: TextIO, out: TextIO,
                      interactive: bool, posts: ConsolePublisher | None = None) -> None:
    """Answer lines from ``lines`` until it ends or says /quit, counting them with
    ``limiter``. ``posts``: the publisher of the scheduled posts into ``out``, which shows the
    prompt again after a post that came while the console waited."""
    console = Console(service, limiter)
    boards = ConsoleBoards(service)
    if interactive:
        out.write(console.welcome() + "\n")
    while True:
        prompt = f"{console.user}{'!' if console.moderator else ''}> "
        if interactive:
            out.write(prompt)
            out.flush()
        if posts is not None and interactive:
            posts.waiting = prompt
        try:
            line = await read_line(lines)
        finally:
            if posts is not None:
                posts.waiting = None
        if not line or line.strip() in ("/quit", "/exit"):
            break
        answer = await console.handle(line)
        if answer:
            out.write(answer + "\n")
            out.flush()
        board = await boards.changed()
        if board:
            out.write(board + "\n")
            out.flush()


async def read_line(lines: TextIO) -> str:
    """The next line of ``lines`` ("" at its end), read in a thread of its own so that the
    event loop goes on meanwhile: scheduled posts appear while the console waits for a line
    (issue 31; a ``readline()`` on the loop held them until the next line came). A daemon
    thread rather than the loop's executor: a thread still waiting when the console ends
    (Ctrl-C) never holds up the process's exit. One line at a time, when asked, so a scripted
    session's answers stay in its order."""
    loop = asyncio.get_running_loop()
    read: asyncio.Future[str] = loop.create_future()

    def settle(line: str | None, error: BaseException | None) -> None:
        if read.done():  # the console ended meanwhile
            return
        if error is not None:
            read.set_exception(error)
        else:
            read.set_result(line or "")

    def reader() -> None:
        try:
            line, error = lines.readline(), None
        except Exception as failed:  # e.g. bytes that are no text: the console's own error
            line, error = None, failed
        # A closed loop (RuntimeError): nobody waits for the line any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, line, error)

    threading.Thread(target=reader, name="console-input", daemon=True).start()
    return await read


class ConsoleBoards:
    """The console's live leaderboards (issue 38): the console is one chat whose messages
    cannot be edited, so a board is its table printed again after the command that changed it
    (never between a command and its answer: a scripted session's output stays in order)."""

    def __init__(self, service: ClubService) -> None:
        self.service = service
        #: the text each board (by its id) was printed with last
        self._printed: dict[int, str] = {}

    async def changed(self) -> str:
        """The tables of the console's boards that changed since they were printed last
        ("" when none did)."""
        shown = []
        for club_id, board in await self.service.live_boards(PLATFORM):
            table, language = await self.service.live_board_shown(club_id, board)
            if table is None:
                continue
            with writing_in(language):
                rendered = render(table)
            if changed(self._printed.get(board.id), rendered):
                self._printed[board.id] = rendered
                shown.append(rendered)
                if board.message is None:  # the console's output is its message
                    await self.service.live_board_moved(club_id, board, PLATFORM)
        return "\n".join(shown)


class ConsolePublisher:
    """Posts (scheduled posts, announcements) into the console: the text is written to its
    output, a picture to a file in ``folder`` (default: the current directory), saying where."""

    platform = PLATFORM

    def __init__(self, out: TextIO, folder: Path | None = None) -> None:
        self._out = out
        self._folder = folder
        #: the prompt shown while the console waits for a line (None: it does not): a post
        #: then starts on a line of its own and the prompt is shown again after it
        self.waiting: str | None = None

    async def publish(self, chat_id: str, message: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        """Print a post; its buttons as their labels in brackets (the console has no buttons:
        ``/puzzle`` does what "Solve privately" does)."""
        lines = [message]
        if buttons:
            lines.append("  ".join(f"[{button.label}]" for button in buttons))
        if picture is not None:
            path = (self._folder or Path.cwd()) / picture.filename
            await asyncio.to_thread(path.write_bytes, picture.png)
            lines.append(text("console_picture", path=path))
        prompt = self.waiting
        shown = "\n".join(lines) + "\n"
        self._out.write(shown if prompt is None else f"\n{shown}{prompt}")
        self._out.flush()
