"""How the processes serving one bot token count themselves, for the rate budget they share
(issue 41, :mod:`bot.adapters.budget`): each holds one slot, an advisory lock of the token's
namespace, for its life, and the slots held are the processes. A contract kept by both backends:
PostgreSQL for several processes, SQLite for one.
"""

from __future__ import annotations

from typing import Protocol

#: slots beyond this are never taken (:data:`bot.adapters.budget.SLOTS` is fewer): the count
#: reads only keys below it
BUDGET_SLOTS_AT_MOST = 1024


def budget_slot_key(namespace: int, slot: int) -> int:
    """The advisory lock key of one slot: the namespace (below 2**31) in the high half, the
    slot in the low half, as ``pg_locks`` shows a bigint key (``classid``, ``objid``)."""
    return namespace << 32 | slot


class BudgetSlots(Protocol):
    async def hold_budget_slot(self, namespace: int, slots: int) -> bool:
        """Hold one of the ``slots`` slots of ``namespace`` for this process's life (nothing
        happens when it holds one already); False when every slot is held by others."""
        ...

    async def budget_processes(self, namespace: int) -> int:
        """How many processes hold a slot of ``namespace``, this one counted even without one
        (at least 1)."""
        ...
