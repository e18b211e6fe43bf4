"""What the SQLite and PostgreSQL metadata stores share: the rows and every query both dialects accept.

Statements are written once with ``?`` placeholders; a dialect's connection adapts them (PostgreSQL's turns ``?``
into ``%s`` and drops SQLite's ``+column`` planner hints). What differs — connections, transactions, migrations,
the keyword index, backups — are two parts each dialect hands the store, which holds them
(:mod:`~hermes_memory_core.storage.sql.parts`; :mod:`~hermes_memory_core.storage.sqlite` and
:mod:`~hermes_memory_core.storage.postgres` build them). The keyword index's conversational context is kept in step
by :class:`~hermes_memory_core.storage.sql.context.ContextIndex`. Every value reaches the database as a bound
parameter; the only names formatted into SQL are our own table and column names.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hermes_memory_core.errors import NotFoundError
from hermes_memory_core.storage.metadata import (
    DEFAULT_CONTEXT_WEIGHT,
    AccessRecord,
    KeywordFilter,
    KeywordStats,
    LifecycleRow,
    NewMemory,
    RankRow,
    RowCodec,
)
from hermes_memory_core.storage.sql.context import ContextIndex, PlainCodec
from hermes_memory_core.storage.sql.knowledge import KnowledgeRows
from hermes_memory_core.storage.sql.parts import KeywordPostings, KeywordQuery, SQLDatabase
from hermes_memory_core.storage.sql.recode import recode_rows
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["COLUMNS", "ROW_TABLES", "SQLMetadataStore"]

#: The tables holding a store's rows, in foreign-key order: what a bundle carries and a restore copies (the keyword
#: index is not among them: it is rebuilt under the target's key).
ROW_TABLES = (
    "memory_meta",
    "memory_entries",
    "memory_versions",
    "memory_tags",
    "memory_access_log",
    "sessions",
    "session_messages",
    "session_summaries",
    "promotion_queue",
)

COLUMNS = (
    "id, user_id, session_id, content, memory_type, importance_score, access_count, created_at, updated_at, "
    "expires_at, version, metadata"
)
_TIERS = {tier.value: tier for tier in MemoryType}  # a row's tier column as its enum (one dict lookup per row)
_E_COLUMNS = ", ".join("e." + c.strip() for c in COLUMNS.split(","))
_LOG = "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, ?, ?, ?)"


class SQLMetadataStore(KnowledgeRows):
    """The :class:`~hermes_memory_core.storage.metadata.MetadataStore` protocol over SQL, on the two parts a dialect
    hands it (:mod:`~hermes_memory_core.storage.sql.parts`).

    Args:
        db: The dialect's database (connections, transactions, migrations, the files' upkeep).
        postings: The dialect's keyword index, kept in step with the rows by :attr:`keywords`.

    Repetition, as-of reads and erasure come from :class:`~hermes_memory_core.storage.sql.knowledge.KnowledgeRows`.
    """

    def __init__(self, db: SQLDatabase, postings: KeywordPostings) -> None:
        self.db = db
        #: Where the store lives, for messages and store keys (a file path, or a URL without its password).
        self.location = db.location
        #: How content is kept at rest and which tokens index it (the engine sets its own).
        self.codec: RowCodec = PlainCodec()
        #: The codec index maintenance uses while a recode transaction re-seals rows (readers keep :attr:`codec`
        #: until the engine swaps it after the commit).
        self._recoding: RowCodec | None = None
        #: The keyword index, kept in step with the rows (own tokens, other-language terms, context).
        self.keywords = ContextIndex(postings, lambda: self._recoding or self.codec, db.atomic)

    # ------------------------------------------------------------------ the database (its dialect's part)
    def open(self) -> None:
        """Connect and apply pending migrations."""
        self.db.open()

    def close(self) -> None:
        """Release every connection (background work of the keyword index first). Idempotent."""
        self.keywords.postings.close()
        self.db.close()

    def atomic(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction; nested calls become savepoints. Yields a connection with ``execute``."""
        return self.db.atomic()

    def reader(self) -> Any:
        """A connection for reads that sees committed data (``execute(sql, params)`` → rows)."""
        return self.db.reader()

    def applied_migrations(self) -> list[str]:
        return self.db.applied_migrations()

    def integrity_check(self) -> str:
        return self.db.integrity_check()

    def backup_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole store to ``target`` (the bundle format)."""
        self.db.backup_to(target)

    def erase_residue(self, user_ids: Sequence[str]) -> None:
        """Fold away the users' deleted keyword entries, then rewrite the files (see each dialect's parts)."""
        self.keywords.postings.compact(user_ids)
        self.db.rewrite()

    def checkpoint(self) -> None:
        self.db.checkpoint()

    # ------------------------------------------------------------------ keyword index
    def keyword_search(
        self,
        user_id: str,
        terms: Sequence[str],
        limit: int,
        flt: KeywordFilter | None = None,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
    ) -> list[tuple[str, float]]:
        """BM25 over one user's active memories, filtered in SQL: ``(id, score)``, best first, at most ``limit``
        (the dialect's postings rank; see :class:`~hermes_memory_core.storage.sql.parts.KeywordPostings`)."""
        if not terms:
            return []
        where, params = self._filters(flt or KeywordFilter(user_id))
        query = KeywordQuery(user_id, list(dict.fromkeys(terms)), limit, where, params, context_weight)
        return self.keywords.postings.search(self.reader(), query)

    def keyword_stats(self, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """BM25 statistics of the user's keyword shard for ``terms`` (as :meth:`keyword_search` weighs them)."""
        return self.keywords.postings.stats(self.reader(), user_id, list(dict.fromkeys(terms)), context_weight)

    def repair_keyword_index(self) -> int:
        """Index active memories missing from the keyword index and drop entries of inactive ones (how many)."""
        return self.keywords.repair()

    def optimize_keyword_index(self) -> None:
        """Compact the keyword index (a maintenance step; results do not change)."""
        self.keywords.postings.optimize()

    def _lock_active(self, conn: Any, memory_id: str, columns: str) -> tuple[Any, ...]:
        """``columns`` (our own names) of an active memory, its row locked for this transaction where the dialect
        locks rows; :class:`NotFoundError` if there is none."""
        row = conn.execute(
            f"SELECT {columns} FROM memory_entries WHERE id = ? AND is_active = 1" + self.db.for_update, (memory_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no active memory with id {memory_id}")
        return tuple(row)

    def is_empty(self) -> bool:
        """True when the store holds no memory, session or meta row."""
        conn = self.reader()
        if conn.execute(
            "SELECT 1 FROM memory_meta WHERE key NOT IN ('keyword_index_rebuild', 'language_backfill') LIMIT 1"
        ).fetchone():
            return False  # a store identity (model, dimension, key check) was recorded
        return all(
            conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is None
            for table in ("memory_entries", "sessions", "promotion_queue")
        )

    # ------------------------------------------------------------------ meta
    def get_meta(self, key: str) -> str | None:
        row = self.reader().execute("SELECT value FROM memory_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # ------------------------------------------------------------------ writes
    def insert(self, rows: Sequence[NewMemory], note: str = "") -> None:
        """Insert new memories with version 1, tags and keyword-index rows, all in one transaction."""
        records = [row.record for row in rows]
        codec = self.codec
        sealed = {r.id: codec.seal(r.id, r.memory_type.value, r.content) for r in records}
        packed = {r.id: codec.pack_metadata(r.id, r.memory_type.value, r.metadata, r.tags) for r in records}
        with self.atomic() as conn:
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
            self.keywords.index_inserted(conn, rows)
            conn.executemany(_LOG, [(r.id, r.user_id, "add", r.updated_at, "") for r in records])

    def purge(self, ids: Sequence[str]) -> None:
        """Physically remove rows (compensation of a write whose vector half failed; never for user deletes)."""
        with self.atomic() as conn:
            for memory_id in ids:
                place = self.keywords.place(conn, memory_id)
                self.keywords.postings.unindex(conn, memory_id)
                conn.execute("DELETE FROM memory_entries WHERE id = ?", (memory_id,))
                conn.execute("DELETE FROM memory_access_log WHERE memory_id = ?", (memory_id,))
                if place is not None:  # its neighbours no longer see its words
                    self.keywords.refresh_context(conn, place[0], place[1], place[2], place[2])

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
        codec = self.codec
        with self.atomic() as conn:
            row = self._lock_active(conn, memory_id, "version, memory_type, metadata")
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
                    old_tags = tuple(self._tags_for(conn, [memory_id]).get(memory_id, ()))
                new_tags = list(old_tags if tags is None else tags)
                packed = codec.pack_metadata(memory_id, tier, old_meta if metadata is None else dict(metadata), new_tags)
                conn.execute("UPDATE memory_entries SET metadata = ? WHERE id = ?", (packed, memory_id))
                conn.execute("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
                conn.executemany(
                    "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [(memory_id, tag) for tag in codec.tag_keys(tier, new_tags)],
                )
            self.keywords.reindex(conn, memory_id, content)
            conn.execute(_LOG, (memory_id, user_id, "update", now, codec.seal_field(memory_id, tier, "log", note)))
            return version

    def revert_version(self, memory_id: str, version: int) -> None:
        """Undo :meth:`add_version` (compensation when the vector half of an update failed)."""
        with self.atomic() as conn:
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
            self.keywords.reindex(conn, memory_id)

    def soft_delete(self, memory_id: str, reason: str, now: int) -> str:
        """Mark a memory inactive and drop it from the keyword index. Returns its user_id."""
        with self.atomic() as conn:
            row = self._lock_active(conn, memory_id, "user_id, memory_type")
            conn.execute(
                "UPDATE memory_entries SET is_active = 0, deleted_at = ?, delete_reason = ? WHERE id = ?",
                (now, self.codec.seal_field(memory_id, row[1], "reason", reason), memory_id),
            )
            self.keywords.reindex(conn, memory_id)  # leaves the index; its neighbours no longer see its words
            conn.execute(_LOG, (memory_id, row[0], "delete", now, self.codec.seal_field(memory_id, row[1], "log", reason)))
            return str(row[0])

    def set_xlang_terms(self, memory_id: str, version: int, terms: str) -> bool:
        """Store a memory's other-language key terms (sealed like its content) and re-index it, if it is still
        active at ``version`` (a newer version gets terms of its own). Returns whether they were stored."""
        with self.atomic() as conn:
            row = conn.execute(
                f"SELECT memory_type FROM memory_entries WHERE id = ? AND version = ? AND is_active = 1{self.db.for_update}",
                (memory_id, version),
            ).fetchone()
            if row is None:
                return False
            stored = self.codec.seal_field(memory_id, str(row[0]), "xlang", terms)
            conn.execute("UPDATE memory_entries SET xlang_terms = ? WHERE id = ?", (stored, memory_id))
            self.keywords.reindex(conn, memory_id)
            return True

    def xlang_terms(self, memory_id: str) -> str | None:
        """A memory's other-language key terms as stored for its current version (opened), or None."""
        row = self.reader().execute("SELECT xlang_terms FROM memory_entries WHERE id = ?", (memory_id,)).fetchone()
        if row is None or row[0] is None:
            return None
        return self.codec.open_field(memory_id, "xlang", row[0])

    def lacking_xlang_terms(
        self, memory_types: Sequence[str], ids: Sequence[str] | None = None, limit: int = 1000
    ) -> list[tuple[MemoryRecord, str | None]]:
        """Active memories of these tiers without other-language key terms (among ``ids`` when given), with their
        language: what the background job asks the host's model about."""
        if not memory_types or (ids is not None and not ids):
            return []
        tiers = ",".join("?" * len(memory_types))
        where = f"is_active = 1 AND xlang_terms IS NULL AND memory_type IN ({tiers})"
        params: list[Any] = list(memory_types)
        if ids is not None:
            where += f" AND id IN ({','.join('?' * len(ids))})"
            params += list(ids)
        rows = self.reader().execute(
            f"SELECT {COLUMNS}, lang FROM memory_entries WHERE {where} ORDER BY created_at, id LIMIT ?",
            (*params, limit),
        ).fetchall()
        return [(self._record(r[:-1]), r[-1]) for r in rows]

    def set_tier(self, memory_id: str, memory_type: str, expires_at: int | None, note: str, now: int) -> None:
        """Move an active memory to another tier (a downgrade by forgetting), logged."""
        with self.atomic() as conn:
            row = self._lock_active(conn, memory_id, "user_id")
            conn.execute(
                "UPDATE memory_entries SET memory_type = ?, expires_at = ? WHERE id = ?",
                (memory_type, expires_at, memory_id),
            )
            conn.execute(_LOG, (memory_id, row[0], "downgrade", now, note))

    def log(self, memory_id: str, user_id: str, action: str, at: int, detail: str = "") -> None:
        """One access-log row (permanent reads and denied attempts)."""
        with self.atomic() as conn:
            conn.execute(_LOG, (memory_id, user_id, action, at, detail))

    def record_access(self, entries: Sequence[AccessRecord]) -> None:
        """Apply buffered accesses: search hits count, every entry is logged."""
        if not entries:
            return
        hits = sorted((e.memory_id, e.at) for e in entries if e.action == "search")
        with self.atomic() as conn:
            conn.executemany(
                "UPDATE memory_entries SET access_count = access_count + 1, "
                f"last_accessed_at = {self.db.greatest}(coalesce(last_accessed_at, 0), ?) WHERE id = ?",
                [(at, mid) for mid, at in hits],  # one row-lock order for every writer (no deadlock)
            )
            conn.executemany(_LOG, [(e.memory_id, e.user_id, e.action, e.at, e.detail) for e in entries])

    def recode(self, memory_types: Sequence[str], codec: RowCodec) -> int:
        """Re-seal everything kept of the memories of these tiers (content, versions and their notes, metadata and
        tags, delete reasons, log details) from :attr:`codec` to ``codec`` and re-index them, in one transaction
        (or a savepoint of the caller's). :attr:`codec` is left as it was: the caller sets it once its
        transaction commits. Returns how many memories changed."""
        with self.atomic() as conn:
            self._recoding = codec
            try:
                ids = recode_rows(conn, memory_types, self.codec, codec)
                for memory_id in ids:
                    self.keywords.postings.unindex(conn, memory_id)
                self.repair_keyword_index()  # re-indexes them, session by session, under the new codec
            finally:
                self._recoding = None
        return len(ids)

    # ------------------------------------------------------------------ reads
    def _record(self, row: Sequence[Any], tags: Iterable[str] = ()) -> MemoryRecord:
        metadata, sealed_tags = self.codec.unpack_metadata(row[0], row[11])
        return MemoryRecord(
            id=row[0],
            user_id=row[1],
            session_id=self.codec.session_of(row[2]),
            content=self.codec.open(row[0], row[3]),
            memory_type=MemoryType(row[4]),
            importance=float(row[5]),
            access_count=int(row[6]),
            created_at=int(row[7]),
            updated_at=int(row[8]),
            expires_at=None if row[9] is None else int(row[9]),
            version=int(row[10]),
            tags=tuple(sorted(tags if sealed_tags is None else sealed_tags)),
            metadata=metadata,
        )

    def _tags_for(self, conn: Any, ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for mid, tag in conn.execute(
                f"SELECT memory_id, tag FROM memory_tags WHERE memory_id IN ({marks})", chunk
            ):
                out.setdefault(mid, []).append(tag)
        return out

    def get(self, memory_id: str, include_inactive: bool = False) -> MemoryRecord | None:
        conn = self.reader()
        sql = f"SELECT {COLUMNS} FROM memory_entries WHERE id = ?"
        if not include_inactive:
            sql += " AND is_active = 1"
        row = conn.execute(sql, (memory_id,)).fetchone()
        if row is None:
            return None
        return self._record(row, self._tags_for(conn, [memory_id]).get(memory_id, ()))

    def _owned_rows(self, columns: str, ids: Sequence[str], user_id: str, now: int | None) -> Iterator[Any]:
        """Rows of ``columns`` for the active, unexpired memories of one user among ``ids``, 500 ids a query."""
        conn = self.reader()
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            # unary + keeps the planner on the primary key (the user index would scan all of the user's rows)
            sql = (
                f"SELECT {columns} FROM memory_entries "
                f"WHERE id IN ({','.join('?' * len(chunk))}) AND +user_id = ? AND +is_active = 1"
            )
            params: list[Any] = [*chunk, user_id]
            if now is not None:
                sql += " AND (+expires_at IS NULL OR +expires_at > ?)"
                params.append(now)
            yield from conn.execute(sql, params).fetchall()

    def get_many(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, MemoryRecord]:
        """Active, unexpired rows of one user among ``ids`` (others are silently left out)."""
        if not ids:
            return {}
        rows = list(self._owned_rows(COLUMNS, ids, user_id, now))
        tags = self._tags_for(self.reader(), [r[0] for r in rows])
        return {row[0]: self._record(row, tags.get(row[0], ())) for row in rows}

    def rank_rows(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, RankRow]:
        """The light columns ranking needs, of active, unexpired rows of one user (full records are built only
        for the hits that are returned)."""
        if not ids:
            return {}
        columns = (
            "id, session_id, created_at, updated_at, importance_score, version, memory_type, access_count, dialogue, lang"
        )
        make, session_of, tier, rows = RankRow._make, self.codec.session_of, _TIERS.__getitem__, self._owned_rows
        return {row[0]: make((session_of(row[1]), *row[2:6], tier(row[6]), *row[7:])) for row in rows(columns, ids, user_id, now)}

    def has_language(self, user_id: str, lang: str) -> bool:
        """Whether the user has an active memory in this language (one index probe)."""
        row = self.reader().execute(
            "SELECT 1 FROM memory_entries WHERE user_id = ? AND lang = ? AND is_active = 1 LIMIT 1", (user_id, lang)
        ).fetchone()
        return row is not None

    def missing_languages(self, limit: int = 1000) -> list[tuple[str, str]]:
        """``(id, plain content)`` of up to ``limit`` memories (active or not) with no recorded language."""
        rows = self.reader().execute(
            "SELECT id, content FROM memory_entries WHERE lang IS NULL ORDER BY id LIMIT ?", (limit,)
        ).fetchall()
        return [(str(r[0]), self.codec.open(r[0], r[1])) for r in rows]

    def set_languages(self, langs: Sequence[tuple[str, str]]) -> None:
        """Record ``(id, lang)`` pairs in one transaction."""
        if langs:
            with self.atomic() as conn:
                conn.executemany("UPDATE memory_entries SET lang = ? WHERE id = ?", [(lang, mid) for mid, lang in langs])

    def list_records(self, user_id: str, flt: KeywordFilter, limit: int = 100, offset: int = 0) -> list[MemoryRecord]:
        """One user's active, unexpired memories matching the filter, oldest first (``created_at``, then id)."""
        where, params = self._filters(flt)
        conn = self.reader()
        rows = conn.execute(
            f"SELECT {_E_COLUMNS} FROM memory_entries e "
            f"WHERE e.user_id = ? AND e.is_active = 1 {where} ORDER BY e.created_at, e.id LIMIT ? OFFSET ?",
            [user_id, *params, limit, offset],
        ).fetchall()
        tag_map = self._tags_for(conn, [r[0] for r in rows])
        return [self._record(r, tag_map.get(r[0], ())) for r in rows]

    def find_by_metadata(self, user_id: str, key: str, value: str, memory_types: Sequence[str]) -> str | None:
        """Id of the user's most recently updated active memory of these tiers with ``metadata[key] == value``
        (``key`` is our own constant)."""
        return self.find_by_metadata_values(user_id, key, [value], memory_types).get(value)

    def find_by_metadata_values(self, user_id: str, key: str, values: Sequence[str],
                                memory_types: Sequence[str]) -> dict[str, str]:
        """:meth:`find_by_metadata` for several values in one query: ``{value: id}`` for the values found; for
        our lookup keys (``m011``, ``m012``) an index lookup on (user, value) at any store size."""
        sql = self.metadata_lookup_sql(key, len(values), len(memory_types))
        rows = self.reader().execute(sql, (user_id, *values, *memory_types)).fetchall()
        return {str(value): str(mid) for value, mid in reversed(rows)}  # the most recently updated one wins

    def metadata_lookup_sql(self, key: str, values: int, memory_types: int) -> str:
        """:meth:`find_by_metadata_values`'s query (user, values, tiers); the tier is checked on the rows found."""
        field = self.db.json_text("metadata", key)
        return (f"SELECT {field}, id FROM memory_entries WHERE user_id = ? AND {field} IS NOT NULL "
                f"AND {field} IN ({','.join('?' * values)}) AND memory_type || '' IN ({','.join('?' * memory_types)}) "
                "AND is_active = 1 ORDER BY updated_at DESC")

    def lifecycle_rows(self, memory_types: Sequence[str]) -> list[LifecycleRow]:
        """Active memories of these tiers with what forgetting weighs."""
        rows = self.reader().execute(
            "SELECT id, user_id, session_id, memory_type, importance_score, updated_at, last_accessed_at, expires_at "
            f"FROM memory_entries WHERE is_active = 1 AND memory_type IN ({','.join('?' * len(memory_types))})",
            list(memory_types),
        )
        return [
            LifecycleRow(r[0], r[1], self.codec.session_of(r[2]), r[3], float(r[4]), int(r[5]),
                         None if r[6] is None else int(r[6]),
                         None if r[7] is None else int(r[7]))
            for r in rows
        ]

    @staticmethod
    def _filters(flt: KeywordFilter) -> tuple[str, list[Any]]:
        """SQL conditions on the ``memory_entries e`` alias, with their parameters."""
        sql: list[str] = []
        params: list[Any] = []
        if flt.memory_types:
            sql.append(f"AND +e.memory_type IN ({','.join('?' * len(flt.memory_types))})")
            params.extend(flt.memory_types)
        if flt.session_id is not None:
            sql.append("AND +e.session_id = ?")
            params.append(flt.session_id)
        if flt.tags:
            sql.append(
                "AND EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = e.id "
                f"AND t.tag IN ({','.join('?' * len(flt.tags))}))"
            )
            params.extend(flt.tags)
        if flt.created_from is not None:
            sql.append("AND +e.created_at >= ?")
            params.append(flt.created_from)
        if flt.created_to is not None:
            sql.append("AND +e.created_at <= ?")
            params.append(flt.created_to)
        if flt.now is not None:
            sql.append("AND (+e.expires_at IS NULL OR +e.expires_at > ?)")
            params.append(flt.now)
        return " ".join(sql), params

    def iter_active(self, batch_size: int = 1000) -> Iterator[list[MemoryRecord]]:
        """Every active memory, in batches ordered by id."""
        last = ""
        conn = self.reader()
        while True:
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM memory_entries WHERE is_active = 1 AND id > ? ORDER BY id LIMIT ?",
                (last, batch_size),
            ).fetchall()
            if not rows:
                return
            tags = self._tags_for(conn, [r[0] for r in rows])
            yield [self._record(r, tags.get(r[0], ())) for r in rows]
            last = rows[-1][0]

    def active_versions(self) -> dict[str, int]:
        """id → current version of every active memory."""
        return {r[0]: int(r[1]) for r in self.reader().execute("SELECT id, version FROM memory_entries WHERE is_active = 1")}

    def expired_ids(self, now: int) -> list[str]:
        return [
            r[0]
            for r in self.reader().execute(
                "SELECT id FROM memory_entries WHERE is_active = 1 AND expires_at IS NOT NULL AND expires_at <= ?",
                (now,),
            )
        ]

    def counts(self) -> dict[str, Any]:
        conn = self.reader()
        by_type = dict(
            conn.execute("SELECT memory_type, count(*) FROM memory_entries WHERE is_active = 1 GROUP BY memory_type")
        )
        by_user = dict(conn.execute("SELECT user_id, count(*) FROM memory_entries WHERE is_active = 1 GROUP BY user_id"))
        versions = conn.execute("SELECT count(*) FROM memory_versions").fetchone()[0]
        deleted = conn.execute("SELECT count(*) FROM memory_entries WHERE is_active = 0").fetchone()[0]
        return {"by_type": by_type, "by_user": by_user, "versions": int(versions), "deleted": int(deleted)}

    def access_log(self, memory_id: str) -> list[tuple[str, int, str]]:
        return [
            (r[0], int(r[1]), self.codec.open_field(memory_id, "log", r[2]))
            for r in self.reader().execute(
                "SELECT action, at, detail FROM memory_access_log WHERE memory_id = ? ORDER BY id", (memory_id,)
            )
        ]
