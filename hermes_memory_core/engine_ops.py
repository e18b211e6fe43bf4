"""What the rooms ask the engine: intent-level operations over its metadata store, vector store and caches.

:class:`EngineOperations` is the half of :class:`~hermes_memory_core.engine.MemoryEngine` the rooms above it
(retrieval, lifecycle, portability, short-term) and the facade talk to instead of reaching into the engine's
parts. Each operation says what it is for (find candidates, record a repetition, erase a user, repair both
halves), and keeps the rules that tie the parts together in one place: a memory that changes leaves the hot cache,
an erased one leaves the cache of past-version vectors and the access buffer too, permanent reads are logged.

The write path (store with compensation, versions, deletes), permissions and the access buffer stay in
:mod:`~hermes_memory_core.engine`; this module adds no state of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.storage.hot_cache import HotCache, VersionVectors
from hermes_memory_core.storage.metadata import (
    DEFAULT_CONTEXT_WEIGHT,
    Erasure,
    KeywordFilter,
    KeywordStats,
    LifecycleRow,
    MetadataStore,
    RankRow,
)
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint, VectorStore
from hermes_memory_core.text.perspective import embedding_text
from hermes_memory_core.trust.at_rest import SealingCodec
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import AccessAction, MemoryRecord, MemoryType, MemoryVersion, ReconcileReport

__all__ = ["EngineOperations", "payload"]


def payload(rec: MemoryRecord, codec: SealingCodec | None = None) -> dict[str, Any]:
    """The vector point's payload: only what filters need, never content (tags of sealed memories as keyed
    hashes, session ids as the codec keeps them)."""
    return {
        "user_id": rec.user_id,
        "session_id": rec.session_id if codec is None else codec.session_key(rec.user_id, rec.session_id),
        "memory_type": rec.memory_type.value,
        "created_at": rec.created_at,
        "tags": list(rec.tags) if codec is None else codec.tag_keys(rec.memory_type.value, rec.tags),
        "version": rec.version,
    }


class EngineOperations:
    """The intent-level operations of an open store (mixed into :class:`~hermes_memory_core.engine.MemoryEngine`,
    which provides the parts declared here)."""

    config: MemoryConfig
    metadata: MetadataStore
    vectors: VectorStore
    hot: HotCache
    past_vectors: VersionVectors
    codec: SealingCodec
    write_lock: threading.RLock
    data_dir: Path

    if TYPE_CHECKING:  # provided by MemoryEngine
        def now(self, value: float | None = None) -> int: ...
        def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...
        def flush_access(self) -> None: ...
        def discard_access(self, user_id: str, memory_id: str | None = None) -> None: ...
        def forget_languages(self, user_id: str) -> None: ...

    # ------------------------------------------------------------------ finding candidates
    def dense_candidates(self, vector: np.ndarray, limit: int, flt: VectorFilter) -> list[tuple[str, float]]:
        """The vector leg: ``(id, cosine)`` of the ``limit`` points nearest ``vector`` that pass ``flt``."""
        return self.vectors.search(vector, limit, flt)

    def keyword_candidates(
        self,
        user_id: str,
        terms: Sequence[str],
        limit: int,
        flt: KeywordFilter | None = None,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
    ) -> list[tuple[str, float]]:
        """The keyword leg: BM25 over one user's active memories, ``(id, score)`` best first (``terms`` already in
        the codec's form, :meth:`SealingCodec.query_terms`)."""
        return self.metadata.keyword_search(user_id, terms, limit, flt, context_weight=context_weight)

    def keyword_stats(self, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """BM25 statistics of the user's keyword shard for ``terms`` (to score text the index does not hold)."""
        return self.metadata.keyword_stats(user_id, terms, context_weight)

    def rank_rows(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, RankRow]:
        """The ranking columns of the user's active, unexpired memories among ``ids``."""
        return self.metadata.rank_rows(ids, user_id, now=now)

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these memories (those the vector index holds)."""
        return self.vectors.fetch(ids)

    def records_as_of(self, user_id: str, as_of: int, flt: KeywordFilter) -> list[MemoryRecord]:
        """The user's memories changed since ``as_of``, as they were then (see
        :meth:`MetadataStore.records_as_of`)."""
        return self.metadata.records_as_of(user_id, as_of, flt)

    def embed_records(self, records: Sequence[MemoryRecord]) -> np.ndarray:
        """The memories' vectors, one row each, made from their :func:`~hermes_memory_core.text.perspective.
        embedding_text` (a user's conversation line as said about the user)."""
        return self.embed_documents([embedding_text(r.content, r.role) for r in records])

    def past_version_vectors(self, records: Sequence[MemoryRecord]) -> np.ndarray:
        """Embeddings of past versions, one row per record: from the engine's cache, the others embedded in one
        batch and cached."""
        keys = [(r.user_id, r.id, r.version) for r in records]
        found = {k: vec for k in keys if (vec := self.past_vectors.get(k)) is not None}
        todo = [r for r, k in zip(records, keys, strict=True) if k not in found]
        if todo:
            for rec, vec in zip(todo, self.embed_records(todo), strict=True):
                found[(rec.user_id, rec.id, rec.version)] = vec = np.asarray(vec, dtype=np.float32)
                self.past_vectors.put((rec.user_id, rec.id, rec.version), vec)
        if not keys:
            return np.zeros((0, self.config.vector_dim), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    # ------------------------------------------------------------------ reading records
    def record(self, memory_id: str, include_inactive: bool = False) -> MemoryRecord | None:
        """One memory by id (active only unless asked), no permission check (the store's own reads)."""
        return self.metadata.get(memory_id, include_inactive=include_inactive)

    def active_records(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, MemoryRecord]:
        """The user's active, unexpired memories among ``ids`` (others silently left out)."""
        return self.metadata.get_many(ids, user_id, now=now)

    def hit_records(
        self, user_id: str, ids: Sequence[str], current: dict[str, RankRow], now: int
    ) -> dict[str, MemoryRecord]:
        """The records of a search's hits: from the hot cache where its copy is ``current``, the rest read."""
        records = self.hot.lookup(user_id, ids, current)
        missing = [mid for mid in ids if mid not in records]
        if missing:
            records.update(self.metadata.get_many(missing, user_id, now=now))
        return records

    def cache_hits(self, user_id: str, records: Sequence[MemoryRecord]) -> None:
        """Count returned hits in the hot cache (the user's most-searched records stay cached)."""
        self.hot.record_use(user_id, records)

    def find_by_metadata(self, user_id: str, key: str, value: str, tiers: Sequence[MemoryType]) -> str | None:
        """Id of the user's current memory of these tiers whose ``metadata[key]`` is ``value``; each tier is asked
        with the value as it stores it (a keyed hash where sealed), in the order given."""
        for tier in tiers:
            found = self.metadata.find_by_metadata(user_id, key, self.codec.lookup_value(tier.value, key, value),
                                                   [tier.value])
            if found is not None:
                return found
        return None

    def find_by_metadata_values(self, user_id: str, key: str, values: Sequence[str],
                                tier: MemoryType) -> dict[str, str]:
        """:meth:`find_by_metadata` for several values of one tier in one query: ``{value: id}`` for those found."""
        stored = {self.codec.lookup_value(tier.value, key, value): value for value in values}
        found = self.metadata.find_by_metadata_values(user_id, key, list(stored), [tier.value])
        return {stored[kept]: mid for kept, mid in found.items()}

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every version of a memory, oldest first (the caller checked permission)."""
        return self.metadata.versions(memory_id)

    def list_records(
        self, user_id: str, flt: KeywordFilter, limit: int, offset: int, who: Caller, now: int
    ) -> list[MemoryRecord]:
        """One user's active memories matching ``flt``, oldest first; each permanent one listed is logged as a
        permanent read by ``who``."""
        records = self.metadata.list_records(user_id, flt, limit, offset)
        for rec in records:
            if rec.memory_type is MemoryType.PERMANENT:
                self.metadata.log(rec.id, rec.user_id, AccessAction.PERMANENT_READ, now, who.name)
        return records

    def lifecycle_rows(self, tiers: Sequence[str]) -> list[LifecycleRow]:
        """Active memories of these tiers with what forgetting weighs."""
        return self.metadata.lifecycle_rows(tiers)

    # ------------------------------------------------------------------ small writes
    def note_repeat(self, memory_id: str, detail: str = "") -> None:
        """Count one repetition of an active memory (a statement remembered again) now; its cached copy goes."""
        self.metadata.note_repeat(memory_id, self.now(), detail)
        self.hot.invalidate(memory_id)

    def lacking_xlang_terms(self, tiers: Sequence[str], limit: int) -> list[tuple[MemoryRecord, str | None]]:
        """Active memories of these tiers without other-language key terms, with their language."""
        return self.metadata.lacking_xlang_terms(tiers, limit=limit)

    def set_xlang_terms(self, memory_id: str, version: int, terms: str) -> bool:
        """Keep a memory's other-language key terms for ``version`` in its keyword entry (False: gone or newer)."""
        return self.metadata.set_xlang_terms(memory_id, version, terms)

    def get_meta(self, key: str) -> str | None:
        """A value of the store's key/value meta."""
        return self.metadata.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the store's key/value meta."""
        self.metadata.set_meta(key, value)

    # ------------------------------------------------------------------ erasure
    def record_erasure(self, erasure: Erasure) -> None:
        """Durably record an erasure before it starts (idempotent)."""
        self.metadata.record_erasure(erasure)

    def pending_erasures(self) -> list[Erasure]:
        """Erasures recorded and not finished (a killed process, or a reader that held the files)."""
        return self.metadata.pending_erasures()

    def clear_erasure(self, erasure: Erasure) -> None:
        """Forget a finished erasure."""
        self.metadata.clear_erasure(erasure)

    def erase(self, erasure: Erasure) -> int:
        """Erase what ``erasure`` names from every part, under the caller's write lock: the metadata rows in one
        transaction, the vector points (by the user filter for a user, so points no row knows go too), the hot
        cache, the cached past-version vectors and buffered access records; log a one-memory erasure as
        ``hard_delete``. Idempotent. Returns the memories removed. :meth:`rewrite_erased` then rewrites the files."""
        if erasure.kind == "user":
            ids = self.metadata.erase_user_rows(erasure.user_id)
            self.vectors.delete_user(erasure.user_id)
            self.hot.drop_user(erasure.user_id)
            self.past_vectors.drop(erasure.user_id)
            self.discard_access(erasure.user_id)
            self.forget_languages(erasure.user_id)
        else:
            assert erasure.memory_id is not None
            ids = [erasure.memory_id]
            self.metadata.purge(ids)
            self.vectors.delete(ids)
            self.hot.invalidate(erasure.memory_id)
            self.past_vectors.drop(erasure.user_id, erasure.memory_id)
            self.discard_access(erasure.user_id, erasure.memory_id)
        self.vectors.flush()
        if erasure.kind == "memory":
            self.metadata.log(erasure.memory_id or "", erasure.user_id, AccessAction.HARD_DELETE, self.now(), "")
        return len(ids)

    def rewrite_erased(self, erasure: Erasure) -> None:
        """Rewrite what still holds bytes :meth:`erase` deleted: the vector engine's files and the metadata store's
        (its keyword shard and WAL, or PostgreSQL's tables). Runs *without* the engine's write lock: each store
        takes its own lock per step and waits a bounded time, that lock free, for a reader holding its files.
        Idempotent.

        Raises:
            StoreBusyError: A reader held the files (or, on PostgreSQL, a transaction older than the erasure
                still saw the deleted rows) for longer than the wait; the erasure stays recorded.
        """
        self.vectors.compact_deleted()
        self.metadata.erase_residue([erasure.user_id])

    def make_deletes_final(self) -> None:
        """Make the last deletes final in the files (a bounded wait for readers;
        :class:`~hermes_memory_core.errors.StoreBusyError` when one still holds them)."""
        self.metadata.checkpoint()

    # ------------------------------------------------------------------ maintenance and portability
    def repair_halves(self) -> ReconcileReport:
        """Under the write lock: re-embed active rows missing (or stale) in the vector index, drop points with no
        active row (and those of expired memories), rebuild missing keyword rows, write buffered accesses."""
        report = ReconcileReport()
        with self.write_lock:
            now = self.now()
            active = self.metadata.active_versions()
            expired = set(self.metadata.expired_ids(now))
            seen: dict[str, int] = {}
            for batch in self.vectors.iter_points(with_vectors=False):
                for p in batch:
                    seen[p.id] = int(p.payload.get("version", 0) or 0)
            if not self.config.permanent_vectors:  # permanent facts keep no vector: drop any that exists
                for row in self.metadata.lifecycle_rows([MemoryType.PERMANENT.value]):
                    active.pop(row.id, None)
            orphans = [pid for pid in seen if pid not in active or pid in expired]
            report.vector_orphans_removed = sum(1 for pid in orphans if pid not in expired)
            report.expired_removed = sum(1 for pid in orphans if pid in expired)
            for start in range(0, len(orphans), 1000):
                self.vectors.delete(orphans[start : start + 1000])
            missing = [mid for mid, ver in active.items() if mid not in expired and seen.get(mid) != ver]
            batch_size = self.config.embedding_batch_size
            for start in range(0, len(missing), batch_size):
                chunk = missing[start : start + batch_size]
                recs = [r for r in (self.metadata.get(mid) for mid in chunk) if r is not None]
                vecs = self.embed_records(recs)
                self.vectors.upsert([VectorPoint(r.id, vec, payload(r, self.codec))
                                     for r, vec in zip(recs, vecs, strict=True)])
                report.metadata_orphans_reindexed += len(recs)
            report.keyword_rows_repaired = self.metadata.repair_keyword_index()
            self.flush_access()
            self.vectors.flush()
        return report

    def optimize_indexes(self) -> None:
        """Merge the keyword index, then build the vector engine's index (under the write lock)."""
        self.metadata.optimize_keyword_index()
        with self.write_lock:
            self.vectors.optimize()

    def counts(self) -> dict[str, Any]:
        """``by_type``, ``by_user``, ``versions`` and ``deleted`` counts of the metadata rows."""
        return self.metadata.counts()

    def vector_count(self) -> int:
        """How many points the vector index holds."""
        return self.vectors.count()

    def integrity_check(self) -> str:
        """``"ok"`` or what the metadata store finds inconsistent."""
        return self.metadata.integrity_check()

    def backup_metadata_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole metadata store to ``target``."""
        self.metadata.backup_to(target)

    def iter_vector_points(self, batch_size: int = 1000, with_vectors: bool = True) -> Iterator[list[VectorPoint]]:
        """Every point of the vector index, in batches."""
        return self.vectors.iter_points(batch_size=batch_size, with_vectors=with_vectors)
