"""The club's use cases, platform-neutral: every front-end calls these and renders the answers.

:class:`ClubService` is a thin facade. Each method names its use case, a decision over the
club's state in one of the modules by topic (members, games, challenges, moderation, ladders,
posting, history_io), and hands it to the :class:`~bot.service.session.Session`, which runs it
under the club's lock and keeps its events and answer in one transaction. Heavy reads (a chart,
a past leaderboard, an evaluation) take a frozen copy under the lock and are worked out in a
worker thread within a deadline (:mod:`bot.service.heavy`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.storage.repository import Repository

from . import challenges, games, heavy, history_io, ladders, members, moderation, posting
from . import schedules as sched
from .challenges import MAX_OPEN_CHALLENGES
from .clock import Clock
from .errors import Refusal
from .history_csv import History as CsvHistory
from .identity import Caller, Who
from .moderation import Correction
from .results import Notice, Result, decode
from .session import SYSTEM_ACTOR, Session
from .state import DEFAULT_LADDER, DEFAULT_SYSTEM, LadderSettings
from .view import MAX_REASON


class ClubService:
    def __init__(self, repository: Repository, clock: Clock) -> None:
        self._repository = repository
        self._session = Session(repository, clock)

    @property
    def clock(self) -> Clock:
        """The service's clock (front-ends' rate limits count time by it too)."""
        return self._session.clock

    # -- members ------------------------------------------------------------------------------

    async def register(
        self, caller: Caller, name: str | None = None, birth_date: str | None = None
    ) -> Result:
        return await self._session.execute(
            caller, lambda club, now: members.register(club, now, caller, name, birth_date))

    async def profile(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None
    ) -> Result:
        return await self._session.look(
            caller, lambda club, now: members.profile(club, caller, who, ladder))

    async def history(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None,
        limit: int = 10,
    ) -> Result:
        return await self._session.look(
            caller, lambda club, now: members.history(club, caller, who, ladder, limit))

    async def rating_history(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None,
        deadline: heavy.Deadline | None = None,
    ) -> Result:
        """Replayed in a worker thread, outside the club's lock, within
        ``heavy.CHART_SECONDS`` (or ``deadline``: the whole /chart's)."""
        deadline = deadline or heavy.Deadline(heavy.CHART_SECONDS, "chart_too_slow")
        work = await self._session.look(
            caller, lambda club, now: members.rating_history(club, caller, who, ladder))
        return await heavy.run(work, deadline)

    async def head_to_head(
        self, caller: Caller, other: Who, ladder: str | None = None
    ) -> Result:
        return await self._session.look(
            caller, lambda club, now: members.head_to_head(club, caller, other, ladder))

    async def clubs_of(self, platform: str, user: str) -> list[str]:
        """The chats of the platform whose club has this person as a member (what a private
        chat with the bot speaks about)."""
        return [chat for _, chat, state in await self._session.each_club(platform)
                if state.member_of_user(user) is not None]

    async def merge(self, caller: Caller, duplicate: Who, into: Who, reason: str = "") -> Result:
        return await self._session.execute(
            caller, lambda club, now: members.merge(club, now, caller, duplicate, into, reason))

    async def set_membership(
        self, caller: Caller, who: Who, retire: bool, ladder: str | None = None,
        reason: str = "",
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: members.set_membership(
            club, now, caller, who, retire, ladder, reason))

    async def moderator_role(self, platform: str, chat_id: str) -> str | None:
        """The platform role whose holders moderate the club (``/set moderator_role``, kept on
        the main ladder), or None. Front-ends ask it to build a :class:`Caller`."""
        state = await self._session.current(await self._session.club_id(platform, chat_id))
        main = state.ladder(DEFAULT_LADDER)
        return None if main is None else main.settings.moderator_role

    async def name_moderator(self, caller: Caller, who: Who, named: bool) -> Result:
        return await self._session.execute(
            caller, lambda club, now: members.name_moderator(club, now, caller, who, named))

    # -- games and challenges --------------------------------------------------------------------

    async def report(
        self, caller: Caller, opponent: Who, result: str, *, player: Who | None = None,
        handicap: str | None = None, colour: str | None = None, event: str | None = None,
        ladder: str | None = None,
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: games.report(
            club, now, caller, opponent, result, player=player, handicap=handicap,
            colour=colour, event=event, ladder=ladder))

    async def confirm(self, caller: Caller, game_id: int | None = None) -> Result:
        return await self._session.execute(
            caller, lambda club, now: games.confirm(club, now, caller, game_id))

    async def dispute(
        self, caller: Caller, game_id: int | None = None, reason: str = ""
    ) -> Result:
        return await self._session.execute(
            caller, lambda club, now: games.dispute(club, now, caller, game_id, reason))

    async def withdraw(self, caller: Caller, game_id: int | None = None) -> Result:
        return await self._session.execute(
            caller, lambda club, now: games.withdraw(club, now, caller, game_id))

    async def pending(self, caller: Caller) -> Result:
        return await self._session.look(caller, lambda club, now: games.pending(club, now, caller))

    async def challenge(
        self, caller: Caller, opponent: Who, ladder: str | None = None
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: challenges.challenge(
            club, now, caller, opponent, ladder))

    async def answer_challenge(
        self, caller: Caller, accept: bool, challenge_id: int | None = None
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: challenges.answer(
            club, now, caller, accept, challenge_id))

    # -- moderators' corrections -----------------------------------------------------------------

    async def correct(
        self, caller: Caller, game_id: int, correction: Correction, *, apply: bool = False,
        reason: str = "",
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: moderation.correct(
            club, now, caller, game_id, correction, apply=apply, reason=reason))

    async def preview_correction(
        self, caller: Caller, game_id: int, correction: Correction
    ) -> Result:
        """:meth:`correct`'s preview, kept in the repository as the caller's pending correction
        (replacing an earlier one), for :meth:`apply_correction` or :meth:`cancel_correction`
        to find, whichever process and however much later."""
        answer = await self.correct(caller, game_id, correction)
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        await self._repository.keep_preview(club_id, caller.user, game_id, correction.kept(),
                                            self.clock.now())
        return answer

    async def apply_correction(self, caller: Caller, game_id: int | None = None) -> Result | None:
        """Apply the caller's pending correction (only if it is of ``game_id`` when given: an
        older preview's button applies nothing); None when there is none. The preview is taken
        away first, so that it is applied once however often Apply is pressed; an update
        delivered again gets its first answer."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        if caller.request_id is not None:
            stored = await self._repository.answer(club_id, caller.request_id)
            if stored is not None:
                return decode(stored)
        taken = await self._repository.take_preview(club_id, caller.user, game_id)
        if taken is None:
            return None
        game, kept = taken
        return await self.correct(caller, game, Correction.from_kept(kept), apply=True)

    async def cancel_correction(self, caller: Caller, game_id: int | None = None) -> int | None:
        """Drop the caller's pending correction (of ``game_id`` when given); its game, or None
        when there was none."""
        club_id = await self._session.club_id(caller.platform, caller.chat_id)
        taken = await self._repository.take_preview(club_id, caller.user, game_id)
        return None if taken is None else taken[0]

    async def void(
        self, caller: Caller, game_id: int, reason: str = "", restore: bool = False
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: moderation.void(
            club, now, caller, game_id, reason, restore))

    async def undo(self, caller: Caller) -> Result:
        return await self._session.execute(
            caller, lambda club, now: moderation.undo(club, now, caller))

    async def audit(self, caller: Caller, limit: int = 20) -> Result:
        return await self._session.look(
            caller, lambda club, now: moderation.audit(club, caller, limit))

    # -- ladders -------------------------------------------------------------------------------

    async def leaderboard(self, caller: Caller, ladder: str | None = None) -> Result:
        return await self._session.look(
            caller, lambda club, now: ladders.leaderboard(club, ladder))

    async def leaderboard_at(
        self, caller: Caller, when: datetime | timedelta, ladder: str | None = None,
        deadline: heavy.Deadline | None = None,
    ) -> Result:
        """Replayed in a worker thread, outside the club's lock, within
        ``heavy.CARD_SECONDS`` (or ``deadline``: the whole /card's)."""
        deadline = deadline or heavy.Deadline(heavy.CARD_SECONDS, "card_too_slow")
        work = await self._session.look(
            caller, lambda club, now: ladders.leaderboard_at(club, now, when, ladder))
        return await heavy.run(work, deadline)

    async def create_ladder(
        self, caller: Caller, name: str, system: str = DEFAULT_SYSTEM,
        params: dict[str, str] | None = None,
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: ladders.create_ladder(
            club, now, caller, name, system, params))

    async def set_system(
        self, caller: Caller, system: str, params: dict[str, str] | None = None,
        ladder: str | None = None,
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: ladders.set_system(
            club, now, caller, system, params, ladder))

    async def set_setting(
        self, caller: Caller, setting: str, value: str, ladder: str | None = None
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: ladders.set_setting(
            club, now, caller, setting, value, ladder))

    async def settings(self, caller: Caller, ladder: str | None = None) -> Result:
        return await self._session.look(caller, lambda club, now: ladders.settings(club, ladder))

    async def set_event(
        self, caller: Caller, name: str, open_: bool, ladder: str | None = None
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: ladders.set_event(
            club, now, caller, name, open_, ladder))

    async def evaluate(self, caller: Caller, ladder: str | None = None) -> Result:
        """Worked out in a worker thread outside the club's lock, within
        ``heavy.EVALUATE_SECONDS``."""
        name, work = await self._session.look(
            caller, lambda club, now: ladders.evaluation(club, caller, ladder))
        return await heavy.run(work, heavy.Deadline(heavy.EVALUATE_SECONDS,
                                                    "evaluation_too_slow", ladder=name))

    # -- scheduled posts ---------------------------------------------------------------------------

    async def set_schedule(
        self, caller: Caller, ladder: str | None = None, *, cron: str | None = None,
        timezone: str | None = None, channel: str | None = None, size: str | None = None,
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: posting.set_schedule(
            club, now, caller, ladder, cron=cron, timezone=timezone, channel=channel,
            size=size))

    async def show_schedule(self, caller: Caller, ladder: str | None = None) -> Result:
        return await self._session.look(
            caller, lambda club, now: posting.show_schedule(club, now, caller, ladder))

    async def pause_schedule(
        self, caller: Caller, paused: bool, ladder: str | None = None, reason: str = ""
    ) -> Result:
        return await self._session.execute(caller, lambda club, now: posting.pause_schedule(
            club, now, caller, paused, ladder, reason))

    async def schedules(self) -> list[sched.Plan]:
        """Every ladder's posting plan in every club, as the logs say now (what the scheduler
        builds its jobs from)."""
        plans: list[sched.Plan] = []
        for club_id, platform, chat_id in await self._repository.clubs():
            state = await self._session.current(club_id)
            plans.extend(sched.plans_of(club_id, platform, chat_id, state))
        return plans

    async def digest(
        self, caller: Caller, ladder: str | None = None, since: datetime | None = None,
        *, scheduled: bool = False,
    ) -> Result:
        return await self._session.look(
            caller, lambda club, now: posting.digest(club, now, ladder, since, scheduled))

    async def due(self, platform: str, chat_id: str) -> list[Notice]:
        """Apply what time has made due now (for a scheduler); answers with the announcements
        of results that auto-confirmed since the last call (on ladders that announce)."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR)
        await self._session.look(caller, lambda club, now: None)
        return self._session.unannounced(await self._session.club_id(platform, chat_id))

    # -- import and export ---------------------------------------------------------------------

    async def export_history(
        self, platform: str, chat_id: str, ladder: str | None = None
    ) -> history_io.Export:
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.look(caller, lambda club, now: history_io.export(club, ladder))

    async def import_history(
        self, platform: str, chat_id: str, history: CsvHistory, labels: list[str],
        ladder: str | None = None, actor: str = "import",
    ) -> Result:
        """The check runs in a worker thread (the event loop goes on), within
        ``heavy.IMPORT_SECONDS``."""
        caller = Caller(platform, chat_id, actor, actor, moderator=True)
        deadline = heavy.Deadline(heavy.IMPORT_SECONDS, "import_too_slow")
        return await self._session.execute(caller, lambda club, now: history_io.import_history(
            club, now, history, labels, ladder, actor, deadline), off_loop=deadline)


__all__ = ["MAX_OPEN_CHALLENGES", "MAX_REASON", "SYSTEM_ACTOR", "Caller", "ClubService",
           "Correction", "LadderSettings", "Refusal"]
