"""Every test under tests/system starts ``clubrating`` as a process: marked ``system`` and run
after all the others (``pytest -m "not system"`` leaves them out, ``-m system`` runs them alone).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.system)
    items.sort(key=lambda item: item.get_closest_marker("system") is not None)
