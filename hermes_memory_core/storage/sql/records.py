"""Memory rows over SQL (both dialects): the :class:`~hermes_memory_core.storage.metadata.MemoryRecords` role.

Rows are written, moved between tiers and read back scoped to their owner; every write is one transaction that
keeps the keyword index in step (:class:`~hermes_memory_core.storage.sql.context.ContextIndex`). A statement
remembered again counts on the memory that holds it (:meth:`SQLMemoryRecords.note_repeat`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from hermes_memory_core.storage.metadata import KeywordFilter, NewMemory, RankRow
from hermes_memory_core.storage.sql.rows import COLUMNS, LOG_SQL, SQLRows
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["SQLMemoryRecords"]

_TIERS = {tier.value: tier for tier in MemoryType}  # a row's tier column as its enum (one dict lookup per row)
_E_COLUMNS = ", ".join("e." + c.strip() for c in COLUMNS.split(","))
_RANK_COLUMNS = (
    "id, session_id, created_at, updated_at, importance_score, version, memory_type, access_count, dialogue, lang"
)


class SQLMemoryRecords:
    """The :class:`~hermes_memory_core.storage.metadata.MemoryRecords` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts (database, codec, keyword index, row reading).
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

    # ------------------------------------------------------------------ writes
    def insert(self, rows: Sequence[NewMemory], note: str = "") -> None:
        """Insert new memories with version 1, tags and keyword-index rows, all in one transaction."""
        records = [row.record for row in rows]
        codec = self._rows.codec
        sealed = {r.id: codec.seal(r.id, r.memory_type.value, r.content) for r in records}
        packed = {r.id: codec.pack_metadata(r.id, r.memory_type.value, r.metadata, r.tags) for r in records}
        with self._rows.atomic() as conn:
            conn.executemany(
                "INSERT INTO memory_entries (id, user_id, session_id, content, memory_type, embedding_id, "
                "importance_score, access_count, created_at, updated_at, expires_at, is_active, version, metadata, "
                "dialogue, lang) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 1, 1, ?, ?, ?)",
                [
                    (
                        r.id, r.user_id, codec.session_key(r.user_id, r.session_id), sealed[r.id], r.memory_type.value, r.id,
                        r.importance,
                        r.created_at, r.updated_at, r.expires_at, packed[r.id], 1 if row.dialogue else 0, row.lang,
                    )
                    for row, r in zip(rows, records, strict=True)
                ],
            )
            conn.executemany(
                "INSERT INTO memory_versions (memory_id, version, content, created_at, note) VALUES (?, 1, ?, ?, ?)",
                [(r.id, sealed[r.id], r.created_at, codec.seal_field(r.id, r.memory_type.value, "note", note))
                 for r in records],
            )
            conn.executemany(
                "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(r.id, tag) for r in records for tag in codec.tag_keys(r.memory_type.value, r.tags)],
            )
            self._rows.context.index_inserted(conn, rows)
            conn.executemany(LOG_SQL, [(r.id, r.user_id, "add", r.updated_at, "") for r in records])

    def purge(self, ids: Sequence[str]) -> None:
        """Physically remove rows (compensation of a write whose vector half failed; never for user deletes)."""
        context = self._rows.context
        with self._rows.atomic() as conn:
            for memory_id in ids:
                place = context.place(conn, memory_id)
                context.postings.unindex(conn, memory_id)
                conn.execute("DELETE FROM memory_entries WHERE id = ?", (memory_id,))
                conn.execute("DELETE FROM memory_access_log WHERE memory_id = ?", (memory_id,))
                if place is not None:  # its neighbours no longer see its words
                    context.refresh_context(conn, place[0], place[1], place[2], place[2])

    def soft_delete(self, memory_id: str, reason: str, now: int) -> str:
        """Mark a memory inactive and drop it from the keyword index. Returns its user_id."""
        codec = self._rows.codec
        with self._rows.atomic() as conn:
            row = self._rows.lock_active(conn, memory_id, "user_id, memory_type")
            conn.execute(
                "UPDATE memory_entries SET is_active = 0, deleted_at = ?, delete_reason = ? WHERE id = ?",
                (now, codec.seal_field(memory_id, row[1], "reason", reason), memory_id),
            )
            self._rows.context.reindex(conn, memory_id)  # leaves the index; its neighbours no longer see its words
            conn.execute(LOG_SQL, (memory_id, row[0], "delete", now, codec.seal_field(memory_id, row[1], "log", reason)))
            return str(row[0])

    def set_tier(self, memory_id: str, memory_type: str, expires_at: int | None, note: str, now: int) -> None:
        """Move an active memory to another tier (a downgrade by forgetting), logged."""
        with self._rows.atomic() as conn:
            row = self._rows.lock_active(conn, memory_id, "user_id")
            conn.execute(
                "UPDATE memory_entries SET memory_type = ?, expires_at = ? WHERE id = ?",
                (memory_type, expires_at, memory_id),
            )
            conn.execute(LOG_SQL, (memory_id, row[0], "downgrade", now, note))

    def note_repeat(self, memory_id: str, now: int, detail: str = "") -> None:
        """Count one repetition of an active memory: access count + 1, ``updated_at`` moved to ``now``."""
        with self._rows.atomic() as conn:
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

    def set_languages(self, langs: Sequence[tuple[str, str]]) -> None:
        """Record ``(id, lang)`` pairs in one transaction."""
        if langs:
            with self._rows.atomic() as conn:
                conn.executemany("UPDATE memory_entries SET lang = ? WHERE id = ?", [(lang, mid) for mid, lang in langs])

    # ------------------------------------------------------------------ reads
    def get(self, memory_id: str, include_inactive: bool = False) -> MemoryRecord | None:
        """One memory by id (active only unless asked)."""
        conn = self._rows.reader()
        sql = f"SELECT {COLUMNS} FROM memory_entries WHERE id = ?"
        if not include_inactive:
            sql += " AND is_active = 1"
        row = conn.execute(sql, (memory_id,)).fetchone()
        if row is None:
            return None
        return self._rows.record(row, self._rows.tags_for(conn, [memory_id]).get(memory_id, ()))

    def get_many(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, MemoryRecord]:
        """Active, unexpired rows of one user among ``ids`` (others are silently left out)."""
        if not ids:
            return {}
        rows = list(self._rows.owned_rows(COLUMNS, ids, user_id, now))
        tags = self._rows.tags_for(self._rows.reader(), [r[0] for r in rows])
        return {row[0]: self._rows.record(row, tags.get(row[0], ())) for row in rows}

    def rank_rows(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, RankRow]:
        """The light columns ranking needs, of active, unexpired rows of one user (full records are built only
        for the hits that are returned)."""
        if not ids:
            return {}
        make, session_of, tier = RankRow._make, self._rows.codec.session_of, _TIERS.__getitem__
        return {row[0]: make((session_of(row[1]), *row[2:6], tier(row[6]), *row[7:]))
                for row in self._rows.owned_rows(_RANK_COLUMNS, ids, user_id, now)}

    def list_records(self, user_id: str, flt: KeywordFilter, limit: int = 100, offset: int = 0) -> list[MemoryRecord]:
        """One user's active, unexpired memories matching the filter, oldest first (``created_at``, then id)."""
        where, params = self._rows.filters(flt)
        conn = self._rows.reader()
        rows = conn.execute(
            f"SELECT {_E_COLUMNS} FROM memory_entries e "
            f"WHERE e.user_id = ? AND e.is_active = 1 {where} ORDER BY e.created_at, e.id LIMIT ? OFFSET ?",
            [user_id, *params, limit, offset],
        ).fetchall()
        tag_map = self._rows.tags_for(conn, [r[0] for r in rows])
        return [self._rows.record(r, tag_map.get(r[0], ())) for r in rows]

    def find_by_metadata(self, user_id: str, key: str, value: str, memory_types: Sequence[str]) -> str | None:
        """Id of the user's most recently updated active memory of these tiers with ``metadata[key] == value``
        (``key`` is our own constant)."""
        return self.find_by_metadata_values(user_id, key, [value], memory_types).get(value)

    def find_by_metadata_values(self, user_id: str, key: str, values: Sequence[str],
                                memory_types: Sequence[str]) -> dict[str, str]:
        """:meth:`find_by_metadata` for several values in one query: ``{value: id}`` for the values found; for
        our lookup keys (``m011``, ``m012``) an index lookup on (user, value) at any store size."""
        sql = self.metadata_lookup_sql(key, len(values), len(memory_types))
        rows = self._rows.reader().execute(sql, (user_id, *values, *memory_types)).fetchall()
        return {str(value): str(mid) for value, mid in reversed(rows)}  # the most recently updated one wins

    def metadata_lookup_sql(self, key: str, values: int, memory_types: int) -> str:
        """:meth:`find_by_metadata_values`'s query (user, values, tiers); the tier is checked on the rows found."""
        field = self._rows.db.json_text("metadata", key)
        return (f"SELECT {field}, id FROM memory_entries WHERE user_id = ? AND {field} IS NOT NULL "
                f"AND {field} IN ({','.join('?' * values)}) AND memory_type || '' IN ({','.join('?' * memory_types)}) "
                "AND is_active = 1 ORDER BY updated_at DESC")

    def iter_active(self, batch_size: int = 1000) -> Iterator[list[MemoryRecord]]:
        """Every active memory, in batches ordered by id."""
        last = ""
        conn = self._rows.reader()
        while True:
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM memory_entries WHERE is_active = 1 AND id > ? ORDER BY id LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            tags = self._rows.tags_for(conn, [r[0] for r in rows])
            yield [self._rows.record(r, tags.get(r[0], ())) for r in rows]
            last = rows[-1][0]

    def has_language(self, user_id: str, lang: str) -> bool:
        """Whether the user has an active memory in this language (one index probe)."""
        row = self._rows.reader().execute(
            "SELECT 1 FROM memory_entries WHERE user_id = ? AND lang = ? AND is_active = 1 LIMIT 1", (user_id, lang)
        ).fetchone()
        return row is not None

    def missing_languages(self, limit: int = 1000) -> list[tuple[str, str]]:
        """``(id, plain content)`` of up to ``limit`` memories (active or not) with no recorded language."""
        rows: list[Any] = self._rows.reader().execute(
            "SELECT id, content FROM memory_entries WHERE lang IS NULL ORDER BY id LIMIT ?", (limit,)
        ).fetchall()
        return [(str(r[0]), self._rows.codec.open(r[0], r[1])) for r in rows]
