"""A ladder's team settings as a history's replay applies them (issue 37): which sides may
play, and the rating points per missing member the smaller side plays above its mean. Kept
apart from the use cases (:mod:`bot.service.teams`) so that ``clubrating replay`` reads it
without the service."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import cast

from ratings_core.model import TeamGame

from . import ladder_settings
from .errors import Refusal
from .ladder_settings import TEAM_SETTINGS, LadderSettings

#: what joins the members of a side where they are named together (issue 37: ``alice & bob
#: beat carol & dan``): in chat, on the web and in EVENTS.csv's player cells
SIDE_JOINER = " & "


@dataclass(frozen=True, slots=True)
class TeamRule:
    """A ladder's team settings as a history's replay applies them (``clubrating replay
    --set uneven_teams=on team_size_handicap=N``, ``clubrating import``)."""

    uneven: bool = False
    size_handicap: float = 0.0
    max_side: int = LadderSettings().max_side

    @classmethod
    def of(cls, settings: LadderSettings) -> TeamRule:
        return cls(settings.uneven_teams, settings.team_size_handicap, settings.max_side)

    @classmethod
    def taken_from(cls, overrides: dict[str, str]) -> TeamRule:
        """The team settings among ``overrides`` (read as /set reads them, a refusal for a bad
        value), taken out of them; the rest are the system's parameters."""
        given = {key: ladder_settings.parse(key, overrides.pop(key))
                 for key in TEAM_SETTINGS if key in overrides and key != "team_ladder"}
        return cls(bool(given.get("uneven_teams", False)),
                   float(cast(float, given.get("team_size_handicap", 0.0))),
                   int(cast(int, given.get("max_side", LadderSettings().max_side))))

    def problem(self, game: TeamGame) -> Refusal | None:
        """What the rule refuses in ``game`` (a row of a file), else None."""
        larger = max(len(game.side_a), len(game.side_b))
        if larger > self.max_side:
            return Refusal("team_row_too_large", count=larger, limit=self.max_side)
        if len(game.side_a) != len(game.side_b) and not self.uneven:
            return Refusal("team_row_uneven", a=len(game.side_a), b=len(game.side_b))
        return None

    def applied(self, game: TeamGame) -> TeamGame:
        """``game`` with the rule's rating points per missing member."""
        if not self.size_handicap or len(game.side_a) == len(game.side_b):
            return game
        return dataclasses.replace(game, size_handicap=self.size_handicap)
