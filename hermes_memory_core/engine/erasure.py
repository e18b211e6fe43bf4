"""Erasure in the engine: what an erasure removes from every part, and the choreography of the write lock around
it (see :mod:`~hermes_memory_core.lifecycle.erasure` for the whole order and why it survives a killed process).

The intent is recorded under the write lock; the rows, points, caches and buffers go under it (one transaction of
rows); what still holds deleted bytes is rewritten *without* it, and the intent is cleared and the deletes made final
without it too, since each may wait a bounded time for a reader (a ``sqlite3`` shell, a backup, or on PostgreSQL a
transaction whose snapshot still sees the deleted rows). Every step is idempotent: when a reader holds the files
longer than the wait, the intent stays (or is recorded again) for the next try.
"""

from __future__ import annotations

from collections.abc import Callable

from hermes_memory_core.engine.access import AccessBuffer, Languages
from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.errors import StoreBusyError
from hermes_memory_core.storage.metadata import Erasure
from hermes_memory_core.types import AccessAction, ErasureKind

__all__ = ["Eraser"]


class Eraser:
    """Erases users and memories from every part of one store."""

    def __init__(self, parts: StoreParts, access: AccessBuffer, languages: Languages) -> None:
        self._parts = parts
        self._access = access
        self._languages = languages

    def record(self, erasure: Erasure, also: Callable[[], None] | None = None) -> None:
        """Durably record an erasure before it starts (idempotent), under the write lock of an open store; ``also``
        runs under the same lock right after (what must go before the files are rewritten)."""
        with self._parts.write_lock:
            self._parts.need_open()
            self._parts.metadata.erasure.record_erasure(erasure)
            if also is not None:
                also()

    def pending(self) -> list[Erasure]:
        """Erasures recorded and not finished (a killed process, or a reader that held the files)."""
        return self._parts.metadata.erasure.pending_erasures()

    def complete(self, erasure: Erasure) -> tuple[int, str]:
        """Run a recorded erasure to its end: remove it from every part (under the write lock), rewrite the files
        (without it), then clear the intent and make the deletes final (without it). Returns (memories removed,
        what is left: "" when complete, else why a reader kept a file from being rewritten)."""
        with self._parts.write_lock:
            self._parts.need_open()
            removed = self._remove(erasure)
        try:
            self._rewrite(erasure)  # waits a bounded time for readers, the write lock free meanwhile
        except StoreBusyError as exc:
            return removed, str(exc)
        return removed, self._settle(erasure)

    def _remove(self, erasure: Erasure) -> int:
        """Erase what ``erasure`` names from every part, under the caller's write lock: the metadata rows in one
        transaction, the vector points (by the user filter for a user, so points no row knows go too), the hot
        cache, the cached past-version vectors and buffered access records; log a one-memory erasure as
        ``hard_delete``. Returns the memories removed."""
        parts = self._parts
        if erasure.kind is ErasureKind.USER:
            ids = parts.metadata.erasure.erase_user_rows(erasure.user_id)
            parts.vectors.delete_user(erasure.user_id)
            parts.hot.drop_user(erasure.user_id)
            parts.past_vectors.drop(erasure.user_id)
            self._access.discard(erasure.user_id)
            self._languages.forget(erasure.user_id)
        else:
            assert erasure.memory_id is not None
            ids = [erasure.memory_id]
            parts.metadata.records.purge(ids)
            parts.vectors.delete(ids)
            parts.hot.invalidate(erasure.memory_id)
            parts.past_vectors.drop(erasure.user_id, erasure.memory_id)
            self._access.discard(erasure.user_id, erasure.memory_id)
        parts.vectors.flush()
        if erasure.kind is ErasureKind.MEMORY:
            parts.metadata.access.log(erasure.memory_id or "", erasure.user_id, AccessAction.HARD_DELETE, parts.now(), "")
        return len(ids)

    def _rewrite(self, erasure: Erasure) -> None:
        """Rewrite what still holds bytes :meth:`_remove` deleted: the vector engine's files and the metadata
        store's (its keyword shard and WAL, or PostgreSQL's tables); each store takes its own lock per step.

        Raises:
            StoreBusyError: A reader held the files (or, on PostgreSQL, a transaction older than the erasure
                still saw the deleted rows) for longer than the wait; the erasure stays recorded.
        """
        self._parts.vectors.compact_deleted()
        self._parts.metadata.erasure.erase_residue([erasure.user_id])

    def _settle(self, erasure: Erasure) -> str:
        """Clear the intent and make the deletes final, outside the write lock. Returns what is left ("" for
        nothing): when readers keep the checkpoint from finishing, the intent is recorded again for the next try."""
        parts = self._parts
        with parts.write_lock:
            parts.metadata.erasure.clear_erasure(erasure)
        try:
            parts.metadata.erasure.checkpoint()  # waits a bounded time for readers, the write lock free meanwhile
        except StoreBusyError as exc:
            with parts.write_lock:
                parts.metadata.erasure.record_erasure(erasure)
            return str(exc)
        return ""
