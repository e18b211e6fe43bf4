"""Storage: rows and points, no policy. Metadata on SQLite (embedded) or PostgreSQL (server) behind the
:class:`~hermes_memory_core.storage.metadata.MetadataStore` protocol, session buffers in the same database,
vectors behind the :class:`~hermes_memory_core.storage.vectors.VectorStore` protocol (Qdrant Edge embedded,
qdrant-client for servers)."""

from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.storage.metadata import (
    AccessRecord,
    KeywordFilter,
    LifecycleRow,
    MetadataStore,
    NewMemory,
    RankRow,
    RowCodec,
)
from hermes_memory_core.storage.postgres.store import PostgresMetadataStore
from hermes_memory_core.storage.sessions import Message, QueuedContent, SessionStore, SummaryChunk
from hermes_memory_core.storage.sql.base import SQLMetadataStore
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint, VectorStore

__all__ = [
    "AccessRecord",
    "KeywordFilter",
    "LifecycleRow",
    "MemoryFilter",
    "Message",
    "MetadataStore",
    "NewMemory",
    "PostgresMetadataStore",
    "QueuedContent",
    "RankRow",
    "RowCodec",
    "SQLMetadataStore",
    "SQLiteMetadataStore",
    "SessionStore",
    "SummaryChunk",
    "VectorFilter",
    "VectorPoint",
    "VectorStore",
]
