"""Colours for dark and light chat themes (Telegram's and Discord's dark backgrounds are
blue-grey and near-black; a card in the chat's own tone reads as part of it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    background: str
    stripe: str  # every other row of a card
    text: str
    muted: str  # headers, axes, notes
    grid: str
    up: str  # a rating that rose
    down: str  # a rating that fell
    lines: tuple[str, str]  # first and second player of a chart
    #: a chart's provisional stretch: a hue of its own, so its legend entry is not taken for
    #: the deviation band (drawn in the player's colour)
    provisional: str

    def line(self, index: int) -> str:
        return self.lines[index % len(self.lines)]


# Colours chosen for contrast of at least 4.5:1 against their background (WCAG 2.1, 1.4.3)
# for text, so a card stays legible when a phone shrinks it.
DARK = Theme(
    name="dark", background="#17212b", stripe="#1f2c39", text="#e9eef3", muted="#9fb0c0",
    grid="#2e3f50", up="#5ad08f", down="#ff7b7b", lines=("#5eb0ff", "#ffb547"),
    provisional="#e3b341",
)
LIGHT = Theme(
    name="light", background="#ffffff", stripe="#f0f3f6", text="#1b1f24", muted="#57606a",
    grid="#d8dee4", up="#1a7f37", down="#cf222e", lines=("#0969da", "#bc4c00"),
    provisional="#d4a72c",
)
THEMES = {theme.name: theme for theme in (DARK, LIGHT)}


def theme_named(name: str | Theme) -> Theme:
    """A theme by name ("dark" or "light"); a :class:`Theme` is returned as it is."""
    if isinstance(name, Theme):
        return name
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"theme must be one of {sorted(THEMES)}, not {name!r}") from None
