"""Vector store through ``qdrant-client``: a Qdrant server or cluster (``url=``), or ``:memory:`` for tests.

qdrant-client's own local mode is a pure-Python brute-force store (docs/design.md#engines); it serves unit tests, not
production. Against a server the payload indexes below make filtered search fast.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from hermes_memory_core.errors import BackendUnavailableError, DimensionMismatchError, StoreClosedError
from hermes_memory_core.storage.read_only import read_only_error
from hermes_memory_core.storage.vectors import (
    PAYLOAD_INDEXES,
    VectorFilter,
    VectorPoint,
    checked_vector,
    scrolled_points,
)

__all__ = ["QdrantClientVectorStore"]


class QdrantClientVectorStore:
    """A :class:`~hermes_memory_core.storage.vectors.VectorStore` on one qdrant-client collection.

    Args:
        url: A server URL (``http://localhost:6333``) or ``":memory:"``.
        dim: Vector dimension from the config.
        name: Collection name.
        api_key: API key for a server or cluster.
        client: A ready ``QdrantClient`` to use instead of building one from ``url``.
        read_only: Never write: a missing collection is not created, every write raises
            :class:`~hermes_memory_core.errors.ReadOnlyStoreError`.
    """

    def __init__(
        self,
        url: str | None,
        dim: int,
        name: str = "hermes_memories",
        api_key: str | None = None,
        client: Any = None,
        read_only: bool = False,
    ) -> None:
        self.url = url
        self.read_only = read_only
        self.dim = dim
        self.name = name
        self._api_key = api_key
        self._client: Any = client
        self._owns_client = client is None
        self._lock = threading.RLock()
        # qdrant-client's local mode is not thread-safe (a search racing a delete indexes past its arrays): there,
        # reads take the write lock too. A server serves concurrent reads itself.
        self._read_lock: Any = self._lock if url == ":memory:" else contextlib.nullcontext()

    def open(self) -> None:
        from qdrant_client import QdrantClient, models

        if self._client is None:
            if self.url == ":memory:":
                self._client = QdrantClient(location=":memory:")
            else:
                self._client = QdrantClient(url=self.url, api_key=self._api_key)
        client = self._client
        try:
            exists = client.collection_exists(self.name)
        except Exception as exc:
            raise BackendUnavailableError(f"cannot reach Qdrant at {self.url}: {exc}") from exc
        if exists:
            info = client.get_collection(self.name)
            params = info.config.params.vectors
            size = params.size if hasattr(params, "size") else None
            if size != self.dim:
                raise DimensionMismatchError(
                    f"Qdrant collection {self.name!r} holds {size}-dimensional vectors but the configuration "
                    f"says vector_dim={self.dim}; use a matching embedding model or another collection"
                )
        elif self.read_only:
            raise read_only_error(f"{self.url}#{self.name}", "create the vector collection", "it does not exist")
        else:
            client.create_collection(
                self.name, vectors_config=models.VectorParams(size=self.dim, distance=models.Distance.COSINE)
            )
            if self.url != ":memory:":  # local mode ignores payload indexes (and warns)
                for field_name, kind in PAYLOAD_INDEXES.items():
                    schema: Any
                    if field_name == "user_id":
                        schema = models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
                    elif kind == "integer":
                        schema = models.PayloadSchemaType.INTEGER
                    else:
                        schema = models.PayloadSchemaType.KEYWORD
                    client.create_payload_index(self.name, field_name, field_schema=schema)

    def _need(self, write: bool = False) -> Any:
        if self._client is None:
            raise StoreClosedError("the vector store is not open")
        if write and self.read_only:
            raise read_only_error(f"{self.url}#{self.name}", "change the vectors")
        return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None and self._owns_client:
                self._client.close()
            self._client = None

    def flush(self) -> None:
        """Server writes are acknowledged durable (``wait=True``); nothing to do."""

    def optimize(self) -> None:
        """A Qdrant server optimizes by itself; local mode has no indexes."""

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        from qdrant_client import models

        structs = [models.PointStruct(id=p.id, vector=checked_vector(p, self.dim), payload=p.payload) for p in points]
        with self._lock:
            self._need(write=True).upsert(self.name, points=structs, wait=True)

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        from qdrant_client import models

        with self._lock:
            self._need(write=True).delete(self.name, points_selector=models.PointIdsList(points=list(ids)), wait=True)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if not ids:
            return
        with self._lock:
            self._need(write=True).set_payload(self.name, payload=payload, points=list(ids), wait=True)

    def delete_user(self, user_id: str) -> None:
        from qdrant_client import models

        flt = models.Filter(must=[models.FieldCondition(key="user_id", match=models.MatchValue(value=user_id))])
        with self._lock:
            self._need(write=True).delete(self.name, points_selector=models.FilterSelector(filter=flt), wait=True)

    def compact_deleted(self) -> None:
        """Nothing to do from the client: ``:memory:`` keeps no files, and a Qdrant server drops deleted points from
        its segments with its own vacuum optimizer (``deleted_threshold``, ``vacuum_min_vector_number``) and from
        its write-ahead log as ``wal_capacity_mb`` rolls over — the server operator's settings."""

    def search(self, vector: np.ndarray, limit: int, flt: VectorFilter) -> list[tuple[str, float]]:
        with self._read_lock:
            res = self._need().query_points(
                self.name,
                query=np.asarray(vector, dtype=np.float32).tolist(),
                query_filter=_client_filter(flt),
                limit=limit,
                with_payload=False,
                with_vectors=False,
            )
        return [(str(p.id), float(p.score)) for p in res.points]

    def search_many(self, vectors: Sequence[np.ndarray], limit: int, flt: VectorFilter) -> list[list[tuple[str, float]]]:
        """Several vectors in one request (``query_batch_points``)."""
        if len(vectors) <= 1:
            return [self.search(vector, limit, flt) for vector in vectors]
        from qdrant_client import models

        query_filter = _client_filter(flt)
        requests = [models.QueryRequest(query=np.asarray(vector, dtype=np.float32).tolist(), filter=query_filter,
                                        limit=limit, with_payload=False, with_vector=False) for vector in vectors]
        with self._read_lock:
            found = self._need().query_batch_points(self.name, requests=requests)
        return [[(str(p.id), float(p.score)) for p in res.points] for res in found]

    def fetch(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        with self._read_lock:
            records = self._need().retrieve(self.name, ids=list(ids), with_payload=False, with_vectors=True)
        return {str(r.id): np.asarray(r.vector, dtype=np.float32) for r in records}

    def iter_points(self, batch_size: int = 1000, with_vectors: bool = True) -> Iterator[list[VectorPoint]]:
        def read_page(offset: Any) -> tuple[Sequence[Any], Any]:
            with self._read_lock:
                return self._need().scroll(  # type: ignore[no-any-return]
                    self.name, limit=batch_size, offset=offset, with_payload=True, with_vectors=with_vectors
                )

        return scrolled_points(read_page, with_vectors)

    def count(self) -> int:
        with self._read_lock:
            return int(self._need().count(self.name, exact=True).count)


def _client_filter(flt: VectorFilter) -> Any:
    from qdrant_client import models

    must: list[Any] = [models.FieldCondition(key="user_id", match=models.MatchValue(value=flt.user_id))]
    if flt.memory_types:
        must.append(models.FieldCondition(key="memory_type", match=models.MatchAny(any=list(flt.memory_types))))
    if flt.session_id is not None:
        must.append(models.FieldCondition(key="session_id", match=models.MatchValue(value=flt.session_id)))
    if flt.tags:
        must.append(models.FieldCondition(key="tags", match=models.MatchAny(any=list(flt.tags))))
    if flt.created_from is not None or flt.created_to is not None:
        must.append(
            models.FieldCondition(key="created_at", range=models.Range(gte=flt.created_from, lte=flt.created_to))
        )
    return models.Filter(must=must)
