"""How the processes serving one bot token count themselves, for the rate budget they share
(issue 41, :mod:`bot.adapters.budget`): each holds one slot, an advisory lock of the token's
namespace, for its life, and the slots held are the processes. A contract kept by both backends:
PostgreSQL for several processes, SQLite for one.
"""

from __future__ import annotations

from typing import Protocol


class BudgetSlots(Protocol):
    async def hold_budget_slot(self, namespace: int, slots: int) -> bool:
        """Hold one of the ``slots`` slots of ``namespace`` for this process's life (nothing
        happens when it holds one already); False when every slot is held by others."""
        ...

    async def budget_processes(self, namespace: int) -> int:
        """How many processes hold a slot of ``namespace``, this one counted even without one
        (at least 1)."""
        ...
