"""The vector-store protocol every backend implements, with its written contract.

Contract (checked by ``tests/hermes_memory_core/storage/test_vector_contract.py`` against every backend):

- Point ids are UUID strings; the same id as the metadata row. ``upsert`` replaces a point with the same id.
- Distance is cosine; ``search`` returns ``(id, score)`` pairs, best first, score in [-1, 1], at most
  ``limit`` of them, only points whose payload matches the filter. The user filter is mandatory.
- Payload holds only what filters need: ``user_id``, ``session_id``, ``memory_type``, ``created_at``, ``tags``.
  Never memory content.
- ``delete`` of an unknown id is not an error, nor is ``fetch`` of one (it is left out). ``count`` is exact. After
  ``delete``/``delete_user`` and ``compact_deleted`` an embedded backend's files hold no byte of the deleted points.
- ``open`` checks the stored collection's dimension against the configured one and raises
  :class:`~hermes_memory_core.errors.DimensionMismatchError` naming both numbers.
- A backend that keeps data on disk makes every acknowledged ``upsert``/``delete`` durable by ``flush``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hermes_memory_core.errors import DimensionMismatchError
from hermes_memory_core.storage.filters import MemoryFilter

__all__ = ["PAYLOAD_INDEXES", "VectorFilter", "VectorPoint", "VectorStore", "checked_vector", "retag_points", "scrolled_points"]

#: Payload fields every backend indexes, with their kind.
PAYLOAD_INDEXES: dict[str, str] = {
    "user_id": "keyword",
    "session_id": "keyword",
    "memory_type": "keyword",
    "tags": "keyword",
    "created_at": "integer",
}


@dataclass(frozen=True, slots=True)
class VectorPoint:
    """One point: id, vector and filter payload."""

    id: str
    vector: np.ndarray
    payload: dict[str, Any] = field(default_factory=dict)


#: The filter of a vector query (``user_id`` always set; ``now`` is ignored): the one filter type of every read.
VectorFilter = MemoryFilter


@runtime_checkable
class VectorStore(Protocol):
    """What the provider needs from a vector engine. See the module docstring for the contract."""

    dim: int
    name: str

    def open(self) -> None:
        """Create or load the collection; check its dimension."""

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points."""

    def delete(self, ids: Sequence[str]) -> None:
        """Remove points by id; unknown ids are ignored."""

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Merge ``payload`` into the payload of existing points (a tier change, say) without re-embedding."""

    def delete_user(self, user_id: str) -> None:
        """Remove every point of one user (by the payload filter, so points no metadata row knows go too)."""

    def compact_deleted(self) -> None:
        """Rewrite the engine's files so deleted points leave no bytes in them (vectors, payloads, write-ahead
        log). Slow (proportional to the collection); erasure calls it, without the engine's write lock, so an
        embedded backend whose file a reader holds waits a bounded time with its own lock free between tries.

        Raises:
            StoreBusyError: A reader still held the files after that wait.
        """

    def search(self, vector: np.ndarray, limit: int, flt: VectorFilter) -> list[tuple[str, float]]:
        """Nearest points by cosine similarity, filtered, best first."""

    def search_many(self, vectors: Sequence[np.ndarray], limit: int, flt: VectorFilter) -> list[list[tuple[str, float]]]:
        """:meth:`search` of several query vectors under one filter, in one call to the engine (one list per vector,
        in order; each the list :meth:`search` gives for it)."""

    def fetch(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored (unit-length) vectors of these points, as precise as the backend keeps them (the embedded one:
        16-bit floats, each component within 1e-3); unknown ids are left out."""

    def iter_points(self, batch_size: int = 1000, with_vectors: bool = True) -> Iterator[list[VectorPoint]]:
        """Every point, in batches (vectors are zero-length arrays when ``with_vectors`` is False)."""

    def count(self) -> int:
        """Exact number of points."""

    def flush(self) -> None:
        """Make acknowledged writes durable."""

    def optimize(self) -> None:
        """Build or merge indexes after large imports (a no-op where the engine does it by itself)."""

    def close(self) -> None:
        """Release files, locks and connections. Idempotent."""


def retag_points(
    store: VectorStore,
    tags: Mapping[str, Sequence[str]],
    rewrite: bool = False,
    sessions: Mapping[str, str | None] | None = None,
) -> None:
    """Set the ``tags`` payload (and with ``sessions`` the ``session_id`` payload) of the points named in ``tags``
    (others keep theirs).

    Args:
        store: An open vector store.
        tags: Point id → its tags.
        rewrite: Rebuild a store that keeps old payloads in its files (one with a ``rewrite`` method, the embedded
            engine), so no old tag or session id stays on disk; others update in place.
        sessions: Point id → its session id as the payload keeps it (a sealed id under ``encrypt_at_rest="all"``).
    """
    sessions = sessions or {}

    def fields(point_id: str, current: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"tags": list(tags.get(point_id, current.get("tags", [])))}
        if point_id in sessions:
            out["session_id"] = sessions[point_id]
        return out

    rebuild = getattr(store, "rewrite", None)
    if rewrite and rebuild is not None:
        rebuild(lambda p: {**p.payload, **fields(p.id, p.payload)})
        return
    groups: dict[tuple[tuple[str, ...], bool, str | None], list[str]] = {}
    for batch in store.iter_points(with_vectors=False):
        for p in batch:
            if p.id in tags:
                groups.setdefault((tuple(tags[p.id]), p.id in sessions, sessions.get(p.id)), []).append(p.id)
    for (value, has_session, session), ids in groups.items():
        update: dict[str, Any] = {"tags": list(value)}
        if has_session:
            update["session_id"] = session
        for start in range(0, len(ids), 1000):
            store.set_payload(ids[start : start + 1000], update)
    store.flush()


def checked_vector(point: VectorPoint, dim: int) -> list[float]:
    """``point``'s vector as a flat list of floats for an engine, after checking it has ``dim`` dimensions.

    Raises:
        DimensionMismatchError: It has another number of dimensions (both numbers named).
    """
    vec = np.asarray(point.vector, dtype=np.float32).reshape(-1)
    if vec.shape[0] != dim:
        raise DimensionMismatchError(f"vector for {point.id} has {vec.shape[0]} dimensions, collection expects {dim}")
    flat: list[float] = vec.tolist()
    return flat



def scrolled_points(
    read_page: Callable[[Any], tuple[Sequence[Any], Any]], with_vectors: bool
) -> Iterator[list[VectorPoint]]:
    """Every point of a Qdrant collection, a page at a time, as :class:`VectorPoint` lists.

    Args:
        read_page: Reads the page at an offset (None: the first) and returns its records (each with ``id``,
            ``vector`` and ``payload``) and the next page's offset (None after the last page).
        with_vectors: The records carry their vectors (else each point's vector is empty).
    """
    offset: Any = None
    while True:
        records, offset = read_page(offset)
        if records:
            yield [
                VectorPoint(
                    id=str(r.id),
                    vector=np.asarray(r.vector if with_vectors else [], dtype=np.float32),
                    payload=dict(r.payload or {}),
                )
                for r in records
            ]
        if offset is None:
            return
