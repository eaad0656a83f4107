"""What a member of a club of several chats must answer in their own chat (issue 35): a
result reported against them from another chat, posted into theirs with its Confirm and Dispute
buttons, through that platform's publisher. Names are shown as the club has them; a mention
never crosses platforms (the post names the member, it does not ping them)."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.chat.actions import actions_for, caption
from bot.chat.language import writing_in
from bot.chat.presenter import render
from bot.scheduling.publishing import Button, Publisher
from bot.service.club import Caller, ClubService
from bot.service.results import GameResult

log = logging.getLogger(__name__)


class Forwarder:
    """Posts into the other chats of a club; ``publishers`` (each platform's, by its name) are
    given once the front-ends are built."""

    def __init__(self, service: ClubService) -> None:
        self.service = service
        self.publishers: Mapping[str, Publisher] = {}

    async def report(self, caller: Caller, result: GameResult) -> None:
        """Ask the opponent of a report where they are, when that is another chat than the
        report's: the report as the club words it, with its buttons. A post that fails is
        logged: the opponent can still answer with /confirm, and the report counts by itself
        after the ladder's time."""
        for platform, chat in await self.service.elsewhere(caller, result.game.id):
            publisher = self.publishers.get(platform)
            if publisher is None:
                continue
            with writing_in(await self.service.language(platform, chat)):
                shown = render(result)
                buttons = [Button(caption(action), action.id, chat)
                           for row in actions_for(result) for action in row]
            try:
                await publisher.publish(chat, shown, None, buttons)
            except Exception:
                log.exception("could not ask %s:%s to confirm game #%d", platform, chat,
                              result.game.id)
