"""The engine below the facade: one open store as components with small faces over shared parts.

:class:`MemoryEngine` opens a store (a data directory, or servers) and wires its components; the rooms above it
(recall, sessions, lifecycle, portability) are handed the components they need, never the engine itself:

- :class:`~hermes_memory_core.engine.parts.StoreParts` — what the components share: configuration, clock, both
  stores, session rows, embedder, codec and key, caches, the write lock, open/read-only state;
- :class:`~hermes_memory_core.engine.lookups.Lookups` — finding memories: the search legs, ranking rows, hit
  records, lookups by metadata;
- :class:`~hermes_memory_core.engine.reads.Reads` — memories by id, histories and listings, permanent reads
  checked and logged;
- :class:`~hermes_memory_core.engine.writes.Writes` — the write path with compensation, versions, deletes,
  expiries, tier moves;
- :class:`~hermes_memory_core.engine.erasure.Eraser` — erasure with its lock choreography;
- :class:`~hermes_memory_core.engine.sealing.Sealing` — identity, key, at-rest policy and key rotation;
- :class:`~hermes_memory_core.engine.upkeep.Upkeep` — repair of the two halves, optimisation, counts, meta.

**Read-only** (``read_only``, or an embedded store whose folder cannot be written): the folder's lock is shared
without writing, both stores open without writing (:mod:`~hermes_memory_core.storage.read_only`), writes raise
:class:`~hermes_memory_core.errors.ReadOnlyStoreError`, and nothing is migrated, backfilled or re-sealed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder, load_embedder
from hermes_memory_core.engine.access import AccessBuffer, Languages
from hermes_memory_core.engine.erasure import Eraser
from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.engine.parts import StoreParts, payload
from hermes_memory_core.engine.reads import Reads
from hermes_memory_core.engine.sealing import Sealing
from hermes_memory_core.engine.upkeep import Upkeep
from hermes_memory_core.engine.writes import Writes
from hermes_memory_core.errors import ConfigError, DimensionMismatchError, StorageFullError
from hermes_memory_core.storage.factory import METADATA_FILE, VECTORS_DIR, build_metadata_store, build_vector_store
from hermes_memory_core.storage.lock import DataDirLock
from hermes_memory_core.storage.metadata import MetadataStore
from hermes_memory_core.storage.read_only import ReadOnlyMetadata, folder_writable
from hermes_memory_core.storage.sessions import SessionStore
from hermes_memory_core.storage.swap import recover_swap
from hermes_memory_core.storage.vectors import VectorStore
from hermes_memory_core.trust.at_rest import SealingCodec, adopt_stored_session_ids, sealed_tiers

__all__ = [
    "METADATA_FILE",
    "STORE_FILES",
    "VECTORS_DIR",
    "Eraser",
    "Lookups",
    "MemoryEngine",
    "Reads",
    "Sealing",
    "StoreParts",
    "Upkeep",
    "Writes",
    "build_metadata_store",
    "payload",
]

#: The files of an embedded store in its data directory (what a restore replaces; never the key or the lock).
STORE_FILES = (METADATA_FILE, f"{METADATA_FILE}-wal", f"{METADATA_FILE}-shm", VECTORS_DIR)


class MemoryEngine:
    """One open store (a data directory, or servers), as its components.

    Args:
        config: The configuration.
        embedder: A ready embedder (else built from ``config.embedding_model``).
        vector_store: A ready vector store (else built from ``config.vector_backend``).
        clock: Returns the current Unix time.
        lock: The data directory's lock, already held (a restore hands over its own).

    Attributes:
        parts, lookups, reads, writes, eraser, sealing, upkeep: The components (see the module docstring).
        config: The configuration.
        metadata, vectors, sessions, hot, past_vectors, keys, embedder, write_lock: The shared parts (as
            :class:`StoreParts` holds them), for inspection.

    Raises:
        StoreLockedError: Another process holds the embedded data directory.
        ConfigError: ``data_dir`` is not a usable directory.
        DimensionMismatchError: Model, config and collection disagree on the vector dimension.
        EncryptionKeyError: The store holds sealed content and the key is missing or wrong.
    """

    def __init__(
        self,
        config: MemoryConfig,
        *,
        embedder: Embedder | None = None,
        vector_store: VectorStore | None = None,
        clock: Callable[[], float] = time.time,
        lock: DataDirLock | None = None,
    ) -> None:
        self.config = config
        embedder = embedder or load_embedder(config.embedding_model, config.embedding_threads,
                                             config.embedding_batch_size)
        self.parts = parts = StoreParts(config, embedder, clock)
        if embedder.dim != config.vector_dim:
            raise DimensionMismatchError(
                f"embedding model {embedder.model_id!r} produces {embedder.dim}-dimensional vectors "
                f"but the configuration says vector_dim={config.vector_dim}"
            )
        embedded = config.metadata_url is None or config.vector_backend == "edge"
        parts.read_only = config.read_only or (embedded and not folder_writable(parts.data_dir))
        parts.read_only_reason = "read_only=True" if config.read_only else "its folder cannot be written"
        parts.vectors = vector_store or build_vector_store(config, read_only=parts.read_only)
        if parts.vectors.dim != config.vector_dim:
            raise DimensionMismatchError(
                f"vector store {parts.vectors.name!r} expects {parts.vectors.dim} dimensions but the configuration "
                f"says vector_dim={config.vector_dim}"
            )
        alone = config.vector_backend == "edge" and vector_store is None  # the embedded engine serves one process
        parts.alone = alone  # no other process uses the store while this one has it open
        parts.metadata = build_metadata_store(config, read_only=parts.read_only, alone=alone)
        if parts.read_only:
            parts.metadata = cast(MetadataStore, ReadOnlyMetadata(parts.metadata, parts.read_only_reason))
        parts.codec = SealingCodec(None, sealed_tiers(config.encrypt_at_rest), config.encrypt_at_rest == "all")
        parts.metadata.codec = parts.codec
        parts.sessions = SessionStore(parts.metadata)
        self.access = AccessBuffer(parts)
        self.languages = Languages(parts)
        self.sealing = Sealing(parts)
        self.lookups = Lookups(parts, self.access, self.languages)
        self.reads = Reads(parts, self.lookups)
        self.writes = Writes(parts, self.sealing, self.languages)
        self.eraser = Eraser(parts, self.access, self.languages)
        self.upkeep = Upkeep(parts, self.access)
        # the shared parts, for the facade's own properties and for inspection (tests, the doctor); rooms are
        # handed components, never these
        self.metadata, self.vectors, self.sessions = parts.metadata, parts.vectors, parts.sessions
        self.hot, self.past_vectors, self.keys = parts.hot, parts.past_vectors, parts.keys
        self.embedder, self.write_lock = parts.embedder, parts.write_lock
        self._open(lock)

    def _open(self, lock: DataDirLock | None) -> None:
        """Take the folder's lock (or the one handed over), open both stores, check the identity, load the key and
        apply the at-rest policy; on failure release what was taken."""
        parts, config, alone = self.parts, self.config, self.parts.alone
        try:
            if parts.read_only and lock is None and (alone or config.metadata_url is None):
                parts.lock = DataDirLock(parts.data_dir, shared=True)
                parts.lock.acquire_read_only()
            elif lock is not None:
                parts.lock = lock
                if not alone:
                    lock.share()
            elif alone or config.metadata_url is None:  # SQLite files: shared, unless the vector engine is embedded
                parts.lock = DataDirLock(parts.data_dir, shared=not alone)
                parts.lock.acquire(recover=recover_swap)
            parts.metadata.open()
            self.sealing.load_identity()
            parts.vectors.open()
            if parts.read_only:  # never re-sealed: sessions are looked up in the form the rows hold
                adopt_stored_session_ids(parts.metadata, parts.codec)
            else:
                self.sealing.apply_at_rest_policy()
        except BaseException as exc:
            parts.lock = None if lock is not None else parts.lock  # a lock handed over stays with whoever handed it
            self._release()
            if isinstance(exc, OSError):  # a full disk, else an unusable folder
                raise StorageFullError.from_os_error(exc, parts.data_dir) or ConfigError(
                    f"cannot open the store at {parts.data_dir}: {exc.strerror or exc}") from exc
            raise
        parts.closed = False

    # ------------------------------------------------------------------ state
    @property
    def closed(self) -> bool:
        """Whether the store is closed."""
        return self.parts.closed

    @property
    def read_only(self) -> bool:
        """Whether writes are refused (``read_only``, or a folder that cannot be written)."""
        return self.parts.read_only

    @property
    def read_only_reason(self) -> str:
        """Why writes are refused (when :attr:`read_only`)."""
        return self.parts.read_only_reason

    @property
    def codec(self) -> SealingCodec:
        """The codec as it is now (a key rotation replaces it)."""
        return self.parts.codec

    @property
    def data_dir(self) -> Path:
        """The embedded store's directory."""
        return self.parts.data_dir

    @property
    def location(self) -> str:
        """Where the metadata lives (a file path, or a PostgreSQL URL without password and schema)."""
        return self.parts.location

    @property
    def store_key(self) -> str:
        """Identifies this store within the process (the resolved data directory, or the server collection)."""
        config = self.config
        vectors = (
            str(self.parts.data_dir.resolve())
            if config.vector_backend == "edge"
            else f"{config.qdrant_url}#{config.collection}"
        )
        if config.metadata_url is None:
            meta = str(self.parts.data_dir.resolve())
            return vectors if meta == vectors else f"{vectors}@{meta}"
        return f"{vectors}@{self.parts.metadata.location}"

    def need_open(self) -> None:
        """Raise :class:`~hermes_memory_core.errors.StoreClosedError` once the store is closed."""
        self.parts.need_open()

    def now(self, value: float | None = None) -> int:
        """The current Unix time in seconds (or ``value``, truncated)."""
        return self.parts.now(value)

    # ------------------------------------------------------------------ closing
    def _release(self) -> None:
        parts = self.parts
        parts.model_pool.close()  # calls not started are dropped; a hung one is not waited for
        for closer in (parts.vectors.close, parts.metadata.close):
            with contextlib.suppress(Exception):  # close everything we can
                closer()
        if parts.lock is not None:
            parts.lock.release()
            parts.lock = None

    def close(self) -> None:
        """Write buffered access records, flush both stores and release the data directory. Idempotent."""
        if self.parts.closed:
            return
        with self.parts.write_lock:
            try:
                self.upkeep.flush()
            finally:
                self.parts.closed = True
                self._release()
