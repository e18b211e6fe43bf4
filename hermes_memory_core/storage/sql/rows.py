"""The shared parts every role of a SQL metadata store works over (both dialects).

A SQL store is one object per role (:mod:`~hermes_memory_core.storage.sql.records`,
:mod:`~hermes_memory_core.storage.sql.history`, :mod:`~hermes_memory_core.storage.sql.keyword_index`,
:mod:`~hermes_memory_core.storage.sql.erasure`, :mod:`~hermes_memory_core.storage.sql.roles`), each holding the
one :class:`SQLRows` of its store: the dialect's database, the codec in force, the keyword index kept in step with
the rows (:class:`~hermes_memory_core.storage.sql.context.ContextIndex`), and how a row becomes a
:class:`~hermes_memory_core.types.MemoryRecord`. Statements are written once with ``?`` placeholders; a dialect's
connection adapts them. Every value reaches the database as a bound parameter; the only names formatted into SQL
are our own table and column names.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from hermes_memory_core.errors import NotFoundError
from hermes_memory_core.storage.metadata import KeywordFilter, RowCodec
from hermes_memory_core.storage.sql.context import ContextIndex, PlainCodec
from hermes_memory_core.storage.sql.parts import KeywordPostings, SQLDatabase
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["COLUMNS", "LOG_SQL", "ROW_TABLES", "SQLRows"]

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

#: The columns a :class:`~hermes_memory_core.types.MemoryRecord` is built from, in :meth:`SQLRows.record`'s order.
COLUMNS = (
    "id, user_id, session_id, content, memory_type, importance_score, access_count, created_at, updated_at, "
    "expires_at, version, metadata"
)
#: One access-log row: ``(memory_id, user_id, action, at, detail)``.
LOG_SQL = "INSERT INTO memory_access_log (memory_id, user_id, action, at, detail) VALUES (?, ?, ?, ?, ?)"


class SQLRows:
    """What the roles of one SQL store share: its database, its codec, its keyword index and its row reading.

    Args:
        db: The dialect's database (connections, transactions, migrations, the files' upkeep).
        postings: The dialect's keyword index, kept in step with the rows by :attr:`context`.
    """

    def __init__(self, db: SQLDatabase, postings: KeywordPostings) -> None:
        self.db = db
        #: How content is kept at rest and which tokens index it (the engine sets its own on the store).
        self.codec: RowCodec = PlainCodec()
        #: The codec index maintenance uses while a recode transaction re-seals rows (readers keep :attr:`codec`
        #: until the engine swaps it after the commit).
        self.recoding: RowCodec | None = None
        #: The keyword index, kept in step with the rows (own tokens, other-language terms, context).
        self.context = ContextIndex(postings, lambda: self.recoding or self.codec, db.atomic)

    def atomic(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction; nested calls become savepoints. Yields a connection with ``execute``."""
        return self.db.atomic()

    def reader(self) -> Any:
        """A connection for reads that sees committed data (``execute(sql, params)`` → rows)."""
        return self.db.reader()

    def lock_active(self, conn: Any, memory_id: str, columns: str) -> tuple[Any, ...]:
        """``columns`` (our own names) of an active memory, its row locked for this transaction where the dialect
        locks rows; :class:`NotFoundError` if there is none."""
        row = conn.execute(
            f"SELECT {columns} FROM memory_entries WHERE id = ? AND is_active = 1" + self.db.for_update, (memory_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no active memory with id {memory_id}")
        return tuple(row)

    def record(self, row: Sequence[Any], tags: Iterable[str] = ()) -> MemoryRecord:
        """The record of a row of :data:`COLUMNS` (content opened, metadata unpacked) with its tag rows."""
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

    @staticmethod
    def tags_for(conn: Any, ids: Sequence[str]) -> dict[str, list[str]]:
        """id → tag rows of these memories (500 ids a query)."""
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for mid, tag in conn.execute(
                f"SELECT memory_id, tag FROM memory_tags WHERE memory_id IN ({marks})", chunk
            ):
                out.setdefault(mid, []).append(tag)
        return out

    def owned_rows(self, columns: str, ids: Sequence[str], user_id: str, now: int | None) -> Iterator[Any]:
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

    @staticmethod
    def filters(flt: KeywordFilter) -> tuple[str, list[Any]]:
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
