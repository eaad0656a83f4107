"""Keeping secrets out of the logs: every log record is scrubbed of the bot's tokens.

python-telegram-bot logs its Bot API address at DEBUG, and that address contains the token
(``https://api.telegram.org/bot<token>``); an HTTP library's error may quote the address too.
So the filter is not bound to a logger or a handler (a record propagates to handlers installed
later, e.g. by a test or an operator's config): :func:`redact_in_logs` wraps the log record
factory, and every record is scrubbed - message, arguments, exception and stack text - when it
is created, before any handler sees it.

Discord's bot token never shows in discord.py's logs (it goes in a header and in the gateway's
IDENTIFY, neither logged), but what it logs at DEBUG carries other tokens: an interaction's,
in every gateway event it logs (``'token': ...``) and in the addresses of its answers
(``/interactions/<id>/<token>/callback``, ``/webhooks/<app>/<token>``) - for 15 minutes it
answers and edits messages as the bot -, and a webhook's (valid until deleted). Those values are
masked wherever they appear, whoever logs them (Discord's docs, "Receiving and Responding",
"Webhook Resource", "Gateway: Identify").

A password in an address (``postgresql://bot:PASSWORD@host/db``, whatever the scheme and its
case, or ``?password=...``) is masked too, however short: the database's address reaches logs
and error messages. :func:`scrub` does the same to what is written outside the logs (the
command line's one-line errors).
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Callable
from typing import Any

#: what a secret is replaced by
MASK = "[redacted]"
#: shorter values are not treated as secrets (they would mask ordinary words)
MIN_SECRET = 8
#: the token after the id in Discord's interaction and webhook addresses
_URL_TOKEN = re.compile(r"(/(?:interactions|webhooks)/[0-9]+/)[^/?#\s'\"]+")
#: a value named ``token`` in a logged payload (a dict's repr or JSON): interactions' tokens in
#: gateway events, the bot's own in IDENTIFY
_FIELD_TOKEN = re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]+""")
#: the password of an address ``scheme://user:password@host`` (any scheme, in any case: a
#: database address, a proxy's), however short it is
_URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:'\"]*:)[^/?#\s'\"]*(@)")
#: a password given as an address's query parameter (``postgresql://h/db?password=...``)
_QUERY_PASSWORD = re.compile(r"([?&](?i:password|passwd|pass)=)[^&#\s'\"]*")


class RedactSecrets(logging.Filter):
    """Replaces each secret in a record by :data:`MASK`; never drops a record."""

    def __init__(self, secrets: set[str] | None = None) -> None:
        super().__init__()
        self.secrets: set[str] = set(secrets or ())

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        if "/interactions/" in text or "/webhooks/" in text:
            text = _URL_TOKEN.sub(rf"\1{MASK}", text)
        if "token" in text:
            text = _FIELD_TOKEN.sub(rf"\1{MASK}", text)
        if "://" in text:
            text = _URL_PASSWORD.sub(rf"\1{MASK}\2", text)
            text = _QUERY_PASSWORD.sub(rf"\1{MASK}", text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: let logging report it as it would
            return True
        scrubbed = self.scrub(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = self.scrub(record.stack_info)
        return True


_FILTER = RedactSecrets()


def redact_in_logs(*secrets: str | None) -> RedactSecrets:
    """Scrub these secrets from every log record from now on (idempotent; adds to the ones
    given before). Returns the filter, which can also be put on a handler."""
    _FILTER.secrets.update(s for s in secrets if s and len(s) >= MIN_SECRET)
    factory = logging.getLogRecordFactory()
    if not getattr(factory, "redacts", False):
        def scrubbed(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = factory(*args, **kwargs)
            _FILTER.filter(record)
            return record

        wrapped: Callable[..., logging.LogRecord] = scrubbed
        wrapped.redacts = True  # type: ignore[attr-defined]
        logging.setLogRecordFactory(wrapped)
    return _FILTER


def scrub(text: str) -> str:
    """``text`` without the secrets given to :func:`redact_in_logs` nor any address's password:
    for what is written outside the logs (the command line's one-line errors)."""
    return _FILTER.scrub(text)
