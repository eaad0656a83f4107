"""ratings_core is pure: standard library only, nothing of the bot, no I/O libraries."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "ratings_core"
FORBIDDEN = ("bot", "asyncio", "sqlite3", "aiosqlite", "discord", "telegram", "apscheduler")


def test_core_imports_only_the_standard_library() -> None:
    offenders = []
    for path in sorted(CORE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names or top in FORBIDDEN:
                    offenders.append(f"{path.name}: {name}")
    assert offenders == []


def test_importing_the_core_loads_no_forbidden_module() -> None:
    modules = [f"ratings_core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__"]
    script = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
