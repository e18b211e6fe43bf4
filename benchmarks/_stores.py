"""The stores a benchmark compares, behind one small interface: write a batch, search, report disk, close.

Every store is given the same precomputed vectors (documents and query), so only store time is compared; the
model's own cost is timed once, apart, by the runner. Stores:

- :class:`HermesStore`: ``MemoryProvider`` through its public API, in *continuous* use (``add_many`` per
  session, nothing else) or *bulk* (``add_many`` in large batches, then ``optimize()``);
- :class:`LangGraphSqliteStore`: LangGraph's ``SqliteStore`` with its sqlite-vec index (extra ``[peers]``);
- :class:`NumpyStore`: one float32 matrix per user and a matrix-vector product — the floor.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmarks._common import dir_bytes
from benchmarks._workload import Write

__all__ = ["BenchStore", "HermesInternals", "HermesStore", "LangGraphSqliteStore", "NumpyStore", "StagedEmbedder", "peers_missing"]


class BenchStore(Protocol):
    """What the runner needs from a store under test."""

    name: str
    continuous: bool  # answers questions while it fills (bulk stores answer only after finish())

    def write(self, batch: Write) -> None: ...

    def finish(self) -> None: ...

    def search(self, user: str, query: str, qvec: np.ndarray, k: int, now: int) -> list[str | None]: ...

    def disk_bytes(self) -> int: ...

    def close(self) -> None: ...


class StagedEmbedder:
    """An embedder that hands out vectors staged by the runner: the next documents' rows, and the query vector.

    It lets ``MemoryProvider`` (and LangGraph) run their real write and search paths on vectors computed once.
    """

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim = model_id, dim
        self._rows: deque[np.ndarray] = deque()
        self.query: np.ndarray | None = None

    def stage(self, vectors: np.ndarray) -> None:
        self._rows.extend(vectors)

    def drained(self) -> None:
        if self._rows:
            left = len(self._rows)
            self._rows.clear()
            raise RuntimeError(f"{left} staged vectors were not used: the store embedded fewer texts than written")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) > len(self._rows):
            raise RuntimeError(f"asked to embed {len(texts)} texts with {len(self._rows)} vectors staged")
        return np.stack([self._rows.popleft() for _ in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        if self.query is None:
            raise RuntimeError("no query vector staged")
        return self.query


class HermesInternals:
    """Hermes' raw parts, timed beside search: the engine's own filtered query and the keyword leg alone.

    These reach past the public API (the engine and metadata store objects the provider holds); when the core's
    layout changes they report None and the benchmark prints "n/a" rather than failing.
    """

    def __init__(self, mem: Any) -> None:
        self.engine: Callable[[np.ndarray, str], Any] | None = None
        self.keyword: Callable[[str, str], Any] | None = None
        try:
            from hermes_memory_core.storage.vectors import VectorFilter

            vectors = mem.engine.vectors
            self.engine = lambda qvec, user: vectors.search(qvec, 40, VectorFilter(user))
        except (ImportError, AttributeError):
            pass
        try:
            from hermes_memory_core.text.tokenizer import tokenize_query

            metadata = mem.engine.metadata
            self.keyword = lambda user, query: metadata.keywords.keyword_search(user, tokenize_query(query), 40)
        except (ImportError, AttributeError):
            pass


class HermesStore:
    """``MemoryProvider`` with the default embedded configuration (or ``overrides``, e.g. PostgreSQL metadata).

    Args:
        name: Label in the tables.
        root: Folder for the data directory.
        model_id: The real model's id (recorded by the store like any other).
        dim: Vector dimension.
        bulk: Bulk-load mode: batches of ``bulk_batch`` memories through ``add_many`` (with
            ``embedding_batch_size`` raised to match), ``optimize()`` at :meth:`finish`; no questions before.
        overrides: Extra ``MemoryConfig`` fields.
    """

    def __init__(
        self, name: str, root: Path, model_id: str, dim: int, *, bulk: bool = False, bulk_batch: int = 5000,
        overrides: dict[str, Any] | None = None,
    ) -> None:
        from hermes_memory_core import MemoryConfig, MemoryProvider

        self.name, self.continuous, self.bulk_batch = name, not bulk, bulk_batch
        self.embedder = StagedEmbedder(model_id, dim)
        self.data_dir = root / uuid.uuid4().hex[:8]
        extra = dict(overrides or {})
        if extra.get("metadata_url"):
            extra.setdefault("metadata_schema", f"bench_{uuid.uuid4().hex[:10]}")
        cfg = MemoryConfig(
            data_dir=self.data_dir, vector_dim=dim, embedding_batch_size=1000 if bulk else 64, **extra
        )
        self.mem = MemoryProvider(cfg, embedder=self.embedder)
        self.internals = HermesInternals(self.mem)
        self.keys: dict[str, str] = {}
        self.optimize_s = 0.0
        self._pending: list[Write] = []
        self._pending_n = 0

    def write(self, batch: Write) -> None:
        if not self.continuous:
            self._pending.append(batch)
            self._pending_n += len(batch.texts)
            if self._pending_n >= self.bulk_batch:
                self._flush()
            return
        self._add([batch])

    def _add(self, batches: list[Write]) -> None:
        from hermes_memory_core import MemoryItem

        items = [
            MemoryItem(content=t, user_id=b.user, session_id=b.session, created_at=c)
            for b in batches for t, c in zip(b.texts, b.created_at, strict=True)
        ]
        for b in batches:
            self.embedder.stage(b.vectors)
        ids = self.mem.add_many(items, dialogue=True, trusted=True)  # transcript turns: each session is a dialogue
        self.embedder.drained()
        keys = [k for b in batches for k in b.keys]
        self.keys.update((i, k) for i, k in zip(ids, keys, strict=True) if k is not None)

    def _flush(self) -> None:
        if self._pending:
            self._add(self._pending)
        self._pending, self._pending_n = [], 0

    def finish(self) -> None:
        if not self.continuous:
            self._flush()
            t0 = time.perf_counter()
            self.mem.optimize()
            self.optimize_s = time.perf_counter() - t0

    def search(self, user: str, query: str, qvec: np.ndarray, k: int, now: int) -> list[str | None]:
        self.embedder.query = qvec
        hits = self.mem.search(query, user_id=user, top_k=k, now=now)
        return [self.keys.get(h.id) for h in hits]

    def disk_bytes(self) -> int:
        total = dir_bytes(self.data_dir)
        cfg = self.mem.config
        if cfg.metadata_url is not None:
            import psycopg

            with psycopg.connect(cfg.metadata_url.get_secret_value()) as conn:
                row = conn.execute(
                    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                    "JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = %s AND c.relkind = 'r'",
                    (cfg.metadata_schema,),
                ).fetchone()
            total += int(row[0]) if row else 0
        return total

    def close(self) -> None:
        cfg = self.mem.config
        self.mem.close()
        if cfg.metadata_url is not None:
            import psycopg

            with psycopg.connect(cfg.metadata_url.get_secret_value(), autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{cfg.metadata_schema}" CASCADE')


def _sqlite_module() -> Any:
    """A DB-API sqlite module that can load extensions (sqlite-vec): the standard library's when its build allows
    it, else ``pysqlite3`` (some Python builds, pyenv's among them, leave extension loading out)."""
    if hasattr(sqlite3.connect(":memory:"), "enable_load_extension"):
        return sqlite3
    from pysqlite3 import dbapi2

    return dbapi2


def peers_missing() -> str | None:
    """None when the peer libraries import, else the one line that says what to install."""
    try:
        import sqlite_vec  # noqa: F401
        from langgraph.store.sqlite import SqliteStore  # noqa: F401

        _sqlite_module()
    except ImportError as exc:
        return (f"the peers benchmark needs LangGraph's SqliteStore, sqlite-vec and an SQLite that loads "
                f"extensions ({exc.name} is missing): pip install -e '.[peers]'")
    return None


class LangGraphSqliteStore:
    """LangGraph's ``SqliteStore`` (a file in ``root``, autocommit as ``from_conn_string`` opens it) with its
    sqlite-vec cosine index over the ``text`` field; one namespace ``("memories", user)`` per user. The connection
    comes from :func:`_sqlite_module` (``pysqlite3``'s bundled SQLite where the standard one cannot load
    sqlite-vec)."""

    def __init__(self, name: str, root: Path, dim: int) -> None:
        from langgraph.store.sqlite import SqliteStore

        self.name, self.continuous = name, True
        self.path = root / f"langgraph-{uuid.uuid4().hex[:8]}.sqlite"
        self._conn = _sqlite_module().connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._rows: deque[np.ndarray] = deque()
        self.store = SqliteStore(self._conn, index={"dims": dim, "embed": self._embed, "fields": ["text"]})
        self.store.setup()
        self._filler = 0

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) > len(self._rows):
            raise RuntimeError(f"LangGraph asked to embed {len(texts)} texts with {len(self._rows)} vectors staged")
        return [self._rows.popleft().tolist() for _ in texts]

    def write(self, batch: Write) -> None:
        from langgraph.store.base import PutOp

        self._rows.extend(batch.vectors)
        ops = []
        for key, text, created in zip(batch.keys, batch.texts, batch.created_at, strict=True):
            if key is None:
                self._filler += 1
                key = f"~{self._filler}"
            ops.append(PutOp(("memories", batch.user), key, {"text": text, "created_at": created}))
        self.store.batch(ops)

    def finish(self) -> None:
        return None

    def search(self, user: str, query: str, qvec: np.ndarray, k: int, now: int) -> list[str | None]:
        self._rows.append(qvec)
        items = self.store.search(("memories", user), query=query, limit=k)
        self._rows.clear()
        return [None if it.key.startswith("~") else it.key for it in items]

    def disk_bytes(self) -> int:
        return sum(p.stat().st_blocks * 512 for p in self.path.parent.glob(self.path.name + "*"))

    def close(self) -> None:
        self._conn.close()


class NumpyStore:
    """Per user, a growing float32 matrix of unit vectors; search is one matrix-vector product and a partial
    sort. No persistence, no filters beyond the user: the floor any store is measured against."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.continuous, self.dim = name, True, dim
        self._mat: dict[str, np.ndarray] = {}
        self._n: dict[str, int] = {}
        self._keys: dict[str, list[str | None]] = {}

    def write(self, batch: Write) -> None:
        user, n = batch.user, len(batch.texts)
        mat = self._mat.get(user)
        used = self._n.get(user, 0)
        if mat is None or used + n > len(mat):
            grown = np.empty((max(2 * (used + n), 64), self.dim), dtype=np.float32)
            if mat is not None:
                grown[:used] = mat[:used]
            self._mat[user] = mat = grown
        mat[used : used + n] = batch.vectors
        self._n[user] = used + n
        self._keys.setdefault(user, []).extend(batch.keys)

    def finish(self) -> None:
        return None

    def search(self, user: str, query: str, qvec: np.ndarray, k: int, now: int) -> list[str | None]:
        n = self._n.get(user, 0)
        if n == 0:
            return []
        scores = self._mat[user][:n] @ qvec
        top = np.argpartition(-scores, k - 1)[:k] if n > k else np.arange(n)
        top = top[np.argsort(-scores[top])]
        keys = self._keys[user]
        return [keys[i] for i in top]

    def memory_bytes(self) -> int:
        return sum(m.nbytes for m in self._mat.values())

    def disk_bytes(self) -> int:
        return 0

    def close(self) -> None:
        self._mat.clear()
