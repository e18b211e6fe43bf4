"""The embedded store's keyword index: FTS5 tables, one per user shard (the
:class:`~hermes_memory_core.storage.sql.parts.KeywordPostings` part of
:class:`~hermes_memory_core.storage.sqlite.store.SQLiteMetadataStore`).

Each memory is one FTS5 row (its ``memory_keyword_docs`` number is the rowid) with three columns: the user key, its
own tokens and its second field (conversational context and other-language key terms). FTS5 ranks with BM25 and
weighs each column's term frequency: own tokens 1.0, the second field ``context_weight``. Segments the writes leave
are merged in the background (:mod:`~hermes_memory_core.storage.sqlite.upkeep`); terms at BM25's floor leave a
query (:mod:`~hermes_memory_core.storage.sqlite.term_weights`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from hermes_memory_core.storage.metadata import KeywordStats
from hermes_memory_core.storage.sql.parts import KeywordDoc, KeywordQuery
from hermes_memory_core.storage.sql.shards import MAX_QUERY_TERMS, keyword_shard, user_key
from hermes_memory_core.storage.sqlite import migrations
from hermes_memory_core.storage.sqlite.database import SQLiteDatabase
from hermes_memory_core.storage.sqlite.term_weights import (
    TermWeights,
    column_filter,
    quoted,
    shard_averages,
    term_documents,
)
from hermes_memory_core.storage.sqlite.upkeep import SegmentMerger

__all__ = ["FTS5Postings"]


def _fts_query(user: str, tokens: Sequence[str], with_context: bool = True) -> str:
    terms = " OR ".join(quoted(t) for t in tokens)
    return f'user_key : "{user}" AND {column_filter(with_context)} : ({terms})'


class FTS5Postings:
    """The keyword index in FTS5 shard tables of one SQLite database.

    Args:
        db: The database (its write transaction serialises merge steps with every other write).
        background_merge: Merge new segments on a daemon thread after each write; False leaves them for
            :meth:`merge_pending`.
    """

    def __init__(self, db: SQLiteDatabase, *, background_merge: bool = True) -> None:
        self._db = db
        self.term_weights = TermWeights()
        self.merger = SegmentMerger(db.atomic, migrations.fts_table, background=background_merge)

    def index(self, conn: sqlite3.Connection, doc: KeywordDoc) -> None:
        memory_id, user_id, toks, context = doc
        shard = keyword_shard(user_id)
        self.merger.touched(shard)
        self.term_weights.changed(migrations.fts_table(shard))
        row = conn.execute("SELECT doc, shard FROM memory_keyword_docs WHERE memory_id = ?", (memory_id,)).fetchone()
        if row is None:
            number = conn.execute(
                "INSERT INTO memory_keyword_docs (memory_id, shard) VALUES (?, ?)", (memory_id, shard)
            ).lastrowid
        else:
            number = row[0]
            conn.execute(f"DELETE FROM {migrations.fts_table(row[1])} WHERE rowid = ?", (number,))
            conn.execute("UPDATE memory_keyword_docs SET shard = ? WHERE doc = ?", (shard, number))
        conn.execute(
            f"INSERT INTO {migrations.fts_table(shard)} (rowid, user_key, tokens, context) VALUES (?, ?, ?, ?)",
            (number, user_key(user_id), " ".join(toks), " ".join(context)),
        )

    def index_new(self, conn: sqlite3.Connection, docs: Sequence[KeywordDoc]) -> None:
        for doc in docs:
            self.index(conn, doc)

    def unindex(self, conn: sqlite3.Connection, memory_id: str) -> None:
        row = conn.execute("SELECT doc, shard FROM memory_keyword_docs WHERE memory_id = ?", (memory_id,)).fetchone()
        if row is not None:
            self.merger.touched(row[1])
            self.term_weights.changed(migrations.fts_table(row[1]))
            conn.execute(f"DELETE FROM {migrations.fts_table(row[1])} WHERE rowid = ?", (row[0],))
            conn.execute("DELETE FROM memory_keyword_docs WHERE doc = ?", (row[0],))

    def unindex_user(self, conn: sqlite3.Connection, user_id: str) -> None:
        fts = migrations.fts_table(keyword_shard(user_id))
        docs = "SELECT d.doc FROM memory_keyword_docs d JOIN memory_entries e ON e.id = d.memory_id WHERE e.user_id = ?"
        conn.execute(f"DELETE FROM {fts} WHERE rowid IN ({docs})", (user_id,))
        conn.execute(f"DELETE FROM memory_keyword_docs WHERE doc IN ({docs})", (user_id,))
        self.term_weights.forget()

    def lock_session(self, conn: sqlite3.Connection, user_id: str, session_id: str) -> None:
        """Nothing to lock: the database has one writer."""

    def search(self, conn: sqlite3.Connection, query: KeywordQuery) -> list[tuple[str, float]]:
        """FTS5's BM25 with column weights: own tokens 1.0, the second field ``context_weight``. Terms in at least
        half of the shard's rows (weight at FTS5's floor) are left out of the query, and a ranked search of every
        tier asks for its :data:`~hermes_memory_core.storage.sql.shards.MAX_QUERY_TERMS` rarest terms at most
        (:class:`~hermes_memory_core.storage.sqlite.term_weights.TermWeights`).

        One statement does the usual case: FTS5 ranks its own top ``3 × limit`` documents (no join), and only those
        are mapped to memories and checked against the filters by primary key. If filtering leaves too few while
        more matches exist, one joined query ranks the filtered set. A search of the lasting tiers alone
        (``query.lasting``) is that joined query at once, FTS5's matches kept to those tiers' documents before any
        is scored or joined (``+rowid``: checked against the set, not looked up one by one).
        """
        user_id, limit, where, params, context_weight = (
            query.user_id, query.limit, query.where, query.params, query.context_weight
        )
        fts = migrations.fts_table(keyword_shard(user_id))
        with_context = context_weight > 0
        cap = None if query.lasting else MAX_QUERY_TERMS  # (the lasting tiers' few memories cost little to rank)
        weighty = self.term_weights.weighty(conn, fts, query.terms, with_context, cap)
        match = _fts_query(user_key(user_id), weighty, with_context)
        if query.lasting:  # the few memories of the lasting tiers (or of one session): their matches alone are ranked
            tiers = ",".join("?" * len(query.lasting))
            session = "" if query.session is None else "AND m.session_id = ? "
            sql = (
                f"SELECT e.id, round(-bm25({fts}, 0.0, 1.0, ?), 9) AS score FROM {fts} "
                f"JOIN memory_keyword_docs d ON d.doc = {fts}.rowid JOIN memory_entries e ON e.id = d.memory_id "
                f"WHERE {fts} MATCH ? AND e.is_active = 1 AND e.user_id = ? {where} "
                f"AND +{fts}.rowid IN (SELECT k.doc FROM memory_entries m JOIN memory_keyword_docs k ON k.memory_id = m.id "
                f"WHERE m.user_id = ? AND m.memory_type IN ({tiers}) {session}AND m.is_active = 1) "
                "ORDER BY score DESC, e.id LIMIT ?"
            )
            scope = [] if query.session is None else [query.session]
            params = [context_weight, match, user_id, *params, user_id, *query.lasting, *scope, limit]
            return [(r[0], float(r[1])) for r in conn.execute(sql, params)]
        fetch = limit * 3
        # scores rounded to 9 decimals and ties broken by memory id, as in every backend, so equal stores answer in
        # the same order whatever the last bits of their floating-point sums
        rows = conn.execute(
            f"WITH top AS (SELECT rowid AS doc, -bm25({fts}, 0.0, 1.0, ?) AS score FROM {fts} WHERE {fts} MATCH ? "
            "ORDER BY score DESC LIMIT ?) "
            "SELECT e.id, round(top.score, 9) AS s, (SELECT count(*) FROM top) FROM top "
            "JOIN memory_keyword_docs d ON d.doc = top.doc JOIN memory_entries e ON e.id = d.memory_id "
            f"WHERE +e.user_id = ? AND +e.is_active = 1 {where} ORDER BY s DESC, e.id LIMIT ?",
            [context_weight, match, fetch, user_id, *params, limit],
        ).fetchall()
        found = [(r[0], float(r[1])) for r in rows]
        # fewer than asked: only if FTS5's top was full can filtered-out documents hide more matches
        saturated = rows[0][2] >= fetch if rows else _count_matches(conn, fts, match, fetch) >= fetch
        if len(found) >= limit or not saturated:
            return found
        sql = (
            f"SELECT e.id, round(-bm25({fts}, 0.0, 1.0, ?), 9) AS score FROM {fts} "
            f"JOIN memory_keyword_docs d ON d.doc = {fts}.rowid JOIN memory_entries e ON e.id = d.memory_id "
            f"WHERE {fts} MATCH ? AND e.is_active = 1 AND e.user_id = ? {where} ORDER BY score DESC, e.id LIMIT ?"
        )
        return [(r[0], float(r[1])) for r in conn.execute(sql, [context_weight, match, user_id, *params, limit])]

    def stats(self, conn: sqlite3.Connection, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """FTS5's own BM25 statistics of the user's shard: row count and mean row size (every column) from the
        index's averages record, and per term the rows that hold it in the columns the keyword leg matches."""
        fts = migrations.fts_table(keyword_shard(user_id))
        numbers = shard_averages(conn, fts)
        docs = numbers[0] if numbers else 0
        avg = sum(numbers[1:]) / docs if docs else 1.0
        df = {t: term_documents(conn, fts, t, context_weight > 0) for t in terms}
        return KeywordStats(docs, avg or 1.0, df)

    def optimize(self) -> None:
        """Merge every shard into one segment (queries on a large index get about twice as fast; entries of
        deleted or re-sealed rows leave the segments, their pages zeroed by ``secure_delete``), then checkpoint the
        write-ahead log into the file and truncate it."""
        self._optimize(range(migrations.KEYWORD_SHARDS))
        self._db.truncate_wal()

    def compact(self, user_ids: Sequence[str]) -> None:
        """Merge the users' shards into one segment each: FTS5 keeps a deleted row's terms in older segments until
        a merge."""
        self._optimize(sorted({keyword_shard(u) for u in user_ids}))

    def _optimize(self, shards: Sequence[int]) -> None:
        for shard in shards:
            fts = migrations.fts_table(shard)
            with self._db.atomic() as conn:
                conn.execute(f"INSERT INTO {fts}({fts}) VALUES ('optimize')")

    def settle_merges(self) -> None:
        """Wait for the background merge's steps in flight and those its last wake-up asked for (writes nothing)."""
        self.merger.settle()

    def merge_pending(self) -> None:
        """Merge, now and in this thread, the segments writes left (what the background merge does)."""
        self.merger.run_pending()

    def close(self) -> None:
        """Stop the background merge (a merge step in progress needs the write lock to finish)."""
        self.merger.close()


def _count_matches(conn: sqlite3.Connection, fts: str, match: str, cap: int) -> int:
    """How many documents match, counting no further than ``cap``."""
    sql = f"SELECT count(*) FROM (SELECT 1 FROM {fts} WHERE {fts} MATCH ? LIMIT ?)"
    return int(conn.execute(sql, (match, cap)).fetchone()[0])
