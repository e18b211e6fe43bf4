"""Metadata store on SQLite in WAL mode: one writer at a time, readers in parallel, thread-safe.

The shared store, one object per role (:class:`~hermes_memory_core.storage.sql.base.SQLMetadataStore`), over
the two SQLite parts it holds: the database (:class:`~hermes_memory_core.storage.sqlite.database.SQLiteDatabase`:
connections, WAL, migrations, read-only opening, checkpoints, backups) and the FTS5 keyword index
(:class:`~hermes_memory_core.storage.sqlite.keywords.FTS5Postings`).
"""

from __future__ import annotations

from pathlib import Path

from hermes_memory_core.storage.sql.base import SQLMetadataStore
from hermes_memory_core.storage.sqlite.database import CHECKPOINT_WAIT_S, SQLiteDatabase
from hermes_memory_core.storage.sqlite.keywords import FTS5Postings

__all__ = ["CHECKPOINT_WAIT_S", "SQLiteMetadataStore"]


class SQLiteMetadataStore(SQLMetadataStore):
    """The embedded metadata store: one SQLite file, FTS5 keyword index, online-backup exports.

    Args:
        path: Database file (``":memory:"`` is not supported: readers need a shared file).
        background_merge: Merge the keyword index's new segments on a daemon thread after each write (see
            :mod:`~hermes_memory_core.storage.sqlite.upkeep`); False leaves them for
            :meth:`merge_keyword_segments`.
        read_only: Open it read-only (see :mod:`~hermes_memory_core.storage.sqlite.database`).
        alone: No other process can write the file meanwhile (the caller holds the data directory's lock in a
            way that excludes writers): a read-only open may then read a cleanly closed file ``immutable``.
    """

    db: SQLiteDatabase

    def __init__(self, path: str | Path, *, background_merge: bool = True, read_only: bool = False,
                 alone: bool = False) -> None:
        db = SQLiteDatabase(path, read_only=read_only, alone=alone)
        self.postings = FTS5Postings(db, background_merge=background_merge)
        db.after_commit = self.postings.merger.kick
        super().__init__(db, self.postings)
        self.path = db.path
        self.read_only = read_only

    @property
    def checkpoint_wait(self) -> float:
        """Longest ``erasure.checkpoint()`` waits for readers, in seconds."""
        return self.db.checkpoint_wait

    @checkpoint_wait.setter
    def checkpoint_wait(self, seconds: float) -> None:
        self.db.checkpoint_wait = seconds

    def open(self) -> None:
        """Connect, apply pending migrations and check the file holds exactly our schema.

        Raises:
            ConsistencyError: The file holds a trigger, a view or another object our migrations did not create.
        """
        self.postings.term_weights.forget()
        self.db.open()

    def settle_keyword_merges(self) -> None:
        """Wait until the background keyword merge has no step in flight or asked for (writes nothing): after a
        flush, nothing of the store's own writes its files."""
        self.postings.settle_merges()

    def merge_keyword_segments(self) -> None:
        """Merge, now and in this thread, the keyword segments writes left (what the background merge does)."""
        self.postings.merge_pending()
