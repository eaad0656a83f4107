"""ratings_core's modules import one another as a tree a reader can follow: no cycle, not even
through an import that only the type checker sees (``if TYPE_CHECKING:``), and no module
reaches into another's private names (docs/architecture.md, "The core's import tree")."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "ratings_core"
PACKAGE = CORE.name
MODULES = frozenset(path.stem for path in CORE.glob("*.py") if path.stem != "__init__")


def _imported(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str | None]]:
    """The package's modules that an import names, each with the name taken from it (None: the
    module itself)."""
    if isinstance(node, ast.Import):
        parts = [alias.name.split(".") for alias in node.names]
        return [(p[1], None) for p in parts if len(p) > 1 and p[0] == PACKAGE]
    if node.level > 1 or (node.level == 0 and (node.module or "").split(".")[0] != PACKAGE):
        return []
    inner = (node.module or "").split(".")[0 if node.level else 1:]
    if inner and inner[0]:  # from .x import y, from ratings_core.x import y
        return [(inner[0], alias.name) for alias in node.names]
    # from . import x, from ratings_core import x
    return [(alias.name, None) for alias in node.names if alias.name in MODULES]


def imports_of(source: str) -> list[tuple[str, str | None, int]]:
    """Every import of a module of the package in ``source``, wherever it stands (at the top,
    under ``if TYPE_CHECKING:``, inside a function): (module, name or None, line)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.extend((module, name, node.lineno) for module, name in _imported(node))
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of ratings_core and the modules of ratings_core it imports."""
    return {
        path.stem: {module for module, _, _ in imports_of(path.read_text(encoding="utf-8"))}
        - {path.stem}
        for path in sorted(CORE.glob("*.py")) if path.stem != "__init__"
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as its modules in import order, the first repeated at the end; None
    when it has none (a depth-first search, in sorted order so that the answer is stable)."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str] | None:
        path.append(module)
        on_path.add(module)
        for target in sorted(graph.get(module, ())):
            if target in on_path:
                return [*path[path.index(target):], target]
            if target not in done:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        on_path.discard(module)
        done.add(module)
        return None

    for module in sorted(graph):
        if module not in done:
            cycle = visit(module)
            if cycle is not None:
                return cycle
    return None


def test_the_helpers_find_a_cycle_and_every_kind_of_import() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import pool as starting_pool\n"
        "from .model import Game\n"
        "import ratings_core.table\n"
        "from ratings_core.rows import GameRows\n"
        "from ratings_core import curves\n"
        "if TYPE_CHECKING:\n"
        "    from .columns import _hidden\n"
        "def late() -> None:\n"
        "    from .replay import Engine\n"
    )
    assert sorted(imports_of(source)) == [
        ("columns", "_hidden", 8), ("curves", None, 6), ("model", "Game", 3),
        ("pool", None, 2), ("replay", "Engine", 10), ("rows", "GameRows", 5),
        ("table", None, 4)]


def test_the_core_imports_form_no_cycle() -> None:
    graph = import_graph()
    assert {"glickman", "rows", "club", "elo", "system", "replay", "columns"} <= graph.keys()
    cycle = find_cycle(graph)
    assert cycle is None, "ratings_core imports in a circle: " + " -> ".join(cycle or [])


def test_no_module_imports_another_modules_private_names() -> None:
    """What one module builds on is public in the other (replay.Engine, elo.Tally, ...)."""
    private = [f"{path.name}:{line} imports {module}.{name}"
               for path in sorted(CORE.glob("*.py"))
               for module, name, line in imports_of(path.read_text(encoding="utf-8"))
               if name is not None and name.startswith("_")]
    assert private == []


def test_the_leaves_stay_leaves() -> None:
    """Glickman's formulas need nothing of the package; the rows only the model and the
    table, so that ``system`` (which names them) imports no engine; the team rules of issue 37
    only the model, so that every system may build on them."""
    graph = import_graph()
    assert graph["glickman"] == set()
    assert graph["sides"] <= {"model", "table"}
    assert graph["rows"] <= {"model", "table"}
    assert graph["inlined"] <= {"evidence", "rows", "table"}, "the compiled loops name no system"
