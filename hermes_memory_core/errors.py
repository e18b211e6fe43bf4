"""The one exception hierarchy of Hermes Memory.

Every error the library raises on purpose derives from :class:`HermesMemoryError`, so a caller can catch
one class. Each subclass names one kind of failure; the message says what was wrong and, where there is
one, what to do about it. An operation that raises leaves stored data as it was.

::

    HermesMemoryError
     ├── ConfigError
     ├── InvalidInputError
     │    ├── EmptyContentError
     │    ├── ContentTooLongError
     │    ├── UnknownMemoryTypeError
     │    └── InvalidIdError
     ├── NotFoundError
     ├── DimensionMismatchError
     ├── ConsistencyError
     │    └── StoreBusyError
     ├── StoreLockedError
     ├── StorageFullError
     ├── ReadOnlyStoreError
     ├── BackendUnavailableError
     ├── StoreClosedError
     ├── BundleError
     ├── EmbeddingError
     ├── EncryptionKeyError
     └── PermissionDeniedError
"""

from __future__ import annotations

__all__ = [
    "BackendUnavailableError",
    "BundleError",
    "ConfigError",
    "ConsistencyError",
    "ContentTooLongError",
    "DimensionMismatchError",
    "EmbeddingError",
    "EmptyContentError",
    "EncryptionKeyError",
    "HermesMemoryError",
    "InjectionRejectedError",
    "InvalidIdError",
    "InvalidInputError",
    "NotFoundError",
    "PermissionDeniedError",
    "ReadOnlyStoreError",
    "StorageFullError",
    "StoreBusyError",
    "StoreClosedError",
    "StoreLockedError",
    "UnknownMemoryTypeError",
]


class HermesMemoryError(Exception):
    """Base class of every error Hermes Memory raises on purpose."""


class ConfigError(HermesMemoryError, ValueError):
    """The configuration is invalid or names something that cannot be loaded."""


class InvalidInputError(HermesMemoryError, ValueError):
    """An argument of a public call is malformed; nothing was stored or changed."""


class InjectionRejectedError(InvalidInputError):
    """The injection guard refused content (an instruction to the assistant, an unbacked privilege claim or a
    request to reveal protected data); nothing was stored or changed."""


class EmptyContentError(InvalidInputError):
    """Memory content is empty or only whitespace."""


class ContentTooLongError(InvalidInputError):
    """Memory content exceeds the configured ``max_content_chars``."""


class UnknownMemoryTypeError(InvalidInputError):
    """The memory tier is not one of short_term, long_term, permanent."""


class InvalidIdError(InvalidInputError):
    """A memory id is not a well-formed UUID."""


class NotFoundError(HermesMemoryError, KeyError):
    """No active memory has the given id (or it belongs to another user)."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable.
        return str(self.args[0]) if self.args else "not found"


class DimensionMismatchError(HermesMemoryError):
    """The embedding model and the vector collection disagree on the vector dimension."""


class ConsistencyError(HermesMemoryError):
    """The metadata store and the vector store could not be kept in step."""


class StoreLockedError(HermesMemoryError):
    """Another process holds the embedded data directory."""


class BackendUnavailableError(HermesMemoryError):
    """A server the configuration names (PostgreSQL, Qdrant) cannot be reached or refused the connection."""


class StoreClosedError(HermesMemoryError):
    """The provider was closed; open a new one."""


class BundleError(HermesMemoryError):
    """An export bundle is missing, corrupted, incompatible or would overwrite data."""


class EmbeddingError(HermesMemoryError):
    """The embedding backend failed or returned vectors of the wrong shape."""


class EncryptionKeyError(HermesMemoryError):
    """The encryption key for permanent memories is missing, malformed or not the store's key."""


class PermissionDeniedError(HermesMemoryError, PermissionError):
    """The caller lacks the permission the operation requires."""


class StoreBusyError(ConsistencyError):
    """Another process holds the store's files (a reader's open transaction) longer than an operation waits; what
    is left is finished by ``reconcile()`` or the next open."""


class StorageFullError(HermesMemoryError):
    """The disk (or quota) of a store's folder is full: the message names the folder and the space needed. Nothing
    of the failed operation was stored; once space is freed the same store opens and takes writes."""

    @classmethod
    def from_os_error(cls, exc: BaseException, folder: object) -> StorageFullError | None:
        """The error to raise for ``exc`` if it is a full disk or quota (ENOSPC, EDQUOT), else None."""
        import errno

        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return cls(f"the disk holding {folder} is full ({exc.strerror or exc}); free some space and try again")
        return None


class ReadOnlyStoreError(HermesMemoryError):
    """The store is open read-only (``read_only=True``, ``--read-only``, or its folder is on read-only media or not
    writable): searches, reads and exports work, a write is refused and nothing is touched."""
