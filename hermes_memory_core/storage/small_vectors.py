"""The vectors of a small store: one SQLite file, searched exactly in memory.

The vector engine preallocates its files (about 166 MiB apparent for an empty shard: 32 MiB log segments, vector
chunks and payload pages, 2-4 MiB per payload index), so a store with a handful of memories would weigh that much
to any tool that does not keep files sparse. Until a store holds :data:`SMALL_STORE_MAX_POINTS` points its vectors
live here instead (``vectors/<collection>.sqlite``, about 2 KiB a point); then
:class:`~hermes_memory_core.storage.edge_store.EdgeVectorStore` moves them into a shard once, for good.

Contract (that of :class:`~hermes_memory_core.storage.vectors.VectorStore`):

* a write is committed (SQLite WAL, ``synchronous=NORMAL``: it survives a killed process) when it returns;
* search is exact cosine similarity over the points the filter admits (the engine, too, scans a segment this small
  without an index), vectors normalised when stored as the engine stores them;
* ``secure_delete`` zeroes a deleted point's bytes, and :meth:`compact_deleted` checkpoints the log and rebuilds the
  file, so no file keeps a deleted point;
* a full disk is :class:`~hermes_memory_core.errors.StorageFullError` (SQLite reports it; nothing is memory-mapped,
  so no bus error can happen);
* read-only: the file (and a log a killed writer left) is copied into a private temporary folder and read there;
  writes raise :class:`~hermes_memory_core.errors.ReadOnlyStoreError`.

**Format.** A new file stores each vector as 16-bit floats (``meta`` row ``vector_dtype = float16``: 768 bytes at
384 dimensions instead of 1,536); search reads them widened to 32 bits, so a vector's stored value is the same before
and after a reopen. A file written before that row existed has none and keeps its 32-bit vectors (read and written as
such) for good: the format is the file's, never guessed from a setting.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from hermes_memory_core.busy import BUSY_WAIT_S, retry_while_busy
from hermes_memory_core.errors import (
    ConsistencyError,
    DimensionMismatchError,
    StorageFullError,
    StoreBusyError,
    StoreClosedError,
)
from hermes_memory_core.storage.read_only import PrivateCopy, read_only_error
from hermes_memory_core.storage.sqlite.database import truncate_wal_once
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint

__all__ = ["NEW_VECTOR_DTYPE", "SMALL_STORE_MAX_POINTS", "SmallVectorStore"]

#: Points a store keeps in its small vector file; the next write that would pass it moves them into the engine.
#: Measured by ``benchmarks/store_size.py``: at 10,000 points an exact search here is ~2 ms, the file 21 MiB.
SMALL_STORE_MAX_POINTS = 10_000
#: How a new vector file (and a new engine shard) stores vectors. LoCoMo R@10 with the default model is the same
#: as with 32-bit floats (docs/benchmarks.md, "Chat at scale"); half the bytes.
NEW_VECTOR_DTYPE = "float16"
_DTYPES = {"float16": np.float16, "float32": np.float32}
_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS points (id TEXT PRIMARY KEY, vector BLOB NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _full(exc: BaseException, path: Path) -> StorageFullError | None:
    if isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc):
        return StorageFullError(f"the disk holding {path} is full ({exc}); free some space and try again "
                                "(nothing of this write was stored)")
    return StorageFullError.from_os_error(exc, path)


class SmallVectorStore:
    """A small store's vectors (see the module docstring).

    Args:
        path: The SQLite file (created if missing, unless ``read_only``).
        dim: Vector dimension.
        read_only: Read a private copy; refuse writes.
    """

    def __init__(self, path: Path, dim: int, read_only: bool = False) -> None:
        self.path = Path(path)
        self.dim = dim
        self.read_only = read_only
        self._conn: sqlite3.Connection | None = None
        #: How this file stores vectors (module docstring, "Format"); known once open.
        self.dtype = NEW_VECTOR_DTYPE
        self._copy = PrivateCopy()  # read-only: the file is read from a private copy
        self._lock = threading.RLock()
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._payloads: list[dict[str, Any]] = []
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._created = np.zeros(0, dtype=np.float64)  # per row, for range filters without a Python loop
        self._types = np.zeros(0, dtype=np.int16)  # per row: code of its memory_type (see _type_codes)
        self._type_codes: dict[str, int] = {}
        self._by_user: dict[str, set[int]] = {}
        self._user_rows: dict[str, np.ndarray] = {}  # sorted rows of a user, built at a search, dropped on change

    # ----------------------------------------------------------------- lifecycle
    def open(self) -> None:
        source = self.path
        if self.read_only:
            source = self._copy.make() / self.path.name
            if self.path.exists():
                for suffix in ("", "-wal"):
                    if (self.path.parent / (self.path.name + suffix)).exists():
                        shutil.copyfile(self.path.parent / (self.path.name + suffix),
                                        source.parent / (source.name + suffix))
        try:
            if not self.read_only:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                self.path.touch(mode=0o600)  # private whatever the umask (the data directory's rule)
            conn = sqlite3.connect(str(source), isolation_level=None, check_same_thread=False, timeout=5.0)
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "secure_delete=ON", "busy_timeout=5000"):
                conn.execute(f"PRAGMA {pragma}")
            conn.executescript(_SCHEMA)
            stored = conn.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()
            if stored is None:  # a new file: this version's format
                conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                                 [("dim", str(self.dim)), ("vector_dtype", NEW_VECTOR_DTYPE)])
            elif int(stored[0]) != self.dim:
                conn.close()
                raise DimensionMismatchError(
                    f"the vectors at {self.path} are {stored[0]}-dimensional but the configuration says "
                    f"vector_dim={self.dim}; use a matching embedding model or a new data_dir")
            dtype = conn.execute("SELECT value FROM meta WHERE key = 'vector_dtype'").fetchone()
            self.dtype = str(dtype[0]) if dtype is not None else "float32"  # (no row: a file from before the flag)
            if self.dtype not in _DTYPES:
                conn.close()
                raise ConsistencyError(f"the vectors at {self.path} are stored as {self.dtype!r}, a format this "
                                       "version cannot read; upgrade hermes-memory")
            rows = conn.execute("SELECT id, vector, payload FROM points ORDER BY rowid").fetchall()
        except (sqlite3.OperationalError, OSError, DimensionMismatchError, ConsistencyError) as exc:
            self._copy.discard()
            if isinstance(exc, DimensionMismatchError | ConsistencyError):
                raise
            full = _full(exc, self.path)
            if full is not None:
                raise full from exc
            raise
        self._conn = conn
        self._load(rows)

    def _load(self, rows: Sequence[tuple[str, bytes, str]]) -> None:
        self._ids, self._row, self._payloads, self._by_user, self._user_rows = [], {}, [], {}, {}
        self._matrix = np.zeros((max(len(rows), 16), self.dim), dtype=np.float32)
        self._created = np.zeros(self._matrix.shape[0], dtype=np.float64)
        self._types = np.zeros(self._matrix.shape[0], dtype=np.int16)
        for i, (pid, blob, raw) in enumerate(rows):
            self._matrix[i] = np.frombuffer(blob, dtype=_DTYPES[self.dtype])
            self._add_row(i, pid, json.loads(raw))

    def _add_row(self, i: int, pid: str, payload: dict[str, Any]) -> None:
        if i == len(self._ids):
            self._ids.append(pid)
            self._payloads.append(payload)
        else:
            self._ids[i], self._payloads[i] = pid, payload
        self._row[pid] = i
        self._by_user.setdefault(str(payload.get("user_id")), set()).add(i)
        self._user_rows.pop(str(payload.get("user_id")), None)
        self._created[i] = float(payload.get("created_at") or 0)
        self._types[i] = self._type_codes.setdefault(str(payload.get("memory_type")), len(self._type_codes))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._copy.discard()

    def flush(self) -> None:
        """Every write is committed when it returns; nothing to do."""
        self._need()

    def optimize(self) -> None:
        """Exact search needs no index; nothing to do."""
        self._need(write=True)

    def _need(self, write: bool = False) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosedError("the vector store is not open")
        if write and self.read_only:
            raise read_only_error(self.path, "change the vectors")
        return self._conn

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._need(write=True)
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            full = _full(exc, self.path)
            if full is not None:
                raise full from exc
            raise

    # ----------------------------------------------------------------- writes
    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        vectors = np.asarray([p.vector for p in points], dtype=np.float32).reshape(len(points), self.dim)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        # stored as the file's format keeps them; held widened, so search sees the stored values
        stored = (vectors / np.where(norms == 0, 1.0, norms)).astype(_DTYPES[self.dtype])
        vectors = stored.astype(np.float32)
        with self._lock:
            with self._write() as conn:
                conn.executemany(
                    "INSERT INTO points (id, vector, payload) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "vector = excluded.vector, payload = excluded.payload",
                    [(p.id, vec.tobytes(), json.dumps(p.payload)) for p, vec in zip(points, stored, strict=True)],
                )
            for p, vec in zip(points, vectors, strict=True):
                i = self._row.get(p.id)
                if i is not None:
                    self._unindex(i)
                else:
                    i = len(self._ids)
                    if i == self._matrix.shape[0]:
                        self._matrix = np.concatenate([self._matrix, np.zeros_like(self._matrix)])
                        self._created = np.concatenate([self._created, np.zeros_like(self._created)])
                        self._types = np.concatenate([self._types, np.zeros_like(self._types)])
                self._matrix[i] = vec
                self._add_row(i, p.id, dict(p.payload))

    def _unindex(self, i: int) -> None:
        user = str(self._payloads[i].get("user_id"))
        self._by_user.get(user, set()).discard(i)
        self._user_rows.pop(user, None)

    def _remove(self, pid: str) -> None:
        """Take a point out of memory (the last row moves into its place)."""
        i = self._row.pop(pid, None)
        if i is None:
            return
        self._unindex(i)
        last = len(self._ids) - 1
        if i != last:
            moved = self._ids[last]
            self._unindex(last)
            self._matrix[i] = self._matrix[last]
            self._add_row(i, moved, self._payloads[last])  # its created/type columns follow in _add_row
        self._ids.pop()
        self._payloads.pop()

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with self._lock:
            with self._write() as conn:
                conn.executemany("DELETE FROM points WHERE id = ?", [(i,) for i in ids])
            for pid in ids:
                self._remove(pid)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        with self._lock:
            known = [i for i in ids if i in self._row]
            if not known:
                return
            merged = {pid: {**self._payloads[self._row[pid]], **payload} for pid in known}
            with self._write() as conn:
                conn.executemany("UPDATE points SET payload = ? WHERE id = ?",
                                 [(json.dumps(p), pid) for pid, p in merged.items()])
            for pid, p in merged.items():
                i = self._row[pid]
                self._unindex(i)
                self._add_row(i, pid, p)

    def delete_user(self, user_id: str) -> None:
        with self._lock:
            doomed = [self._ids[i] for i in self._by_user.get(user_id, set())]
            self.delete(doomed)

    def compact_deleted(self) -> None:
        """Rebuild the file and empty its log: no byte of a deleted point stays (``secure_delete`` zeroed it).

        The rebuild runs at once; emptying the log waits while another connection (a ``sqlite3`` shell, a backup)
        holds a read transaction on the file, for :data:`~hermes_memory_core.busy.BUSY_WAIT_S` seconds at most
        in all, this store's lock free between tries (other writes go on).

        Raises:
            StoreBusyError: The reader still held the file then, so the log still holds old page images; the
                erasure that asked stays recorded and the next open or ``reconcile()`` finishes it.
        """
        with self._lock:
            self._sqlite(lambda conn: conn.execute("VACUUM"))
        retry_while_busy(self._empty_log)

    def _empty_log(self) -> None:
        """One try at checkpointing and truncating the log, without waiting for a busy reader."""
        with self._lock:
            if self._sqlite(truncate_wal_once):
                raise StoreBusyError(f"a reader of {self.path} kept its write-ahead log busy for {BUSY_WAIT_S:g} s; "
                                     "the rewrite is left for reconcile() or the next open")

    def _sqlite(self, step: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run one step on the write connection; a full disk is :class:`StorageFullError`."""
        try:
            return step(self._need(write=True))
        except sqlite3.OperationalError as exc:
            full = _full(exc, self.path)
            if full is not None:
                raise full from exc
            raise

    # ----------------------------------------------------------------- reads
    def _rows(self, flt: VectorFilter) -> np.ndarray:
        """The rows the filter admits, in row order (column arrays first, payloads only for session and tags)."""
        rows = self._user_rows.get(flt.user_id)
        if rows is None:
            rows = np.fromiter(self._by_user.get(flt.user_id, ()), dtype=np.int64)
            rows.sort()
            self._user_rows[flt.user_id] = rows
        if flt.memory_types:
            codes = [self._type_codes[t] for t in flt.memory_types if t in self._type_codes]
            rows = rows[np.isin(self._types[rows], codes)]
        if flt.created_from is not None:
            rows = rows[self._created[rows] >= float(flt.created_from)]
        if flt.created_to is not None:
            rows = rows[self._created[rows] <= float(flt.created_to)]
        if flt.session_id is not None or flt.tags:
            tags = set(flt.tags or ())
            rows = np.asarray([i for i in rows.tolist()
                               if (flt.session_id is None or self._payloads[i].get("session_id") == flt.session_id)
                               and (not tags or tags & set(self._payloads[i].get("tags") or ()))], dtype=np.int64)
        return rows

    def search(self, vector: np.ndarray, limit: int, flt: VectorFilter) -> list[tuple[str, float]]:
        return self.search_many([vector], limit, flt)[0]

    def search_many(self, vectors: Sequence[np.ndarray], limit: int, flt: VectorFilter) -> list[list[tuple[str, float]]]:
        """The filter's rows are found once for every vector (each vector's list is :meth:`search`'s for it)."""
        with self._lock:
            self._need()
            rows = self._rows(flt)
            if rows.size == 0 or limit <= 0:
                return [[] for _ in vectors]
            return [self._nearest(vector, rows, limit) for vector in vectors]

    def _nearest(self, vector: np.ndarray, rows: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` rows among ``rows`` nearest ``vector``, best first (the lock held)."""
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        query = query / (norm or 1.0)
        # one pass over the contiguous matrix (at most SMALL_STORE_MAX_POINTS rows) beats gathering the rows
        scores = (self._matrix[: len(self._ids)] @ query)[rows]
        top = np.argpartition(-scores, limit - 1)[:limit] if rows.size > limit else np.arange(rows.size)
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self._ids[rows[k]], float(scores[k])) for k in top]

    def fetch(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        with self._lock:
            self._need()
            return {pid: self._matrix[self._row[pid]].copy() for pid in ids if pid in self._row}

    def iter_points(self, batch_size: int = 1000, with_vectors: bool = True) -> Iterator[list[VectorPoint]]:
        with self._lock:
            self._need()
            snapshot = [(pid, self._matrix[i].copy() if with_vectors else np.zeros(0, dtype=np.float32),
                         dict(self._payloads[i])) for i, pid in enumerate(self._ids)]
        for start in range(0, len(snapshot), batch_size):
            yield [VectorPoint(pid, vec, payload) for pid, vec, payload in snapshot[start:start + batch_size]]

    def count(self) -> int:
        with self._lock:
            self._need()
            return len(self._ids)
