"""Vector store on Qdrant's in-process engine (``qdrant-edge-py``): the embedded default.

Real payload indexes, HNSW, a write-ahead log, tens of thousands of inserts per second and sub-millisecond
filtered queries (docs/design.md#engines). The shard lives in ``<data_dir>/vectors/<collection>``; a small
``hermes_collection.json`` beside its files records the dimension so a mismatch is caught at open time.

**A full disk.** The engine memory-maps sparse, preallocated files (32 MiB write-ahead-log segments, vector chunks
and payload pages); a page it first touches on a full disk is a bus error that kills the process (SIGBUS, no
message). So the shard is created and written only while its folder's filesystem has at least
:data:`MIN_FREE_BYTES` free; below that, :class:`~hermes_memory_core.errors.StorageFullError` says so and nothing
is touched. On tmpfs a page is allocated even when it is only read, and loading a shard reads its preallocated
files (measured: a reopen took a store from 11 to 69 MiB real): there an existing shard opens only when the
filesystem can hold every page its files may still fault in (their holes) plus :data:`MIN_FREE_BYTES`. A shard whose creation a full disk cut short (no sidecar yet: no point was ever written to it) is
created again at the next open.

**Small stores** keep their vectors in one SQLite file instead
(:class:`~hermes_memory_core.storage.small_vectors.SmallVectorStore`, ``<collection>.sqlite`` beside the shard's
folder) until they hold :data:`~hermes_memory_core.storage.small_vectors.SMALL_STORE_MAX_POINTS` points: an empty
shard alone is ~166 MiB apparent. The write that would pass that builds the shard in place with every point, a
marker (``<collection>.growing``) beside it until the last point is flushed, then removes the small file; a crash
before the marker is gone leaves the small file in charge (the half-built shard is removed at the next open), one
after it the shard (the stale small file is removed). A store written before small stores existed has a shard
and keeps it.

**Format.** A new shard keeps 16-bit float vectors (sidecar ``"datatype": "float16"``); one whose sidecar names none
holds 32-bit ones, loads and searches as it did, and its rewrites keep them; a shard grown from a small file takes
that file's format (the engine keeps a shard's datatype in its own config).

**Read-only.** The engine cannot load a shard without writing to it (it opens its payload pages read-write: on
read-only media the load fails with ``Read-only file system``). A read-only store (``read_only=True``, or a folder
that cannot be written) is therefore searched from a private copy: the shard's folder is copied, holes kept
(:func:`~hermes_memory_core.storage.read_only.sparse_copy`), into a ``0700`` folder under the system's temporary
directory (``TMPDIR``), loaded from there and removed at :meth:`EdgeVectorStore.close`. The store's own files are
never opened for writing. The copy costs the shard's *real* size in the temporary folder and its copy time at open
(``benchmarks/store_size.py`` measures both); writes are refused with
:class:`~hermes_memory_core.errors.ReadOnlyStoreError`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hermes_memory_core.errors import (
    ConsistencyError,
    DimensionMismatchError,
    HermesMemoryError,
    StorageFullError,
    StoreClosedError,
    StoreLockedError,
)
from hermes_memory_core.storage.read_only import PrivateCopy, read_only_error, sparse_copy
from hermes_memory_core.storage.small_vectors import NEW_VECTOR_DTYPE, SMALL_STORE_MAX_POINTS, SmallVectorStore
from hermes_memory_core.storage.vectors import (
    PAYLOAD_INDEXES,
    VectorFilter,
    VectorPoint,
    checked_vector,
    scrolled_points,
)

__all__ = ["MIN_FREE_BYTES", "EdgeVectorStore", "free_bytes"]

#: Free space the shard's filesystem must have before the engine touches its files. Measured on a 30 MiB tmpfs:
#: creating a shard and writing batches of 64 memories faults in at most a few MiB at a time (one new page of each
#: payload index, the next pages of the log, vectors and payloads); 16 MiB leaves room for that and for SQLite to
#: undo the batch's metadata rows.
MIN_FREE_BYTES = 16 * 2**20

_SIDECAR = "hermes_collection.json"
#: Written last into a rewritten shard: the rewrite is complete and may replace the live one.
_COMPLETE = "hermes_rewrite_complete"


class EdgeVectorStore:
    """A :class:`~hermes_memory_core.storage.vectors.VectorStore` on one Qdrant Edge shard.

    Args:
        path: Folder of the shard (created if missing).
        dim: Vector dimension from the config.
        name: Collection name (recorded in the sidecar and in export manifests).
        read_only: Never write the shard's files: search a private copy, refuse writes (module docstring).
        small_max: Points a new store keeps in its small vector file before they move into a shard.
    """

    def __init__(self, path: str | Path, dim: int, name: str = "hermes_memories", read_only: bool = False,
                 small_max: int = SMALL_STORE_MAX_POINTS) -> None:
        self.path = Path(path)
        self.dim = dim
        self.name = name
        self.read_only = read_only
        self._shard: Any = None
        self._copy = PrivateCopy()  # the private copy a read-only shard is loaded from
        self._small: SmallVectorStore | None = None  # a small store's vectors (no shard yet)
        self.small_path = self.path.with_name(self.path.name + ".sqlite")
        self.small_max = small_max
        #: How its vectors are kept, known once open (module docstring, "Format").
        self.dtype = NEW_VECTOR_DTYPE
        self._lock = threading.RLock()

    # ----------------------------------------------------------------- lifecycle
    def _create(self, path: Path) -> Any:
        """A new empty shard at ``path`` with our payload indexes and the sidecar recording its dimension."""
        import qdrant_edge as qe

        path.mkdir(parents=True, exist_ok=True)
        datatype = qe.VectorStorageDatatype.Float16 if self.dtype == "float16" else qe.VectorStorageDatatype.Float32
        cfg = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=self.dim, distance=qe.Distance.Cosine,
                                                        datatype=datatype))
        shard = qe.EdgeShard.create(str(path), cfg)
        for field_name, kind in PAYLOAD_INDEXES.items():
            schema: Any
            if field_name == "user_id":
                schema = qe.KeywordIndexParams(is_tenant=True)
            elif kind == "integer":
                schema = qe.PayloadSchemaType.Integer
            else:
                schema = qe.PayloadSchemaType.Keyword
            shard.update(qe.UpdateOperation.create_field_index(field_name, schema))
        shard.flush()
        tmp = path / (_SIDECAR + ".tmp")
        tmp.write_text(json.dumps({"dim": self.dim, "distance": "cosine", "name": self.name, "datatype": self.dtype}),
                       "utf-8")
        tmp.replace(path / _SIDECAR)
        return shard

    @property
    def _rewrite_path(self) -> Path:
        return self.path.with_name(self.path.name + ".rewrite")

    @property
    def _old_path(self) -> Path:
        return self.path.with_name(self.path.name + ".old")

    def _recover_rewrite(self) -> None:
        """Finish or undo a :meth:`compact_deleted` a killed process left between its steps."""
        new, old = self._rewrite_path, self._old_path
        if old.exists() and not self.path.exists():
            if (new / _COMPLETE).exists():
                new.rename(self.path)
            else:
                old.rename(self.path)
        if old.exists():
            shutil.rmtree(old)
        if new.exists():
            shutil.rmtree(new)
        (self.path / _COMPLETE).unlink(missing_ok=True)

    def open(self) -> None:
        import qdrant_edge as qe

        if self._shard is not None or self._small is not None:  # already open (a restore hands its store over)
            return
        sidecar = self.path / _SIDECAR
        if self.read_only:  # (a shard still being built when its writer died: the small file holds every point)
            if sidecar.exists() and not self.path.with_name(self.path.name + _GROWING).exists():
                self._open_copy()
            else:
                self._open_small()
            return
        _finish_rewrite(self.path)
        growing = self.path.with_name(self.path.name + _GROWING)
        if growing.exists():  # a move into a shard cut short: the small file still holds every point
            shutil.rmtree(self.path, ignore_errors=True)
            growing.unlink()
        try:
            self._recover_rewrite()
            if not sidecar.exists() and self.path.exists():  # a creation cut short: no point was ever written
                shutil.rmtree(self.path)
        except OSError as exc:
            raise StorageFullError.from_os_error(exc, self.path) or ConsistencyError(
                f"cannot open the vector store at {self.path}: {exc}") from exc
        if not sidecar.exists():
            self._open_small()
            return
        try:
            self._remove_small_files()  # a move into the shard finished: the small file is stale
            self.check_space(loading=True)  # before the engine maps a file: a full disk would be a bus error
            stored = json.loads(sidecar.read_text(encoding="utf-8"))
            self.dtype = str(stored.get("datatype", "float32"))
            if int(stored["dim"]) != self.dim:
                raise DimensionMismatchError(
                    f"vector collection {self.name!r} at {self.path} holds {stored['dim']}-dimensional "
                    f"vectors but the configuration says vector_dim={self.dim}; use a matching embedding "
                    "model or a new data_dir"
                )
            self._shard = qe.EdgeShard.load(str(self.path))
        except (DimensionMismatchError, StorageFullError):
            raise
        except Exception as exc:  # the engine raises a bare Exception
            full = StorageFullError.from_os_error(exc, self.path)
            if full is not None:
                raise full from exc
            if "WAL" in str(exc) or "WouldBlock" in str(exc):
                raise StoreLockedError(
                    f"the vector shard at {self.path} is open in another process; an embedded store serves "
                    "one process — use server mode (vector_backend='qdrant', qdrant_url=...) to share it"
                ) from exc
            raise ConsistencyError(f"cannot open the vector shard at {self.path}: {exc}") from exc

    def _open_small(self) -> None:
        small = SmallVectorStore(self.small_path, self.dim, read_only=self.read_only)
        small.open()
        self._small = small
        self.dtype = small.dtype  # the shard it may grow into keeps its format

    def _remove_small_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            self.small_path.with_name(self.small_path.name + suffix).unlink(missing_ok=True)

    def _grow(self, points: list[Any]) -> None:
        """Move a small store's points, and ``points``, into a new shard (module docstring). The shard is built in
        place and kept open (loading it again would fault in every preallocated page on tmpfs)."""
        import qdrant_edge as qe

        small = self._small
        assert small is not None
        self.check_space()
        marker = self.path.with_name(self.path.name + _GROWING)
        shard: Any = None
        try:
            marker.write_text("a shard is being built from the small vector file", "utf-8")
            shard = self._create(self.path)
            for batch in small.iter_points(batch_size=1000, with_vectors=True):
                shard.update(qe.UpdateOperation.upsert_points(
                    [qe.Point(id=p.id, vector=p.vector.tolist(), payload=p.payload) for p in batch]))
            shard.update(qe.UpdateOperation.upsert_points(points))
            shard.flush()
            marker.unlink()
        except BaseException as exc:
            if shard is not None:
                with contextlib.suppress(Exception):
                    shard.close()
            shutil.rmtree(self.path, ignore_errors=True)
            marker.unlink(missing_ok=True)
            full = StorageFullError.from_os_error(exc, self.path) if isinstance(exc, Exception) else None
            if full is not None:
                raise full from exc
            raise
        small.close()
        self._small = None
        self._remove_small_files()
        self._shard = shard

    def _open_copy(self) -> None:
        """Load the shard read-only: from a private, sparse copy (the engine writes to what it loads)."""
        import qdrant_edge as qe

        sidecar = self.path / _SIDECAR
        copy = self._copy.make()
        shard = copy / "shard"
        try:
            if sidecar.exists():
                stored = json.loads(sidecar.read_text(encoding="utf-8"))
                if int(stored["dim"]) != self.dim:
                    raise DimensionMismatchError(
                        f"vector collection {self.name!r} at {self.path} holds {stored['dim']}-dimensional vectors "
                        f"but the configuration says vector_dim={self.dim}"
                    )
                sparse_copy(self.path, shard)
                self._shard = qe.EdgeShard.load(str(shard))
            else:  # no point was ever written: an empty shard stands in
                self._shard = self._create(shard)
        except BaseException as exc:
            self._copy.discard()
            if isinstance(exc, HermesMemoryError) or not isinstance(exc, Exception):
                raise
            full = StorageFullError.from_os_error(exc, copy)
            if full is not None:
                raise full from exc
            raise ConsistencyError(f"cannot open the vector shard at {self.path} read-only: {exc}") from exc

    def _need(self, write: bool = False) -> Any:
        if self._shard is None:
            raise StoreClosedError("the vector store is not open")
        if write:
            if self.read_only:
                raise read_only_error(self.path, "change the vectors")
            self.check_space()
        return self._shard

    def check_space(self, loading: bool = False) -> None:
        """Raise :class:`StorageFullError` unless the shard's filesystem has the room the engine may fault in:
        :data:`MIN_FREE_BYTES`, plus the holes of its files when ``loading`` on a filesystem that allocates read
        pages (tmpfs)."""
        free = free_bytes(self.path)
        if free is None:
            return
        needed = MIN_FREE_BYTES + (_holes(self.path) if loading and _allocates_on_read(self.path) else 0)
        if free < needed:
            raise StorageFullError(
                f"the disk holding {self.path} has {free / 2**20:.1f} MiB free; the vector engine needs "
                f"{needed / 2**20:.0f} MiB free to {'open' if loading else 'write'} safely. Free some space and "
                "try again (nothing was written)"
            )

    def close(self) -> None:
        with self._lock:
            if self._small is not None:
                self._small.close()
                self._small = None
            if self._shard is not None:
                try:
                    self._shard.flush()
                finally:
                    self._shard.close()
                    self._shard = None
                    self._copy.discard()

    def flush(self) -> None:
        with self._lock:
            if self._small is not None:
                self._small.flush()
                return
            self._need().flush()

    def optimize(self) -> None:
        """Run the engine's optimizers (builds HNSW once the data is large enough)."""
        with self._lock:
            if self._small is not None:
                self._small.optimize()
                return
            self._need(write=True).optimize()

    def compact_deleted(self) -> None:
        """Rewrite the shard with its live points only, so no file keeps a deleted point.

        Qdrant Edge marks a deleted point in its segment and keeps the operations in its write-ahead log (32 MiB
        segments reused in place); its vacuum optimizer rewrites segments but leaves the log. So the live points
        are copied into a fresh shard beside this one (``<collection>.rewrite``), which then takes this one's place
        (``<collection>.old`` is removed). Each step is recoverable: :meth:`open` finishes or undoes a swap a
        killed process left half done. Takes time proportional to the collection. A small store rewrites its file
        itself, this store's lock free, since it may wait for a reader of the file
        (:meth:`SmallVectorStore.compact_deleted`).
        """
        import qdrant_edge as qe

        with self._lock:
            small = self._small
        if small is not None:
            try:
                small.compact_deleted()
            except StoreClosedError:
                if self._small is small:
                    raise
                self.compact_deleted()  # its points moved into the engine meanwhile: rewrite that
            return
        with self._lock:
            if self._small is not None:  # a small store took the engine's place meanwhile
                return
            shard = self._need(write=True)
            shard.flush()
            indexed = int(shard.info().indexed_vectors_count) > 0
            new = self._rewrite_path
            if new.exists():
                shutil.rmtree(new)
            fresh = self._create(new)
            try:
                offset: Any = None
                while True:
                    records, offset = shard.scroll(
                        qe.ScrollRequest(offset=offset, limit=1000, with_payload=True, with_vector=True)
                    )
                    if records:
                        fresh.update(qe.UpdateOperation.upsert_points(
                            [qe.Point(id=r.id, vector=r.vector, payload=dict(r.payload or {})) for r in records]
                        ))
                    if offset is None:
                        break
                if indexed:
                    fresh.optimize()
                fresh.flush()
            finally:
                fresh.close()
            (new / _COMPLETE).write_text("1", "utf-8")
            shard.close()
            self._shard = None
            self.path.rename(self._old_path)
            new.rename(self.path)
            (self.path / _COMPLETE).unlink()
            shutil.rmtree(self._old_path)
            self._shard = qe.EdgeShard.load(str(self.path))

    # ----------------------------------------------------------------- writes
    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        import qdrant_edge as qe

        batch = [qe.Point(id=p.id, vector=checked_vector(p, self.dim), payload=p.payload) for p in points]
        with self._lock:
            if self._small is not None:
                new = len({p.id for p in points} - set(self._small.fetch([p.id for p in points])))
                if self._small.count() + new <= self.small_max:
                    self._small.upsert(points)
                    return
                if self.read_only:
                    raise read_only_error(self.path, "change the vectors")
                self._grow(batch)
                return
            self._need(write=True).update(qe.UpdateOperation.upsert_points(batch))

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        import qdrant_edge as qe

        with self._lock:
            if self._small is not None:
                self._small.delete(ids)
                return
            self._need(write=True).update(qe.UpdateOperation.delete_points(list(ids)))

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if not ids:
            return
        import qdrant_edge as qe

        with self._lock:
            if self._small is not None:
                self._small.set_payload(ids, payload)
                return
            self._need(write=True).update(qe.UpdateOperation.set_payload(list(ids), payload))

    def delete_user(self, user_id: str) -> None:
        import qdrant_edge as qe

        flt = qe.Filter(must=[qe.FieldCondition(key="user_id", match=qe.MatchValue(user_id))])
        with self._lock:
            if self._small is not None:
                self._small.delete_user(user_id)
                return
            self._need(write=True).update(qe.UpdateOperation.delete_points_by_filter(flt))

    # ----------------------------------------------------------------- reads
    def search(self, vector: np.ndarray, limit: int, flt: VectorFilter) -> list[tuple[str, float]]:
        return self.search_many([vector], limit, flt)[0]

    def search_many(self, vectors: Sequence[np.ndarray], limit: int, flt: VectorFilter) -> list[list[tuple[str, float]]]:
        """Several vectors are one planned batch for the shard (``query_batch``: one pass over its segments)."""
        import qdrant_edge as qe

        if (small := self._small) is not None or not vectors:
            return [] if small is None else small.search_many(vectors, limit, flt)
        edge_filter = _edge_filter(qe, flt)
        reqs = [qe.QueryRequest(limit=limit, query=qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist()),
                                filter=edge_filter, with_payload=False, with_vector=False) for vector in vectors]
        with self._lock:
            shard = self._need()
            found = [shard.query(reqs[0])] if len(reqs) == 1 else shard.query_batch(qe.QueryBatchRequest(reqs))
        return [[(str(p.id), float(p.score)) for p in points] for points in found]

    def fetch(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        with self._lock:
            if self._small is not None:
                return self._small.fetch(ids)
            records = self._need().retrieve(list(ids), with_payload=False, with_vector=True)
        return {str(r.id): np.asarray(r.vector, dtype=np.float32) for r in records}

    def iter_points(self, batch_size: int = 1000, with_vectors: bool = True) -> Iterator[list[VectorPoint]]:
        import qdrant_edge as qe

        if self._small is not None:
            yield from self._small.iter_points(batch_size, with_vectors)
            return

        def read_page(offset: Any) -> tuple[Sequence[Any], Any]:
            req = qe.ScrollRequest(offset=offset, limit=batch_size, with_payload=True, with_vector=with_vectors)
            with self._lock:
                return self._need().scroll(req)  # type: ignore[no-any-return]

        yield from scrolled_points(read_page, with_vectors)

    def count(self) -> int:
        with self._lock:  # not during a compact_deleted swap
            if self._small is not None:
                return self._small.count()
            return int(self._need().info().points_count)

    def rewrite(self, payload_for: Callable[[VectorPoint], dict[str, Any]]) -> None:
        """Rebuild the shard with every point's payload replaced by ``payload_for(point)``.

        The engine appends payload changes to its log and pages, so an old payload stays in the files after an
        update; a rewrite leaves only the new ones. The new shard is built beside the old one and swapped in
        (a crash in between is finished or undone at the next open).
        """
        if self._small is not None:
            with self._lock:
                for batch in self._small.iter_points(batch_size=1000, with_vectors=True):
                    self._small.upsert([VectorPoint(p.id, p.vector, payload_for(p)) for p in batch])
                self._small.compact_deleted()
                return
        self._need(write=True)
        fresh = self.path.with_name(self.path.name + _REWRITE)
        shutil.rmtree(fresh, ignore_errors=True)
        other = EdgeVectorStore(fresh, self.dim, self.name)
        other.dtype = self.dtype
        other._shard = other._create(fresh)  # a shard, however few its points (open() would start a small store)
        try:
            for batch in self.iter_points(batch_size=1000, with_vectors=True):
                other.upsert([VectorPoint(p.id, p.vector, payload_for(p)) for p in batch])
        finally:
            other.close()
        (fresh / _COMPLETE).write_text("ok", encoding="utf-8")
        with self._lock:
            self.close()
            self.path.rename(self.path.with_name(self.path.name + _OLD))
            _finish_rewrite(self.path)
            self.open()


_REWRITE, _OLD, _COMPLETE = ".rewrite", ".old", "REWRITE_COMPLETE"
#: Beside a shard being built from a small store's file (removed once every point is in it).
_GROWING = ".growing"


def _finish_rewrite(path: Path) -> None:
    """Finish (or undo) a :meth:`EdgeVectorStore.rewrite` a crash interrupted."""
    fresh, old = path.with_name(path.name + _REWRITE), path.with_name(path.name + _OLD)
    if fresh.exists() and (fresh / _COMPLETE).exists() and not path.exists():
        fresh.rename(path)
    (path / _COMPLETE).unlink(missing_ok=True)
    if old.exists() and not path.exists():
        old.rename(path)  # the rewrite never completed: the old shard goes back
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.rmtree(old, ignore_errors=True)


def _edge_filter(qe: Any, flt: VectorFilter) -> Any:
    must: list[Any] = [qe.FieldCondition(key="user_id", match=qe.MatchValue(flt.user_id))]
    if flt.memory_types:
        must.append(qe.FieldCondition(key="memory_type", match=qe.MatchAny(list(flt.memory_types))))
    if flt.session_id is not None:
        must.append(qe.FieldCondition(key="session_id", match=qe.MatchValue(flt.session_id)))
    if flt.tags:
        must.append(qe.FieldCondition(key="tags", match=qe.MatchAny(list(flt.tags))))
    if flt.created_from is not None or flt.created_to is not None:
        gte = None if flt.created_from is None else float(flt.created_from)
        lte = None if flt.created_to is None else float(flt.created_to)
        must.append(qe.FieldCondition(key="created_at", range=qe.RangeFloat(gte=gte, lte=lte)))
    return qe.Filter(must=must)


def free_bytes(path: Path) -> int | None:
    """Bytes free to unprivileged users on the filesystem of ``path`` (or its nearest existing folder); None when
    it cannot be told or the filesystem is read-only (nothing can be written there: not a full disk)."""
    for folder in (path, *path.parents):
        if folder.exists():
            try:
                st = os.statvfs(folder)
            except OSError:
                return None
            return None if st.f_flag & os.ST_RDONLY else st.f_bavail * st.f_frsize
    return None


def _holes(folder: Path) -> int:
    """Bytes of the files under ``folder`` that are not allocated yet (sparse regions)."""
    total = 0
    for p in folder.rglob("*") if folder.is_dir() else ():
        with contextlib.suppress(OSError):
            st = p.lstat()
            if p.is_file():
                total += max(0, st.st_size - st.st_blocks * 512)
    return total


#: Filesystems that allocate a page of a shared file mapping when it is first read.
_READ_ALLOCATING = ("tmpfs", "shmem", "ramfs")


def _allocates_on_read(path: Path) -> bool:
    """Whether the filesystem holding ``path`` (per ``/proc/self/mountinfo``) allocates pages on read faults."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
        target = str(next(p for p in (path, *path.parents) if p.exists()).resolve())
    except (OSError, StopIteration):
        return False
    best, kind = "", ""
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        point = fields[4].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, right.split()[0]
    return kind in _READ_ALLOCATING
