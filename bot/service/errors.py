"""The one error type the service shows to people: a message key and its parameters."""

from __future__ import annotations


class Refusal(Exception):
    """A use case refused; nothing changed. ``key`` names the message in the catalogue."""

    def __init__(self, key: str, **params: str | int | float | None) -> None:
        super().__init__(key)
        self.key = key
        self.params = params

    def __repr__(self) -> str:
        return f"Refusal({self.key!r}, {self.params!r})"
