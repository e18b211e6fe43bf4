"""Metadata store on PostgreSQL, shared by many processes (server mode).

The same rows, queries and guarantees as the SQLite store (the shared
:class:`~hermes_memory_core.storage.sql.base.SQLMetadataStore`), over the two PostgreSQL parts it holds: the
database (:class:`~hermes_memory_core.storage.postgres.database.PostgresDatabase`: a connection pool, transactions
with row locks, migrations under an advisory lock, the store's in-use lock, bundle copies) and the keyword index
(:class:`~hermes_memory_core.storage.postgres.keywords.PostgresPostings`: BM25 over postings tables, ranked as
SQLite's FTS5 ranks).

Needs the ``postgres`` extra (``psycopg`` and ``psycopg-pool``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from hermes_memory_core.storage.postgres.database import PostgresDatabase
from hermes_memory_core.storage.postgres.keywords import PostgresPostings
from hermes_memory_core.storage.sql.base import SQLMetadataStore

__all__ = ["PostgresMetadataStore"]


class PostgresMetadataStore(SQLMetadataStore):
    """The metadata protocol on a PostgreSQL schema.

    Args:
        url: ``postgresql://user:password@host:port/dbname``.
        schema: Schema that holds the tables (created if missing; a lower-case identifier).
        pool_size: Most connections this process opens.
    """

    db: PostgresDatabase

    def __init__(self, url: str, schema: str = "hermes_memory", pool_size: int = 8) -> None:
        db = PostgresDatabase(url, schema, pool_size)
        super().__init__(db, PostgresPostings(db))
        self.url, self.schema, self.pool_size = url, schema, pool_size

    def connection(self) -> contextlib.AbstractContextManager[Any]:
        """A pooled autocommit psycopg connection (search_path set to the store's schema)."""
        return self.db.connection()

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        """Be the only process with this store open for the duration (a restore); back to shared afterwards.

        Raises:
            StoreLockedError: Another process has the store open (its server-side process ids are named).
        """
        return self.db.exclusive()

    def load_bundle(self, path: Path) -> None:
        """Replace every row of this store by the rows of a bundle's SQLite file, in one transaction.

        The keyword index is left empty: rebuild it with ``keywords.repair_keyword_index()`` once the key is loaded.
        """
        self.db.load_bundle(path)

    def clear(self) -> None:
        """Delete every row (undo of a failed restore)."""
        self.db.clear()
