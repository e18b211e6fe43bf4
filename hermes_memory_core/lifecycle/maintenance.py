"""Store maintenance the operator (or a schedule) runs: repair both halves, compact the indexes, count.

- :func:`reconcile` re-indexes active rows missing (or stale) in the vector engine, drops vector points with no
  active row, rebuilds missing keyword rows and takes expired memories out of the vector index.
- :func:`optimize` merges the keyword index and builds the vector engine's index after a bulk import.
- :func:`store_stats` counts memories per tier and user, versions, deletions, points and bytes on disk.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Protocol

from hermes_memory_core.engine.faces import WithParts, WithUpkeep
from hermes_memory_core.types import MemoryType, ReconcileReport, StoreStats

__all__ = ["disk_bytes", "optimize", "reconcile", "store_stats"]


class UpkeepStore(WithParts, WithUpkeep, Protocol):
    """What maintenance uses of the engine: its state and its upkeep."""


def reconcile(engine: UpkeepStore) -> ReconcileReport:
    """Repair both stores of ``engine`` (see :meth:`MemoryProvider.reconcile`)."""
    engine.parts.need_open()
    return engine.upkeep.reconcile()


def optimize(engine: UpkeepStore) -> None:
    """Merge the keyword index and build the vector engine's index (see :meth:`MemoryProvider.optimize`)."""
    engine.parts.need_open()
    engine.upkeep.optimize_indexes()


def store_stats(engine: UpkeepStore) -> StoreStats:
    """Counts per tier and user, versions, deletions, vector points and bytes on disk."""
    engine.parts.need_open()
    cfg = engine.parts.config
    counts = engine.upkeep.counts()
    return StoreStats(
        total_active=sum(counts["by_type"].values()),
        by_type={t.value: int(counts["by_type"].get(t.value, 0)) for t in MemoryType},
        by_user={str(k): int(c) for k, c in counts["by_user"].items()},
        vector_points=engine.upkeep.vector_count(),
        versions=counts["versions"],
        deleted=counts["deleted"],
        disk_bytes=disk_bytes(engine.parts.data_dir),
        warnings=[
            f"user {user!r} holds {n} active memories (warn_user_memories={cfg.warn_user_memories}); "
            "consider forget() or a server store"
            for user, n in counts["by_user"].items()
            if n > cfg.warn_user_memories
        ],
    )


def disk_bytes(root: Path) -> int:
    """Allocated bytes under a folder (not apparent size: the vector engine's WAL files are sparse)."""
    total = 0
    if root.exists():
        for base, _dirs, files in os.walk(root):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.stat(os.path.join(base, name)).st_blocks * 512
    return total
