"""Every message the code names is in the catalogue, and every catalogue entry is used."""

import re
from pathlib import Path

from bot.chat.messages import MESSAGES

BOT = Path(__file__).resolve().parents[2] / "bot"
NAMED = re.compile(
    r"""(?:Refusal|Notice|GameResult|text|_button)\(\s*["']([a-z_]+)["']"""
    r"""|["'](help_[a-z_]+|menu_[a-z_]+|button_[a-z_]+)["']"""
)


def named_keys() -> set[str]:
    keys: set[str] = set()
    for path in BOT.rglob("*.py"):
        for match in NAMED.finditer(path.read_text(encoding="utf-8")):
            keys.add(match.group(1) or match.group(2))
    return keys


def test_every_named_message_exists() -> None:
    assert sorted(named_keys() - set(MESSAGES)) == []


def test_no_message_is_forgotten() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in BOT.rglob("*.py"))
    unused = [key for key in MESSAGES if f'"{key}"' not in source and f"'{key}'" not in source]
    assert unused == []
