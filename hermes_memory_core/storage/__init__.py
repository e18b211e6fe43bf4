"""Storage backends: SQLite metadata, and vector stores behind one protocol."""

from hermes_memory_core.storage.sqlite_store import SQLiteMetadataStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint, VectorStore

__all__ = ["SQLiteMetadataStore", "VectorFilter", "VectorPoint", "VectorStore"]
