"""The live leaderboard (issue 38): one message of a chat that shows a ladder's table and is
edited as the table changes.

``/board here`` (a moderator) starts it in the chat it is sent in, ``/board off`` ends it; a
ladder has at most one, and a new ``/board here`` replaces the one before (the old message is
left as it is, no longer edited). The log holds where it is
(:class:`~bot.service.events.LiveBoardStarted`), the message that shows it, once the front-end
posted it and whenever it posts it again (:class:`~bot.service.events.LiveBoardMoved`), and its
end (:class:`~bot.service.events.LiveBoardStopped`): so it survives a restart, and nothing else
is stored (what it shows is the table the log gives now).

Choices where the issue leaves them open:

- what it shows is exactly ``/top``'s table of the ladder (:func:`shown`; a front-end shows
  its first page, as it shows ``/top``'s), with no time of update in it: so an edit is due
  only when a rating, a name or a rank changed, and the front-end compares the text it would
  show with the text it showed last (:func:`changed`);
- its message is posted by the front-end that serves its chat, not by the command: the
  command only records the board, so that the first post and a post after the message was
  deleted are one path (the front-end says the new id: :func:`moved`);
- a board whose message could not be posted or edited three times in a row is stopped by the
  front-end (:func:`failed`, reason "failed"), and the chat's moderators are told once: the
  event is written once, so a restart does not tell them again.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

from datetime import datetime

from . import events as ev
from . import view
from .errors import Refusal
from .identity import Caller
from .results import Leaderboard, Notice
from .session import Decision
from .state import ClubState, LiveBoard
from .view import Club

#: a board's end by ``/board off``, and after its message failed FAILURES_TO_STOP times
STOPPED_OFF = "off"
STOPPED_FAILED = "failed"
#: posts or edits failed in a row after which a board is stopped (the issue's three)
FAILURES_TO_STOP = 3


def check_start(club: Club, caller: Caller, ladder: str | None) -> str:
    """The ladder ``/board here`` would show (its name), or the refusal a moderator-only
    command on an unknown ladder gets: checked before the front-end asks its platform
    whether the bot may post here."""
    view.require_moderator(club, caller)
    return view.ladder(club, ladder).name


def start(club: Club, now: datetime, caller: Caller, ladder: str | None,
          channel: str | None = None) -> Decision[Notice]:
    """Keep the ladder's table in a message of the caller's chat (its ``channel``, where the
    chat has several) from now on."""
    name = check_start(club, caller, ladder)
    event = ev.LiveBoardStarted(name, caller.platform, caller.chat_id, channel)
    return ([ev.new_event(event, caller.user, now)],
            lambda: Notice("board_started", {"ladder": name}))


def stop(club: Club, now: datetime, caller: Caller, ladder: str | None) -> Decision[Notice]:
    """End the ladder's live board, wherever it is (its message stays as it last was)."""
    view.require_moderator(club, caller)
    name = view.ladder(club, ladder).name
    if name not in club.state.live_boards:
        raise Refusal("board_none", ladder=name)
    event = ev.LiveBoardStopped(name, STOPPED_OFF)
    return ([ev.new_event(event, caller.user, now)],
            lambda: Notice("board_stopped", {"ladder": name}))


def _current(state: ClubState, ladder: str, board: int) -> LiveBoard | None:
    """The ladder's live board if it is still the one started by event ``board``: a board
    replaced or stopped meanwhile is none of the front-end's business any more."""
    found = state.live_boards.get(ladder)
    return found if found is not None and found.id == board else None


def moved(club: Club, now: datetime, actor: str, ladder: str, board: int,
          message: str) -> Decision[bool]:
    """The front-end posted board ``board``'s table as message ``message``; False (nothing
    written) when that board is no longer the ladder's."""
    if _current(club.state, ladder, board) is None:
        return [], lambda: False
    event = ev.LiveBoardMoved(ladder, board, message)
    return [ev.new_event(event, actor, now)], lambda: True


def failed(club: Club, now: datetime, actor: str, ladder: str, board: int) -> Decision[bool]:
    """Board ``board``'s message failed FAILURES_TO_STOP times in a row: it stops. True when
    this stopped it (its moderators are then told, once); False when it had stopped already."""
    if _current(club.state, ladder, board) is None:
        return [], lambda: False
    event = ev.LiveBoardStopped(ladder, STOPPED_FAILED)
    return [ev.new_event(event, actor, now)], lambda: True


def boards(state: ClubState, platform: str) -> list[LiveBoard]:
    """The club's live boards in chats of ``platform``."""
    return [board for board in state.live_boards.values() if board.platform == platform]


def shown(club: Club, board: LiveBoard) -> Leaderboard | None:
    """What ``board`` shows: its ladder's table, as ``/top`` shows it; None when the board
    is no longer kept."""
    current = club.state.live_boards.get(board.ladder)
    if current is None or current.id != board.id:
        return None
    return view.board(club, club.state.ladders[board.ladder])


def changed(last: str | None, now: str) -> bool:
    """Whether a board showing ``last`` (None: nothing this process showed, as after a
    restart) must be edited to show ``now``: only when the text differs."""
    return last != now
