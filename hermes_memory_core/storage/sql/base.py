"""What the SQLite and PostgreSQL metadata stores share: one object per role over the same shared parts.

A SQL store is a composition, not a class chain: the dialect hands it its two parts
(:mod:`~hermes_memory_core.storage.sql.parts`: a database and a keyword index;
:mod:`~hermes_memory_core.storage.sqlite` and :mod:`~hermes_memory_core.storage.postgres` build them), the store
wraps them in its :class:`~hermes_memory_core.storage.sql.rows.SQLRows` (database, codec, the keyword index kept in
step by :class:`~hermes_memory_core.storage.sql.context.ContextIndex`, row reading) and holds one object per role of
:data:`~hermes_memory_core.storage.metadata.ROLES` over them. The store itself is the
:class:`~hermes_memory_core.storage.metadata.Connection` role; callers reach every other role by its attribute
(``store.records.get(...)``, ``store.history.versions(...)``, ``store.keywords.keyword_search(...)``).
"""

from __future__ import annotations

import contextlib
from typing import Any

from hermes_memory_core.storage.metadata import RowCodec
from hermes_memory_core.storage.sql.erasure import SQLErasureRows
from hermes_memory_core.storage.sql.history import SQLVersionHistory
from hermes_memory_core.storage.sql.keyword_index import SQLKeywordIndex
from hermes_memory_core.storage.sql.parts import KeywordPostings, SQLDatabase
from hermes_memory_core.storage.sql.records import SQLMemoryRecords
from hermes_memory_core.storage.sql.roles import SQLAccessLog, SQLAdministration, SQLLifecycleRows
from hermes_memory_core.storage.sql.rows import SQLRows

__all__ = ["SQLMetadataStore"]


class SQLMetadataStore:
    """The :class:`~hermes_memory_core.storage.metadata.MetadataStore` protocol over SQL, on the two parts a dialect
    hands it (:mod:`~hermes_memory_core.storage.sql.parts`).

    Args:
        db: The dialect's database (connections, transactions, migrations, the files' upkeep).
        postings: The dialect's keyword index, kept in step with the rows.

    The store is the :class:`~hermes_memory_core.storage.metadata.Connection` role itself; the other roles are held
    as attributes, each one object over :attr:`shared`.
    """

    def __init__(self, db: SQLDatabase, postings: KeywordPostings) -> None:
        self.db = db
        #: Where the store lives, for messages and store keys (a file path, or a URL without its password).
        self.location = db.location
        #: What every role works over: the database, the codec, the keyword index, row reading.
        self.shared = SQLRows(db, postings)
        #: Memory rows (:class:`~hermes_memory_core.storage.metadata.MemoryRecords`).
        self.records = SQLMemoryRecords(self.shared)
        #: Versions and as-of reads (:class:`~hermes_memory_core.storage.metadata.VersionHistory`).
        self.history = SQLVersionHistory(self.shared)
        #: The BM25 keyword index (:class:`~hermes_memory_core.storage.metadata.KeywordIndex`).
        self.keywords = SQLKeywordIndex(self.shared)
        #: The access log (:class:`~hermes_memory_core.storage.metadata.AccessLog`).
        self.access = SQLAccessLog(self.shared)
        #: What forgetting reads (:class:`~hermes_memory_core.storage.metadata.LifecycleRows`).
        self.lifecycle = SQLLifecycleRows(self.shared)
        #: Complete erasure (:class:`~hermes_memory_core.storage.metadata.ErasureRows`).
        self.erasure = SQLErasureRows(self.shared)
        #: Whole-store work (:class:`~hermes_memory_core.storage.metadata.Administration`).
        self.admin = SQLAdministration(self.shared)

    @property
    def codec(self) -> RowCodec:
        """How content is kept at rest and which tokens index it (the engine sets its own; every role reads it)."""
        return self.shared.codec

    @codec.setter
    def codec(self, codec: RowCodec) -> None:
        self.shared.codec = codec

    def open(self) -> None:
        """Connect and apply pending migrations."""
        self.db.open()

    def close(self) -> None:
        """Release every connection (background work of the keyword index first). Idempotent."""
        self.shared.context.postings.close()
        self.db.close()

    def atomic(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction; nested calls become savepoints. Yields a connection with ``execute``."""
        return self.db.atomic()

    def reader(self) -> Any:
        """A connection for reads that sees committed data (``execute(sql, params)`` → rows)."""
        return self.db.reader()

    def applied_migrations(self) -> list[str]:
        """Names of the schema migrations recorded in the database, in order."""
        return self.db.applied_migrations()

    def integrity_check(self) -> str:
        """``"ok"`` or a description of what is inconsistent."""
        return self.db.integrity_check()

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

    def get_meta(self, key: str) -> str | None:
        """A value of the store's key/value meta."""
        row = self.reader().execute("SELECT value FROM memory_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Set a meta value (upsert)."""
        with self.atomic() as conn:
            conn.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
