"""``MemoryProvider``: the facade every adapter and the CLI use. Sync methods do the work; each ``a``-prefixed
twin runs its sync method in a worker thread (one direction everywhere), so async callers never block the
event loop.

Durability: when ``add``/``add_many``/``update``/``delete`` return, the change is committed to SQLite and
applied to the vector engine's write-ahead log, so a killed process loses nothing that was acknowledged.
Search access counts are buffered and written in batches (``flush()`` writes them now).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from hermes_memory_core import validation as v
from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder, load_embedder
from hermes_memory_core.errors import (
    ConsistencyError,
    DimensionMismatchError,
    EmbeddingError,
    EncryptionKeyError,
    HermesMemoryError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    StoreClosedError,
)
from hermes_memory_core.lifecycle.forgetting import ForgetReport
from hermes_memory_core.lifecycle.gate import needs_permanent, should_recall
from hermes_memory_core.lifecycle.promotion import RememberResult
from hermes_memory_core.llm import LLM
from hermes_memory_core.retrieval.hot_cache import HotCache
from hermes_memory_core.retrieval.keywords import KeywordExtractor
from hermes_memory_core.retrieval.ranking import Candidate, rank
from hermes_memory_core.retrieval.tokenizer import tokenize, tokenize_query
from hermes_memory_core.short_term.session import SessionMemory
from hermes_memory_core.short_term.store import SessionStore
from hermes_memory_core.short_term.worker import BackgroundWorker
from hermes_memory_core.storage.lock import DataDirLock
from hermes_memory_core.storage.sql_common import SQLMetadataStore
from hermes_memory_core.storage.sqlite_store import SQLiteMetadataStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint, VectorStore
from hermes_memory_core.trust.encryption import ContentCipher, decode_key, generate_key, read_key_file, write_key_file
from hermes_memory_core.trust.permissions import ANONYMOUS, Caller
from hermes_memory_core.trust.redaction import Redactor
from hermes_memory_core.types import (
    MemoryHit,
    MemoryItem,
    MemoryRecord,
    MemoryType,
    MemoryVersion,
    ReconcileReport,
    StoreStats,
)

__all__ = ["MemoryProvider", "build_metadata_store"]

METADATA_FILE = "metadata.sqlite"
KEY_FILE = "hermes.key"
VECTORS_DIR = "vectors"


def _payload(rec: MemoryRecord) -> dict[str, Any]:
    return {
        "user_id": rec.user_id,
        "session_id": rec.session_id,
        "memory_type": rec.memory_type.value,
        "created_at": rec.created_at,
        "tags": list(rec.tags),
        "version": rec.version,
    }


_OPEN_STORES: weakref.WeakValueDictionary[str, MemoryProvider] = weakref.WeakValueDictionary()


def build_metadata_store(config: MemoryConfig) -> SQLMetadataStore:
    """The configured metadata store, not yet opened: PostgreSQL when ``metadata_url`` is set, else SQLite."""
    if config.metadata_url is not None:
        from hermes_memory_core.storage.postgres_store import PostgresMetadataStore

        return PostgresMetadataStore(
            config.metadata_url.get_secret_value(), config.metadata_schema, config.metadata_pool_size
        )
    return SQLiteMetadataStore(Path(config.data_dir) / METADATA_FILE)


class MemoryProvider:
    """Tiered, persistent, searchable memory for one store (a data directory, or servers).

    Args:
        config: The configuration; embedded defaults when omitted.
        embedder: A ready embedder (else built from ``config.embedding_model``).
        vector_store: A ready vector store (else built from ``config.vector_backend``).
        llm: Default host model for summaries, classification and normalisation (sessions may bring their
            own); without one the deterministic fallbacks run.
        caller: Default identity for permanent-tier access (see :mod:`hermes_memory_core.trust.permissions`);
            without one, permanent memories can be neither read nor written.
        clock: Returns the current Unix time; tests and replays may pass their own.

    Raises:
        StoreLockedError: Another process holds the embedded data directory.
        DimensionMismatchError: Model, config and collection disagree on the vector dimension.

    Example::

        with MemoryProvider(MemoryConfig(data_dir="./hermes_data")) as mem:
            mid = mem.add("用户主用 Python，避免 Java", user_id="u1")
            hits = mem.search("Which language does the user prefer?", user_id="u1")
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        embedder: Embedder | None = None,
        vector_store: VectorStore | None = None,
        llm: LLM | None = None,
        caller: Caller | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config or MemoryConfig()
        self.llm = llm
        self.caller = caller or ANONYMOUS
        self._redactor = Redactor(self.config.redact_kinds) if self.config.redact_pii else None
        self._session_llms: dict[tuple[str, str], LLM] = {}
        self._worker = BackgroundWorker(self._run_job)
        self._clock = clock
        self._closed = True
        self._write_lock = threading.RLock()
        self._access_lock = threading.Lock()
        self._access_buffer: list[tuple[str, str, int, str, str]] = []
        self._hot = HotCache(self.config.hot_cache_size)
        self._keywords: KeywordExtractor | None = None
        self.data_dir = Path(self.config.data_dir)
        self._lock: DataDirLock | None = None
        self.embedder = embedder or load_embedder(
            self.config.embedding_model, self.config.embedding_threads, self.config.embedding_batch_size
        )
        if self.embedder.dim != self.config.vector_dim:
            raise DimensionMismatchError(
                f"embedding model {self.embedder.model_id!r} produces {self.embedder.dim}-dimensional vectors "
                f"but the configuration says vector_dim={self.config.vector_dim}"
            )
        self.vectors: VectorStore = vector_store or self._build_vector_store()
        if self.vectors.dim != self.config.vector_dim:
            raise DimensionMismatchError(
                f"vector store {self.vectors.name!r} expects {self.vectors.dim} dimensions but the configuration "
                f"says vector_dim={self.config.vector_dim}"
            )
        self.metadata: SQLMetadataStore = build_metadata_store(self.config)
        self.sessions = SessionStore(self.metadata)
        try:
            if self.config.vector_backend == "edge" and vector_store is None:
                self._lock = DataDirLock(self.data_dir)
                self._lock.acquire()
            self.metadata.open()
            self._check_store_identity()
            self._load_cipher()
            if self.metadata.get_meta("keyword_index_rebuild") == "1":  # set by a migration that changed the index
                self.metadata.repair_keyword_index(tokenize)
                self.metadata.set_meta("keyword_index_rebuild", "0")
            self.vectors.open()
        except BaseException:
            self._release()
            raise
        self._closed = False
        _OPEN_STORES[self.store_key] = self
        self.resume_background_work()

    @property
    def hot_cache(self) -> HotCache:
        """The per-user cache of most-searched records (``hits``/``misses`` counters, ``size()``)."""
        return self._hot

    @property
    def location(self) -> str:
        """Where this store's metadata lives (a file path, or a PostgreSQL URL without password and schema)."""
        return self.metadata.location

    def _build_vector_store(self) -> VectorStore:
        cfg = self.config
        if cfg.vector_backend == "edge":
            from hermes_memory_core.storage.edge_store import EdgeVectorStore

            return EdgeVectorStore(self.data_dir / VECTORS_DIR / cfg.collection, cfg.vector_dim, cfg.collection)
        from hermes_memory_core.storage.client_store import QdrantClientVectorStore

        key = cfg.qdrant_api_key.get_secret_value() if cfg.qdrant_api_key else None
        return QdrantClientVectorStore(cfg.qdrant_url, cfg.vector_dim, cfg.collection, api_key=key)

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

    # ------------------------------------------------------------------ encryption key
    def _key_file(self) -> Path:
        return Path(self.config.encryption_key_file) if self.config.encryption_key_file else self.data_dir / KEY_FILE

    def _configured_key(self) -> bytes | None:
        if self.config.encryption_key is not None:
            return decode_key(self.config.encryption_key.get_secret_value())
        path = self._key_file()
        if path.exists():
            return read_key_file(path)
        if self.config.encryption_key_file is not None:
            raise EncryptionKeyError(f"encryption_key_file {path} does not exist")
        return None

    def _load_cipher(self) -> None:
        check = self.metadata.get_meta("key_check")
        key = self._configured_key()
        if key is None:
            if check is not None:
                raise EncryptionKeyError(
                    f"the store at {self.location} holds encrypted permanent memories but no key is configured: set "
                    "encryption_key (or HERMES_MEMORY_ENCRYPTION_KEY) or encryption_key_file"
                )
            return
        cipher = ContentCipher(key)
        if check is not None and not cipher.verify(check):
            pending = self._key_file().with_name(self._key_file().name + ".new")
            if pending.exists() and ContentCipher(read_key_file(pending)).verify(check):
                cipher = ContentCipher(read_key_file(pending))  # a rotation committed but not yet renamed
                pending.replace(self._key_file())
            else:
                raise EncryptionKeyError(
                    f"the configured encryption key is not the key of the store at {self.location} (wrong key)"
                )
        self.metadata.cipher = cipher

    def _ensure_cipher(self) -> None:
        """Before the first permanent write: create the default key file if no key is configured."""
        if self.metadata.cipher is None:
            key = generate_key()
            write_key_file(self._key_file(), key)
            self.metadata.cipher = ContentCipher(key)
        if self.metadata.get_meta("key_check") is None:
            self.metadata.set_meta("key_check", self.metadata.cipher.check_value())

    def rotate_key(self, new_key: bytes | None = None, *, caller: Caller | None = None) -> bytes:
        """Re-encrypt every permanent memory under a new key (one transaction) and return the new key.

        With a key file (the default), the new key is written next to it first and moved into place after the
        commit, so a crash in between is recovered at the next open. With ``encryption_key`` set in config or
        env, update it to the returned key yourself.
        """
        self._need_open()
        who = self._who(caller)
        if not who.write_permanent:
            raise PermissionDeniedError(f"caller {who.name!r} may not rotate the encryption key")
        key = new_key or generate_key()
        cipher = ContentCipher(key)
        with self._write_lock:
            self._ensure_cipher()
            uses_file = self.config.encryption_key is None
            pending = self._key_file().with_name(self._key_file().name + ".new")
            if uses_file:
                write_key_file(pending, key)
            self.metadata.rotate_cipher(cipher, tokenize)
            self._hot.clear()
            if uses_file:
                pending.replace(self._key_file())
        return key

    # ------------------------------------------------------------------ permissions
    def _who(self, caller: Caller | None) -> Caller:
        return caller if caller is not None else self.caller

    def _require(self, rec: MemoryRecord, who: Caller, write: bool) -> None:
        """Check and log access to a permanent memory (others need no permission)."""
        if rec.memory_type is not MemoryType.PERMANENT:
            return
        allowed = who.write_permanent if write else who.read_permanent
        action = ("permanent_write" if write else "permanent_read") if allowed else "permanent_denied"
        self.metadata.log(rec.id, rec.user_id, action, self._now(), who.name)
        if not allowed:
            raise PermissionDeniedError(
                f"caller {who.name!r} may not {'change' if write else 'read'} permanent memory {rec.id}"
            )

    # ------------------------------------------------------------------ lifecycle
    def _release(self) -> None:
        for closer in (self.vectors.close, self.metadata.close):
            try:
                closer()
            except Exception:  # noqa: BLE001 - close everything we can
                pass
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def close(self) -> None:
        """Write buffered access records, flush both stores and release the data directory. Idempotent."""
        if self._closed:
            return
        self._worker.close()
        with self._write_lock:
            try:
                self._flush_access()
                self.vectors.flush()
            finally:
                self._closed = True
                self._release()

    def flush(self) -> None:
        """Finish background summaries and promotions, write buffered access records, flush both stores."""
        self._need_open()
        self._worker.drain()
        with self._write_lock:
            self._flush_access()
            self.vectors.flush()

    def __enter__(self) -> MemoryProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort for forgotten providers
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass

    @property
    def closed(self) -> bool:
        return self._closed

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

    @classmethod
    def open_store(cls, store_key: str) -> MemoryProvider | None:
        """The open provider with this :attr:`store_key` in this process, if any (adapters re-attach
        deserialised objects to it)."""
        provider = _OPEN_STORES.get(store_key)
        return None if provider is None or provider.closed else provider

    def _need_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this MemoryProvider is closed")

    def _now(self, now: float | None = None) -> int:
        return int(self._clock() if now is None else now)

    # ------------------------------------------------------------------ writes
    def _new_record(self, item: MemoryItem, now: int) -> MemoryRecord:
        cfg = self.config
        content = v.check_content(item.content, cfg.max_content_chars)
        memory_type = v.check_memory_type(item.memory_type)
        metadata = v.check_metadata(item.metadata, cfg.max_metadata_bytes)
        content, found = self._redact(content, memory_type)
        if found:
            metadata["pii_redacted"] = found
        created = v.check_timestamp(item.created_at, "created_at")
        created = now if created is None else created
        expires = created + cfg.short_term_ttl_seconds if memory_type is MemoryType.SHORT_TERM else None
        return MemoryRecord(
            id=str(uuid.uuid4()),
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
            tags=v.check_tags(item.tags, cfg.max_tags),
            metadata=metadata,
        )

    def _redact(self, content: str, memory_type: MemoryType) -> tuple[str, dict[str, int]]:
        if self._redactor is None or memory_type.value not in self.config.redact_tiers:
            return content, {}
        result = self._redactor.redact(content)
        if not result.text.strip():
            return content, {}
        return result.text, result.found

    def _embed_documents(self, texts: Sequence[str]) -> Any:
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

    def _store(self, records: Sequence[MemoryRecord], vectors: Any, note: str = "") -> None:
        """SQLite first, then the vector engine; if the second fails the first is undone (compensation)."""
        with self._write_lock:
            self._need_open()
            if any(r.memory_type is MemoryType.PERMANENT for r in records):
                self._ensure_cipher()
            self.metadata.insert(records, [tokenize(r.content) for r in records], note=note)
            try:
                self.vectors.upsert([VectorPoint(r.id, vec, _payload(r)) for r, vec in zip(records, vectors, strict=True)])
            except BaseException as exc:
                self.metadata.purge([r.id for r in records])
                raise ConsistencyError(
                    f"the vector store rejected the write ({exc}); the metadata rows were rolled back, "
                    "nothing was stored"
                ) from exc

    def add(
        self,
        content: str,
        *,
        user_id: str,
        session_id: str | None = None,
        memory_type: MemoryType | str = MemoryType.LONG_TERM,
        importance: float | None = None,
        tags: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        created_at: float | None = None,
        caller: Caller | None = None,
    ) -> str:
        """Store one memory and return its id.

        Args:
            content: The text to remember (non-blank, at most ``max_content_chars``).
            user_id: Owner of the memory.
            session_id: Session it came from.
            memory_type: ``short_term``, ``long_term`` (default) or ``permanent``.
            importance: 0..1 (default ``config.default_importance``).
            tags: Labels for filtering.
            metadata: JSON-serialisable extra data returned with the memory.
            created_at: Original Unix time, for importers replaying old conversations.
            caller: Who writes (permanent memories need ``write_permanent``); default: the provider's caller.

        Raises:
            InvalidInputError: A malformed argument (nothing is stored).
            PermissionDeniedError: A permanent memory without the permission (nothing is stored).
            ConsistencyError: The vector engine failed; nothing is stored.
        """
        item = MemoryItem(
            content=content,
            user_id=user_id,
            session_id=session_id,
            memory_type=memory_type,
            importance=importance,
            tags=tuple(tags) if tags is not None and not isinstance(tags, str) else tags,  # type: ignore[arg-type]
            metadata=dict(metadata) if isinstance(metadata, Mapping) else metadata,  # type: ignore[arg-type]
            created_at=created_at,
        )
        return self.add_many([item], caller=caller)[0]

    def add_many(
        self,
        items: Iterable[MemoryItem | Mapping[str, Any]],
        *,
        on_progress: Callable[[int, int], None] | None = None,
        caller: Caller | None = None,
    ) -> list[str]:
        """Store many memories, embedding them in batches of ``config.embedding_batch_size``.

        Every item is validated before anything is written. Each batch is stored atomically: if a batch fails,
        earlier batches stay stored and the error says how many were.

        Args:
            items: ``MemoryItem`` objects or mappings with the arguments of :meth:`add`.
            on_progress: Called with ``(done, total)`` after each batch.

        Returns:
            The new ids, in input order.
        """
        self._need_open()
        now = self._now()
        records = [self._new_record(_as_item(it), now) for it in items]
        who = self._who(caller)
        if not who.write_permanent and any(r.memory_type is MemoryType.PERMANENT for r in records):
            raise PermissionDeniedError(f"caller {who.name!r} may not write permanent memories")
        ids: list[str] = []
        batch = self.config.embedding_batch_size
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            vectors = self._embed_documents([r.content for r in chunk])
            try:
                self._store(chunk, vectors)
            except ConsistencyError as exc:
                if ids:
                    raise ConsistencyError(f"{exc} ({len(ids)} earlier memories were stored: {ids[:3]}...)") from exc
                raise
            ids.extend(r.id for r in chunk)
            for r in chunk:
                if r.memory_type is MemoryType.PERMANENT:
                    self.metadata.log(r.id, r.user_id, "permanent_write", now, who.name)
            if on_progress is not None:
                on_progress(len(ids), len(records))
        return ids

    def _owned(
        self,
        memory_id: Any,
        user_id: str | None,
        caller: Caller | None = None,
        write: bool = False,
        include_inactive: bool = False,
    ) -> MemoryRecord:
        """The memory with this id, checked against its owner and the caller's permanent-tier permission."""
        mid = v.check_id(memory_id)
        rec = self.metadata.get(mid, include_inactive=include_inactive)
        if rec is None or (user_id is not None and rec.user_id != v.check_user_id(user_id)):
            what = "memory" if include_inactive else "active memory"
            raise NotFoundError(f"no {what} with id {mid}" + ("" if user_id is None else f" for user {user_id!r}"))
        self._require(rec, self._who(caller), write)
        return rec

    def get(self, memory_id: str, *, user_id: str | None = None, caller: Caller | None = None) -> MemoryRecord:
        """The current version of one active memory.

        Args:
            memory_id: Its UUID.
            user_id: When given, the memory must belong to this user (else :class:`NotFoundError`).
            caller: Who reads (permanent memories need ``read_permanent``).
        """
        self._need_open()
        return self._owned(memory_id, user_id, caller)

    def update(
        self,
        memory_id: str,
        content: str,
        *,
        version_note: str = "",
        user_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tags: Iterable[str] | None = None,
        caller: Caller | None = None,
    ) -> int:
        """Add a new version of a memory; earlier versions stay in :meth:`history`. Returns the version number.

        Args:
            memory_id: The memory.
            content: Its new text.
            version_note: Why it changed (kept with the version).
            user_id: When given, the memory must belong to this user.
            metadata: When given, replaces the memory's metadata (metadata is not versioned).
            tags: When given, replaces the memory's tags (tags are not versioned).
            caller: Who writes (permanent memories need ``write_permanent``).
        """
        self._need_open()
        text = v.check_content(content, self.config.max_content_chars)
        note = v.check_text(version_note, "version_note")
        meta = None if metadata is None else v.check_metadata(metadata, self.config.max_metadata_bytes)
        new_tags = None if tags is None else v.check_tags(tags, self.config.max_tags)
        rec = self._owned(memory_id, user_id, caller, write=True)
        text, found = self._redact(text, rec.memory_type)
        if found:
            meta = {**(rec.metadata if meta is None else meta), "pii_redacted": found}
        vector = self._embed_documents([text])[0]
        with self._write_lock:
            now = max(self._now(), rec.updated_at)
            try:
                version = self.metadata.add_version(rec.id, text, note, now, tokenize(text), rec.user_id,
                                                    metadata=meta, tags=new_tags)
                new = replace(rec, content=text, version=version, updated_at=now,
                              metadata=rec.metadata if meta is None else meta,
                              tags=rec.tags if new_tags is None else tuple(sorted(new_tags)))
                try:
                    self.vectors.upsert([VectorPoint(rec.id, vector, _payload(new))])
                except BaseException as exc:
                    self.metadata.revert_version(rec.id, version)
                    raise ConsistencyError(f"the vector store rejected the update ({exc}); it was rolled back") from exc
            finally:
                self._hot.invalidate(rec.id)
        return version

    def list_memories(
        self,
        *,
        user_id: str,
        memory_types: Iterable[MemoryType | str] | None = None,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        limit: int = 100,
        offset: int = 0,
        caller: Caller | None = None,
    ) -> list[MemoryRecord]:
        """One user's active memories, oldest first, with the filters of :meth:`search` and no ranking.

        Permanent memories are listed only for callers with ``read_permanent`` (asking for only them without it
        raises :class:`PermissionDeniedError`).

        Args:
            user_id: Whose memories.
            memory_types: Only these tiers.
            session_id: Only this session's memories.
            tags: Only memories carrying at least one of these tags.
            time_range: ``(start, end)`` Unix seconds on ``created_at``, inclusive.
            limit: At most this many (1..10,000).
            offset: Skip this many first.
        """
        self._need_open()
        uid = v.check_user_id(user_id)
        types = self._readable_types(v.check_memory_types(memory_types), self._who(caller))
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
            raise InvalidInputError(f"limit must be an integer in 1..10000, got {limit!r}")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidInputError(f"offset must be a non-negative integer, got {offset!r}")
        start, end = _time_range(time_range)
        records = self.metadata.list_records(
            uid, memory_types=types, session_id=v.check_session_id(session_id),
            tags=v.check_tags(tags, self.config.max_tags) or None, created_from=start, created_to=end,
            now=self._now(), limit=limit, offset=offset,
        )
        who = self._who(caller)
        for rec in records:
            if rec.memory_type is MemoryType.PERMANENT:
                self.metadata.log(rec.id, rec.user_id, "permanent_read", self._now(), who.name)
        return records

    def _readable_types(self, types: tuple[str, ...] | None, who: Caller) -> tuple[str, ...] | None:
        """The tiers a caller may read among ``types`` (all tiers when None)."""
        if who.read_permanent:
            return types
        allowed = tuple(t for t in (types or [t.value for t in MemoryType]) if t != MemoryType.PERMANENT.value)
        if not allowed:
            raise PermissionDeniedError(f"caller {who.name!r} may not read permanent memories")
        return allowed

    def history(
        self, memory_id: str, *, user_id: str | None = None, caller: Caller | None = None
    ) -> list[MemoryVersion]:
        """Every version of a memory, oldest first (deleted memories keep their history)."""
        self._need_open()
        rec = self._owned(memory_id, user_id, caller, include_inactive=True)
        return self.metadata.versions(rec.id)

    def delete(
        self, memory_id: str, *, reason: str = "", user_id: str | None = None, caller: Caller | None = None
    ) -> bool:
        """Soft-delete: the memory is never returned again and leaves the indexes at once; its history stays."""
        self._need_open()
        note = v.check_text(reason, "reason")
        rec = self._owned(memory_id, user_id, caller, write=True)
        with self._write_lock:
            self.metadata.soft_delete(rec.id, note, self._now())
            self._hot.invalidate(rec.id)
            try:
                self.vectors.delete([rec.id])
            except Exception:  # noqa: BLE001 - the row is inactive: search ignores the point; reconcile removes it
                pass
        return True

    # ------------------------------------------------------------------ reads
    def search(
        self,
        query: str,
        *,
        user_id: str,
        top_k: int = 5,
        memory_types: Iterable[MemoryType | str] | None = None,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        now: float | None = None,
        caller: Caller | None = None,
    ) -> list[MemoryHit]:
        """Hybrid search over one user's memories: BM25 keyword leg + vector leg, fused and ranked.

        Args:
            query: The question or text to match.
            user_id: Whose memories to search (never anyone else's).
            top_k: How many hits to return.
            memory_types: Only these tiers.
            session_id: Only memories from this session.
            tags: Only memories carrying at least one of these tags.
            time_range: ``(start, end)`` Unix seconds on ``created_at``, inclusive; either end may be None.
            now: The Unix time the ranking treats as the present (for replaying old conversations).
            caller: Who searches; permanent memories are only searched for callers with ``read_permanent``.

        Returns:
            Hits, best first.

        Raises:
            PermissionDeniedError: Only permanent memories were asked for, without the permission.
        """
        self._need_open()
        text = v.check_text(query, "query")
        if len(text) > self.config.max_content_chars:
            raise InvalidInputError(f"query has {len(text)} characters; the limit (max_content_chars) is "
                                    f"{self.config.max_content_chars}")
        uid = v.check_user_id(user_id)
        k = v.check_top_k(top_k)
        types = v.check_memory_types(memory_types)
        who = self._who(caller)
        types = self._readable_types(types, who)
        sid = v.check_session_id(session_id)
        tag_filter = v.check_tags(tags, self.config.max_tags) or None
        start, end = _time_range(time_range)
        at = self._now(v.check_timestamp(now, "now"))
        if not text.strip():
            return []
        weights = self.config.ranking
        n = max(weights.min_candidates, k * weights.candidate_multiplier)
        flt = VectorFilter(uid, types, sid, tag_filter, start, end)
        query_vec = self.embedder.embed_query(text)
        dense = self.vectors.search(query_vec, n, flt)
        keyword = self.metadata.keyword_search(
            uid, self._keyword_tokens(text), n, memory_types=types, session_id=sid, tags=tag_filter,
            created_from=start, created_to=end, now=at, context_weight=weights.keyword_context_weight,
        )
        merged: dict[str, Candidate] = {}
        for mid, score in dense:
            merged[mid] = Candidate(mid, dense=score)
        for mid, score in keyword:
            merged.setdefault(mid, Candidate(mid)).keyword = score
        fields = self.metadata.rank_fields(list(merged), uid, now=at)
        ranked = rank(list(merged.values()), fields, at, weights, k)
        wanted = [r.id for r in ranked]
        records = self._hot.lookup(uid, wanted, fields)
        missing = [mid for mid in wanted if mid not in records]
        if missing:
            records.update(self.metadata.get_many(missing, uid, now=at))
        hits = [
            MemoryHit(records[r.id], r.score, r.relevance, r.dense, r.keyword) for r in ranked if r.id in records
        ]
        self._hot.record_use(uid, [h.record for h in hits])
        self._note_access(hits, uid, who)
        return hits

    def _keyword_tokens(self, text: str) -> list[str]:
        """The keyword leg's query: the LLM's key terms when ``llm_keywords`` is on, else the local tokenizer."""
        if self.config.llm_keywords and self.llm is not None:
            if self._keywords is None or self._keywords.llm is not self.llm:
                self._keywords = KeywordExtractor(self.llm, self.config.llm_timeout_seconds)
            terms = self._keywords.terms(text)
            if terms:
                toks = tokenize_query(" ".join(terms))
                if toks:
                    return toks
        return tokenize_query(text)

    def _note_access(self, hits: Sequence[MemoryHit], user_id: str, who: Caller) -> None:
        if not hits:
            return
        at = self._now()
        with self._access_lock:
            self._access_buffer.extend(
                (h.id, user_id, at, "search", who.name if h.memory_type is MemoryType.PERMANENT else "") for h in hits
            )
            full = len(self._access_buffer) >= self.config.access_log_flush_every
        if full:
            with self._write_lock:
                self._flush_access()

    def _flush_access(self) -> None:
        with self._access_lock:
            pending, self._access_buffer = self._access_buffer, []
        if pending:
            self.metadata.record_access(pending)

    # ------------------------------------------------------------------ maintenance
    def reconcile(self) -> ReconcileReport:
        """Repair both stores: re-index active rows missing (or stale) in the vector engine, drop vector points
        with no active row, rebuild missing keyword rows, and take expired memories out of the vector index.
        """
        self._need_open()
        report = ReconcileReport()
        with self._write_lock:
            now = self._now()
            active = self.metadata.active_versions()
            expired = set(self.metadata.expired_ids(now))
            seen: dict[str, int] = {}
            for batch in self.vectors.iter_points(with_vectors=False):
                for p in batch:
                    seen[p.id] = int(p.payload.get("version", 0) or 0)
            orphans = [pid for pid in seen if pid not in active or pid in expired]
            report.vector_orphans_removed = sum(1 for pid in orphans if pid not in expired)
            report.expired_removed = sum(1 for pid in orphans if pid in expired)
            for start in range(0, len(orphans), 1000):
                self.vectors.delete(orphans[start : start + 1000])
            missing = [mid for mid, ver in active.items() if mid not in expired and seen.get(mid) != ver]
            for start in range(0, len(missing), self.config.embedding_batch_size):
                chunk = missing[start : start + self.config.embedding_batch_size]
                recs = [r for r in (self.metadata.get(mid) for mid in chunk) if r is not None]
                vecs = self._embed_documents([r.content for r in recs])
                self.vectors.upsert([VectorPoint(r.id, vec, _payload(r)) for r, vec in zip(recs, vecs, strict=True)])
                report.metadata_orphans_reindexed += len(recs)
            report.keyword_rows_repaired = self.metadata.repair_keyword_index(tokenize)
            self._flush_access()
            self.vectors.flush()
        return report

    def optimize(self) -> None:
        """Merge the keyword index into one segment and build the vector engine's HNSW index.

        Call it after a bulk import (tens of thousands of memories): searches on a large store get 2-4x faster.
        It takes time proportional to the store (about 90 s at 100k memories on 2 cores) and holds the writer
        lock meanwhile, so it never runs by itself; everyday writes need no rebuild (SQLite FTS5 merges its
        segments incrementally, and the vector engine searches new points at once).
        """
        self._need_open()
        self.metadata.optimize_keyword_index()
        with self._write_lock:
            self.vectors.optimize()

    def stats(self) -> StoreStats:
        """Counts per tier and user, versions, deletions, vector points and bytes on disk."""
        self._need_open()
        counts = self.metadata.counts()
        disk = 0
        if self.data_dir.exists():
            for root, _dirs, files in os.walk(self.data_dir):
                for name in files:
                    try:  # allocated blocks, not apparent size: the engine's WAL files are sparse
                        disk += os.stat(os.path.join(root, name)).st_blocks * 512
                    except OSError:
                        pass
        return StoreStats(
            total_active=sum(counts["by_type"].values()),
            by_type={t.value: int(counts["by_type"].get(t.value, 0)) for t in MemoryType},
            by_user={str(k): int(c) for k, c in counts["by_user"].items()},
            vector_points=self.vectors.count(),
            versions=counts["versions"],
            deleted=counts["deleted"],
            disk_bytes=disk,
            warnings=[
                f"user {user!r} holds {n} active memories (warn_user_memories={self.config.warn_user_memories}); "
                "consider forget() or a server store"
                for user, n in counts["by_user"].items()
                if n > self.config.warn_user_memories
            ],
        )

    # ------------------------------------------------------------------ portability
    def export(
        self, path: str | os.PathLike[str], *, user_id: str | None = None, caller: Caller | None = None
    ) -> dict[str, Any]:
        """Write a self-contained bundle (SQLite copy, vectors, manifest with checksums) to a new folder.

        With ``user_id`` only that user's memories, versions, sessions and access log go into the bundle.

        Returns:
            The manifest.
        """
        from hermes_memory_core.portability import export_bundle

        self._need_open()
        who = self._who(caller)
        if not who.read_permanent and self.metadata.counts()["by_type"].get(MemoryType.PERMANENT.value):
            raise PermissionDeniedError(f"caller {who.name!r} may not export a store holding permanent memories")
        with self._write_lock:
            self._flush_access()
            self.vectors.flush()
            return export_bundle(self, Path(path), None if user_id is None else v.check_user_id(user_id))

    @classmethod
    def restore(
        cls,
        bundle: str | os.PathLike[str],
        config: MemoryConfig | None = None,
        *,
        overwrite: bool = False,
        embedder: Embedder | None = None,
        vector_store: VectorStore | None = None,
        caller: Caller | None = None,
    ) -> MemoryProvider:
        """Verify a bundle completely, then rebuild the store it holds under ``config``.

        Raises:
            BundleError: Wrong checksum, missing file, other dimension or model, newer format, or a non-empty
                target without ``overwrite=True``. Nothing is written in that case.
        """
        from hermes_memory_core.portability import restore_bundle

        return restore_bundle(cls, Path(bundle), config or MemoryConfig(), overwrite, embedder, vector_store, caller)

    # ------------------------------------------------------------------ tiers and lifecycle
    def session(self, user_id: str, session_id: str, *, llm: LLM | None = None) -> SessionMemory:
        """The short-term memory of one session (ring buffer + running summary).

        Args:
            user_id: Owner.
            session_id: Session.
            llm: The host's model for this session's summaries and promotions (else the provider's ``llm``).
        """
        self._need_open()
        return SessionMemory(self, user_id, session_id, llm)

    def remember(
        self,
        content: str,
        *,
        user_id: str,
        session_id: str | None = None,
        llm: LLM | None = None,
        source: str = "user",
        memory_type: MemoryType | str | None = None,
        importance: float | None = None,
        tags: Iterable[str] | None = None,
        caller: Caller | None = None,
    ) -> RememberResult:
        """Classify content and store it where it belongs.

        With ``memory_type`` the classifier is skipped and the content goes to that tier, under the same guard,
        permission and normalisation rules; ``importance`` and ``tags`` replace the tier's defaults.

        ``short_term`` content is kept with the session (nothing is stored without one); ``long_term`` content is
        rewritten into one normalised sentence first; a ``permanent`` fact whose topic already has a current
        version supersedes it (both versions stay in :meth:`history`). Any classifier failure means
        ``short_term``. The injection guard runs on every write: instructions and unbacked privilege claims are
        rejected; a permanent fact needs a first-person statement or ``source="tool"`` (a tool result).
        A permanent write also needs a caller with ``write_permanent``; without one the fact stays short-term.
        """
        from hermes_memory_core.lifecycle.promotion import remember

        self._need_open()
        text = v.check_content(content, self.config.max_content_chars)
        if source not in ("user", "tool"):
            raise InvalidInputError(f"source must be 'user' or 'tool', got {source!r}")
        tier = None if memory_type is None else v.check_memory_type(memory_type)
        weight = None if importance is None else v.check_importance(importance, self.config.default_importance)
        labels = v.check_tags(tags, self.config.max_tags)
        return remember(self, text, user_id=v.check_user_id(user_id), session_id=v.check_session_id(session_id),
                        llm=llm or self.llm, source=source, caller=self._who(caller), memory_type=tier,
                        importance=weight, tags=labels)

    def recall(
        self, query: str, *, user_id: str, top_k: int = 5, caller: Caller | None = None, **filters: Any
    ) -> list[MemoryHit]:
        """Long-term recall for a chat turn: nothing for greetings and fillers (the recall gate); long-term
        memories, plus permanent facts when the question is about identity, configuration or compliance (and
        the caller may read them)."""
        if not should_recall(v.check_text(query, "query")):
            return []
        who = self._who(caller)
        permanent = needs_permanent(query) and who.read_permanent
        tiers = [MemoryType.LONG_TERM] + ([MemoryType.PERMANENT] if permanent else [])
        return self.search(query, user_id=user_id, top_k=top_k, memory_types=tiers, caller=who, **filters)

    def forget(self, *, dry_run: bool = False, now: float | None = None) -> ForgetReport:
        """Expire short-term memories of closed sessions, downgrade or expire stale unimportant long-term ones;
        never touch permanent or important memories. With ``dry_run`` only report."""
        from hermes_memory_core.lifecycle.forgetting import forget

        self._need_open()
        return forget(self, dry_run=dry_run, now=v.check_timestamp(now, "now"))

    def _expire(self, memory_id: str, reason: str, now: int) -> None:
        with self._write_lock:
            self.metadata.soft_delete(memory_id, reason, now)
            self._hot.invalidate(memory_id)
            self.vectors.delete([memory_id])

    def _downgrade(self, memory_id: str, now: int) -> None:
        with self._write_lock:
            self.metadata.set_tier(memory_id, MemoryType.SHORT_TERM.value, now + self.config.short_term_ttl_seconds,
                                   "forget: stale, low importance", now)
            self._hot.invalidate(memory_id)
            self.vectors.set_payload([memory_id], {"memory_type": MemoryType.SHORT_TERM.value})

    # background work: compaction of session buffers and promotion of evicted turns
    def _register_llm(self, user_id: str, session_id: str, llm: LLM) -> None:
        self._session_llms[(user_id, session_id)] = llm

    def _llm_for(self, user_id: str, session_id: str | None) -> LLM | None:
        if session_id is not None and (user_id, session_id) in self._session_llms:
            return self._session_llms[(user_id, session_id)]
        return self.llm

    def _submit_compaction(self, user_id: str, session_id: str) -> None:
        self._worker.submit(("compact", user_id, session_id))

    def _run_job(self, job: Any) -> None:
        from hermes_memory_core.lifecycle.promotion import compact_session, promote_queued

        if self._closed:
            return
        if job[0] == "compact":
            compact_session(self, job[1], job[2], self._llm_for(job[1], job[2]))
        promote_queued(self, self._llm_for)

    def resume_background_work(self) -> None:
        """Re-submit work a previous process left undone (overflowing buffers, queued promotions)."""
        for user_id, session_id in self.sessions.overflowing(self.config.ring_size):
            self._submit_compaction(user_id, session_id)
        if self.sessions.queued(1):
            self._worker.submit(("promote",))

    # ------------------------------------------------------------------ async twins
    async def aadd(self, content: str, **kwargs: Any) -> str:
        """Async twin of :meth:`add`."""
        return await asyncio.to_thread(self.add, content, **kwargs)

    async def aadd_many(self, items: Iterable[MemoryItem | Mapping[str, Any]], **kwargs: Any) -> list[str]:
        """Async twin of :meth:`add_many`."""
        return await asyncio.to_thread(self.add_many, list(items), **kwargs)

    async def aget(self, memory_id: str, **kwargs: Any) -> MemoryRecord:
        """Async twin of :meth:`get`."""
        return await asyncio.to_thread(self.get, memory_id, **kwargs)

    async def asearch(self, query: str, **kwargs: Any) -> list[MemoryHit]:
        """Async twin of :meth:`search`."""
        return await asyncio.to_thread(self.search, query, **kwargs)

    async def aupdate(self, memory_id: str, content: str, **kwargs: Any) -> int:
        """Async twin of :meth:`update`."""
        return await asyncio.to_thread(self.update, memory_id, content, **kwargs)

    async def ahistory(self, memory_id: str, **kwargs: Any) -> list[MemoryVersion]:
        """Async twin of :meth:`history`."""
        return await asyncio.to_thread(self.history, memory_id, **kwargs)

    async def adelete(self, memory_id: str, **kwargs: Any) -> bool:
        """Async twin of :meth:`delete`."""
        return await asyncio.to_thread(self.delete, memory_id, **kwargs)

    async def alist_memories(self, **kwargs: Any) -> list[MemoryRecord]:
        """Async twin of :meth:`list_memories`."""
        return await asyncio.to_thread(lambda: self.list_memories(**kwargs))

    async def areconcile(self) -> ReconcileReport:
        """Async twin of :meth:`reconcile`."""
        return await asyncio.to_thread(self.reconcile)

    async def astats(self) -> StoreStats:
        """Async twin of :meth:`stats`."""
        return await asyncio.to_thread(self.stats)

    async def aexport(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Async twin of :meth:`export`."""
        return await asyncio.to_thread(self.export, path)

    @classmethod
    async def arestore(cls, bundle: str | os.PathLike[str], config: MemoryConfig | None = None, **kwargs: Any) -> MemoryProvider:
        """Async twin of :meth:`restore`."""
        return await asyncio.to_thread(cls.restore, bundle, config, **kwargs)

    async def aremember(self, content: str, **kwargs: Any) -> RememberResult:
        """Async twin of :meth:`remember`."""
        return await asyncio.to_thread(self.remember, content, **kwargs)

    async def arecall(self, query: str, **kwargs: Any) -> list[MemoryHit]:
        """Async twin of :meth:`recall`."""
        return await asyncio.to_thread(self.recall, query, **kwargs)

    async def aforget(self, **kwargs: Any) -> ForgetReport:
        """Async twin of :meth:`forget`."""
        return await asyncio.to_thread(self.forget, **kwargs)

    async def aflush(self) -> None:
        """Async twin of :meth:`flush`."""
        await asyncio.to_thread(self.flush)

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        await asyncio.to_thread(self.close)


def _as_item(item: MemoryItem | Mapping[str, Any]) -> MemoryItem:
    if isinstance(item, MemoryItem):
        return item
    if isinstance(item, Mapping):
        try:
            return MemoryItem(**dict(item))
        except TypeError as exc:
            raise InvalidInputError(f"bad memory item {sorted(item)}: {exc}") from exc
    raise InvalidInputError(f"add_many takes MemoryItem objects or mappings, got {type(item).__name__}")


def _time_range(value: tuple[float | None, float | None] | None) -> tuple[int | None, int | None]:
    if value is None:
        return None, None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidInputError("time_range must be a (start, end) pair of Unix seconds")
    start = v.check_timestamp(value[0], "time_range start")
    end = v.check_timestamp(value[1], "time_range end")
    if start is not None and end is not None and start > end:
        raise InvalidInputError(f"time_range start {start} is after end {end}")
    return start, end
