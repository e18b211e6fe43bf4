"""Which query terms carry weight in an FTS5 shard, so the keyword leg never asks FTS5 about the others.

FTS5's BM25 gives a term the inverse document frequency ``log((N - n + 0.5) / (n + 0.5))`` and floors it at 1e-6
when that is not positive, i.e. when the term is in at least half of the shard's ``N`` rows (``n`` rows). Such a
term adds nothing to any score, but FTS5 still scores every row that holds it: in a conversation store the
speaker's name is in nearly every row, and one such word made a question rank all of a user's memories
(1.2 ms of a 1.5 ms keyword leg at ~550 memories per user). :class:`TermWeights` drops those terms before the
query is built.

Document frequencies are counted once per shard and term and reused while at most 1/20 of the shard's rows have
been written since (added, changed or removed, as the store reports with :meth:`TermWeights.changed`; the embedded
store is its files' only writer): a term's count then moved by at most as much, so only terms already within a
few percent of the floor could change side — their weight is near zero either way. Small shards are left
alone (see :data:`~hermes_memory_core.storage.sql.shards.PRUNE_MIN_ROWS`; PostgreSQL prunes the same terms in
its own query).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from hermes_memory_core.storage.sql.shards import PRUNE_MIN_ROWS, weighty_terms

__all__ = ["TermWeights", "column_filter", "quoted", "shard_averages", "term_documents", "varints"]
_MAX_ENTRIES = 50_000


def varints(blob: bytes) -> list[int]:
    """SQLite's variable-length integers (big-endian, 7 bits a byte, a 9th byte of 8 bits), as FTS5 writes them."""
    out: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def shard_averages(conn: sqlite3.Connection, fts: str) -> list[int]:
    """FTS5's averages record of one table: its row count, then the total tokens of each column (empty: no rows)."""
    row = conn.execute(f"SELECT block FROM {fts}_data WHERE id = 1").fetchone()  # FTS5_AVERAGES_ROWID
    return varints(bytes(row[0])) if row is not None and row[0] else []


def column_filter(with_context: bool) -> str:
    """The FTS5 column filter the keyword leg matches in."""
    return "{tokens context}" if with_context else "tokens"


def quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def term_documents(conn: sqlite3.Connection, fts: str, term: str, with_context: bool) -> int:
    """The rows of ``fts`` that hold ``term`` in the columns the keyword leg matches (its BM25 document frequency)."""
    match = f"{column_filter(with_context)} : {quoted(term)}"
    return int(conn.execute(f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (match,)).fetchone()[0])


class TermWeights:
    """Per-shard document frequencies of query terms, cached; see the module docstring. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._df: dict[tuple[str, bool, str], tuple[int, int]] = {}  # -> (count, writes to the shard then)
        self._writes: dict[str, int] = {}

    def changed(self, fts: str) -> None:
        """Note one row of ``fts`` added, rewritten or removed."""
        with self._lock:
            self._writes[fts] = self._writes.get(fts, 0) + 1

    def forget(self) -> None:
        """Drop every cached count (the store's files were opened anew, or many rows left at once)."""
        with self._lock:
            self._df.clear()

    def weighty(self, conn: sqlite3.Connection, fts: str, terms: Sequence[str], with_context: bool,
                cap: int | None = None) -> list[str]:
        """``terms`` without those in at least half of the shard's rows (their BM25 weight is FTS5's floor), and with
        ``cap`` only the ``cap`` rarest of the rest (:func:`~hermes_memory_core.storage.sql.shards.weighty_terms`).

        The rarest terms the shard holds stay when every such term is that common, so the leg still answers what FTS5 would rank
        first; shards under ``PRUNE_MIN_ROWS`` rows keep every term."""
        averages = shard_averages(conn, fts)
        rows = averages[0] if averages else 0
        if rows < PRUNE_MIN_ROWS or not terms:
            return list(terms)
        return weighty_terms(terms, {t: self._count(conn, fts, t, with_context, rows) for t in terms}, rows, cap)

    def _count(self, conn: sqlite3.Connection, fts: str, term: str, with_context: bool, rows: int) -> int:
        key = (fts, with_context, term)
        writes = self._writes.get(fts, 0)
        cached = self._df.get(key)
        if cached is not None and (writes - cached[1]) * 20 <= rows:
            return cached[0]
        df = term_documents(conn, fts, term, with_context)
        with self._lock:
            if len(self._df) >= _MAX_ENTRIES:
                self._df.clear()
            self._df[key] = (df, writes)
        return df
