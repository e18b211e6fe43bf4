"""The shared parts of one open store, and the small rules every component applies to them.

:class:`StoreParts` holds what the engine's components share: the configuration and clock, both stores and the
session rows, the embedder, the codec and key, the caches, the write lock and whether the store is open or read
only. It adds the checks every component makes (open, writable tier, embedding shape, redaction) and nothing else:
the operations live in the components (:mod:`~hermes_memory_core.engine`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder, TurnEmbeddings
from hermes_memory_core.errors import EmbeddingError, HermesMemoryError, StoreClosedError
from hermes_memory_core.llm import ModelPool
from hermes_memory_core.storage.hot_cache import HotCache, VersionVectors
from hermes_memory_core.storage.lock import DataDirLock
from hermes_memory_core.storage.metadata import MetadataStore
from hermes_memory_core.storage.sessions import SessionStore
from hermes_memory_core.storage.vectors import VectorStore
from hermes_memory_core.text.perspective import embedding_text
from hermes_memory_core.trust.at_rest import SealingCodec
from hermes_memory_core.trust.keys import KeyManager
from hermes_memory_core.trust.redaction import CREDENTIAL_KINDS, Redactor
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["StoreParts", "payload"]


def payload(rec: MemoryRecord, codec: SealingCodec | None = None) -> dict[str, Any]:
    """The vector point's payload: only what filters need, never content (tags of sealed memories as keyed
    hashes, session ids as the codec keeps them)."""
    return {
        "user_id": rec.user_id,
        "session_id": rec.session_id if codec is None else codec.session_key(rec.user_id, rec.session_id),
        "memory_type": rec.memory_type.value,
        "created_at": rec.created_at,
        "tags": list(rec.tags) if codec is None else codec.tag_keys(rec.memory_type.value, rec.tags),
        "version": rec.version,
    }


class StoreParts:
    """What the components of one store share (built, not yet opened, by
    :class:`~hermes_memory_core.engine.MemoryEngine`).

    Attributes:
        config: The configuration.
        clock: Returns the current Unix time.
        data_dir: The embedded store's directory.
        metadata: The metadata store (its ``codec`` is :attr:`codec`).
        vectors: The vector store.
        sessions: The short-term rows (session buffers, summaries, the promotion queue).
        embedder: The embedding model.
        codec: Seals and opens content at rest; replaced (here and on :attr:`metadata`) by a key rotation.
        keys: Loads, creates and rotates the key.
        hot: The per-user cache of most-searched records.
        past_vectors: Embeddings of past versions (as-of search).
        model_pool: This store's model calls; closed with it.
        write_lock: Held by every write.
        read_only: Writes raise :class:`~hermes_memory_core.errors.ReadOnlyStoreError`; ``read_only_reason`` says why.
        alone: No other process uses the store while this one has it open (the embedded vector engine).
        closed: The store is closed (or not yet open).
        lock: The data directory's lock, while held.
    """

    def __init__(self, config: MemoryConfig, embedder: Embedder, clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.clock = clock
        self.data_dir = Path(config.data_dir)
        self.closed = True
        self.write_lock = threading.RLock()
        self.hot = HotCache(config.hot_cache_size)
        self.past_vectors = VersionVectors()
        self.keys = KeyManager(config.encryption_key, config.encryption_key_file, self.data_dir)
        self.redactor = Redactor(config.redact_kinds) if config.redact_pii else None
        self.model_pool = ModelPool(name="hermes-llm")
        self.embedder = embedder
        self.turns = TurnEmbeddings(embedder)  # a turn's question before background documents, and once
        self.read_only = False
        self.read_only_reason = ""
        self.alone = False
        self.lock: DataDirLock | None = None
        # set by MemoryEngine once the stores are built
        self.vectors: VectorStore
        self.metadata: MetadataStore
        self.codec: SealingCodec
        self.sessions: SessionStore

    @property
    def location(self) -> str:
        """Where the metadata lives (a file path, or a PostgreSQL URL without password and schema)."""
        return self.metadata.location

    def now(self, value: float | None = None) -> int:
        """The current Unix time in seconds (or ``value``, truncated)."""
        return int(self.clock() if value is None else value)

    def need_open(self) -> None:
        """Raise :class:`StoreClosedError` once the store is closed."""
        if self.closed:
            raise StoreClosedError("this MemoryProvider is closed")

    def has_vector(self, memory_type: MemoryType) -> bool:
        """Whether memories of this tier are embedded into the vector index (``permanent_vectors``)."""
        return memory_type is not MemoryType.PERMANENT or self.config.permanent_vectors

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts, checking the result's shape; any failure is an :class:`EmbeddingError`."""
        try:
            vectors = self.turns.embed_documents(texts)  # in chunks a waiting question may come between
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

    def embed_records(self, records: Sequence[MemoryRecord]) -> np.ndarray:
        """The memories' vectors, one row each, made from their :func:`~hermes_memory_core.text.perspective.
        embedding_text` (a user's conversation line as said about the user)."""
        return self.embed_documents([embedding_text(r.content, r.role) for r in records])

    def redact(self, content: str, memory_type: MemoryType) -> tuple[str, dict[str, int]]:
        """Content with PII replaced by placeholders where the config redacts this tier (every tier loses
        credentials: :data:`~hermes_memory_core.trust.redaction.CREDENTIAL_KINDS`), and what was found."""
        if self.redactor is None:
            return content, {}
        result = self.redactor.redact(content, None if memory_type.value in self.config.redact_tiers else CREDENTIAL_KINDS)
        if not result.text.strip():
            return content, {}
        return result.text, result.found

    def redact_text(self, text: str) -> str:
        """Any text with PII replaced by placeholders (unchanged when ``redact_pii`` is off)."""
        if self.redactor is None:
            return text
        result = self.redactor.redact(text)
        return result.text if result.found else text
