"""The one failure every backend reports the same way when it cannot be opened."""

from __future__ import annotations


class DatabaseUnavailable(Exception):
    """The database cannot be opened (a server unreachable or refusing, a file unreadable or
    damaged). The message says which database and what to fix, in one line, without a
    password."""
