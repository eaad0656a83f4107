"""Why a board is what it is, where that is not obvious (issue 36): the small fixed set of ids an
engine puts in :attr:`~bot.pairing.model.Pairing.reasons`, by board number. Each is a message
key's last word; the chat says it beside the board. A board has at most one reason: the first
that holds in the order below.
"""

from __future__ import annotations

#: the two had met tonight already: no full pairing of the round avoided it
REMATCH = "rematch"
#: a player's natural opponent (their score group's top half against its bottom half, or the
#: nearest rating) was already met tonight, so they got another
REMATCH_AVOIDED = "rematch_avoided"
#: the two are from different score groups: one of them floats
SCORE_GROUP = "score_group"
#: both wanted the same colour (chess): one of them gets the other, by the FIDE rules of
#: colour allocation (C.04.3, Article E)
COLOUR = "colour"

#: every reason, in the order a board takes the first that holds
REASONS = (REMATCH, REMATCH_AVOIDED, SCORE_GROUP, COLOUR)
