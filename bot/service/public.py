"""What the public web leaderboard shows of a ladder its moderators made public (issue 35).

Only reads: nothing here appends to a log, nor makes due what time has made due (that is the
chat's). A ladder is public when its ``public`` setting is on; its address is its ``public_slug``,
else its name (:func:`slug_of`). Slugs are unique across every club the bot keeps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from . import timeline, view
from .ladder_settings import LadderSettings
from .ratings import player_key
from .state import GameRecord, Ladder
from .team_rule import SIDE_JOINER
from .view import Club

#: the board's rating change covers this many days
CHANGE_DAYS = 7
#: a profile's latest games shown
RECENT_GAMES = 10


def slug_of(name: str, settings: LadderSettings) -> str:
    """A ladder's address: the slug its moderators chose, else its name."""
    return settings.public_slug or name


@dataclass(frozen=True, slots=True)
class PublicRow:
    rank: int
    player: str
    rating: float
    provisional: bool
    deviation: float | None
    games: int
    wins: int
    draws: int
    losses: int
    #: the rating's change over the last CHANGE_DAYS days (None: not rated then)
    change_7d: float | None


@dataclass(frozen=True, slots=True)
class PublicBoard:
    ladder: str
    slug: str
    system: str
    players: list[PublicRow]
    language: str | None
    zone: str


@dataclass(frozen=True, slots=True)
class PublicGame:
    """One rated game of a player: when, against whom, their score, their rating after it."""

    played_at: str
    opponent: str
    score: float
    rating: float | None


@dataclass(frozen=True, slots=True)
class PublicProfile:
    ladder: str
    slug: str
    player: str
    rating: float | None
    provisional: bool
    deviation: float | None
    games: int
    wins: int
    draws: int
    losses: int
    #: every rated game, oldest first
    history: list[PublicGame]
    language: str | None
    zone: str


@dataclass(frozen=True, slots=True)
class PublicLadder:
    ladder: str
    slug: str
    players: int


def public_ladders(club: Club) -> list[tuple[str, Ladder]]:
    """The club's public ladders with their slugs."""
    return [(slug_of(lad.name, lad.settings), lad) for lad in club.state.ladders.values()
            if lad.settings.public]


def listed(club: Club) -> list[PublicLadder]:
    return [PublicLadder(lad.name, slug, len(board(club, lad, datetime.min, False).players))
            for slug, lad in public_ladders(club)]


def _language(club: Club) -> str | None:
    main = club.state.ladder("main")
    return None if main is None else main.settings.language


def _records(club: Club, ladder: Ladder) -> dict[int, list[int]]:
    """Each member's wins, draws and losses on the ladder, kept up to date between pages
    (:func:`view.kept_up_to_date`)."""

    def count(records: dict[int, list[int]], game: GameRecord) -> None:
        side_a, side_b = view.side_ids(club, game.side_a), view.side_ids(club, game.side_b)
        if side_a & side_b:  # one person's records on both sides, merged: no result
            return
        for side, score in ((side_a, game.score_a), (side_b, 1.0 - game.score_a)):
            for member in side:  # every member of a team game (issue 37)
                record = records.setdefault(member, [0, 0, 0])
                record[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1

    return view.kept_up_to_date(club.records, club, ladder, dict, count)


def board(club: Club, ladder: Ladder, now: datetime, changes: bool = True) -> PublicBoard:
    """The public leaderboard: the chat's /top with each player's record and, with
    ``changes``, their rating's change over the last seven days."""
    shown = view.board(club, ladder)
    before: dict[str, float] = {}
    if changes and shown.rows:
        frozen = timeline.freeze(club.ratings[ladder.name], club.state)
        week_ago = timeline.frozen_state_at(frozen, now - timedelta(days=CHANGE_DAYS))
        before = {key: player.rating for key, player in week_ago.players.items()}
    records = _records(club, ladder)
    ids = {club.state.member(m).name: club.state.member(m).id for m in club.state.members
           if not club.state.members[m].problem}
    rows = []
    for row in shown.rows:
        member = ids.get(row.name)
        wins, draws, losses = records.get(member, [0, 0, 0]) if member is not None else (0, 0, 0)
        old = before.get(player_key(member)) if member is not None else None
        rows.append(PublicRow(row.rank, row.name, row.rating, row.provisional, row.deviation,
                              row.games, wins, draws, losses,
                              None if old is None else row.rating - old))
    return PublicBoard(ladder.name, slug_of(ladder.name, ladder.settings),
                       ladder.settings.system, rows, _language(club), view.zone_of(ladder))


def profile(club: Club, ladder: Ladder, name: str) -> PublicProfile | None:
    """A player of a public ladder, by their name as the board shows it (None: no such
    player on it)."""
    found = [m for m in club.state.members_called(name)[0]
             if view.standing(club, ladder, m) is not None]
    if not found:
        return None
    member = found[0]
    system = view.system_of(club, ladder)
    state = view.standing(club, ladder, member)
    assert state is not None
    games = view.games_of(club, ladder, member)
    frozen = timeline.freeze(club.ratings[ladder.name], club.state)
    after = {when: point.rating for when, point in timeline.trajectory(
        frozen, player_key(member.id))}
    history = []
    for game, score in games:
        mine = member.id in view.side_ids(club, game.side_a)
        opponents = [club.state.member(m).name for m in (game.side_b if mine else game.side_a)]
        history.append(PublicGame(game.played_at.isoformat(timespec="minutes"),
                                  SIDE_JOINER.join(opponents), score, after.get(game.played_at)))
    wins, draws, losses = _records(club, ladder).get(member.id, [0, 0, 0])
    return PublicProfile(
        ladder.name, slug_of(ladder.name, ladder.settings), member.name, state.rating,
        system.is_provisional(state), system.shown_deviation(state), len(games), wins,
        draws, losses, history, _language(club), view.zone_of(ladder))


def taken_slugs(ladders: Iterable[tuple[str, LadderSettings]]) -> set[str]:
    """The slugs ``ladders`` hold: a public ladder's address, and any slug chosen."""
    taken: set[str] = set()
    for name, settings in ladders:
        if settings.public:
            taken.add(slug_of(name, settings))
        if settings.public_slug:
            taken.add(settings.public_slug)
    return taken
