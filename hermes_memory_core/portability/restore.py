"""Restoring a bundle: lock the target, verify bundle and key, stage a new store from the bundle's rows, swap.

Order, and what each step guarantees:

1. **Lock** — the target's exclusive lock (the data directory's ``hermes.lock``, or PostgreSQL's in-use lock): a
   restore never replaces a store another process has open (:class:`~hermes_memory_core.errors.StoreLockedError`).
2. **Copy and verify** — the bundle's files are first copied into a private scratch folder (each read once,
   links refused); everything after reads only that copy, so a file swapped in the bundle folder after the check
   is never used. Then every file against the manifest, the signature when ``bundle_signing_key`` is set, the SQLite
   file's schema (no trigger, view or unknown object), and the key: the target's key must be the bundle's.
3. **Stage** — a fresh store built from the bundle's *rows* (never its file): an embedded store in a scratch folder
   inside the data directory, a server store inside one open transaction. Every permanent memory must be sealed
   and everything sealed must open under the target's key; the keyword index is rebuilt under it; vector payloads
   are rebuilt from the rows. Every active memory's text passes the injection guard like any write (a bundle
   holding a flagged memory is refused, naming it), unless the caller passed ``trusted=True``.
4. **Swap** — the staged files replace the old ones through a journal (a crash is finished or undone at the next
   open), and become final once the new store has opened; a server store commits its transaction.

Any failure before the swap leaves the target exactly as it was (its files, rows and vectors); the lock file a
restore created in a folder that had none is removed again.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder, load_embedder
from hermes_memory_core.engine import (
    METADATA_FILE,
    STORE_FILES,
    VECTORS_DIR,
    MemoryEngine,
    build_metadata_store,
    payload,
)
from hermes_memory_core.errors import BundleError, EncryptionKeyError, HermesMemoryError, StoreLockedError
from hermes_memory_core.portability.bundle import private_copy, read_points, verify_bundle
from hermes_memory_core.portability.rows import copy_rows, fresh_file, sealed_row_problems
from hermes_memory_core.storage.factory import build_vector_store
from hermes_memory_core.storage.lock import LOCK_NAME, DataDirLock
from hermes_memory_core.storage.sqlite import migrations
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.storage.swap import STAGING_PREFIX, finish_swap, new_scratch, recover_swap, swap_in
from hermes_memory_core.storage.vectors import VectorPoint, VectorStore
from hermes_memory_core.trust.at_rest import SealingCodec, sealed_tiers
from hermes_memory_core.trust.encryption import ContentCipher, generate_key, write_key_file
from hermes_memory_core.trust.keys import KEY_CHECK, KEY_FILE, KeyManager
from hermes_memory_core.trust.write_guard import injection_reason
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["restore_bundle"]

#: Entries of a data directory that are not a store (an empty target may hold them).
_NOT_A_STORE = (LOCK_NAME, KEY_FILE, KEY_FILE + ".new")


def restore_bundle(
    bundle: Path,
    config: MemoryConfig,
    overwrite: bool,
    embedder: Embedder | None,
    vector_store: VectorStore | None,
    clock: Callable[[], float],
    trusted: bool = False,
) -> MemoryEngine:
    """Restore ``bundle`` into the store ``config`` names; returns the open engine (see the module docstring).

    ``trusted=True`` skips the injection guard on the bundle's memories (a vetted import); every other check runs.

    Raises:
        StoreLockedError: Another process has the target open.
        BundleError: The bundle is incomplete, altered, unsigned (where signatures are required), unsafe, for
            another model or dimension, or its rows do not open under the target's key; or the target is not
            empty and ``overwrite`` is False.
        EncryptionKeyError: The bundle holds sealed memories and the target's key is missing or another.
    """
    emb = embedder or load_embedder(config.embedding_model, config.embedding_threads, config.embedding_batch_size)
    if config.metadata_url is not None:
        return _restore_into_server(Path(bundle), config, overwrite, emb, vector_store, clock, trusted)
    return _restore_into_directory(Path(bundle), config, overwrite, emb, vector_store, clock, trusted)


# ---------------------------------------------------------------------- verify
class _Plan:
    """What verification settled: the manifest, the target's codec, and a key this restore creates (with
    ``encrypt_at_rest="all"`` and no key yet) with the file it goes to."""

    def __init__(self, manifest: dict[str, Any], codec: SealingCodec, new_key: tuple[bytes, Path] | None) -> None:
        self.manifest = manifest
        self.codec = codec
        self.new_key = new_key
        self.trusted = False

    def write_key(self) -> None:
        if self.new_key is not None:
            write_key_file(self.new_key[1], self.new_key[0])

    def forget_key(self) -> None:
        if self.new_key is not None:
            self.new_key[1].unlink(missing_ok=True)


def _bundle_meta(db: Path, key: str) -> str | None:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)) as conn:
        row = conn.execute("SELECT value FROM memory_meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _verify(bundle: Path, config: MemoryConfig, emb: Embedder, shown: Path | None = None) -> _Plan:
    """Check the bundle and that the target's key is the bundle's; nothing is written. Errors name the bundle as
    ``shown`` (the folder the user gave, not its private copy)."""
    named = bundle if shown is None else shown
    secret = config.bundle_signing_key.get_secret_value() if config.bundle_signing_key is not None else None
    manifest = verify_bundle(bundle, config.vector_dim, emb.model_id, secret)
    keys = KeyManager(config.encryption_key, config.encryption_key_file, Path(config.data_dir))
    key = keys.configured_key()
    check = _bundle_meta(bundle / "metadata.sqlite", KEY_CHECK)
    if check is not None and key is None:
        raise EncryptionKeyError(
            f"the bundle {named} holds encrypted memories and the target has no key: give the key of the store it "
            "came from as a file (encryption_key_file, on the command line --key-file FILE) or as a value "
            "(encryption_key, or HERMES_MEMORY_ENCRYPTION_KEY); nothing was written"
        )
    if check is not None and key is not None and not ContentCipher(key).verify(check):
        raise EncryptionKeyError(
            f"the target's encryption key is not the key of the bundle {named} (the store it came from used "
            "another); nothing was written"
        )
    new_key = None
    if key is None and config.encrypt_at_rest == "all":  # every row will be sealed: the target needs a key now
        key = generate_key()
        new_key = (key, keys.key_file)
    codec = SealingCodec(None if key is None else ContentCipher(key), sealed_tiers(config.encrypt_at_rest),
                         config.encrypt_at_rest == "all")
    return _Plan(manifest, codec, new_key)


# ---------------------------------------------------------------------- rows
def _settle_rows(conn: Any, store: Any, plan: _Plan, config: MemoryConfig, emb: Embedder) -> dict[str, dict[str, Any]]:
    """Inside the staging transaction: check the rows against the key, record the target's identity, rebuild the
    keyword index. Returns the vector payloads rebuilt from the rows (active memories only)."""
    problems = sealed_row_problems(conn, plan.codec)
    if problems:
        raise BundleError(
            "the bundle's rows do not open under the target's key (" + "; ".join(problems)
            + "); a permanent memory must be sealed with the store's key. Nothing was written"
        )
    flagged = [] if plan.trusted else _guard_problems(conn, plan.codec)
    if flagged:
        raise BundleError(
            "the bundle holds memories the injection guard refuses (" + "; ".join(flagged)
            + "); nothing was written (restore a vetted bundle with trusted=True)"
        )
    identity = [("vector_dim", str(config.vector_dim)), ("embedding_model", emb.model_id),
                ("collection", config.collection), ("keyword_index_rebuild", "0")]
    if plan.new_key is not None and plan.codec.cipher is not None:
        identity.append((KEY_CHECK, plan.codec.cipher.check_value()))
    # the target's identity, not the bundle's say; the policy is applied again when the store opens
    for key in (*(k for k, _v in identity), "at_rest"):
        conn.execute("DELETE FROM memory_meta WHERE key = ?", (key,))
    for key, value in identity:
        conn.execute("INSERT INTO memory_meta (key, value) VALUES (?, ?)", (key, value))
    store.keywords.repair_keyword_index()
    return _payloads(conn, plan.codec)


def _guard_problems(conn: Any, codec: SealingCodec, limit: int = 3) -> list[str]:
    """Active memories whose text the injection guard flags, as ``memory <id>: <reason>`` (at most ``limit``)."""
    problems: list[str] = []
    for memory_id, content in conn.execute("SELECT id, content FROM memory_entries WHERE is_active = 1").fetchall():
        reason = injection_reason(codec.open(memory_id, content))
        if reason is not None:
            problems.append(f"memory {memory_id}: {reason}")
            if len(problems) >= limit:
                break
    return problems


def _payloads(conn: Any, codec: SealingCodec) -> dict[str, dict[str, Any]]:
    tags: dict[str, list[str]] = {}
    for memory_id, tag in conn.execute("SELECT memory_id, tag FROM memory_tags").fetchall():
        tags.setdefault(memory_id, []).append(tag)
    out: dict[str, dict[str, Any]] = {}
    for memory_id, user, session, tier, created, version, metadata in conn.execute(
        "SELECT id, user_id, session_id, memory_type, created_at, version, metadata FROM memory_entries "
        "WHERE is_active = 1"
    ).fetchall():
        _meta, sealed = codec.unpack_metadata(memory_id, metadata)
        labels = tuple(sealed) if sealed is not None else tuple(sorted(tags.get(memory_id, ())))
        rec = MemoryRecord(memory_id, user, codec.session_of(session), "", MemoryType(tier), 0.5, 0, int(created), int(created), None,
                           int(version), labels, {})
        out[memory_id] = payload(rec, codec)
    return out


def _stage_sqlite(bundle: Path, path: Path, plan: _Plan, config: MemoryConfig, emb: Embedder) -> dict[str, Any]:
    """A new SQLite store at ``path`` with the bundle's rows, migrated and checked."""
    source = bundle / "metadata.sqlite"
    with contextlib.closing(sqlite3.connect(f"file:{source}?mode=ro&immutable=1", uri=True)) as src:
        names = migrations.applied(src)
    with contextlib.closing(fresh_file(path, names)) as dst:
        copy_rows(dst, source, None)
    store = SQLiteMetadataStore(path)
    store.codec = plan.codec
    store.open()  # the migrations since the bundle was written, and the schema check
    try:
        with store.atomic() as conn:
            return _settle_rows(conn, store, plan, config, emb)
    finally:
        store.close()


# ---------------------------------------------------------------------- vectors
def _points(bundle: Path, payloads: dict[str, dict[str, Any]], config: MemoryConfig) -> Iterator[list[VectorPoint]]:
    """The bundle's vectors of active memories, with payloads from the rows (never the bundle's own payloads)."""
    vectors = np.load(bundle / "vectors.npy", allow_pickle=False, mmap_mode="r")
    batch: list[VectorPoint] = []
    for i, row in enumerate(read_points(bundle / "points.jsonl")):
        body = payloads.get(row["id"])
        if body is None or (body["memory_type"] == MemoryType.PERMANENT.value and not config.permanent_vectors):
            continue
        batch.append(VectorPoint(row["id"], np.asarray(vectors[i], dtype=np.float32), body))
        if len(batch) == 1000:
            yield batch
            batch = []
    if batch:
        yield batch


def _load(store: VectorStore, points: Iterator[list[VectorPoint]]) -> None:
    for batch in points:
        store.upsert(batch)
    store.flush()


class _Replaced:
    """Vectors replaced in place (a vector server, or a store handed in), with what it takes to put them back."""

    def __init__(self, store: VectorStore, scratch: Path) -> None:
        self.store = store
        self.backup = scratch / "replaced-points.jsonl"
        self.count = 0

    def replace(self, points: Iterator[list[VectorPoint]]) -> None:
        with self.backup.open("w", encoding="utf-8") as fh:
            for batch in self.store.iter_points(batch_size=1000, with_vectors=True):
                for p in batch:
                    vec = np.asarray(p.vector, dtype=np.float32).tolist()
                    fh.write(json.dumps({"id": p.id, "payload": p.payload, "vector": vec}) + "\n")
                    self.count += 1
        self._clear()
        _load(self.store, points)

    def _clear(self) -> None:
        stale = [p.id for batch in self.store.iter_points(with_vectors=False) for p in batch]
        for start in range(0, len(stale), 1000):
            self.store.delete(stale[start : start + 1000])

    def undo(self) -> None:
        """Put the replaced points back (a restore that failed after replacing them)."""
        self._clear()
        with self.backup.open("r", encoding="utf-8") as fh:
            batch = []
            for line in fh:
                row = json.loads(line)
                batch.append(VectorPoint(row["id"], np.asarray(row["vector"], dtype=np.float32), row["payload"]))
                if len(batch) == 1000:
                    self.store.upsert(batch)
                    batch = []
            self.store.upsert(batch)
        self.store.flush()


def _stage_vectors(
    bundle: Path, payloads: dict[str, Any], config: MemoryConfig, vector_store: VectorStore | None, staging: Path,
) -> tuple[VectorStore | None, _Replaced | None]:
    """Load the bundle's vectors: into a staged embedded shard (swapped in with the store) or, for a vector server
    or a store handed in, in place with a backup. Returns the store to hand the engine and the undo."""
    from hermes_memory_core.storage.edge_store import EdgeVectorStore

    if config.vector_backend == "edge" and vector_store is None:
        shard = EdgeVectorStore(staging / VECTORS_DIR / config.collection, config.vector_dim, config.collection)
        shard.open()
        try:
            _load(shard, _points(bundle, payloads, config))
        finally:
            shard.close()
        return None, None
    store = vector_store or build_vector_store(config)
    store.open()
    replaced = _Replaced(store, staging)
    try:
        replaced.replace(_points(bundle, payloads, config))
    except BaseException:
        with contextlib.suppress(Exception):
            replaced.undo()
        raise
    return store, replaced


# ---------------------------------------------------------------------- targets
def _has_store(data_dir: Path) -> bool:
    return data_dir.is_dir() and any(
        p.name not in _NOT_A_STORE and not p.name.startswith(STAGING_PREFIX) for p in data_dir.iterdir()
    )


def _failed(exc: BaseException) -> BaseException:
    if isinstance(exc, HermesMemoryError) or not isinstance(exc, Exception):
        return exc
    return BundleError(f"restore failed and was undone, the target is as it was: {exc}")


def _restore_into_directory(
    bundle: Path, config: MemoryConfig, overwrite: bool, emb: Embedder, vector_store: VectorStore | None,
    clock: Callable[[], float], trusted: bool,
) -> MemoryEngine:
    data_dir = Path(config.data_dir)
    existed = data_dir.exists()
    lock = DataDirLock(data_dir)
    try:
        lock.acquire(recover=recover_swap)
    except StoreLockedError as exc:
        raise StoreLockedError(f"cannot restore into {data_dir}, which is open: {exc}") from None
    staging: Path | None = None
    replaced: _Replaced | None = None
    plan: _Plan | None = None
    swapped = False
    copied: Path | None = None
    try:
        copied = new_scratch(data_dir, "bundle")
        given, bundle = bundle, private_copy(bundle, copied / "bundle")  # from here on only the copy is read
        plan = _verify(bundle, config, emb, given)
        plan.trusted = trusted
        if _has_store(data_dir) and not overwrite:
            raise BundleError(f"restore target {data_dir} is not empty; pass overwrite=True (on the command line: "
                              "hermes-memory restore --overwrite) to replace its store")
        staging = new_scratch(data_dir, "stage")
        payloads = _stage_sqlite(bundle, staging / METADATA_FILE, plan, config, emb)
        handed, replaced = _stage_vectors(bundle, payloads, config, vector_store, staging)
        plan.write_key()
        swap_in(data_dir, staging, STORE_FILES)
        swapped = True
        engine = MemoryEngine(config, embedder=emb, vector_store=handed, clock=clock, lock=lock)
        finish_swap(data_dir)
        shutil.rmtree(copied, ignore_errors=True)
        return engine
    except BaseException as exc:
        if copied is not None:
            shutil.rmtree(copied, ignore_errors=True)
        if swapped:
            recover_swap(data_dir)  # not final yet: the old files go back
        if replaced is not None:
            with contextlib.suppress(Exception):
                replaced.undo()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if plan is not None:
            plan.forget_key()
        lock.release(remove_if_created=True)
        if not existed:
            with contextlib.suppress(OSError):
                data_dir.rmdir()
        err = _failed(exc)
        if err is exc:
            raise
        raise err from exc


def _restore_into_server(
    bundle: Path, config: MemoryConfig, overwrite: bool, emb: Embedder, vector_store: VectorStore | None,
    clock: Callable[[], float], trusted: bool,
) -> MemoryEngine:
    """Into PostgreSQL: the rows are replaced, checked and indexed in one transaction that commits last."""
    copied = Path(tempfile.mkdtemp(prefix=".hermes-bundle-"))  # 0700: only this account reads the copy
    try:
        bundle = private_copy(bundle, copied / "bundle")
        plan = _verify(bundle, config, emb)
    except BaseException:
        shutil.rmtree(copied, ignore_errors=True)
        raise
    plan.trusted = trusted
    try:
        return _into_server(bundle, plan, config, overwrite, emb, vector_store, clock)
    finally:
        shutil.rmtree(copied, ignore_errors=True)


def _into_server(
    bundle: Path, plan: _Plan, config: MemoryConfig, overwrite: bool, emb: Embedder, vector_store: VectorStore | None,
    clock: Callable[[], float],
) -> MemoryEngine:
    store = build_metadata_store(config)
    store.codec = plan.codec
    store.open()
    data_dir = Path(config.data_dir)
    own_vectors = config.vector_backend == "edge" and vector_store is None
    lock = DataDirLock(data_dir) if own_vectors else None
    scratch = Path(tempfile.mkdtemp(prefix=".hermes-restore-"))
    replaced: _Replaced | None = None
    handed: VectorStore | None = None
    staging = scratch
    try:
        if lock is not None:
            lock.acquire(recover=recover_swap)
        with store.exclusive():  # type: ignore[attr-defined]
            if not store.is_empty() and not overwrite:
                raise BundleError(
                    f"restore target {store.location} is not empty; pass overwrite=True (on the command line: "
                    "hermes-memory restore --overwrite) to replace its store"
                )
            with store.atomic() as conn:
                store.load_bundle(bundle / "metadata.sqlite")  # type: ignore[attr-defined]
                payloads = _settle_rows(conn, store, plan, config, emb)
                staging = new_scratch(data_dir, "stage") if own_vectors else scratch
                handed, replaced = _stage_vectors(bundle, payloads, config, vector_store, staging)
                plan.write_key()
            if own_vectors:
                swap_in(data_dir, staging, (VECTORS_DIR,))
                finish_swap(data_dir)
        store.close()
        return MemoryEngine(config, embedder=emb, vector_store=handed, clock=clock, lock=lock)
    except BaseException as exc:
        if replaced is not None:
            with contextlib.suppress(Exception):
                replaced.undo()
        store.close()
        if staging != scratch:
            shutil.rmtree(staging, ignore_errors=True)
        if lock is not None:
            lock.release(remove_if_created=True)
        err = _failed(exc)
        if err is exc:
            raise
        raise err from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
