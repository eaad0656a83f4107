"""The public web leaderboard's HTTP server (aiohttp): ``clubrating web`` on its own, or inside
``clubrating run`` when ``CLUBRATING_WEB_LISTEN`` is set.

- ``/``: the public ladders; ``/l/SLUG``: a ladder's board, ``.json`` the same data,
  ``.csv`` its history as EVENTS.csv; ``/l/SLUG/p/NAME``: a player's profile (``.json`` too).
- Every request reads the club's log as it is then (:meth:`ClubService.public_version`): a
  ladder made private is not found from the next request on. An unknown and a private ladder
  get the same 404 page.
- A page's ETag is the club, its last event id and the day (its 7-day changes move with the
  calendar); a request that names it in ``If-None-Match`` gets 304 and no body. Each page's
  latest making is kept for its ETag, so a busy board is made once per change.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import datetime

from aiohttp import web

from bot.history import write_events
from bot.service.club import ClubService

from . import pages

log = logging.getLogger(__name__)

#: pages kept for their ETags
KEPT_PAGES = 256
_SLUG = r"[a-z0-9][a-z0-9_-]{0,31}"
_HTML = "text/html; charset=utf-8"

Render = Callable[[], Awaitable[tuple[str, str] | None]]


class PublicSite:
    """The routes, over one service (which reads the logs)."""

    def __init__(self, service: ClubService) -> None:
        self.service = service
        #: each page's latest making, by the page: its ETag, its body (encoded once) and its
        #: content type; an older version is never asked for again, so none is kept
        self._made: OrderedDict[str, tuple[str, bytes, str]] = OrderedDict()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self.home)
        app.router.add_get(f"/l/{{slug:{_SLUG}}}.json", self.board_json)
        app.router.add_get(f"/l/{{slug:{_SLUG}}}.csv", self.history_csv)
        app.router.add_get(f"/l/{{slug:{_SLUG}}}", self.board)
        app.router.add_get(f"/l/{{slug:{_SLUG}}}/p/{{name:.+}}", self.player)
        app.router.add_route("*", "/{tail:.*}", self.not_found)
        return app

    def _now(self) -> datetime:
        return self.service.clock.now()

    async def home(self, request: web.Request) -> web.Response:
        ladders = await self.service.public_ladders()
        return web.Response(text=pages.home(ladders), content_type="text/html",
                            charset="utf-8", headers={"Cache-Control": "no-cache"})

    async def not_found(self, request: web.Request) -> web.Response:
        return web.Response(status=404, text=pages.missing(), content_type="text/html",
                            charset="utf-8")

    async def _cached(self, request: web.Request, slug: str, kind: str,
                      render: Render) -> web.Response:
        """The page ``kind`` of ``slug``, answered 304 when the asker has it (its ETag), made
        by ``render`` (its body and content type, or None: nothing to show) unless kept."""
        version = await self.service.public_version(slug)
        if version is None:
            return await self.not_found(request)
        club, last = version
        etag = f'"{club}-{last}-{self._now().date().isoformat()}"'
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if etag in (tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")):
            return web.Response(status=304, headers=headers)
        key = f"{slug}/{kind}"
        made = self._made.get(key)
        if made is None or made[0] != etag:
            found = await render()
            if found is None:
                return await self.not_found(request)
            text, content_type = found
            made = self._made[key] = (etag, text.encode("utf-8"), content_type)
            while len(self._made) > KEPT_PAGES:
                self._made.popitem(last=False)
        else:
            self._made.move_to_end(key)
        _, body, content_type = made
        return web.Response(body=body, headers={**headers, "Content-Type": content_type})

    async def board(self, request: web.Request) -> web.Response:
        slug = request.match_info["slug"]

        async def render() -> tuple[str, str] | None:
            shown = await self.service.public_board(slug, self._now())
            return None if shown is None else (pages.board(shown), _HTML)

        return await self._cached(request, slug, "board", render)

    async def board_json(self, request: web.Request) -> web.Response:
        slug = request.match_info["slug"]

        async def render() -> tuple[str, str] | None:
            shown = await self.service.public_board(slug, self._now())
            return None if shown is None else (
                json.dumps(pages.board_json(shown), ensure_ascii=False),
                "application/json; charset=utf-8")

        return await self._cached(request, slug, "json", render)

    async def history_csv(self, request: web.Request) -> web.Response:
        slug = request.match_info["slug"]

        async def render() -> tuple[str, str] | None:
            export = await self.service.public_history(slug)
            return None if export is None else (write_events(*export), "text/csv; charset=utf-8")

        return await self._cached(request, slug, "csv", render)

    async def player(self, request: web.Request) -> web.Response:
        slug, name = request.match_info["slug"], request.match_info["name"]
        as_json = name.endswith(".json")
        player = name.removesuffix(".json") if as_json else name

        async def render() -> tuple[str, str] | None:
            shown = await self.service.public_profile(slug, player)
            if shown is None:
                return None
            if as_json:
                return (json.dumps(pages.profile_json(shown), ensure_ascii=False),
                        "application/json; charset=utf-8")
            return pages.profile(shown), _HTML

        return await self._cached(request, slug, f"p/{name}", render)


async def serve(service: ClubService, listen: tuple[str, int]) -> web.AppRunner:
    """Start the site on ``listen`` (host, port); the runner, to clean up when stopping."""
    host, port = listen
    runner = web.AppRunner(PublicSite(service).app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("web leaderboard on http://%s:%d/", host, port)
    return runner
