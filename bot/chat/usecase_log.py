"""One structured log line per use case: ``use_case club=... actor=... command=... outcome=...
duration_ms=...``, keys always in this order, values quoted when they hold a space or a quote,
so a log is read by eye and by ``grep``/``awk`` alike."""

from __future__ import annotations

import logging

log = logging.getLogger("bot.use_case")


def _value(value: object) -> str:
    text = str(value)
    if not text or any(c.isspace() or c in "\"=" for c in text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def key_values(**fields: object) -> str:
    return " ".join(f"{key}={_value(value)}" for key, value in fields.items())


def log_use_case(club: str, actor: str, command: str, outcome: str, seconds: float) -> None:
    """``outcome``: ``ok``, ``refused:<message key>``, ``usage`` or ``error:<exception type>``."""
    level = logging.ERROR if outcome.startswith("error") else logging.INFO
    log.log(level, "use_case %s", key_values(club=club, actor=actor, command=command,
                                             outcome=outcome, duration_ms=f"{seconds * 1000:.1f}"))
