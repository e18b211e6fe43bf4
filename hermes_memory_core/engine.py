"""The engine below the facade: one store's metadata, vectors, embedder, key and hot cache, and the write path.

:class:`MemoryEngine` owns every resource of a store and the rules that keep its two halves consistent:

- **Writes** go metadata first, then vectors; if the vector write fails, the metadata rows are removed again
  (compensation) and :class:`~hermes_memory_core.errors.ConsistencyError` says nothing was stored (a
  ``StorageFullError``, ``KeyboardInterrupt`` or ``SystemExit`` passes on as it is, after the same compensation).
  :meth:`~hermes_memory_core.engine_ops.EngineOperations.repair_halves` (``reconcile``) repairs whatever a crash
  between the two left behind.
- **Permissions**: reads and writes of permanent memories are checked against the caller and logged.
- **At rest**: content of permanent memories is sealed by the :class:`~hermes_memory_core.trust.at_rest.SealingCodec`
  the engine hands its metadata store; PII is redacted before long-term content is stored.
- **Access counts** of search hits are buffered and written in batches (:meth:`flush_access`).
- **Read-only** (``read_only``, or an embedded store whose folder cannot be written): the folder's lock is shared
  without writing, both stores open without writing (:mod:`~hermes_memory_core.storage.read_only`), writes raise
  :class:`~hermes_memory_core.errors.ReadOnlyStoreError`, and nothing is migrated, backfilled or re-sealed.

The rooms above it (search, sessions, lifecycle, portability) use this class and the intent-level operations it
takes from :class:`~hermes_memory_core.engine_ops.EngineOperations`, not its parts; it imports none of them.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from hermes_memory_core import validation as v
from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder, load_embedder
from hermes_memory_core.engine_ops import EngineOperations, payload
from hermes_memory_core.errors import (
    ConfigError,
    ConsistencyError,
    DimensionMismatchError,
    EmbeddingError,
    HermesMemoryError,
    NotFoundError,
    PermissionDeniedError,
    StorageFullError,
    StoreClosedError,
)
from hermes_memory_core.llm import ModelPool
from hermes_memory_core.storage.factory import METADATA_FILE, VECTORS_DIR, build_metadata_store, build_vector_store
from hermes_memory_core.storage.hot_cache import HotCache, VersionVectors
from hermes_memory_core.storage.lock import DataDirLock
from hermes_memory_core.storage.metadata import AccessRecord, MetadataStore, NewMemory
from hermes_memory_core.storage.read_only import ReadOnlyMetadata, folder_writable, read_only_error
from hermes_memory_core.storage.sessions import SessionStore
from hermes_memory_core.storage.swap import recover_swap
from hermes_memory_core.storage.vectors import VectorPoint, VectorStore, retag_points
from hermes_memory_core.text.language import LanguageProfile, language_of
from hermes_memory_core.text.perspective import embedding_text
from hermes_memory_core.trust.at_rest import SealingCodec, adopt_stored_session_ids, reseal_for_policy, sealed_tiers
from hermes_memory_core.trust.keys import KeyManager
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.trust.redaction import CREDENTIAL_KINDS, Redactor, log_redactions
from hermes_memory_core.types import CONVERSATION_KIND, AccessAction, MemoryItem, MemoryRecord, MemoryType

__all__ = ["METADATA_FILE", "VECTORS_DIR", "MemoryEngine", "build_metadata_store", "payload"]

#: The files of an embedded store in its data directory (what a restore replaces; never the key or the lock).
STORE_FILES = (METADATA_FILE, f"{METADATA_FILE}-wal", f"{METADATA_FILE}-shm", VECTORS_DIR)
_PERMANENT = MemoryType.PERMANENT.value


class MemoryEngine(EngineOperations):
    """One open store (a data directory, or servers).

    Args:
        config: The configuration.
        embedder: A ready embedder (else built from ``config.embedding_model``).
        vector_store: A ready vector store (else built from ``config.vector_backend``).
        clock: Returns the current Unix time.
        lock: The data directory's lock, already held (a restore hands over its own).

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
        self.clock = clock
        self.data_dir = Path(config.data_dir)
        self.closed = True
        self.write_lock = threading.RLock()
        self.hot = HotCache(config.hot_cache_size)
        self.past_vectors = VersionVectors()  # embeddings of past versions (as-of search)
        self.keys = KeyManager(config.encryption_key, config.encryption_key_file, self.data_dir)
        self._redactor = Redactor(config.redact_kinds) if config.redact_pii else None
        self._access_lock = threading.Lock()
        self._access_buffer: list[AccessRecord] = []
        self._access_flushing = False
        self._languages: dict[str, set[str]] = {}  # embedded store: languages each user's memories are in
        self._lock: DataDirLock | None = None
        self._profile: LanguageProfile | None = None
        self._profile_lock = threading.Lock()
        self.model_pool = ModelPool(name="hermes-llm")  # this store's model calls; closed with it
        self.embedder = embedder or load_embedder(config.embedding_model, config.embedding_threads,
                                                  config.embedding_batch_size)
        if self.embedder.dim != config.vector_dim:
            raise DimensionMismatchError(
                f"embedding model {self.embedder.model_id!r} produces {self.embedder.dim}-dimensional vectors "
                f"but the configuration says vector_dim={config.vector_dim}"
            )
        embedded = config.metadata_url is None or config.vector_backend == "edge"
        self.read_only = config.read_only or (embedded and not folder_writable(self.data_dir))
        self.read_only_reason = "read_only=True" if config.read_only else "its folder cannot be written"
        self.vectors: VectorStore = vector_store or build_vector_store(config, read_only=self.read_only)
        if self.vectors.dim != config.vector_dim:
            raise DimensionMismatchError(
                f"vector store {self.vectors.name!r} expects {self.vectors.dim} dimensions but the configuration "
                f"says vector_dim={config.vector_dim}"
            )
        alone = config.vector_backend == "edge" and vector_store is None  # the embedded engine serves one process
        self.alone = alone  # no other process uses the store while this one has it open
        self.metadata: MetadataStore = build_metadata_store(config, read_only=self.read_only, alone=alone)
        if self.read_only:
            self.metadata = cast(MetadataStore, ReadOnlyMetadata(self.metadata, self.read_only_reason))
        self.codec = SealingCodec(None, sealed_tiers(config.encrypt_at_rest), config.encrypt_at_rest == "all")
        self.metadata.codec = self.codec
        self.sessions = SessionStore(self.metadata)
        try:
            if self.read_only and lock is None and (alone or config.metadata_url is None):
                self._lock = DataDirLock(self.data_dir, shared=True)
                self._lock.acquire_read_only()
            elif lock is not None:
                self._lock = lock
                if not alone:
                    lock.share()
            elif alone or config.metadata_url is None:  # SQLite files: shared, unless the vector engine is embedded
                self._lock = DataDirLock(self.data_dir, shared=not alone)
                self._lock.acquire(recover=recover_swap)
            self.metadata.open()
            self.load_identity()
            self.vectors.open()
            if self.read_only:  # never re-sealed: sessions are looked up in the form the rows hold
                adopt_stored_session_ids(self.metadata, self.codec)
            else:
                self._apply_at_rest_policy()
        except BaseException as exc:
            self._lock = None if lock is not None else self._lock  # a lock handed over stays with whoever handed it
            self._release()
            if isinstance(exc, OSError):  # a full disk, else an unusable folder
                raise StorageFullError.from_os_error(exc, self.data_dir) or ConfigError(
                    f"cannot open the store at {self.data_dir}: {exc.strerror or exc}") from exc
            raise
        self.closed = False

    # ------------------------------------------------------------------ identity and key
    def load_identity(self) -> None:
        """Check the store's recorded model and dimension, load its key, and finish a pending index rebuild."""
        self._check_store_identity()
        self.codec.cipher = self.keys.load(self.metadata)
        if self.read_only:
            return
        if self.metadata.get_meta("language_backfill") == "1":  # set by the migration that added languages
            while batch := self.metadata.missing_languages(1000):
                self.metadata.set_languages([(mid, language_of(text)) for mid, text in batch])
            self.metadata.set_meta("language_backfill", "0")
        if self.metadata.get_meta("keyword_index_rebuild") == "1":  # set by a migration or a server bundle
            self.metadata.repair_keyword_index()
            self.metadata.set_meta("keyword_index_rebuild", "0")

    def language_profile(self) -> LanguageProfile:
        """The embedder's language profile (background sentences and language means that calibrate dense scores):
        shipped for the default model, else built once from the shipped corpus (a few seconds, then cached)."""
        with self._profile_lock:
            if self._profile is None:
                shipped = LanguageProfile.for_model(self.embedder.model_id)
                self._profile = shipped if shipped is not None else LanguageProfile.build(self.embedder)
            return self._profile

    def _check_store_identity(self) -> None:
        """A store remembers the model and dimension it was built with; reopening with others is an error."""
        stored_dim = self.metadata.get_meta("vector_dim")
        stored_model = self.metadata.get_meta("embedding_model")
        if stored_dim is None:
            self.metadata.set_meta("vector_dim", str(self.config.vector_dim))
            self.metadata.set_meta("embedding_model", self.embedder.model_id)
            self.metadata.set_meta("collection", self.config.collection)
            return
        if int(stored_dim) != self.config.vector_dim:
            raise DimensionMismatchError(
                f"the store at {self.location} was built with vector_dim={stored_dim} but the configuration says "
                f"vector_dim={self.config.vector_dim}"
            )
        if stored_model != self.embedder.model_id:
            raise DimensionMismatchError(
                f"the store at {self.location} was embedded with {stored_model!r}; the configured model is "
                f"{self.embedder.model_id!r}. Vectors of two models are not comparable: use the original model "
                "or export and re-import into a new store."
            )

    def _apply_at_rest_policy(self) -> None:
        """Re-seal the store once when ``encrypt_at_rest`` differs from what its rows were written with (no old form left)."""
        with self.write_lock:
            if reseal_for_policy(self.metadata, self.sessions, self.codec, self.config.encrypt_at_rest, self.ensure_key) \
                    and (self.vectors.count() or self.metadata.counts()["versions"]):  # else a new, empty store
                self.metadata.optimize_keyword_index()  # merges away index entries of the old form
                self.refresh_payload_tags(rewrite=True)

    def refresh_payload_tags(self, rewrite: bool = False) -> None:
        """Bring vector payloads' tags and session ids to the codec's current form (after a re-seal or key rotation)."""
        records = [rec for batch in self.metadata.iter_active() for rec in batch]
        tags = {rec.id: self.codec.tag_keys(rec.memory_type.value, rec.tags) for rec in records}
        sessions = {rec.id: self.codec.session_key(rec.user_id, rec.session_id) for rec in records}
        retag_points(self.vectors, tags, rewrite, sessions)

    def ensure_key(self) -> None:
        """Before the first sealed write: create the key (file) and the store's check value if needed."""
        if self.read_only:
            raise read_only_error(self.location, "write sealed memories", self.read_only_reason)
        self.codec.cipher = self.keys.ensure(self.metadata, self.codec.cipher)

    def rotate_key(self, new_key: bytes, save_to: Path | None = None) -> None:
        """Re-seal everything sealed under ``new_key`` in one transaction (the caller checked permission); the new
        key is durably handed over first (see :meth:`KeyManager.rotate`)."""
        with self.write_lock:
            self.ensure_key()
            self.codec = self.keys.rotate(self.metadata, self.sessions, self.codec, new_key, save_to)
            self.metadata.codec = self.codec
            self.hot.clear()
            self.refresh_payload_tags()  # keyed-hash tags follow the key

    # ------------------------------------------------------------------ lifecycle
    @property
    def location(self) -> str:
        """Where the metadata lives (a file path, or a PostgreSQL URL without password and schema)."""
        return self.metadata.location

    @property
    def store_key(self) -> str:
        """Identifies this store within the process (the resolved data directory, or the server collection)."""
        vectors = (
            str(self.data_dir.resolve())
            if self.config.vector_backend == "edge"
            else f"{self.config.qdrant_url}#{self.config.collection}"
        )
        if self.config.metadata_url is None:
            meta = str(self.data_dir.resolve())
            return vectors if meta == vectors else f"{vectors}@{meta}"
        return f"{vectors}@{self.metadata.location}"

    def now(self, value: float | None = None) -> int:
        """The current Unix time in seconds (or ``value``, truncated)."""
        return int(self.clock() if value is None else value)

    def need_open(self) -> None:
        """Raise :class:`StoreClosedError` once the store is closed."""
        if self.closed:
            raise StoreClosedError("this MemoryProvider is closed")

    def _release(self) -> None:
        self.model_pool.close()  # calls not started are dropped; a hung one is not waited for
        for closer in (self.vectors.close, self.metadata.close):
            with contextlib.suppress(Exception):  # close everything we can
                closer()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def close(self) -> None:
        """Write buffered access records, flush both stores and release the data directory. Idempotent."""
        if self.closed:
            return
        with self.write_lock:
            try:
                self.flush()
            finally:
                self.closed = True
                self._release()

    def flush(self) -> None:
        """Write buffered access records and make vector writes durable."""
        with self.write_lock:
            self.flush_access()
            self.vectors.flush()

    # ------------------------------------------------------------------ writes
    def new_record(self, item: MemoryItem, now: int, memory_id: str | None = None) -> MemoryRecord:
        """Validate one item into its record (redacted where configured; a short-term one that is no conversation
        memory lives ``short_term_ttl_seconds``)."""
        cfg = self.config
        content = v.check_content(item.content, cfg.max_content_chars)
        memory_type = v.check_memory_type(item.memory_type)
        metadata = v.check_metadata(item.metadata, cfg.max_metadata_bytes)
        content, found = self.redact(content, memory_type)
        if found:
            metadata["pii_redacted"] = found
        created = v.check_timestamp(item.created_at, "created_at")
        created = now if created is None else created
        lasting = memory_type is not MemoryType.SHORT_TERM or metadata.get("kind") == CONVERSATION_KIND
        expires = None if lasting else created + cfg.short_term_ttl_seconds
        return MemoryRecord(
            id=memory_id or str(uuid.uuid4()),
            user_id=v.check_user_id(item.user_id),
            session_id=v.check_session_id(item.session_id),
            content=content,
            memory_type=memory_type,
            importance=v.check_importance(item.importance, cfg.default_importance),
            access_count=0,
            created_at=created,
            updated_at=created,
            expires_at=expires,
            version=1,
            tags=tuple(dict.fromkeys(self.redact(t, memory_type)[0] for t in v.check_tags(item.tags, cfg.max_tags))),
            metadata=metadata,
        )

    def redact(self, content: str, memory_type: MemoryType) -> tuple[str, dict[str, int]]:
        """Content with PII replaced by placeholders where the config redacts this tier (every tier loses
        credentials: :data:`~hermes_memory_core.trust.redaction.CREDENTIAL_KINDS`), and what was found."""
        if self._redactor is None:
            return content, {}
        result = self._redactor.redact(content, None if memory_type.value in self.config.redact_tiers else CREDENTIAL_KINDS)
        if not result.text.strip():
            return content, {}
        return result.text, result.found

    def redact_text(self, text: str) -> str:
        """Any text with PII replaced by placeholders (unchanged when ``redact_pii`` is off)."""
        if self._redactor is None:
            return text
        result = self._redactor.redact(text)
        return result.text if result.found else text

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts, checking the result's shape; any failure is an :class:`EmbeddingError`."""
        try:
            vectors = self.embedder.embed_documents(texts)
        except HermesMemoryError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        if getattr(vectors, "shape", None) != (len(texts), self.config.vector_dim):
            raise EmbeddingError(
                f"embedder returned shape {getattr(vectors, 'shape', None)}, expected ({len(texts)}, "
                f"{self.config.vector_dim})"
            )
        return vectors

    def _store(self, records: Sequence[MemoryRecord], vectors: np.ndarray, dialogue: bool) -> None:
        """The metadata rows and the vector points, the points written inside the rows' open transaction: if
        they fail, the rows roll back (which needs no disk space, so a full disk cannot leave a row that was
        reported unstored); if they or the rows' commit fail, the points written are taken back (any a full disk
        keeps are found by no search, and ``reconcile()`` removes them)."""
        with self.write_lock:
            self.need_open()
            if any(self.codec.seals(r.memory_type.value) for r in records):
                self.ensure_key()
            rows = [NewMemory(r, dialogue and _takes_context(r), language_of(r.content)) for r in records]
            points = [VectorPoint(r.id, vec, payload(r, self.codec))
                      for r, vec in zip(records, vectors, strict=True) if self.has_vector(r.memory_type)]
            inserted = False
            try:
                with self.metadata.atomic():
                    self.metadata.insert(rows)
                    inserted = True
                    try:
                        self.vectors.upsert(points)
                    except Exception as exc:
                        if isinstance(exc, StorageFullError):
                            raise  # a full disk: the rows roll back, the error passes on as it is
                        raise ConsistencyError(f"the vector store rejected the write ({exc}); the metadata rows "
                                               "were rolled back, nothing was stored") from exc
            except BaseException:
                if inserted:
                    with contextlib.suppress(Exception):
                        self.vectors.delete([p.id for p in points])
                raise
            self._learn_languages(rows)

    def add_items(
        self,
        items: Sequence[MemoryItem],
        who: Caller,
        *,
        dialogue: bool = False,
        on_progress: Callable[[int, int], None] | None = None,
        memory_ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Validate every item, then embed and store them in batches; see :meth:`MemoryProvider.add_many`.

        Args:
            memory_ids: The new memories' ids (default: fresh UUIDs; ids derived from turns: redone work is a no-op).
            dialogue: The memories are turns of a conversation: those with a session give and take keyword context
                with the session's neighbouring turns. Independent facts (the default) never do, so when they were
                written cannot change what a question finds.
        """
        self.need_open()
        now = self.now()
        records = [self.new_record(it, now, None if memory_ids is None else memory_ids[i]) for i, it in enumerate(items)]
        if not who.write_permanent and any(r.memory_type is MemoryType.PERMANENT for r in records):
            raise PermissionDeniedError(f"caller {who.name!r} may not write permanent memories")
        ids: list[str] = []
        batch = self.config.embedding_batch_size
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            vectors = self.embed_records(chunk)
            try:
                self._store(chunk, vectors, dialogue)
            except ConsistencyError as exc:
                if ids:
                    raise ConsistencyError(f"{exc} ({len(ids)} earlier memories were stored: {ids[:3]}...)") from exc
                raise
            ids.extend(r.id for r in chunk)
            for r in chunk:
                if r.memory_type is MemoryType.PERMANENT:
                    self.metadata.log(r.id, r.user_id, AccessAction.PERMANENT_WRITE, now, who.name)
            if on_progress is not None:
                on_progress(len(ids), len(records))
        log_redactions([(r.id, r.metadata["pii_redacted"]) for r in records if "pii_redacted" in r.metadata], len(records))
        return ids

    def require(self, rec: MemoryRecord, who: Caller, write: bool) -> None:
        """Check and log access to a permanent memory (others need no permission)."""
        if rec.memory_type is not MemoryType.PERMANENT:
            return
        allowed = who.may(rec.user_id, write)
        action = (AccessAction.PERMANENT_WRITE if write else AccessAction.PERMANENT_READ) if allowed \
            else AccessAction.PERMANENT_DENIED
        self.metadata.log(rec.id, rec.user_id, action, self.now(), who.name)
        if not allowed:
            raise PermissionDeniedError(
                f"caller {who.name!r} may not {'change' if write else 'read'} permanent memory {rec.id}"
            )

    def owned(
        self, memory_id: Any, user_id: str | None, who: Caller, write: bool = False, include_inactive: bool = False
    ) -> MemoryRecord:
        """The memory with this id, checked against its owner and the caller's permanent-tier permission."""
        mid = v.check_id(memory_id)
        rec = self.metadata.get(mid, include_inactive=include_inactive)
        if rec is None or (user_id is not None and rec.user_id != v.check_user_id(user_id)):
            what = "memory" if include_inactive else "active memory"
            raise NotFoundError(f"no {what} with id {mid}" + ("" if user_id is None else f" for user {user_id!r}"))
        self.require(rec, who, write)
        return rec

    def update(
        self,
        rec: MemoryRecord,
        text: str,
        note: str,
        metadata: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
    ) -> int:
        """Add a version of an owned, checked memory (content already validated). Returns the version number."""
        text, found = self.redact(text, rec.memory_type)
        tags = None if tags is None else tuple(dict.fromkeys(self.redact(t, rec.memory_type)[0] for t in tags))
        meta = None if metadata is None else dict(metadata)
        if found:
            meta = {**(rec.metadata if meta is None else meta), "pii_redacted": found}
        vector = self.embed_documents([embedding_text(text, rec.role)])[0] if self.has_vector(rec.memory_type) else None
        with self.write_lock:
            self.need_open()
            now = max(self.now(), rec.updated_at)
            try:
                lang = language_of(text)
                version = self.metadata.add_version(rec.id, text, note, now, rec.user_id, metadata=meta, tags=tags,
                                                    lang=lang)
                if rec.user_id in self._languages:
                    self._languages[rec.user_id].add(lang)
                new = replace(rec, content=text, version=version, updated_at=now,
                              metadata=rec.metadata if meta is None else meta,
                              tags=rec.tags if tags is None else tuple(sorted(tags)))
                try:
                    if vector is not None:
                        self.vectors.upsert([VectorPoint(rec.id, vector, payload(new, self.codec))])
                except BaseException as exc:
                    self.metadata.revert_version(rec.id, version)
                    if isinstance(exc, StorageFullError) or not isinstance(exc, Exception):
                        raise  # a full disk, Ctrl-C or exit: compensated, then passed on as it is
                    raise ConsistencyError(f"the vector store rejected the update ({exc}); it was rolled back") from exc
            finally:
                self.hot.invalidate(rec.id)
        log_redactions([(rec.id, found)] if found else [], 1)
        return version

    def delete(self, rec: MemoryRecord, reason: str) -> None:
        """Soft-delete an owned, checked memory: it leaves both indexes at once; its history stays."""
        with self.write_lock:
            self.need_open()
            self.metadata.soft_delete(rec.id, reason, self.now())
            self.hot.invalidate(rec.id)
            # if this fails the row is inactive anyway: search ignores the point and reconcile removes it
            with contextlib.suppress(Exception):
                self.vectors.delete([rec.id])

    def expire(self, memory_id: str, reason: str, now: int) -> None:
        """Soft-delete a memory the lifecycle let go (no permission check: the store's own decision)."""
        with self.write_lock:
            self.metadata.soft_delete(memory_id, reason, now)
            self.hot.invalidate(memory_id)
            self.vectors.delete([memory_id])

    def downgrade(self, memory_id: str, now: int) -> None:
        """Move a stale long-term memory to the short-term tier (it then expires unless used again)."""
        with self.write_lock:
            self.metadata.set_tier(memory_id, MemoryType.SHORT_TERM.value, now + self.config.short_term_ttl_seconds,
                                   "forget: stale, low importance", now)
            self.hot.invalidate(memory_id)
            self.vectors.set_payload([memory_id], {"memory_type": MemoryType.SHORT_TERM.value})

    def has_language(self, user_id: str, lang: str) -> bool:
        """Whether the user holds an active memory in this language. An embedded store (one process) remembers the
        answer and keeps it current on its own writes; a server store asks every time (other processes write)."""
        if self.config.metadata_url is not None:
            return self.metadata.has_language(user_id, lang)
        known = self._languages.get(user_id)
        if known is None:
            known = {code for code in ("zh", "en") if self.metadata.has_language(user_id, code)}
            self._languages[user_id] = known
        return lang in known

    def forget_languages(self, user_id: str) -> None:
        """Forget what is known of a user's languages (their memories were erased)."""
        self._languages.pop(user_id, None)

    def _learn_languages(self, rows: Sequence[NewMemory]) -> None:
        for row in rows:
            known = self._languages.get(row.record.user_id)
            if known is not None and row.lang is not None:
                known.add(row.lang)

    def has_vector(self, memory_type: MemoryType) -> bool:
        """Whether memories of this tier are embedded into the vector index (``permanent_vectors``)."""
        return memory_type is not MemoryType.PERMANENT or self.config.permanent_vectors

    def find_fact(self, user_id: str, fact_key: str, tiers: Sequence[MemoryType] = (MemoryType.PERMANENT,)) -> str | None:
        """Id of the user's current memory of these tiers (default: permanent) with this topic key, if any; each tier
        is asked with the key as it stores it (a keyed hash where sealed), in the order given."""
        return self.find_by_metadata(user_id, "fact_key", fact_key, tiers)

    # ------------------------------------------------------------------ access log
    def note_access(self, records: Iterable[MemoryRecord], user_id: str, who: Caller) -> None:
        """Buffer one search access per returned record; written in batches."""
        at = self.now()
        entries = [
            AccessRecord(r.id, user_id, at, AccessAction.SEARCH, who.name if r.memory_type is MemoryType.PERMANENT else "")
            for r in records
        ]
        if not entries:
            return
        with self._access_lock:
            self._access_buffer.extend(entries)
            full = len(self._access_buffer) >= self.config.access_log_flush_every and not self._access_flushing
            if full:
                self._access_flushing = True
        if full:  # written by a short-lived thread: a search never waits for the access log's transaction
            threading.Thread(target=self._flush_access_in_background, name="hermes-access-log", daemon=True).start()

    def _flush_access_in_background(self) -> None:
        try:
            with self.write_lock:
                if not self.closed:
                    self.flush_access()
        finally:
            with self._access_lock:
                self._access_flushing = False

    def discard_access(self, user_id: str, memory_id: str | None = None) -> None:
        """Drop buffered access records of a user (or one memory of theirs) about to be erased."""
        with self._access_lock:
            self._access_buffer = [
                a for a in self._access_buffer
                if a.user_id != user_id or (memory_id is not None and a.memory_id != memory_id)
            ]

    def flush_access(self) -> None:
        """Write buffered access records now."""
        with self._access_lock:
            pending, self._access_buffer = self._access_buffer, []
        if pending:
            self.metadata.record_access(pending)


def _takes_context(rec: MemoryRecord) -> bool:
    """Permanent memories neither give nor take conversational context (their words stay theirs alone); with every
    tier sealed, the others lend keyed-hash context tokens."""
    return rec.session_id is not None and rec.memory_type is not MemoryType.PERMANENT
