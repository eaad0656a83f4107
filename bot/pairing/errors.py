"""Why an engine gives no next round: the one error type of the pairing engines (issue 36).

The service catches :class:`NoPairing` and refuses the moderator's ``/pair`` with the message
its ``reason`` names; everything else an engine raises is a bug.
"""

from __future__ import annotations

#: no round with fewer than two players to pair
TOO_FEW_PLAYERS = "too_few_players"
#: every way to pair the players puts a forbidden pair (``/forbid``) on a board
FORBIDDEN = "forbidden"
#: a round robin whose table is played through (``Settings.rounds`` rounds, or everyone once)
COMPLETE = "complete"

#: no pairing meets the FIDE Dutch system's absolute criteria (C.04.3 C.1-C.3)
ABSOLUTE = "absolute_criteria"

#: every reason a :class:`NoPairing` carries: message keys' last words, the chat says them
REASONS = frozenset({TOO_FEW_PLAYERS, FORBIDDEN, COMPLETE, ABSOLUTE})


class NoPairing(Exception):
    """No next round exists under the night's absolute rules. ``reason`` is one of
    :data:`REASONS`; ``keys`` the players it concerns, where it concerns some (the eligible
    players for :data:`FORBIDDEN`)."""

    def __init__(self, reason: str, *keys: str) -> None:
        if reason not in REASONS:
            raise ValueError(f"reason must be one of {sorted(REASONS)}, not {reason!r}")
        super().__init__(f"{reason}: {', '.join(keys)}" if keys else reason)
        self.reason = reason
        self.keys = keys
