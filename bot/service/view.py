"""A read-only view of one club: finding members, ladders and games from what people name, and
the club's standings, profiles and game lists as answers.

Everything here reads the club's folded state and its cached ratings (which it may bring up to
date); nothing here writes. The use-case modules decide with these lookups, and their refusals
say what was not found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from typing import TypeVar

from ratings_core.model import PlayerState
from ratings_core.replay import Checkpoint
from ratings_core.system import RatingSystem

from . import news, schedules
from .errors import Refusal
from .identity import Caller, UserRef, Who
from .parsing import MAX_NAME
from .ratings import LadderRatings, member_of_key, player_key, waits_for_event
from .results import (
    GameLine,
    Leaderboard,
    Notice,
    Profile,
    RatingChange,
    ScheduleInfo,
    Standing,
)
from .state import (
    DEFAULT_LADDER,
    DEFAULT_TIMEZONE,
    ClubState,
    GameRecord,
    GameStatus,
    Ladder,
    Member,
    note_played,
)

#: the longest reason a moderator may give for an action (kept in the log)
MAX_REASON = 200


@dataclass(slots=True)
class Club:
    """A club as the service holds it: its folded log and each ladder's cached ratings."""

    id: int
    state: ClubState
    ratings: dict[str, LadderRatings] = field(default_factory=dict)
    #: each ladder's latest played dates (:func:`last_played`), by ladder name, with the
    #: ladder, its generation and the number of its inputs they were built from
    played: dict[str, tuple[Ladder | None, int, int, dict[int, datetime]]] = field(
        default_factory=dict)
    #: each ladder's wins, draws and losses by member (the public board's), built the same way
    records: dict[str, tuple[Ladder | None, int, int, dict[int, list[int]]]] = field(
        default_factory=dict)
    #: the directory rows this process wrote for the club last, and the id of the club's last
    #: event then (:func:`bot.service.directory.index`: only what changed is written)
    indexed: tuple[int, dict[tuple[str, str], str]] | None = None
    #: how many of the club's events its newest snapshot in the database holds (0: none); a
    #: count, not an event id: SQLite numbers every club's events in one sequence
    snapshot_events: int = 0


# -- ratings ------------------------------------------------------------------------------------


def whole_points(rating: float) -> int:
    """A rating as the bot shows it, in whole points (``f"{rating:.0f}"``: half to even): what
    a change, a stake or a band is counted in (issue 38)."""
    return round(rating)


def ratings(club: Club, ladder: Ladder) -> Checkpoint:
    """The ladder's ratings after its last counting game (replaying only what changed)."""
    return club.ratings.setdefault(ladder.name, LadderRatings()).sync(club.state, ladder)


def newcomer_rating(club: Club, ladder: Ladder) -> float:
    """The rating the ladder's system gives a newcomer of no known age (a problem given none,
    a player of a club night not rated yet)."""
    return system_of(club, ladder).newcomer(ladder.created_at or datetime.min, None, 0.0).rating


def last_played(club: Club, ladder: Ladder) -> Mapping[int, datetime]:
    """Each member's latest date of play on the ladder, by member id: the latest ``played_at``
    of their counting games, whatever their place in the rating order. Inactivity counts from
    it (issue 31, "Inactivity, one rule"): an imported game from a year ago, rated after
    today's, never moves the date back."""
    return kept_up_to_date(club.played, club, ladder, dict,
                           lambda latest, game: note_played(club.state, latest, game))


_T = TypeVar("_T")


def kept_up_to_date(
    cache: dict[str, tuple[Ladder | None, int, int, _T]], club: Club, ladder: Ladder,
    empty: Callable[[], _T], add: Callable[[_T, GameRecord], object],
) -> _T:
    """A value made from the ladder's counting games (``add`` each to ``empty()``), kept in
    ``cache`` with the ladder, its generation and how many of its inputs it was made from: the
    games appended since are added to it; when the inputs changed otherwise (another Ladder
    object, after an /undo; another generation: a correction, a void, a merge) it is made
    again from every game."""
    built_for, generation, read, value = cache.get(ladder.name, (None, -1, 0, None))
    if (value is None or built_for is not ladder or generation != ladder.generation
            or read > len(ladder.inputs)):
        value = empty()
        games: Iterable[GameRecord] = (g for g in ladder.games.values() if g.counts)
    else:
        known = club.state.games
        games = (game for kind, ref in ladder.inputs[read:]
                 if kind == "game" and isinstance(ref, int)
                 and (game := known.get(ref)) is not None and game.counts)
    for game in games:
        add(value, game)
    cache[ladder.name] = (ladder, ladder.generation, len(ladder.inputs), value)
    return value


def system_of(club: Club, ladder: Ladder) -> RatingSystem:
    """The ladder's rating system, as its ratings were last brought up to date."""
    ratings(club, ladder)
    system = club.ratings[ladder.name].system
    assert system is not None  # sync made it
    return system


def bounded_handicap(club: Club, ladder: Ladder, points: float, typed: str | None) -> float:
    """``points``, a handicap the chat's general bound took, if the ladder's system takes one
    that large in its own unit (rs-go: at most 9 stones; issue 31), else a refusal naming the
    bound (the only system with a unit of its own counts stones)."""
    limit = system_of(club, ladder).max_handicap
    if limit is not None and abs(points) > limit:
        raise Refusal("bad_handicap_stones", ladder=ladder.name, system=ladder.settings.system,
                      text=(typed or "")[:20], limit=f"{limit:g}")
    return points


def standing(club: Club, ladder: Ladder, member: Member) -> PlayerState | None:
    return ratings(club, ladder).state(player_key(member.id))


def changes(
    club: Club, ladder: Ladder, before: Checkpoint, after: Checkpoint,
    members: Sequence[int] | None = None, was: RatingSystem | None = None,
) -> list[RatingChange]:
    """Rating changes between two states, for the given members or everyone who moved.
    ``was``: the system that rated ``before``, when another rates ``after`` (a /system
    switch): a player whose provisional mark the switch changes has moved too, though their
    rating stays (issue 31: club's edition 4 takes the mark off regulars, and a moderator
    sees whose before the switch is made)."""
    system = system_of(club, ladder)
    if members is not None:
        keys = [player_key(m) for m in members]
        olds: Mapping[str, PlayerState] | None = None
        news: Mapping[str, PlayerState] | None = None
    else:
        # Everyone's states at once: a checkpoint finds one player by a search through all.
        olds, news = before.players, after.players
        keys = sorted(olds.keys() | news.keys())
    moved = []
    for key in keys:
        if olds is None or news is None:
            old, new = before.state(key), after.state(key)
        else:
            old, new = olds.get(key), news.get(key)
        old_rating = None if old is None else old.rating
        new_rating = None if new is None else new.rating
        marked = new is not None and system.is_provisional(new)
        was_marked = was is not None and old is not None and was.is_provisional(old)
        if members is None and old_rating == new_rating and (was is None
                                                               or marked == was_marked):
            continue
        moved.append(RatingChange(
            name=club.state.member(member_of_key(key)).name,
            before=old_rating,
            after=new_rating,
            provisional=marked,
            was_provisional=was_marked,
        ))
    return moved


def announce(
    club: Club, ladder: Ladder, before: Checkpoint, after: Checkpoint,
    games: Sequence[GameRecord],
) -> list[Notice]:
    """What results earn on a ladder that announces (its ``announce`` setting)."""
    if not ladder.settings.announce:
        return []
    rated = [g for g in games if g.counts and not waits_for_event(ladder, g)]
    return news.announcements(club.state, ladder, system_of(club, ladder), before, after, rated)


# -- lookups ------------------------------------------------------------------------------------


def me(club: Club, caller: Caller) -> Member:
    member = club.state.member_of_user(caller.user)
    if member is None:
        raise Refusal("not_registered")
    return member


def member(club: Club, who: Who) -> Member:
    """The member a command names: one the platform pointed at by their user id alone; typed
    text by display name or handle alone, never by a user id. A typed ``@name`` is the member
    whose current username (handle) it is, else the one shown so; plain text the one member
    shown so or with that username. More than one: refused, naming two."""
    if isinstance(who, UserRef):
        found = club.state.member_of_user(who.user)
        if found is None:
            raise Refusal("unknown_member", name=who.shown[:MAX_NAME])
        return found
    typed = who.strip()
    name = typed.removeprefix("@")
    if not name:
        raise Refusal("name_a_member")
    if len(name) > MAX_NAME:
        raise Refusal("unknown_member", name=name[:MAX_NAME] + "…")
    shown, handled = club.state.members_called(name)
    if typed.startswith("@") and handled:
        # "@name" is how a platform username is written (Telegram marks it as a mention of its
        # holder): the member whose current username it is, never one merely called so.
        meant = handled
    else:
        meant = list({m.id: m for m in (*shown, *handled)}.values())
    if not meant:
        raise Refusal("unknown_member", name=name)
    if len(meant) > 1:
        # Two stored usernames alike (one of them out of date), or one member's name and
        # another's username: which one is meant cannot be told, so neither is guessed.
        raise Refusal("ambiguous_member", name=typed[:MAX_NAME + 1], first=meant[0].name,
                      second=meant[1].name)
    return meant[0]


def spaced_name(club: Club, typed: Sequence[str]) -> str | None:
    """The name of a member that a typed ``@word`` and the words after it form, unquoted
    (``@Zoë`` ``Smith``): such a name is named in double quotes, ``@"Zoë Smith"`` (issue 31),
    and the refusal of the words as typed says so. The longest such name, or None."""
    found = None
    for start, word in enumerate(typed):
        if not word.startswith("@"):
            continue
        name = word[1:]
        for following in typed[start + 1:]:
            name = f"{name} {following}"
            if len(name) > MAX_NAME:
                break
            shown, _ = club.state.members_called(name)
            if shown and (found is None or len(shown[0].name) > len(found)):
                found = shown[0].name
    return found


def member_or_me(club: Club, caller: Caller, who: Who | None) -> Member:
    return member(club, who) if who else me(club, caller)


def ladder(club: Club, name: str | None) -> Ladder:
    found = club.state.ladder(name or DEFAULT_LADDER)
    if found is None:
        raise Refusal("unknown_ladder", ladder=(name or "")[:MAX_NAME],
                      ladders=", ".join(sorted(club.state.ladders)))
    return found


def game(club: Club, number: int) -> GameRecord:
    """The game people call #``number``."""
    found = club.state.game_numbered(number)
    if found is None:
        raise Refusal("unknown_game", game=number)
    return found


def is_moderator(club: Club, caller: Caller) -> bool:
    """Moderators are the platform's (``caller.moderator``: admins, Manage Server), the holders
    of the club's moderator role (``caller.role_moderator``) and the members the club named."""
    if caller.moderator or caller.role_moderator:
        return True
    mine = club.state.member_of_user(caller.user)
    return mine is not None and mine.id in club.state.moderators


def require_moderator(club: Club, caller: Caller) -> None:
    if not is_moderator(club, caller):
        raise Refusal("moderators_only")


def require_platform_moderator(caller: Caller) -> None:
    """Who moderates is the platform's own moderators' to change (naming and removing the
    club's moderators, its moderator role): a moderator they made cannot make more."""
    if not caller.moderator:
        raise Refusal("server_managers_only" if caller.platform == "discord"
                      else "platform_moderators_only")


def reason(text: str) -> str:
    text = text.strip()
    if len(text) > MAX_REASON:
        raise Refusal("too_long", limit=MAX_REASON)
    return text


# -- answers ------------------------------------------------------------------------------------


def zone_of(ladder: Ladder | None) -> str:
    """The time zone the ladder's times are shown in (its ``timezone`` setting)."""
    return (ladder.settings.timezone if ladder is not None else None) or DEFAULT_TIMEZONE


def line(club: Club, game: GameRecord) -> GameLine:
    """A game as people see it: its instant and the ladder's zone (shown as the local date)."""
    state = club.state
    return GameLine(
        id=game.number,
        ladder=game.ladder,
        played_at=game.played_at.isoformat(timespec="minutes"),
        player_a=state.member(game.player_a).name,
        player_b=state.member(game.player_b).name,
        score_a=game.score_a,
        status=game.status.value,
        handicap=game.handicap,
        event=game.event,
        voided=game.voided,
        zone=zone_of(state.ladders.get(game.ladder)),
        colour=game.colour,
        seconds=game.seconds,
        partners_a=tuple(state.member(m).name for m in game.partners_a),
        partners_b=tuple(state.member(m).name for m in game.partners_b),
    )


def side_ids(club: Club, side: Iterable[int]) -> set[int]:
    """The members a side's records count for now (after merges and claims)."""
    return {club.state.member(m).id for m in side}


def player_ids(club: Club, game: GameRecord) -> set[int]:
    """Everyone who played ``game``, as the members their records count for now."""
    return side_ids(club, game.players)


def games_count(club: Club, member: Member) -> int:
    """How many games (not withdrawn) ``member`` played or has waiting, on any ladder: a
    record with none may be folded into another (a claim, a linked account)."""
    state = club.state
    return sum(1 for g in state.games.values() if g.status is not GameStatus.WITHDRAWN
               and member.id in player_ids(club, g))


def games_of(
    club: Club, ladder: Ladder, member: Member, other: Member | None = None, *,
    partner: bool = False, companion: bool = False,
) -> list[tuple[GameRecord, float]]:
    """The member's counting games in rating order, with the member's score (their side's);
    with ``other``, only those against them, or beside them with ``partner``; with
    ``companion``, the team games of the ladder's companion among them (issue 37)."""
    state = club.state
    out = []
    teams = state.companion(ladder) if companion else None
    games = ladder.games.values() if teams is None else chain(ladder.games.values(),
                                                               teams.games.values())
    for game in games:
        if not game.counts:
            continue
        if game.team:
            own, theirs = side_ids(club, game.side_a), side_ids(club, game.side_b)
        else:
            own, theirs = {state.member(game.player_a).id}, {state.member(game.player_b).id}
        if own & theirs:  # records of one person on both sides, merged: it means nothing
            continue
        score = game.score_a
        if member.id in theirs:
            own, theirs, score = theirs, own, 1.0 - score
        elif member.id not in own:
            continue
        if other is not None and other.id not in (own if partner else theirs):
            continue
        out.append((game, score))
    out.sort(key=lambda item: item[0].seq or 0)
    return out


def profile(club: Club, ladder: Ladder, member: Member) -> Profile:
    """Rating, rank, games, W/D/L and the last five results of a member (the peak is
    :func:`bot.service.members.profile`'s)."""
    system = system_of(club, ladder)
    state = ratings(club, ladder).state(player_key(member.id))
    games = games_of(club, ladder, member)
    wins = sum(1 for _, score in games if score == 1.0)
    losses = sum(1 for _, score in games if score == 0.0)
    rank = next((row.rank for row in board(club, ladder).rows if row.name == member.name), None)
    recent = [score for _, score in games[-5:]][::-1]
    return Profile(
        name=member.name,
        ladder=ladder.name,
        rating=None if state is None else state.rating,
        provisional=state is not None and system.is_provisional(state),
        deviation=None if state is None else system.shown_deviation(state),
        rank=rank,
        games=len(games),
        wins=wins,
        draws=len(games) - wins - losses,
        losses=losses,
        # the highest established rating, as /chart marks it: members.profile works it out
        peak=None,
        recent=recent,
        retired=state is not None and state.status != "active",
    )


def board(club: Club, ladder: Ladder) -> Leaderboard:
    """The ladder's ranking now."""
    return standings(ladder.name, ratings(club, ladder), system_of(club, ladder),
                     lambda key: person_named(club.state, key),
                     ladder.settings.hide_provisional)


def person_named(state: ClubState, key: str) -> str | None:
    """The name of the member an engine key rates, None when it rates a problem (``tactics``
    rates problems like members: they are no people, and rank on a board of their own)."""
    member = state.member(member_of_key(key))
    return None if member.problem else member.name


def standings(
    ladder: str, final: Checkpoint, system: RatingSystem, name_of: Callable[[str], str | None],
    hide_provisional: bool,
) -> Leaderboard:
    """The ranking of ``final``'s active players (``name_of`` an engine key; None: no person,
    left out), best first; provisional ones left out and counted when the ladder hides them."""
    rows: list[tuple[float, str, PlayerState]] = []
    hidden = 0
    for key, state in final.players.items():
        name = name_of(key)
        if state.status != "active" or name is None:
            continue
        provisional = system.is_provisional(state)
        if provisional and hide_provisional:
            hidden += 1
            continue
        rows.append((state.rating, name, state))
    rows.sort(key=lambda row: (-row[0], row[1].casefold()))
    ranked = [
        Standing(rank, name, state.rating, system.is_provisional(state),
                 system.shown_deviation(state), state.games)
        for rank, (_, name, state) in enumerate(rows, start=1)
    ]
    return Leaderboard(ladder, ranked, hidden)


def challenge_notice(club: Club, challenge_id: int, key: str = "challenge") -> Notice:
    challenge = club.state.challenges[challenge_id]
    return Notice(key, {
        "challenge": challenge.number,
        "challenger": club.state.member(challenge.challenger).name,
        "opponent": club.state.member(challenge.opponent).name,
        "ladder": challenge.ladder,
        # the instant (naive UTC) and the ladder's zone: the presenter shows it there
        "expires_at": challenge.expires_at.isoformat(timespec="minutes"),
        "zone": zone_of(club.state.ladders.get(challenge.ladder)),
    })


def schedule_info(club: Club, ladder: Ladder, now: datetime, key: str,
                  caller: Caller) -> ScheduleInfo:
    """When and where the ladder's leaderboard is posted next, in the caller's chat: a chat
    that joined a club of several chats gets its posts itself, in its own zone if it set one
    (:func:`schedules.plans_of`)."""
    state = club.state
    schedule = state.schedule(ladder)
    joined = state.joined(caller.platform, caller.chat_id)
    zone = schedules.timezone_of(ladder, schedule.timezone,
                                 state.own_settings(caller.platform, caller.chat_id).timezone)
    upcoming = None if schedule.paused else schedules.next_fire(
        schedules.cron_trigger(schedule.cron, zone), now)
    return ScheduleInfo(
        key, ladder.name, schedule.cron, zone, None if joined else schedule.channel,
        schedule.paused,
        schedule.size, None if upcoming is None else upcoming.isoformat(timespec="minutes"),
    )
