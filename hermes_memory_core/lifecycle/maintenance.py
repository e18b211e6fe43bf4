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

from hermes_memory_core.engine import MemoryEngine, payload
from hermes_memory_core.storage.vectors import VectorPoint
from hermes_memory_core.text.perspective import embedding_text
from hermes_memory_core.types import MemoryType, ReconcileReport, StoreStats

__all__ = ["disk_bytes", "optimize", "reconcile", "store_stats"]


def reconcile(engine: MemoryEngine) -> ReconcileReport:
    """Repair both stores of ``engine`` (see :meth:`MemoryProvider.reconcile`)."""
    engine.need_open()
    report = ReconcileReport()
    with engine.write_lock:
        now = engine.now()
        active = engine.metadata.active_versions()
        expired = set(engine.metadata.expired_ids(now))
        seen: dict[str, int] = {}
        for batch in engine.vectors.iter_points(with_vectors=False):
            for p in batch:
                seen[p.id] = int(p.payload.get("version", 0) or 0)
        if not engine.config.permanent_vectors:  # permanent facts keep no vector: drop any that exists
            for row in engine.metadata.lifecycle_rows([MemoryType.PERMANENT.value]):
                active.pop(row.id, None)
        orphans = [pid for pid in seen if pid not in active or pid in expired]
        report.vector_orphans_removed = sum(1 for pid in orphans if pid not in expired)
        report.expired_removed = sum(1 for pid in orphans if pid in expired)
        for start in range(0, len(orphans), 1000):
            engine.vectors.delete(orphans[start : start + 1000])
        missing = [mid for mid, ver in active.items() if mid not in expired and seen.get(mid) != ver]
        batch_size = engine.config.embedding_batch_size
        for start in range(0, len(missing), batch_size):
            chunk = missing[start : start + batch_size]
            recs = [r for r in (engine.metadata.get(mid) for mid in chunk) if r is not None]
            vecs = engine.embed_documents([embedding_text(r.content, r.role) for r in recs])
            engine.vectors.upsert([VectorPoint(r.id, vec, payload(r, engine.codec)) for r, vec in zip(recs, vecs, strict=True)])
            report.metadata_orphans_reindexed += len(recs)
        report.keyword_rows_repaired = engine.metadata.repair_keyword_index()
        engine.flush_access()
        engine.vectors.flush()
    return report


def optimize(engine: MemoryEngine) -> None:
    """Merge the keyword index and build the vector engine's index (see :meth:`MemoryProvider.optimize`)."""
    engine.need_open()
    engine.metadata.optimize_keyword_index()
    with engine.write_lock:
        engine.vectors.optimize()


def store_stats(engine: MemoryEngine) -> StoreStats:
    """Counts per tier and user, versions, deletions, vector points and bytes on disk."""
    engine.need_open()
    cfg = engine.config
    counts = engine.metadata.counts()
    return StoreStats(
        total_active=sum(counts["by_type"].values()),
        by_type={t.value: int(counts["by_type"].get(t.value, 0)) for t in MemoryType},
        by_user={str(k): int(c) for k, c in counts["by_user"].items()},
        vector_points=engine.vectors.count(),
        versions=counts["versions"],
        deleted=counts["deleted"],
        disk_bytes=disk_bytes(engine.data_dir),
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
