"""Hermes Memory core: tiered, persistent, portable, searchable memory for LLM agents.

Imports no agent framework; the LangChain and LlamaIndex adapters build on this package.
"""

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
    StorageFullError,
    StoreBusyError,
    StoreClosedError,
    StoreLockedError,
    UnknownMemoryTypeError,
)
from hermes_memory_core.lifecycle.erasure import ErasureReport
from hermes_memory_core.lifecycle.forgetting import ForgetReport
from hermes_memory_core.lifecycle.promotion import RememberResult
from hermes_memory_core.llm import LLM, CallableLLM
from hermes_memory_core.provider import MemoryProvider
from hermes_memory_core.retrieval.gate import needs_permanent, should_recall
from hermes_memory_core.short_term.session import SessionMemory, SessionView
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from hermes_memory_core.storage.sessions import Message
from hermes_memory_core.trust.injection import WriteVerdict, check_memory_write
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.trust.redaction import RedactionResult, Redactor
from hermes_memory_core.types import (
    MemoryHit,
    MemoryItem,
    MemoryRecord,
    MemoryType,
    MemoryVersion,
    ReconcileReport,
    StoreStats,
)
from hermes_memory_core.version import __version__

__all__ = [
    "LLM",
    "BackendUnavailableError",
    "BundleError",
    "CallableLLM",
    "Caller",
    "ConfigError",
    "ConsistencyError",
    "ContentTooLongError",
    "DimensionMismatchError",
    "EmbeddingError",
    "EmptyContentError",
    "EncryptionKeyError",
    "ErasureReport",
    "ExtractiveSummarizer",
    "ForgetReport",
    "HermesMemoryError",
    "InvalidIdError",
    "InvalidInputError",
    "LLMSummarizer",
    "MemoryConfig",
    "MemoryHit",
    "MemoryItem",
    "MemoryProvider",
    "MemoryRecord",
    "MemoryType",
    "MemoryVersion",
    "Message",
    "NotFoundError",
    "PermissionDeniedError",
    "RankingConfig",
    "ReconcileReport",
    "RedactionResult",
    "Redactor",
    "RememberResult",
    "SessionMemory",
    "SessionView",
    "StorageFullError",
    "StoreBusyError",
    "StoreClosedError",
    "StoreLockedError",
    "StoreStats",
    "Summarizer",
    "UnknownMemoryTypeError",
    "WriteVerdict",
    "__version__",
    "check_memory_write",
    "needs_permanent",
    "should_recall",
]
