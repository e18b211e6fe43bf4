"""Rows behind knowledge that stays current (both SQL dialects): repetitions, a memory's versions and memories as
they were at a past moment, and complete erasure of a user or a memory.

- **Repetition**: a statement remembered again counts on the memory that holds it (:meth:`note_repeat`).
- **As of**: :meth:`records_as_of` gives the memories that existed at a moment and changed since, as they were
  then; the version current at ``t`` is the highest whose ``created_at <= t``.
- **Erasure** is recorded durably first (:meth:`record_erasure`, a ``memory_meta`` row), then the rows go in one
  transaction (:meth:`erase_user_rows`, or :meth:`purge` for one memory), then the dialect rewrites what still
  holds deleted bytes (:meth:`erase_residue`: SQLite merges the keyword shard and checkpoints its WAL — the store
  runs with ``secure_delete`` on, so freed pages are zeroed; PostgreSQL runs ``VACUUM FULL``). The intent is
  cleared last, so an erasure a killed process left half done is found by :meth:`pending_erasures` and finished.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from hermes_memory_core.storage.metadata import Erasure, KeywordFilter, RowCodec
from hermes_memory_core.types import ErasureKind, MemoryRecord, MemoryVersion

if TYPE_CHECKING:
    from hermes_memory_core.storage.sql.context import ContextIndex

__all__ = ["ERASURE_PREFIX", "KnowledgeRows"]

#: ``memory_meta`` keys of pending erasures start with this.
ERASURE_PREFIX = "erasure:"
#: Tables that hold a user's rows directly (``user_id`` column), children before parents.
_USER_TABLES = ("memory_access_log", "session_messages", "session_summaries", "sessions", "promotion_queue")


def _key(erasure: Erasure) -> str:
    return f"{ERASURE_PREFIX}{erasure.kind}:{erasure.memory_id or erasure.user_id}"


class KnowledgeRows:
    """Repetition, as-of reads and erasure over the shared SQL: the half of
    :class:`~hermes_memory_core.storage.sql.base.SQLMetadataStore` this module holds (the store mixes it in)."""

    if TYPE_CHECKING:  # provided by SQLMetadataStore
        keywords: ContextIndex
        codec: RowCodec

        def atomic(self) -> AbstractContextManager[Any]: ...
        def reader(self) -> Any: ...
        def _record(self, row: Sequence[Any], tags: Iterable[str] = ()) -> MemoryRecord: ...
        def _tags_for(self, conn: Any, ids: Sequence[str]) -> dict[str, list[str]]: ...
        @staticmethod
        def _filters(flt: KeywordFilter) -> tuple[str, list[Any]]: ...

    # ------------------------------------------------------------------ repetition
    def note_repeat(self, memory_id: str, now: int, detail: str = "") -> None:
        """Count one repetition of an active memory: access count + 1, ``updated_at`` moved to ``now``."""
        with self.atomic() as conn:
            row = conn.execute(
                "SELECT user_id FROM memory_entries WHERE id = ? AND is_active = 1", (memory_id,)
            ).fetchone()
            if row is None:
                return
            conn.execute(
                "UPDATE memory_entries SET access_count = access_count + 1, "
                "updated_at = CASE WHEN updated_at < ? THEN ? ELSE updated_at END, "
                "last_accessed_at = CASE WHEN coalesce(last_accessed_at, 0) < ? THEN ? ELSE last_accessed_at END "
                "WHERE id = ?",
                (now, now, now, now, memory_id),
            )
            conn.execute(
                "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, 'repeat', ?, ?)",
                (memory_id, row[0], now, detail),
            )

    # ------------------------------------------------------------------ history, and as of
    def records_as_of(self, user_id: str, as_of: int, flt: KeywordFilter) -> list[MemoryRecord]:
        """The user's memories that existed at ``as_of`` and changed since (updated or soft-deleted), as they were
        then. Memories never changed are left out: their current row is what they were."""
        where, params = self._filters(flt)
        columns = ", ".join(
            "e." + c for c in ("id", "user_id", "session_id", "content", "memory_type", "importance_score",
                               "access_count", "created_at", "updated_at", "expires_at", "version", "metadata")
        )
        conn = self.reader()
        rows = conn.execute(
            f"SELECT {columns}, v.version, v.content, v.created_at FROM memory_entries e "
            "JOIN memory_versions v ON v.memory_id = e.id "
            "WHERE e.user_id = ? AND e.created_at <= ? AND (e.is_active = 0 OR e.version > 1) "
            "AND (e.is_active = 1 OR e.deleted_at > ?) "
            "AND v.version = (SELECT max(w.version) FROM memory_versions w WHERE w.memory_id = e.id "
            "                 AND w.created_at <= ?) "
            f"AND (e.is_active = 0 OR v.version < e.version) {where} ORDER BY e.id",
            [user_id, as_of, as_of, as_of, *params],
        ).fetchall()
        tags = self._tags_for(conn, [r[0] for r in rows])
        out = []
        for r in rows:
            then = (*r[:3], r[13], *r[4:8], r[14], r[9], r[12], r[11])  # that version's content, time and number
            out.append(self._record(then, tags.get(r[0], ())))
        return out

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every version, oldest first, each with the time span it was current (see :class:`MemoryVersion`)."""
        conn = self.reader()
        rows = conn.execute(
            "SELECT memory_id, version, content, created_at, note FROM memory_versions "
            "WHERE memory_id = ? ORDER BY version",
            (memory_id,),
        ).fetchall()
        entry = conn.execute("SELECT is_active, deleted_at FROM memory_entries WHERE id = ?", (memory_id,)).fetchone()
        ended = None if entry is None or entry[0] or entry[1] is None else int(entry[1])
        ends = [int(r[3]) for r in rows[1:]] + [ended]
        return [
            MemoryVersion(r[0], int(r[1]), self.codec.open(r[0], r[2]), int(r[3]),
                          self.codec.open_field(r[0], "note", r[4]), int(r[3]), end)
            for r, end in zip(rows, ends, strict=True)
        ]

    # ------------------------------------------------------------------ erasure
    def record_erasure(self, erasure: Erasure) -> None:
        """Durably record an erasure before it starts (idempotent)."""
        value = json.dumps({"kind": erasure.kind, "user_id": erasure.user_id, "memory_id": erasure.memory_id})
        with self.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (_key(erasure), value),
            )

    def pending_erasures(self) -> list[Erasure]:
        """Erasures recorded and not finished, users first."""
        rows = self.reader().execute(
            "SELECT value FROM memory_meta WHERE key LIKE ? ORDER BY key DESC", (ERASURE_PREFIX + "%",)
        ).fetchall()
        out = []
        for (value,) in rows:
            data = json.loads(value)
            out.append(Erasure(ErasureKind(str(data["kind"])), str(data["user_id"]), data.get("memory_id")))
        return out

    def clear_erasure(self, erasure: Erasure) -> None:
        """Forget a finished erasure."""
        with self.atomic() as conn:
            conn.execute("DELETE FROM memory_meta WHERE key = ?", (_key(erasure),))

    def erase_user_rows(self, user_id: str) -> list[str]:
        """Delete every row of one user in one transaction. Returns the ids of the memories removed."""
        with self.atomic() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM memory_entries WHERE user_id = ?", (user_id,))]
            self.keywords.postings.unindex_user(conn, user_id)
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                # versions, tags and keyword docs go with their entry (ON DELETE CASCADE); the log has no key
                conn.execute(f"DELETE FROM memory_access_log WHERE memory_id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM memory_versions WHERE memory_id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM memory_tags WHERE memory_id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM memory_entries WHERE id IN ({marks})", chunk)
            for table in _USER_TABLES:
                conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
        return ids
