"""The two parts a SQL dialect hands the shared metadata store, which holds them (composition, not a class chain).

- :class:`SQLDatabase`: connections, transactions, migrations and what rewrites or copies the files.
- :class:`KeywordPostings`: the keyword index's own tables — how a memory's tokens are written, dropped, ranked
  with BM25 and counted.

:class:`~hermes_memory_core.storage.sql.base.SQLMetadataStore` writes and reads the rows over them, and keeps the
keyword index in step with the rows through :class:`~hermes_memory_core.storage.sql.context.ContextIndex`, which
holds the postings. Statements reach both as our ``?``-placeholder SQL.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hermes_memory_core.storage.metadata import KeywordStats

__all__ = ["KeywordDoc", "KeywordPostings", "KeywordQuery", "SQLDatabase"]

#: ``(memory_id, user_id, own tokens, context tokens)`` of a memory to index.
KeywordDoc = tuple[str, str, Sequence[str], Sequence[str]]


@dataclass(frozen=True, slots=True)
class KeywordQuery:
    """One keyword search as the postings run it.

    Attributes:
        user_id: Whose memories (the keyword shard and the owner check).
        terms: The query's tokens, each once, in order.
        limit: At most this many hits.
        where: SQL conditions on the ``memory_entries e`` alias (the filters), with ``params`` their values.
        params: Values of ``where``'s placeholders.
        context_weight: Weight of a memory's conversational context (0: its own tokens only).
        lasting: The filter's tiers when it leaves out the short-term one (a chat user's conversation lines: most of
            their store; the duplicate check of a lasting fact, say): the postings are restricted to those tiers'
            memories before they are ranked, so the query costs what the few matches of those tiers cost; () else.
            With ``session``, the filter's tiers of that one session (the short-term duplicate check's: the
            session's lines, not the user's thousands), restricted the same way.
        session: The filter's session when ``lasting`` names the tiers of one session; None else.
    """

    user_id: str
    terms: list[str]
    limit: int
    where: str
    params: list[Any]
    context_weight: float
    lasting: tuple[str, ...] = ()
    session: str | None = None


class SQLDatabase(Protocol):
    """A dialect's database: connections, transactions, migrations, checks and the files' upkeep.

    Contract: :meth:`atomic` nests (savepoints); :meth:`reader` sees committed data and never waits for a writer;
    :meth:`open` applies pending migrations once however many processes open the store.
    """

    #: Where the store lives, for messages and store keys (a file path, or a URL without its password).
    location: str
    #: SQL name of the two-argument maximum (``max`` in SQLite, ``greatest`` in PostgreSQL).
    greatest: str
    #: Appended to a SELECT that reads a row the transaction will then change (row lock where the dialect has one).
    for_update: str

    def open(self) -> None:
        """Connect, apply pending migrations and check the schema."""

    def close(self) -> None:
        """Release every connection. Idempotent."""

    def atomic(self) -> contextlib.AbstractContextManager[Any]:
        """A write transaction; nested calls become savepoints. Yields a connection with ``execute``."""

    def reader(self) -> Any:
        """A connection for reads that sees committed data (``execute(sql, params)`` → rows)."""

    def applied_migrations(self) -> list[str]:
        """Names of the schema migrations recorded in the database, in order."""

    def json_text(self, column: str, key: str) -> str:
        """SQL expression for the text of top-level ``key`` of a JSON column (both are our own constants)."""

    def integrity_check(self) -> str:
        """``"ok"`` or a description of what is inconsistent."""

    def backup_to(self, target: Path) -> None:
        """Write a consistent SQLite copy of the whole store to ``target`` (the bundle format)."""

    def rewrite(self) -> None:
        """Rewrite the files so none keeps bytes of deleted rows (after the postings dropped theirs)."""

    def checkpoint(self) -> None:
        """Make the last deletes final in the files."""


class KeywordPostings(Protocol):
    """A dialect's keyword index: its writes inside the store's transactions, its BM25 ranking and statistics.

    Contract: BM25 as FTS5 computes it (k1 = 1.2, b = 0.75) over the user's keyword shard, own tokens weighing 1.0
    and context tokens ``context_weight``; scores rounded to 9 decimals, ties broken by memory id.
    """

    def index(self, conn: Any, doc: KeywordDoc) -> None:
        """(Re)index one memory in the open transaction."""

    def index_new(self, conn: Any, docs: Sequence[KeywordDoc]) -> None:
        """Index memories not in the index yet (batch form of :meth:`index`)."""

    def unindex(self, conn: Any, memory_id: str) -> None:
        """Drop one memory from the index in the open transaction."""

    def unindex_user(self, conn: Any, user_id: str) -> None:
        """Drop every entry of one user in the open transaction."""

    def lock_session(self, conn: Any, user_id: str, session_id: str) -> None:
        """Serialise context refreshes of one session until the transaction ends (a no-op with one writer)."""

    def search(self, conn: Any, query: KeywordQuery) -> list[tuple[str, float]]:
        """``(id, score)`` of the user's active memories passing the filters, best first, at most ``limit``."""

    def stats(self, conn: Any, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """BM25 statistics of the user's shard for these terms (each once)."""

    def optimize(self) -> None:
        """Compact the index (a maintenance step; results do not change)."""

    def compact(self, user_ids: Sequence[str]) -> None:
        """Before :meth:`SQLDatabase.rewrite`: fold away what of these users' deleted entries the index keeps."""

    def close(self) -> None:
        """Stop background work (before the database closes)."""
