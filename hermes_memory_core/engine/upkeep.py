"""Upkeep of one store: repair of the two halves, index optimisation, counts and checks, the store's key/value meta
and what an export reads whole."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_memory_core.engine.access import AccessBuffer
from hermes_memory_core.engine.parts import StoreParts, payload
from hermes_memory_core.storage.vectors import VectorPoint
from hermes_memory_core.types import MemoryType, ReconcileReport

__all__ = ["Upkeep"]


class Upkeep:
    """Repairs, optimisation, counts and checks of one store."""

    def __init__(self, parts: StoreParts, access: AccessBuffer) -> None:
        self._parts = parts
        self._access = access

    def reconcile(self) -> ReconcileReport:
        """Under the write lock: re-embed active rows missing (or stale) in the vector index, drop points with no
        active row (and those of expired memories), rebuild missing keyword rows, write buffered accesses."""
        parts = self._parts
        metadata, vectors = parts.metadata, parts.vectors
        report = ReconcileReport()
        with parts.write_lock:
            now = parts.now()
            active = metadata.lifecycle.active_versions()
            expired = set(metadata.lifecycle.expired_ids(now))
            seen: dict[str, int] = {}
            for batch in vectors.iter_points(with_vectors=False):
                for p in batch:
                    seen[p.id] = int(p.payload.get("version", 0) or 0)
            if not parts.config.permanent_vectors:  # permanent facts keep no vector: drop any that exists
                for row in metadata.lifecycle.lifecycle_rows([MemoryType.PERMANENT.value]):
                    active.pop(row.id, None)
            orphans = [pid for pid in seen if pid not in active or pid in expired]
            report.vector_orphans_removed = sum(1 for pid in orphans if pid not in expired)
            report.expired_removed = sum(1 for pid in orphans if pid in expired)
            for start in range(0, len(orphans), 1000):
                vectors.delete(orphans[start : start + 1000])
            missing = [mid for mid, ver in active.items() if mid not in expired and seen.get(mid) != ver]
            batch_size = parts.config.embedding_batch_size
            for start in range(0, len(missing), batch_size):
                chunk = missing[start : start + batch_size]
                recs = [r for r in (metadata.records.get(mid) for mid in chunk) if r is not None]
                vecs = parts.embed_records(recs)
                vectors.upsert([VectorPoint(r.id, vec, payload(r, parts.codec))
                                for r, vec in zip(recs, vecs, strict=True)])
                report.metadata_orphans_reindexed += len(recs)
            report.keyword_rows_repaired = metadata.keywords.repair_keyword_index()
            self._access.flush()
            vectors.flush()
        return report

    def optimize_indexes(self) -> None:
        """Merge the keyword index, then build the vector engine's index (under the write lock)."""
        self._parts.metadata.keywords.optimize_keyword_index()
        with self._parts.write_lock:
            self._parts.vectors.optimize()

    def counts(self) -> dict[str, Any]:
        """``by_type``, ``by_user``, ``versions`` and ``deleted`` counts of the metadata rows."""
        return self._parts.metadata.lifecycle.counts()

    def vector_count(self) -> int:
        """How many points the vector index holds."""
        return self._parts.vectors.count()

    def integrity_check(self) -> str:
        """``"ok"`` or what the metadata store finds inconsistent."""
        return self._parts.metadata.integrity_check()

    def backup_metadata_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole metadata store to ``target``."""
        self._parts.metadata.admin.backup_to(target)

    def iter_vector_points(self, batch_size: int = 1000, with_vectors: bool = True) -> Iterator[list[VectorPoint]]:
        """Every point of the vector index, in batches."""
        return self._parts.vectors.iter_points(batch_size=batch_size, with_vectors=with_vectors)

    def get_meta(self, key: str) -> str | None:
        """A value of the store's key/value meta."""
        return self._parts.metadata.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the store's key/value meta."""
        self._parts.metadata.set_meta(key, value)

    def flush(self) -> None:
        """Write buffered access records and make vector writes durable (under the write lock), then wait for the
        keyword index's background merge, so nothing writes the store's files once this returns."""
        with self._parts.write_lock:
            self._access.flush()
            self._parts.vectors.flush()
        settle = getattr(self._parts.metadata, "settle_keyword_merges", None)  # (the embedded store merges)
        if settle is not None:
            settle()
