"""Hermes Memory core: tiered, persistent, portable, searchable memory for LLM agents.

Imports no agent framework; the LangChain and LlamaIndex adapters build on this package.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("hermes-memory")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+local"

from hermes_memory_core.config import MemoryConfig, RankingConfig
from hermes_memory_core.errors import (
    BackendUnavailableError,
    BundleError,
    ConfigError,
    ConsistencyError,
    ContentTooLongError,
    DimensionMismatchError,
    EmbeddingError,
    EmptyContentError,
    EncryptionKeyError,
    HermesMemoryError,
    InvalidIdError,
    InvalidInputError,
    NotFoundError,
    PermissionDeniedError,
    StoreClosedError,
    StoreLockedError,
    UnknownMemoryTypeError,
)
from hermes_memory_core.provider import MemoryProvider
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import (
    MemoryHit,
    MemoryItem,
    MemoryRecord,
    MemoryType,
    MemoryVersion,
    ReconcileReport,
    StoreStats,
)

__all__ = [
    "BundleError",
    "Caller",
    "ConfigError",
    "ConsistencyError",
    "ContentTooLongError",
    "DimensionMismatchError",
    "EmbeddingError",
    "EmptyContentError",
    "EncryptionKeyError",
    "HermesMemoryError",
    "InvalidIdError",
    "InvalidInputError",
    "MemoryConfig",
    "MemoryHit",
    "MemoryItem",
    "MemoryProvider",
    "MemoryRecord",
    "MemoryType",
    "MemoryVersion",
    "NotFoundError",
    "PermissionDeniedError",
    "RankingConfig",
    "ReconcileReport",
    "BackendUnavailableError",
    "StoreClosedError",
    "StoreLockedError",
    "StoreStats",
    "UnknownMemoryTypeError",
    "__version__",
]
