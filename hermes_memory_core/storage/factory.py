"""Which stores a configuration names: the metadata store and the vector store, built but not yet opened."""

from __future__ import annotations

from pathlib import Path

from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.storage.metadata import MetadataStore
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.storage.vectors import VectorStore

__all__ = ["METADATA_FILE", "VECTORS_DIR", "build_metadata_store", "build_vector_store"]

METADATA_FILE = "metadata.sqlite"
VECTORS_DIR = "vectors"


def build_metadata_store(config: MemoryConfig, *, read_only: bool = False, alone: bool = False) -> MetadataStore:
    """The configured metadata store, not yet opened: PostgreSQL when ``metadata_url`` is set, else SQLite
    (``read_only``: opened without writing; ``alone``: no other process may write it meanwhile)."""
    if config.metadata_url is not None:
        from hermes_memory_core.storage.postgres.store import PostgresMetadataStore

        return PostgresMetadataStore(
            config.metadata_url.get_secret_value(), config.metadata_schema, config.metadata_pool_size
        )
    return SQLiteMetadataStore(Path(config.data_dir) / METADATA_FILE, read_only=read_only, alone=alone)


def build_vector_store(config: MemoryConfig, *, read_only: bool = False) -> VectorStore:
    """The configured vector store, not yet opened (``read_only``: the embedded shard is searched from a private
    copy and refuses writes)."""
    if config.vector_backend == "edge":
        from hermes_memory_core.storage.edge_store import EdgeVectorStore

        path = Path(config.data_dir) / VECTORS_DIR / config.collection
        return EdgeVectorStore(path, config.vector_dim, config.collection, read_only=read_only,
                               small_max=config.small_store_max_points)
    from hermes_memory_core.storage.client_store import QdrantClientVectorStore

    key = config.qdrant_api_key.get_secret_value() if config.qdrant_api_key else None
    return QdrantClientVectorStore(config.qdrant_url or ":memory:", config.vector_dim, config.collection, api_key=key,
                                   read_only=read_only)
