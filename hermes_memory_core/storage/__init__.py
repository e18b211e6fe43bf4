"""Storage backends: metadata on SQLite (embedded) or PostgreSQL (server), vectors behind one protocol."""

from hermes_memory_core.storage.postgres_store import PostgresMetadataStore
from hermes_memory_core.storage.sql_common import SQLMetadataStore
from hermes_memory_core.storage.sqlite_store import SQLiteMetadataStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint, VectorStore

__all__ = [
    "PostgresMetadataStore",
    "SQLMetadataStore",
    "SQLiteMetadataStore",
    "VectorFilter",
    "VectorPoint",
    "VectorStore",
]
