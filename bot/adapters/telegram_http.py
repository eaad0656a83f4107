"""python-telegram-bot's HTTP requests carried by aiohttp.

PTB's default client (httpx) costs about three times the CPU per Bot API call that aiohttp does
on this bot's hot path (report, confirm: three calls per result), which decides how many results
a second one process can serve (docs/benchmarks.md). aiohttp is already installed as discord.py's
HTTP client, so this adds no dependency.
"""

from __future__ import annotations

from collections.abc import Callable

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

#: seconds, as PTB's own defaults
DEFAULT_TIMEOUT = 5.0


class AiohttpRequest(BaseRequest):
    """One aiohttp session per request object (PTB uses one for getUpdates, one for the rest).
    ``answered`` is called after each call the server answered with success (200): on the
    getUpdates object, that is the bot's pulse (:mod:`bot.ops.heartbeat`)."""

    def __init__(self, read_timeout: float | None = DEFAULT_TIMEOUT,
                 connect_timeout: float | None = DEFAULT_TIMEOUT, connections: int = 32,
                 answered: Callable[[], None] | None = None) -> None:
        self._answered = answered
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections),
                headers={"User-Agent": self.USER_AGENT},
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: float | None | object = BaseRequest.DEFAULT_NONE,
        write_timeout: float | None | object = BaseRequest.DEFAULT_NONE,
        connect_timeout: float | None | object = BaseRequest.DEFAULT_NONE,
        pool_timeout: float | None | object = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        read = read_timeout if isinstance(read_timeout, float | int) or read_timeout is None \
            else self._read_timeout
        connect = connect_timeout if isinstance(connect_timeout, float | int) \
            or connect_timeout is None else self._connect_timeout
        timeout = aiohttp.ClientTimeout(sock_connect=connect, sock_read=read)
        body: aiohttp.FormData | dict[str, str] | None = None
        if request_data is not None:
            files = request_data.multipart_data
            if files:
                form = aiohttp.FormData()
                for name, value in request_data.json_parameters.items():
                    form.add_field(name, value)
                for name, (filename, content, mime) in files.items():
                    form.add_field(name, content, filename=filename, content_type=mime)
                body = form
            else:
                body = request_data.json_parameters
        try:
            async with self._session.request(method, url, data=body, timeout=timeout) as answer:
                payload = await answer.read()
        except TimeoutError as error:
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp: {error}") from error
        if answer.status == 200 and self._answered is not None:
            self._answered()
        return answer.status, payload
