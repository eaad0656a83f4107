"""The layers of docs/architecture.md hold: each package of ``bot`` imports only those below it,
at the top of a module or inside a function alike (an import inside a function may keep a heavy
library from loading early; it may not hide a loop between layers)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"

#: what each package may import, from the diagram in docs/architecture.md
BELOW = {
    "adapters": {"chat", "charts", "scheduling", "service", "storage", "errors"},
    "chat": {"charts", "scheduling", "service", "storage"},
    "charts": {"service", "scheduling"},
    "scheduling": {"service", "storage"},
    "service": {"storage", "history", "ratings_core", "pairing"},
    # club nights' pairings and standings: pure functions of a night, below the service
    "pairing": set(),
    "storage": {"ratings_core"},
    "ops": {"service", "storage", "ratings_core"},
    "errors": set(),
    # the public web leaderboard: an adapter of its own, reading through the service
    "web": {"chat", "service", "storage", "history"},
    # reads the service's bounds (parsing) and its collector: older than the rule, and its
    # own issue (the cell rules would move below the service)
    "history": {"ratings_core", "service"},
}
#: the composition root and the command line build everything: they may import any layer
ROOT_MODULES = {"app", "cli", "settings", "__init__"}


def _package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "ratings_core":
        return "ratings_core"
    return parts[1] if parts[0] == "bot" and len(parts) > 1 else None


def imports_across_layers() -> list[str]:
    found = []
    for path in sorted(BOT.rglob("*.py")):
        module = ".".join(path.relative_to(BOT.parent).with_suffix("").parts)
        layer = _package(module)
        if layer is None or layer in ROOT_MODULES:
            continue
        here = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                targets = [".".join([*base, node.module] if node.module else base)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                other = _package(target)
                if other not in (None, layer) and other not in BELOW[layer]:
                    found.append(f"{module}:{node.lineno} imports {target}")
    return found


def test_every_package_imports_only_the_layers_below_it() -> None:
    assert imports_across_layers() == []
