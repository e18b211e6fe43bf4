"""A memory's versions over SQL (both dialects): the :class:`~hermes_memory_core.storage.metadata.VersionHistory`
role.

Versions are appended, never rewritten; the one current is copied into the memory's row. **As of**:
:meth:`SQLVersionHistory.records_as_of` gives the memories that existed at a moment and changed since, as they
were then; the version current at ``t`` is the highest whose ``created_at <= t``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hermes_memory_core.storage.metadata import KeywordFilter
from hermes_memory_core.storage.sql.rows import LOG_SQL, SQLRows
from hermes_memory_core.types import MemoryRecord, MemoryVersion

__all__ = ["SQLVersionHistory"]


class SQLVersionHistory:
    """The :class:`~hermes_memory_core.storage.metadata.VersionHistory` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts (database, codec, keyword index, row reading).
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

    def add_version(
        self,
        memory_id: str,
        content: str,
        note: str,
        now: int,
        user_id: str,
        metadata: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
        lang: str | None = None,
    ) -> int:
        """Append a version and make it current; replace the memory's metadata, tags and language when given
        (they are not versioned). Returns the new version number."""
        codec = self._rows.codec
        with self._rows.atomic() as conn:
            row = self._rows.lock_active(conn, memory_id, "version, memory_type, metadata")
            version, tier = int(row[0]) + 1, str(row[1])
            stored = codec.seal(memory_id, tier, content)
            conn.execute(
                "INSERT INTO memory_versions (memory_id, version, content, created_at, note) VALUES (?, ?, ?, ?, ?)",
                (memory_id, version, stored, now, codec.seal_field(memory_id, tier, "note", note)),
            )
            conn.execute(  # the old version's other-language key terms go with it (new ones follow in the background)
                "UPDATE memory_entries SET content = ?, version = ?, updated_at = ?, xlang_terms = NULL WHERE id = ?",
                (stored, version, now, memory_id),
            )
            if lang is not None:
                conn.execute("UPDATE memory_entries SET lang = ? WHERE id = ?", (lang, memory_id))
            if metadata is not None or tags is not None:
                old_meta, old_tags = codec.unpack_metadata(memory_id, row[2])
                if old_tags is None:
                    old_tags = tuple(self._rows.tags_for(conn, [memory_id]).get(memory_id, ()))
                new_tags = list(old_tags if tags is None else tags)
                packed = codec.pack_metadata(memory_id, tier, old_meta if metadata is None else dict(metadata), new_tags)
                conn.execute("UPDATE memory_entries SET metadata = ? WHERE id = ?", (packed, memory_id))
                conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
                conn.executemany(
                    "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [(memory_id, tag) for tag in codec.tag_keys(tier, new_tags)],
                )
            self._rows.context.reindex(conn, memory_id, content)
            conn.execute(LOG_SQL, (memory_id, user_id, "update", now, codec.seal_field(memory_id, tier, "log", note)))
            return version

    def revert_version(self, memory_id: str, version: int) -> None:
        """Undo :meth:`add_version` (compensation when the vector half of an update failed)."""
        with self._rows.atomic() as conn:
            conn.execute("DELETE FROM memory_versions WHERE memory_id = ? AND version = ?", (memory_id, version))
            prev = conn.execute(
                "SELECT version, content, created_at FROM memory_versions WHERE memory_id = ? "
                "ORDER BY version DESC LIMIT 1",
                (memory_id,),
            ).fetchone()
            row = conn.execute("SELECT user_id FROM memory_entries WHERE id = ?", (memory_id,)).fetchone()
            if prev is None or row is None:
                return
            conn.execute(
                "UPDATE memory_entries SET content = ?, version = ?, updated_at = ?, xlang_terms = NULL WHERE id = ?",
                (prev[1], prev[0], prev[2], memory_id),
            )
            self._rows.context.reindex(conn, memory_id)

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every version, oldest first, each with the time span it was current (see :class:`MemoryVersion`)."""
        conn = self._rows.reader()
        rows = conn.execute(
            "SELECT memory_id, version, content, created_at, note FROM memory_versions "
            "WHERE memory_id = ? ORDER BY version",
            (memory_id,),
        ).fetchall()
        entry = conn.execute("SELECT is_active, deleted_at FROM memory_entries WHERE id = ?", (memory_id,)).fetchone()
        ended = None if entry is None or entry[0] or entry[1] is None else int(entry[1])
        ends = [int(r[3]) for r in rows[1:]] + [ended]
        codec = self._rows.codec
        return [
            MemoryVersion(r[0], int(r[1]), codec.open(r[0], r[2]), int(r[3]),
                          codec.open_field(r[0], "note", r[4]), int(r[3]), end)
            for r, end in zip(rows, ends, strict=True)
        ]

    def records_as_of(self, user_id: str, as_of: int, flt: KeywordFilter) -> list[MemoryRecord]:
        """The user's memories that existed at ``as_of`` and changed since (updated or soft-deleted), as they were
        then. Memories never changed are left out: their current row is what they were."""
        where, params = self._rows.filters(flt)
        columns = ", ".join(
            "e." + c for c in ("id", "user_id", "session_id", "content", "memory_type", "importance_score",
                               "access_count", "created_at", "updated_at", "expires_at", "version", "metadata")
        )
        conn = self._rows.reader()
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
        tags = self._rows.tags_for(conn, [r[0] for r in rows])
        out = []
        for r in rows:
            then = (*r[:3], r[13], *r[4:8], r[14], r[9], r[12], r[11])  # that version's content, time and number
            out.append(self._rows.record(then, tags.get(r[0], ())))
        return out
