"""The club's use cases, platform-neutral: every front-end calls these and renders the answers.

A thin facade: each method hands its use case, a decision in the module of its topic, to the
:class:`~bot.service.session.Session`, which runs it under the club's lock in one transaction.
Heavy reads (a chart, a past leaderboard, an evaluation) take a frozen copy under the lock and
are worked out in a worker thread within a deadline (:mod:`bot.service.heavy`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from typing import TypeVar

from bot.history import History as CsvHistory
from bot.pairing import model as pairing
from bot.storage.repository import Repository

from . import (
    bands,
    boards,
    challenges,
    directory,
    games,
    heavy,
    history_io,
    ladders,
    members,
    moderation,
    nights,
    posting,
    public,
    puzzles,
    seasons,
    stakes,
    view,
)
from . import schedules as sched
from .cache import DEFAULT_CAPACITY
from .challenges import MAX_OPEN_CHALLENGES
from .chats import Chats
from .clock import Clock
from .corrections import Corrections
from .errors import Refusal
from .identity import Caller, Who
from .moderation import Correction
from .results import (
    AttemptResult,
    Audit,
    Digest,
    Evaluation,
    GameResult,
    HeadToHead,
    History,
    Leaderboard,
    NightRoundShown,
    NightStandings,
    Notice,
    Pending,
    Preview,
    ProblemBoard,
    Profile,
    PuzzleInvite,
    PuzzlePost,
    PuzzleShown,
    RatingHistory,
    Result,
    ScheduleInfo,
    SeasonList,
    SeasonTable,
    Stake,
)
from .session import SYSTEM_ACTOR, Session
from .state import DEFAULT_LADDER, DEFAULT_SYSTEM, Ladder, LiveBoard
from .view import MAX_REASON

T = TypeVar("T")


class ClubService:
    """Games and challenges are named by their numbers in the club (#1, #2, ...), as people
    see and type them."""

    def __init__(self, repository: Repository, clock: Clock,
                 cache_clubs: int = DEFAULT_CAPACITY, keep_snapshots: bool = True) -> None:
        self._repository = repository
        self._session = Session(repository, clock, cache_clubs, keep_snapshots)
        self._chats = Chats(self._session)
        self._corrections = Corrections(self._session, self._chats)
        #: each club's plans as the directory held them at the last poll (decoded once)
        self._plans: dict[int, tuple[str, sched.ClubPlans]] = {}

    async def fill_directory(self) -> int:
        """Derive the directory rows of the clubs a database written by an earlier version
        has none of (:func:`directory.fill`): at start, before any lookup across clubs."""
        return await directory.fill(self._repository)

    @property
    def clock(self) -> Clock:
        """The service's clock (front-ends' rate limits count time by it too)."""
        return self._session.clock

    # -- members ------------------------------------------------------------------------------

    async def register(
        self, caller: Caller, name: str | None = None, birth_date: str | None = None
    ) -> Notice:
        return await self._session.execute(
            caller, lambda club, now: members.register(club, now, caller, name, birth_date))

    async def profile(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None
    ) -> Profile:
        found = await self._session.look(
            caller, lambda club, now: members.profile(club, caller, who, ladder))
        if isinstance(found, Profile):
            return found
        # The peak takes a replay of the member's games: off the event loop, with a cap.
        return await heavy.run(found, heavy.Deadline(heavy.CHART_SECONDS, "rating_too_slow"))

    async def history(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None,
        limit: int = 10,
    ) -> History:
        return await self._session.look(
            caller, lambda club, now: members.history(club, caller, who, ladder, limit))

    async def rating_history(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None,
        deadline: heavy.Deadline | None = None,
    ) -> RatingHistory:
        """Within ``heavy.CHART_SECONDS``, or ``deadline``: the whole /chart's."""
        deadline = deadline or heavy.Deadline(heavy.CHART_SECONDS, "chart_too_slow")
        return await self._session.work(
            caller, lambda club, now: members.rating_history(club, caller, who, ladder), deadline)

    async def head_to_head(
        self, caller: Caller, other: Who, ladder: str | None = None, partners: bool = False
    ) -> HeadToHead:
        return await self._session.look(caller, lambda club, now: members.head_to_head(
            club, caller, other, ladder, partners))

    async def spaced_name(self, caller: Caller, typed: Sequence[str]) -> str | None:
        """The member's name a typed ``@word`` and the words after it form (``@Zoë Smith``,
        unquoted), if any: :func:`~bot.service.view.spaced_name`."""
        return await self._session.look(caller, lambda club, now: view.spaced_name(club, typed))

    async def clubs_of(self, platform: str, user: str) -> list[str]:
        """The chats whose club has this person as a member (their private chat's clubs)."""
        clubs = [club for club, _, _ in await directory.members(self._repository, user)]
        return [chat for _, chat in await directory.chats_of(self._repository, clubs, platform)]

    async def merge(self, caller: Caller, duplicate: Who, into: Who, reason: str = "") -> Preview:
        """A preview, kept for :meth:`apply_correction` (``merge``: the duplicate's member id,
        the preview's ``game_id``)."""
        return await self._corrections.merge(caller, duplicate, into, reason)

    async def set_membership(
        self, caller: Caller, who: Who, retire: bool, ladder: str | None = None,
        reason: str = "",
    ) -> Notice:
        return await self._session.execute(caller, lambda club, now: members.set_membership(
            club, now, caller, who, retire, ladder, reason))

    async def moderator_role(self, platform: str, chat_id: str) -> str | None:
        """The platform role whose holders moderate the club (``/set moderator_role``)."""
        state = await self._session.current(await self._session.club_id(platform, chat_id))
        main = state.ladder(DEFAULT_LADDER)
        return None if main is None else main.settings.moderator_role

    async def adopt_language(self, platform: str, chat_id: str, language: str) -> str | None:
        """The club's language, the administrator's ``language`` when the club has none yet
        (:func:`bot.service.ladders.adopt_language`)."""
        bot = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.execute(bot, lambda club, now: ladders.adopt_language(
            club, now, language))

    async def choose_language(self, caller: Caller, language: str) -> Notice:
        return await self._session.execute(caller, lambda club, now: members.choose_language(
            club, now, caller, language))

    async def own_language(self, platform: str, chat_id: str, user: str) -> str | None:
        """The language the member chose to read in (``/set mylanguage``): in the chat's club,
        or, in a private chat, in the first of their clubs where they chose one; None when they
        chose none. Nothing is created to answer."""
        club_id = await self._session.known_club(platform, chat_id)
        if club_id is not None:
            member = (await self._session.current(club_id)).member_of_user(user)
            return None if member is None else member.language
        chosen = {club: language for club, _, language
                  in await directory.members(self._repository, user) if language is not None}
        chats = await directory.chats_of(self._repository, chosen, platform)
        return chosen[chats[0][0]] if chats else None

    async def language(self, platform: str, chat_id: str) -> str | None:
        """The language spoken in the chat: its own, when it joined a club of several chats
        and set one there, else the one the club chose (``/set language``); None when neither
        chose one or the chat is no club (a private chat): nothing is created to answer."""
        club_id = await self._session.known_club(platform, chat_id)
        if club_id is None:
            return None
        state = await self._session.current(club_id)
        own = state.own_settings(platform, chat_id).language
        main = state.ladder(DEFAULT_LADDER)
        return own or (None if main is None else main.settings.language)

    async def name_moderator(self, caller: Caller, who: Who, named: bool) -> Notice:
        return await self._session.execute(
            caller, lambda club, now: members.name_moderator(club, now, caller, who, named))

    async def claim(self, caller: Caller, verb: str, target: Who | int) -> Notice:
        return await self._session.execute(caller, members.claim(caller, verb, target))

    # -- games and challenges --------------------------------------------------------------------

    async def report(
        self, caller: Caller, opponent: Who, result: str, *, player: Who | None = None,
        handicap: str | None = None, colour: str | None = None, event: str | None = None,
        ladder: str | None = None, repeat: bool = False, mates: Sequence[Who] = (),
        opponents: Sequence[Who] = (),
    ) -> GameResult:
        """A game's result: ``mates`` and ``opponents`` make it a team game (issue 37)."""
        return await self._session.execute(caller, lambda club, now: games.report(
            club, now, caller, opponent, result, player=player, handicap=handicap,
            colour=colour, event=event, ladder=ladder, repeat=repeat, mates=mates,
            opponents=opponents))

    async def confirm(self, caller: Caller, game: int | None = None) -> GameResult:
        return await self._session.execute(
            caller, lambda club, now: games.confirm(club, now, caller, game))

    async def dispute(
        self, caller: Caller, game: int | None = None, reason: str = ""
    ) -> GameResult:
        return await self._session.execute(
            caller, lambda club, now: games.dispute(club, now, caller, game, reason))

    async def withdraw(self, caller: Caller, game: int | None = None, kind: str | None = None
                       ) -> GameResult | Notice:
        """Take back one's own waiting report or open challenge (``kind``: "game",
        "challenge", or None for the rule of :func:`games.withdraw`)."""
        return await self._session.execute(
            caller, lambda club, now: games.withdraw(club, now, caller, game, kind))

    async def number_of(self, caller: Caller, event_id: int) -> int | None:
        """The number of the game or challenge that event ``event_id`` reported or issued (what
        buttons posted before games were numbered name it by); None when it is neither."""
        return await self._session.look(
            caller, lambda club, now: club.state.number_of.get(event_id))

    async def pending(self, caller: Caller) -> Pending:
        return await self._session.look(caller, lambda club, now: games.pending(club, now, caller))

    async def challenge(self, caller: Caller, opponent: Who, ladder: str | None = None) -> Notice:
        return await self._session.execute(caller, lambda club, now: challenges.challenge(
            club, now, caller, opponent, ladder))

    async def answer_challenge(
        self, caller: Caller, accept: bool, challenge: int | None = None
    ) -> Notice:
        return await self._session.execute(caller, lambda club, now: challenges.answer(
            club, now, caller, accept, challenge))

    async def stake(
        self, caller: Caller, opponent: Who, *, opponents: Sequence[Who] = (),
        mates: Sequence[Who] = (), ladder: str | None = None, handicap: str | None = None,
        colour: str | None = None,
    ) -> Stake:
        """The points at stake in a game not played yet (issue 38); nothing is written."""
        return await self._session.look(caller, lambda club, now: stakes.stake(
            club, now, caller, opponent, opponents=opponents, mates=mates, ladder=ladder,
            handicap=handicap, colour=colour))

    # -- moderators' corrections -----------------------------------------------------------------

    async def correct(
        self, caller: Caller, game: int, correction: Correction, *, apply: bool = False,
        reason: str = "",
    ) -> Preview:
        return await self._corrections.correct(caller, game, correction, apply=apply,
                                               reason=reason)

    async def preview_correction(
        self, caller: Caller, game: int, correction: Correction
    ) -> Preview:
        return await self._corrections.preview(caller, game, correction)

    async def apply_correction(
        self, caller: Caller, game: int | None = None, undo: int | None = None,
        merge: int | None = None, system: int | None = None, link: int | None = None,
    ) -> Result | None:
        return await self._corrections.apply(caller, game, undo, merge, system, link)

    async def cancel_correction(
        self, caller: Caller, game: int | None = None, undo: int | None = None,
        merge: int | None = None, system: int | None = None, link: int | None = None,
    ) -> Notice | None:
        return await self._corrections.cancel(caller, game, undo, merge, system, link)

    async def void(
        self, caller: Caller, game: int, reason: str = "", restore: bool = False
    ) -> GameResult:
        return await self._session.execute(caller, lambda club, now: moderation.void(
            club, now, caller, game, reason, restore))

    async def undo(self, caller: Caller) -> Preview:
        return await self._corrections.undo(caller)

    async def audit(self, caller: Caller, limit: int = 20) -> Audit:
        return await self._session.look(
            caller, lambda club, now: moderation.audit(club, caller, limit))

    # -- ladders -------------------------------------------------------------------------------

    async def leaderboard(self, caller: Caller, ladder: str | None = None) -> Leaderboard:
        return await self._session.look(caller, lambda club, now: ladders.leaderboard(club, ladder))

    async def leaderboard_at(
        self, caller: Caller, when: datetime | timedelta, ladder: str | None = None,
        deadline: heavy.Deadline | None = None,
    ) -> Leaderboard:
        """Within ``heavy.CARD_SECONDS``, or ``deadline``: the whole /card's."""
        deadline = deadline or heavy.Deadline(heavy.CARD_SECONDS, "card_too_slow")
        return await self._session.work(
            caller, lambda club, now: ladders.leaderboard_at(club, now, when, ladder), deadline)

    async def create_ladder(
        self, caller: Caller, name: str, system: str = DEFAULT_SYSTEM,
        params: dict[str, str] | None = None,
    ) -> Notice:
        return await self._session.execute(caller, lambda club, now: ladders.create_ladder(
            club, now, caller, name, system, params))

    async def set_system(
        self, caller: Caller, system: str, params: dict[str, str] | None = None,
        ladder: str | None = None,
    ) -> Preview:
        """A preview, kept for :meth:`apply_correction` (``system``: the preview's
        ``game_id``); made at once when it moves no rating."""
        return await self._corrections.set_system(caller, system, params, ladder)

    async def set_setting(
        self, caller: Caller, setting: str, value: str, ladder: str | None = None
    ) -> Notice:
        taken: frozenset[str] = frozenset()
        if setting in ("public", "public_slug"):  # unique across every club (issue 35)
            taken = await self._slugs_elsewhere(caller, ladder or DEFAULT_LADDER)
        return await self._session.execute(caller, lambda club, now: ladders.set_setting(
            club, now, caller, setting, value, ladder, taken))

    async def _slugs_elsewhere(self, caller: Caller, ladder: str) -> frozenset[str]:
        """The web addresses held by every ladder but ``ladder`` of the caller's club."""
        own = await self._session.club_id(caller.platform, caller.chat_id)
        return frozenset(slug for club_id, slug, name
                         in await self._repository.directory(directory.SLUG)
                         if not (club_id == own and name == ladder.casefold()))

    # -- one club on several chats (issue 35) ---------------------------------------------------

    async def link_code(self, caller: Caller, member: bool = False) -> Notice:
        return await self._chats.link_code(caller, member)

    async def link(self, caller: Caller, code: str, member: bool = False,
                   merge: bool = False) -> Notice | Preview:
        return await self._chats.link(caller, code, member, merge)

    async def unlink(self, caller: Caller) -> Preview:
        return await self._chats.unlink(caller)

    async def elsewhere(self, caller: Caller, number: int) -> list[tuple[str, str]]:
        return await self._chats.elsewhere(caller, number)

    # -- club nights (issue 36) ----------------------------------------------------------------

    async def open_night(self, caller: Caller, mode: str | None = None,
                         rounds: int | None = None, ladder: str | None = None) -> Notice:
        return await self._session.execute(caller, lambda club, now: nights.open_night(
            club, now, caller, mode, rounds, ladder))

    async def close_night(self, caller: Caller, ladder: str | None = None) -> NightStandings:
        return await self._session.execute(caller, lambda club, now: nights.close_night(
            club, now, caller, nights.ladder_of(club, ladder)))

    async def enter_night(self, caller: Caller, status: str, who: Who | None = None,
                          ladder: str | None = None, night: int | None = None) -> Notice:
        """``/in``, ``/out`` or ``/pause`` (``status``), the caller's own or a moderator's; the
        opening post's button names its ``night``."""
        return await self._session.execute(caller, lambda club, now: nights.enter(
            club, now, caller, status, who,
            nights.ladder_of(club, ladder) if night is None else nights.ladder_of_night(
                club, night)))

    async def pair_round(self, caller: Caller, ladder: str | None = None) -> NightRoundShown:
        return await self._session.execute(caller, lambda club, now: nights.pair(
            club, now, caller, nights.ladder_of(club, ladder)))

    async def publish_round(self, caller: Caller, ladder: str | None = None
                            ) -> NightRoundShown:
        return await self._session.execute(caller, lambda club, now: nights.publish(
            club, now, caller, nights.ladder_of(club, ladder)))

    async def swap_players(self, caller: Caller, first: Who, second: Who,
                           ladder: str | None = None) -> NightRoundShown:
        return await self._session.execute(caller, lambda club, now: nights.swap(
            club, now, caller, first, second, nights.ladder_of(club, ladder)))

    async def forbid_pair(self, caller: Caller, first: Who, second: Who,
                          ladder: str | None = None) -> NightRoundShown | Notice:
        return await self._session.execute(caller, lambda club, now: nights.forbid(
            club, now, caller, first, second, nights.ladder_of(club, ladder)))

    async def give_bye(self, caller: Caller, who: Who, ladder: str | None = None
                       ) -> NightRoundShown:
        return await self._session.execute(caller, lambda club, now: nights.give_bye(
            club, now, caller, who, nights.ladder_of(club, ladder)))

    async def board_result(self, caller: Caller, board: int, result: str,
                           ladder: str | None = None) -> Notice:
        return await self._session.execute(caller, lambda club, now: nights.result(
            club, now, caller, board, result, nights.ladder_of(club, ladder)))

    async def board_button(self, caller: Caller, night: int, number: int, board: int,
                           result: str) -> Notice | GameResult:
        """A board's button under a published round (:func:`nights.press`): a moderator's
        /result, or a player's report from their side."""
        return await self._session.execute(caller, lambda club, now: nights.press(
            club, now, caller, night, number, board, result))

    async def night_export(self, platform: str, chat_id: str, ladder: str | None,
                           number: int | None) -> tuple[pairing.Night, str, date]:
        """A ladder's night (its ``number``th, else the latest) as :mod:`bot.pairing` reads it,
        with its title and day, for ``clubrating night export``."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.look(caller, lambda club, now: nights.exported(
            club, ladder, number))

    async def night_standings(self, caller: Caller, ladder: str | None = None
                              ) -> NightStandings:
        return await self._session.look(caller, lambda club, now: nights.standings(
            club, caller, nights.ladder_of(club, ladder)))

    # -- rating bands and their Discord roles (issue 38) ------------------------------------

    async def add_band(self, caller: Caller, name: str, minimum: str, role: str | None = None,
                       ladder: str | None = None, *, check_only: bool = False) -> Notice:
        """``/band add``; ``check_only``: refuse what the service refuses, writing nothing
        (before a front-end asks its platform about the role)."""
        if check_only:
            return await self._session.look(caller, lambda club, now: bands.check_band(
                club, now, caller, name, minimum, role, ladder))
        return await self._session.execute(caller, lambda club, now: bands.add_band(
            club, now, caller, name, minimum, role, ladder))

    async def remove_band(self, caller: Caller, name: str, ladder: str | None = None) -> Notice:
        return await self._session.execute(caller, lambda club, now: bands.remove_band(
            club, now, caller, name, ladder))

    async def list_bands(self, caller: Caller, ladder: str | None = None) -> Notice:
        return await self._session.look(caller, lambda club, now: bands.list_bands(
            club, caller, ladder))

    async def band_roles(self, caller: Caller, ladder: str | None = None) -> bands.RoleBands:
        """What ``/band preview`` and ``/band sync`` change on the ladder (moderators)."""
        return await self._session.look(caller, lambda club, now: bands.roles_of(
            club, caller, ladder))

    async def all_band_roles(self, platform: str, chat_id: str) -> list[bands.RoleBands]:
        """Every ladder of the chat's club whose bands carry roles (the front-end's role
        sync after each change); read only, and none for a chat without a club (none is
        made)."""
        club_id = await self._session.known_club(platform, chat_id)
        if club_id is None:
            return []
        return await self._session.read(club_id, lambda club: bands.role_bands(club, platform))

    async def pause_band_roles(self, platform: str, chat_id: str, ladder: str, role: str
                               ) -> Notice:
        """The platform refused a role change: the ladder's role sync waits for /band sync."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.execute(caller, lambda club, now: bands.pause_roles(
            club, now, caller, ladder, role))

    async def resume_band_roles(self, caller: Caller, ladder: str | None = None) -> Notice:
        return await self._session.execute(caller, lambda club, now: bands.resume_roles(
            club, now, caller, ladder))

    # -- the public web leaderboard (reads only) ----------------------------------------------

    async def public_ladders(self) -> list[public.PublicLadder]:
        """Every club's public ladders."""
        clubs = dict.fromkeys(club for club, _, _
                              in await self._repository.directory(directory.PUBLIC))
        return [ladder for club_id in clubs
                for ladder in await self._session.read(club_id, public.listed)]

    async def public_board(self, slug: str, now: datetime) -> public.PublicBoard | None:
        """The board of the public ladder at ``slug`` (None: none is public there)."""
        return await self._read_public(slug, lambda club, lad: public.board(club, lad, now))

    async def public_profile(self, slug: str, player: str) -> public.PublicProfile | None:
        return await self._read_public(slug, lambda club, lad: public.profile(
            club, lad, player))

    async def public_history(self, slug: str) -> history_io.Export | None:
        """The effective history of the public ladder at ``slug`` (EVENTS.csv)."""
        return await self._read_public(slug, lambda club, lad: history_io.export(
            club, lad.name))

    async def public_version(self, slug: str) -> tuple[int, int] | None:
        """The club of the public ladder at ``slug`` and the id of its last event (what its
        pages are made of: a club's events may be numbered from 1, so both), None when no
        ladder is public there: read from the log now."""
        return await self._read_public(slug, lambda club, lad: (club.id, club.state.last_id))

    async def _read_public(self, slug: str, look: Callable[[view.Club, Ladder], T]) -> T | None:
        """``look`` at the public ladder at ``slug`` and its club, as the log says now (None:
        no ladder is public there)."""
        found = await self._public_ladder(slug)
        if found is None:
            return None
        club_id, name = found
        return await self._session.read(club_id, lambda club: look(
            club, club.state.ladders[name]))

    async def _public_ladder(self, slug: str) -> tuple[int, str] | None:
        """The club and ladder public at ``slug``, as the logs say now: the directory names
        the club, whose log is read again to be sure."""
        for club_id, _, name in await self._repository.directory(directory.PUBLIC, slug):
            if await self._session.read(club_id, functools.partial(
                    _public_there, ladder=name, slug=slug)):
                return club_id, name
        return None

    async def settings(self, caller: Caller, ladder: str | None = None) -> Notice:
        return await self._session.look(
            caller, lambda club, now: ladders.settings(club, ladder, caller))

    async def set_event(
        self, caller: Caller, name: str, open_: bool, ladder: str | None = None
    ) -> Notice:
        return await self._session.execute(caller, lambda club, now: ladders.set_event(
            club, now, caller, name, open_, ladder))

    async def evaluate(self, caller: Caller, ladder: str | None = None) -> Evaluation:
        name, work = await self._session.look(
            caller, lambda club, now: ladders.evaluation(club, caller, ladder))
        return await heavy.run(work, heavy.Deadline(heavy.EVALUATE_SECONDS,
                                                    "evaluation_too_slow", ladder=name))

    # -- scheduled posts ---------------------------------------------------------------------------

    async def set_schedule(
        self, caller: Caller, ladder: str | None = None, *, cron: str | None = None,
        timezone: str | None = None, channel: str | None = None, size: str | None = None,
    ) -> ScheduleInfo:
        return await self._session.execute(caller, lambda club, now: posting.set_schedule(
            club, now, caller, ladder, cron=cron, timezone=timezone, channel=channel,
            size=size))

    async def show_schedule(self, caller: Caller, ladder: str | None = None) -> ScheduleInfo:
        return await self._session.look(
            caller, lambda club, now: posting.show_schedule(club, now, caller, ladder))

    async def pause_schedule(
        self, caller: Caller, paused: bool, ladder: str | None = None, reason: str = ""
    ) -> ScheduleInfo:
        return await self._session.execute(caller, lambda club, now: posting.pause_schedule(
            club, now, caller, paused, ladder, reason))

    async def schedules(self) -> list[sched.Plan]:
        """Every ladder's posting plan in every club (the scheduler's jobs), as the directory
        says (no club's log is read)."""
        return await directory.plans(self._repository, self._plans)

    async def due_clubs(self) -> dict[int, str]:
        """The clubs where something fell due by itself (the directory's earliest time has
        come), with that time as the directory keeps it (``due`` applies it)."""
        now = directory.moment(self.clock.now())
        return {club: when for club, when, _
                in await self._repository.directory(directory.DUE, up_to=now)}

    def announced(self) -> dict[int, int]:
        """The clubs whose announcements ``due`` hands out, with the number of the latest
        (a chat's ``due`` collects what is newer than its last call)."""
        return self._session.announced()

    async def season_calendars(self) -> dict[tuple[int, str], seasons.SeasonCalendar]:
        """The calendars of the ladders whose seasons close by themselves, by (club, ladder),
        as the directory keeps them (no club's log is read)."""
        return {(club, ladder): seasons.SeasonCalendar(*directory.season_calendar(value))
                for club, ladder, value in await self._repository.directory(directory.SEASON)}

    async def digest(
        self, caller: Caller, ladder: str | None = None, since: datetime | None = None,
        *, scheduled: bool = False,
    ) -> Digest:
        return await self._session.look(caller, lambda club, now: posting.digest(
            club, now, ladder, since, scheduled,
            club.state.own_settings(caller.platform, caller.chat_id).timezone))

    async def due(self, platform: str, chat_id: str) -> list[Notice]:
        """Apply what time has made due now (for a scheduler); answers with the announcements
        of results that auto-confirmed since the last call (on ladders that announce)."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR)
        await self._session.look(caller, lambda club, now: None)
        return self._session.unannounced(await self._session.club_id(platform, chat_id),
                                         platform, chat_id)

    # -- rated puzzles -------------------------------------------------------------------------

    async def add_problem(self, caller: Caller, problem: puzzles.NewProblem,
                          ladder: str | None = None) -> Notice:
        return await self._session.execute(caller, lambda club, now: puzzles.add(
            club, now, caller, problem, ladder))

    async def serve_puzzle(self, caller: Caller, ladder: str | None = None,
                           ref: int | None = None) -> PuzzleShown:
        return await self._session.execute(caller, lambda club, now: puzzles.serve(
            club, now, caller, ladder, ref))

    async def answer_puzzle(self, caller: Caller, typed: str,
                            ladder: str | None = None) -> AttemptResult:
        return await self._session.execute(caller, lambda club, now: puzzles.answer(
            club, now, caller, typed, ladder))

    async def problems(self, caller: Caller, ladder: str | None = None) -> ProblemBoard:
        return await self._session.look(caller, lambda club, now: puzzles.board(club, ladder))

    async def puzzle_ladder(self, caller: Caller, ladder: str | None = None) -> str | None:
        """The name of the club's puzzle ladder that ``ladder`` (or no name) means, None when
        there is none."""
        def look(club: view.Club, now: datetime) -> str | None:
            try:
                return puzzles.puzzle_ladder(club, ladder).name
            except Refusal:
                return None
        return await self._session.look(caller, look)

    async def puzzle_invite(self, caller: Caller, ladder: str | None = None) -> PuzzleInvite:
        """A member's /puzzle in a group: where to solve it (see :func:`puzzles.invite`)."""
        return await self._session.look(caller, lambda club, now: puzzles.invite(
            club, caller, ladder))

    async def puzzle_chats(self, platform: str, user: str) -> list[tuple[str, bool]]:
        """The chats of ``user``'s clubs that have a puzzle ladder, each with whether the user
        has an attempt open there: which club a private chat's /puzzle or /answer is for."""
        with_puzzles = {club for club, _, _
                        in await self._repository.directory(directory.PUZZLES)}
        attempting = {club: attempt for club, attempt, _
                      in await directory.members(self._repository, user)
                      if club in with_puzzles}
        return [(chat, attempting[club]) for club, chat
                in await directory.chats_of(self._repository, attempting, platform)]

    async def puzzle_post(self, caller: Caller, ladder: str) -> PuzzlePost | None:
        """A puzzle ladder's scheduled post (see :func:`bot.service.puzzles.post`)."""
        return await self._session.execute(caller, lambda club, now: puzzles.post(
            club, now, ladder))

    async def import_problems(self, platform: str, chat_id: str,
                              problems: Sequence[puzzles.NewProblem], ladder: str | None = None,
                              actor: str = "import") -> Notice:
        caller = Caller(platform, chat_id, actor, actor, moderator=True)
        return await self._session.execute(caller, lambda club, now: puzzles.add_many(
            club, now, problems, ladder, actor))

    async def export_problems(self, platform: str, chat_id: str, ladder: str | None = None
                              ) -> list[puzzles.NewProblem]:
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.look(caller, lambda club, now: puzzles.exported(
            club, ladder))

    # -- seasons (issue 38) --------------------------------------------------------------------

    async def close_season(self, caller: Caller, name: str | None = None,
                           ladder: str | None = None, confirm: bool = False,
                           button: int | None = None) -> SeasonTable:
        """``/season close [NAME]``: the table to confirm; with ``confirm`` (or a confirm
        button's ref, ``button``) the season closes, and its table is posted where the
        ladder's posts go."""
        expected = None
        if button is not None:
            ladder, expected = await self._session.look(
                caller, lambda club, now: seasons.ladder_of_ref(club, button))
        if not confirm and button is None:
            return await self._session.look(caller, lambda club, now: seasons.close_preview(
                club, now, caller, name, ladder))
        shown = await self._session.execute(caller, lambda club, now: seasons.close(
            club, now, caller, name, ladder, expected))
        if shown.state == "closed":
            club_id = await self._session.club_id(caller.platform, caller.chat_id)
            self._session.announce(club_id, [seasons.posted(shown)])
        return shown

    async def season_due(self, caller: Caller, ladder: str) -> seasons.SeasonDue:
        """What ``season_schedule`` has made due on ``ladder`` now (the scheduler's)."""
        return await self._session.look(caller, lambda club, now: seasons.due(
            club, ladder, now))

    async def close_season_on_schedule(self, caller: Caller, ladder: str,
                                       boundary: datetime) -> Notice:
        """The scheduler closes ``ladder``'s season at ``boundary`` (``season_schedule``): the
        final table to post, or the notice that a season without games runs on."""
        return await self._session.execute(caller, lambda club, now: seasons.close_on_schedule(
            club, now, caller, ladder, boundary))

    async def season_list(self, caller: Caller, ladder: str | None = None) -> SeasonList:
        return await self._session.look(caller, lambda club, now: seasons.listing(
            club, ladder, now))

    async def season_table(self, caller: Caller, season: str,
                           ladder: str | None = None) -> SeasonTable:
        """``/top season=N``: the archived table of the ladder's season N."""
        return await self._session.look(caller, lambda club, now: seasons.archived(
            club, now, ladder, season))

    async def season_member(self, caller: Caller, season: str, who: Who | None = None,
                            ladder: str | None = None) -> Notice:
        """``/rating [@member] season=N``: the member's line of season N."""
        return await self._session.look(caller, lambda club, now: seasons.member_line(
            club, ladder, who, caller, season))

    # -- import and export ---------------------------------------------------------------------

    async def export_history(
        self, platform: str, chat_id: str, ladder: str | None = None
    ) -> history_io.Export:
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.look(caller, lambda club, now: history_io.export(club, ladder))

    async def export_players(
        self, platform: str, chat_id: str, ladder: str | None = None
    ) -> dict[str, float]:
        """A puzzle ladder's problems' starting ratings, as the export names them."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        return await self._session.look(
            caller, lambda club, now: history_io.starting_ratings(club, ladder))

    async def import_history(
        self, platform: str, chat_id: str, history: CsvHistory, labels: list[str],
        ladder: str | None = None, actor: str = "import", *, allow_duplicates: bool = False,
    ) -> Notice:
        """Checked in a worker thread, within ``heavy.IMPORT_SECONDS``."""
        caller = Caller(platform, chat_id, actor, actor, moderator=True)
        deadline = heavy.Deadline(heavy.IMPORT_SECONDS, "import_too_slow")
        return await self._session.execute(caller, lambda club, now: history_io.import_history(
            club, now, history, labels, ladder, actor, deadline, allow_duplicates),
            off_loop=deadline)

    # -- the live leaderboard (issue 38) -----------------------------------------------------------

    def on_commit(self, listener: Callable[[int, Sequence[str]], None]) -> None:
        """Call ``listener`` with the club's id and the kinds of the events after every write
        of this process (a front-end's live boards follow the ratings so)."""
        self._session.committed.append(listener)

    async def check_board(self, caller: Caller, ladder: str | None = None) -> str:
        """The ladder ``/board here`` would show, or its refusal (not a moderator, no such
        ladder): asked before the front-end checks that the bot may post in the chat."""
        return await self._session.look(
            caller, lambda club, now: boards.check_start(club, caller, ladder))

    async def start_board(self, caller: Caller, ladder: str | None = None,
                          channel: str | None = None) -> Notice:
        return await self._session.execute(
            caller, lambda club, now: boards.start(club, now, caller, ladder, channel))

    async def stop_board(self, caller: Caller, ladder: str | None = None) -> Notice:
        return await self._session.execute(
            caller, lambda club, now: boards.stop(club, now, caller, ladder))

    async def live_boards(self, platform: str) -> list[tuple[int, LiveBoard]]:
        """Every club's live boards in chats of ``platform``, with their clubs' ids."""
        clubs = [club for club, _, _
                 in await self._repository.directory(directory.BOARD, platform)]
        return [(club_id, board) for club_id in clubs
                for board in boards.boards(await self._session.current(club_id), platform)]

    async def live_boards_of(self, club_id: int, platform: str) -> list[LiveBoard]:
        """Club ``club_id``'s live boards in chats of ``platform``, as its log says now."""
        return boards.boards(await self._session.current(club_id), platform)

    async def live_board_shown(self, club_id: int, board: LiveBoard
                               ) -> tuple[Leaderboard | None, str | None]:
        """What ``board`` shows now (None: it is no longer kept), and the language of its
        chat (None: English)."""

        def look(club: view.Club) -> tuple[Leaderboard | None, str | None]:
            state = club.state
            main = state.ladder(DEFAULT_LADDER)
            language = (state.own_settings(board.platform, board.chat).language
                        or (None if main is None else main.settings.language))
            return boards.shown(club, board), language

        return await self._session.read(club_id, look)

    async def live_board_moved(self, club_id: int, board: LiveBoard, message: str) -> bool:
        """The front-end posted ``board`` as ``message``; False if the board is no longer
        kept."""
        caller = Caller(board.platform, board.chat, SYSTEM_ACTOR, SYSTEM_ACTOR)
        return await self._session.execute(caller, lambda club, now: boards.moved(
            club, now, SYSTEM_ACTOR, board.ladder, board.id, message), club_id=club_id)

    async def live_board_failed(self, club_id: int, board: LiveBoard) -> bool:
        """``board``'s message failed too often: True when this stopped it."""
        caller = Caller(board.platform, board.chat, SYSTEM_ACTOR, SYSTEM_ACTOR)
        return await self._session.execute(caller, lambda club, now: boards.failed(
            club, now, SYSTEM_ACTOR, board.ladder, board.id), club_id=club_id)


def _public_there(club: view.Club, ladder: str, slug: str) -> bool:
    """Whether the club's ``ladder`` is still public at ``slug``: a club whose chat joined
    another (issue 35) has no page of its own any more."""
    lad = club.state.ladders.get(ladder)
    return (club.state.moved_to is None and lad is not None and lad.settings.public
            and public.slug_of(lad.name, lad.settings) == slug)


__all__ = ["MAX_OPEN_CHALLENGES", "MAX_REASON", "SYSTEM_ACTOR", "Caller", "ClubService",
           "Correction"]
