"""The small roles of a SQL metadata store (both dialects): the access log, what forgetting reads, and whole-store
administration (:class:`~hermes_memory_core.storage.metadata.AccessLog`,
:class:`~hermes_memory_core.storage.metadata.LifecycleRows`,
:class:`~hermes_memory_core.storage.metadata.Administration`), each over the store's shared
:class:`~hermes_memory_core.storage.sql.rows.SQLRows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hermes_memory_core.storage.metadata import AccessRecord, LifecycleRow, RowCodec
from hermes_memory_core.storage.sql.recode import recode_rows
from hermes_memory_core.storage.sql.rows import LOG_SQL, SQLRows

__all__ = ["SQLAccessLog", "SQLAdministration", "SQLLifecycleRows"]


class SQLAccessLog:
    """The :class:`~hermes_memory_core.storage.metadata.AccessLog` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts.
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

    def log(self, memory_id: str, user_id: str, action: str, at: int, detail: str = "") -> None:
        """One access-log row (permanent reads and denied attempts)."""
        with self._rows.atomic() as conn:
            conn.execute(LOG_SQL, (memory_id, user_id, action, at, detail))

    def record_access(self, entries: Sequence[AccessRecord]) -> None:
        """Apply buffered accesses: search hits count, every entry is logged."""
        if not entries:
            return
        hits = sorted((e.memory_id, e.at) for e in entries if e.action == "search")
        with self._rows.atomic() as conn:
            conn.executemany(
                "UPDATE memory_entries SET access_count = access_count + 1, "
                f"last_accessed_at = {self._rows.db.greatest}(coalesce(last_accessed_at, 0), ?) WHERE id = ?",
                [(at, mid) for mid, at in hits],  # one row-lock order for every writer (no deadlock)
            )
            conn.executemany(LOG_SQL, [(e.memory_id, e.user_id, e.action, e.at, e.detail) for e in entries])

    def access_log(self, memory_id: str) -> list[tuple[str, int, str]]:
        """``(action, at, detail)`` of one memory, in order (details opened)."""
        return [
            (r[0], int(r[1]), self._rows.codec.open_field(memory_id, "log", r[2]))
            for r in self._rows.reader().execute(
                "SELECT action, at, detail FROM memory_access_log WHERE memory_id = ? ORDER BY id", (memory_id,)
            )
        ]


class SQLLifecycleRows:
    """The :class:`~hermes_memory_core.storage.metadata.LifecycleRows` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts.
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

    def lifecycle_rows(self, memory_types: Sequence[str]) -> list[LifecycleRow]:
        """Active memories of these tiers with what forgetting weighs."""
        rows = self._rows.reader().execute(
            "SELECT id, user_id, session_id, memory_type, importance_score, updated_at, last_accessed_at, expires_at "
            f"FROM memory_entries WHERE is_active = 1 AND memory_type IN ({','.join('?' * len(memory_types))})",
            list(memory_types),
        )
        session_of = self._rows.codec.session_of
        return [
            LifecycleRow(r[0], r[1], session_of(r[2]), r[3], float(r[4]), int(r[5]),
                         None if r[6] is None else int(r[6]),
                         None if r[7] is None else int(r[7]))
            for r in rows
        ]

    def active_versions(self) -> dict[str, int]:
        """id → current version of every active memory."""
        return {r[0]: int(r[1])
                for r in self._rows.reader().execute("SELECT id, version FROM memory_entries WHERE is_active = 1")}

    def expired_ids(self, now: int) -> list[str]:
        """Active memories whose ``expires_at`` has passed."""
        return [
            r[0]
            for r in self._rows.reader().execute(
                "SELECT id FROM memory_entries WHERE is_active = 1 AND expires_at IS NOT NULL AND expires_at <= ?",
                (now,),
            )
        ]

    def counts(self) -> dict[str, Any]:
        """``by_type``, ``by_user``, ``versions`` and ``deleted`` counts."""
        conn = self._rows.reader()
        by_type = dict(
            conn.execute("SELECT memory_type, count(*) FROM memory_entries WHERE is_active = 1 GROUP BY memory_type")
        )
        by_user = dict(conn.execute("SELECT user_id, count(*) FROM memory_entries WHERE is_active = 1 GROUP BY user_id"))
        versions = conn.execute("SELECT count(*) FROM memory_versions").fetchone()[0]
        deleted = conn.execute("SELECT count(*) FROM memory_entries WHERE is_active = 0").fetchone()[0]
        return {"by_type": by_type, "by_user": by_user, "versions": int(versions), "deleted": int(deleted)}


class SQLAdministration:
    """The :class:`~hermes_memory_core.storage.metadata.Administration` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts.
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

    def recode(self, memory_types: Sequence[str], codec: RowCodec) -> int:
        """Re-seal everything kept of the memories of these tiers (content, versions and their notes, metadata and
        tags, delete reasons, log details) from the store's codec to ``codec`` and re-index them, in one
        transaction (or a savepoint of the caller's). The store's codec is left as it was: the caller sets it once
        its transaction commits. Returns how many memories changed."""
        rows = self._rows
        with rows.atomic() as conn:
            rows.recoding = codec
            try:
                ids = recode_rows(conn, memory_types, rows.codec, codec)
                for memory_id in ids:
                    rows.context.postings.unindex(conn, memory_id)
                rows.context.repair()  # re-indexes them, session by session, under the new codec
            finally:
                rows.recoding = None
        return len(ids)

    def backup_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole store to ``target`` (the bundle format)."""
        self._rows.db.backup_to(target)
