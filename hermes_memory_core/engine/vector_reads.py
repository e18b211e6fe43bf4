"""The vector reads of a search: the dense leg, stored vectors, past versions' embeddings, which tiers are embedded.

:class:`VectorReads` is held by :class:`~hermes_memory_core.engine.lookups.Lookups` (``lookups.vector_reads``):
recall's dense leg and the as-of search read the vector half through it, never through the store's parts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.storage.vectors import VectorFilter
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["VectorReads"]


class VectorReads:
    """Reading the vector half of one store.

    Args:
        parts: The store's shared parts (its vector store, embedder and past-version cache).
    """

    def __init__(self, parts: StoreParts) -> None:
        self._parts = parts

    def dense_candidates(self, vector: np.ndarray, limit: int, flt: VectorFilter) -> list[tuple[str, float]]:
        """The vector leg: ``(id, cosine)`` of the ``limit`` points nearest ``vector`` that pass ``flt``."""
        return self._parts.vectors.search(vector, limit, flt)

    def dense_candidates_many(self, vectors: Sequence[np.ndarray], limit: int,
                              flt: VectorFilter) -> list[list[tuple[str, float]]]:
        """:meth:`dense_candidates` of several vectors in one call to the vector engine (one list each, in order)."""
        return self._parts.vectors.search_many(vectors, limit, flt)

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of these memories (those the vector index holds)."""
        return self._parts.vectors.fetch(ids)

    def past_version_vectors(self, records: Sequence[MemoryRecord]) -> np.ndarray:
        """Embeddings of past versions, one row per record: from the engine's cache, the others embedded in one
        batch and cached."""
        cache = self._parts.past_vectors
        keys = [(r.user_id, r.id, r.version) for r in records]
        found = {k: vec for k in keys if (vec := cache.get(k)) is not None}
        todo = [r for r, k in zip(records, keys, strict=True) if k not in found]
        if todo:
            for rec, vec in zip(todo, self._parts.embed_records(todo), strict=True):
                found[(rec.user_id, rec.id, rec.version)] = vec = np.asarray(vec, dtype=np.float32)
                cache.put((rec.user_id, rec.id, rec.version), vec)
        if not keys:
            return np.zeros((0, self._parts.config.vector_dim), dtype=np.float32)
        return np.stack([found[k] for k in keys])

    def has_vector(self, memory_type: MemoryType) -> bool:
        """Whether memories of this tier are embedded into the vector index (``permanent_vectors``)."""
        return self._parts.has_vector(memory_type)
