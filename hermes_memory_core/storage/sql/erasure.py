"""Complete erasure over SQL (both dialects): the :class:`~hermes_memory_core.storage.metadata.ErasureRows` role.

Erasure is recorded durably first (:meth:`SQLErasureRows.record_erasure`, a ``memory_meta`` row), then the rows go
in one transaction (:meth:`SQLErasureRows.erase_user_rows`, or
:meth:`~hermes_memory_core.storage.sql.records.SQLMemoryRecords.purge` for one memory), then the dialect rewrites
what still holds deleted bytes (:meth:`SQLErasureRows.erase_residue`: SQLite merges the keyword shard and
checkpoints its WAL — the store runs with ``secure_delete`` on, so freed pages are zeroed; PostgreSQL runs
``VACUUM FULL``). The intent is cleared last, so an erasure a killed process left half done is found by
:meth:`SQLErasureRows.pending_erasures` and finished.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hermes_memory_core.storage.metadata import Erasure
from hermes_memory_core.storage.sql.rows import SQLRows
from hermes_memory_core.types import ErasureKind

__all__ = ["ERASURE_PREFIX", "SQLErasureRows"]

#: ``memory_meta`` keys of pending erasures start with this.
ERASURE_PREFIX = "erasure:"
#: Tables that hold a user's rows directly (``user_id`` column), children before parents.
_USER_TABLES = ("memory_access_log", "session_messages", "session_summaries", "sessions", "promotion_queue")


def _key(erasure: Erasure) -> str:
    return f"{ERASURE_PREFIX}{erasure.kind}:{erasure.memory_id or erasure.user_id}"


class SQLErasureRows:
    """The :class:`~hermes_memory_core.storage.metadata.ErasureRows` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts (database, codec, keyword index, row reading).
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

    def record_erasure(self, erasure: Erasure) -> None:
        """Durably record an erasure before it starts (idempotent)."""
        value = json.dumps({"kind": erasure.kind, "user_id": erasure.user_id, "memory_id": erasure.memory_id})
        with self._rows.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (_key(erasure), value),
            )

    def pending_erasures(self) -> list[Erasure]:
        """Erasures recorded and not finished, users first."""
        rows = self._rows.reader().execute(
            "SELECT value FROM memory_meta WHERE key LIKE ? ORDER BY key DESC", (ERASURE_PREFIX + "%",)
        ).fetchall()
        out = []
        for (value,) in rows:
            data = json.loads(value)
            out.append(Erasure(ErasureKind(str(data["kind"])), str(data["user_id"]), data.get("memory_id")))
        return out

    def clear_erasure(self, erasure: Erasure) -> None:
        """Forget a finished erasure."""
        with self._rows.atomic() as conn:
            conn.execute("DELETE FROM memory_meta WHERE key = ?", (_key(erasure),))

    def erase_user_rows(self, user_id: str) -> list[str]:
        """Delete every row of one user in one transaction. Returns the ids of the memories removed."""
        with self._rows.atomic() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM memory_entries WHERE user_id = ?", (user_id,))]
            self._rows.context.postings.unindex_user(conn, user_id)
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

    def erase_residue(self, user_ids: Sequence[str]) -> None:
        """Fold away the users' deleted keyword entries, then rewrite the files (see each dialect's parts)."""
        self._rows.context.postings.compact(user_ids)
        self._rows.db.rewrite()

    def checkpoint(self) -> None:
        """Make the last deletes final in the files (the dialect's database does it)."""
        self._rows.db.checkpoint()
