"""What the scheduled posts say, in the club's language: the scheduler (:mod:`bot.scheduling`)
decides what is posted when, and asks this for the words (it knows no catalogue)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.chat.actions import actions_for, caption
from bot.chat.language import writing_in
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.scheduling.publishing import Button, Picture
from bot.service.results import Digest, Leaderboard, Notice, PuzzlePost


class ChatPosts:
    """The scheduler's :class:`~bot.scheduling.words.PostWords`, from the catalogues."""

    def digest(self, digest: Digest, language: str | None) -> str:
        with writing_in(language):
            return render(digest)

    def puzzle(self, post: PuzzlePost, club_chat: str, language: str | None
               ) -> tuple[str, list[Button]]:
        """A puzzle ladder's post, and its button to solve the new problem privately."""
        with writing_in(language):
            buttons = [Button(caption(action), action.id, club_chat)
                       for row in actions_for(post) for action in row]
            return render(post), buttons

    def announcements(self, notices: Sequence[Notice], language: str | None) -> str:
        with writing_in(language):
            return "\n".join(text(notice.key, notice.params) for notice in notices)

    def paused(self, ladder: str, platform: str, channel: str, reason: str,
               language: str | None) -> str:
        with writing_in(language):
            return text("schedule_refused", ladder=ladder, platform=platform.title(),
                        channel=channel, reason=reason)

    async def card(self, digest: Digest, since: datetime | None, when: datetime,
                   language: str | None) -> Picture:
        """The post's leaderboard card: the digest's rows, changes since the previous post."""
        from bot.chat.pictures import render_card  # matplotlib loads when a post is drawn

        board = Leaderboard(digest.ladder, [r.standing for r in digest.rows],
                            digest.hidden_provisional)
        before = {r.standing.name: r.standing.rating - r.change for r in digest.rows
                  if r.change is not None}
        days = None if since is None else max(1, round((when - since) / timedelta(days=1)))
        with writing_in(language):  # drawn in a worker thread, in this language
            note = "" if days is None else text("card_note", days=days)
            return await render_card(board, before, note)
