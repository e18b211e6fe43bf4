"""The server store's keyword index: BM25 postings in plain tables (the
:class:`~hermes_memory_core.storage.sql.parts.KeywordPostings` part of
:class:`~hermes_memory_core.storage.postgres.store.PostgresMetadataStore`).

BM25 is computed in SQL over a postings table (user, term → memory, term frequency, document length), scoped to one
user by the primary key, with the statistics of the user's keyword shard — the numbers SQLite's FTS5 uses — so both
backends rank alike.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from hermes_memory_core.storage.metadata import KeywordStats
from hermes_memory_core.storage.postgres.database import PostgresDatabase
from hermes_memory_core.storage.sql.parts import KeywordDoc, KeywordQuery
from hermes_memory_core.storage.sql.shards import MAX_QUERY_TERMS, keyword_shard, weighty_terms

__all__ = ["PostgresPostings"]

# BM25 parameters of SQLite FTS5 and Lucene.
_K1 = 1.2
_B = 0.75


class PostgresPostings:
    """The keyword index in the ``memory_keyword_docs`` and ``memory_keyword_terms`` tables of one schema."""

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    def index(self, conn: Any, doc: KeywordDoc) -> None:
        self.unindex(conn, doc[0])
        self.index_new(conn, [doc])

    def index_new(self, conn: Any, docs: Sequence[KeywordDoc]) -> None:
        doc_rows: list[tuple[Any, ...]] = []
        term_rows: list[tuple[Any, ...]] = []
        for memory_id, user_id, toks, context in docs:
            shard = keyword_shard(user_id)
            # FTS5 counts every column's tokens in a row's length, the user-key column's one token included
            length = len(toks) + len(context) + 1
            doc_rows.append((memory_id, user_id, shard, length))
            own, near = Counter(toks), Counter(context)
            term_rows.extend(
                (user_id, t, memory_id, shard, own[t], near[t], length) for t in sorted(own.keys() | near.keys())
            )
        with conn.raw.cursor() as cur:
            with cur.copy("COPY memory_keyword_docs (memory_id, user_id, shard, length) FROM STDIN") as copy:
                for row in doc_rows:
                    copy.write_row(row)
            with cur.copy(
                "COPY memory_keyword_terms (user_id, term, memory_id, shard, tf, ctf, doc_length) FROM STDIN"
            ) as copy:
                for row in term_rows:
                    copy.write_row(row)

    def lock_session(self, conn: Any, user_id: str, session_id: str) -> None:
        # Two processes refreshing one session's context would both rewrite the same neighbours' postings; a
        # transaction-scoped advisory lock per (user, session) makes them take turns (taken in sorted order).
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (f"{user_id}\x1f{session_id}",))

    def unindex(self, conn: Any, memory_id: str) -> None:
        conn.execute("DELETE FROM memory_keyword_docs WHERE memory_id = ?", (memory_id,))

    def unindex_user(self, conn: Any, user_id: str) -> None:
        conn.execute("DELETE FROM memory_keyword_docs WHERE user_id = ?", (user_id,))  # postings cascade

    def search(self, conn: Any, query: KeywordQuery) -> list[tuple[str, float]]:
        """SQLite FTS5's BM25, computed in SQL, with its column weights: a term's frequency counts
        ``tf + context_weight × ctf`` (own tokens, conversational context).

        Document count, average length and document frequencies are those of the user's keyword shard, exactly
        as FTS5 sees its shard table, so a store restored from SQLite into PostgreSQL (or back) ranks the same:
        ``idf = ln((N - df + 0.5) / (df + 0.5))`` (1e-6 when not positive), k1 = 1.2, b = 0.75. Terms at that
        floor leave the query as in SQLite (:mod:`~hermes_memory_core.storage.sqlite.term_weights`): their postings,
        a user's whole memory for a speaker's name, are never read; a ranked search of every tier keeps its
        :data:`~hermes_memory_core.storage.sql.shards.MAX_QUERY_TERMS` rarest terms, as SQLite does.
        """
        user_id, terms, limit, context_weight = query.user_id, query.terms, query.limit, query.context_weight
        where, params = query.where, query.params
        shard = keyword_shard(user_id)
        own_only = context_weight <= 0  # then only memories whose own tokens match count (FTS5's column filter)
        docs, avgdl, counts = _shard_statistics(conn, shard, terms, own_only)
        kept = [t for t in weighty_terms(terms, counts, docs, None if query.lasting else MAX_QUERY_TERMS) if counts.get(t)]
        if not kept:
            return []
        idf = {t: math.log((docs - counts[t] + 0.5) / (counts[t] + 0.5)) for t in kept}
        weights = [x for t in kept for x in (t, idf[t] if idf[t] > 0 else 1e-6)]
        f = "(t.tf + ?::float8 * t.ctf)"
        scored = (
            f"WITH scored AS (SELECT t.memory_id, sum((CASE t.term {' '.join('WHEN ? THEN ?::float8' for _ in kept)} END)"
            f"       * {f} * {_K1 + 1}::float8 / ({f} + {_K1}::float8 * ({1 - _B}::float8 + {_B}::float8 * t.doc_length "
            "       / ?::float8))) AS raw "
            "       FROM memory_keyword_terms t WHERE t.user_id = ? AND t.term = ANY(?::text[]) "
            f"       {'AND t.tf > 0' if own_only else ''} "
            # the lasting tiers alone: only their memories' postings are scored (see KeywordQuery.lasting)
            f"       {'AND t.memory_id IN (SELECT m.id FROM memory_entries m WHERE m.user_id = ? AND m.memory_type = ANY(?::text[]) AND m.is_active = 1' if query.lasting else ''}"
            f"{' AND m.session_id = ?' if query.lasting and query.session is not None else ''}{')' if query.lasting else ''} "
            "       GROUP BY t.memory_id) "
        )
        head = [*weights, float(context_weight), float(context_weight), avgdl, user_id, kept,
                *([user_id, list(query.lasting)] if query.lasting else []),
                *([query.session] if query.lasting and query.session is not None else [])]
        # One statement, as in SQLite: the postings' best 3 × limit (scores rounded for those only), each with
        # whether its memory passes the filters (checked by primary key). Only when filters leave too few while
        # more matches exist does a joined query rank the filtered set.
        fetch = limit * 3
        top = conn.execute(
            scored + ", top AS (SELECT memory_id, raw FROM scored ORDER BY raw DESC LIMIT ?) "
            "SELECT top.memory_id, round(top.raw::numeric, 9)::float8, e.id IS NOT NULL FROM top "
            f"LEFT JOIN memory_entries e ON e.id = top.memory_id AND e.user_id = ? AND e.is_active = 1 {where}",
            [*head, fetch, user_id, *params],
        ).fetchall()
        # scores rounded to 9 decimals and ties broken by memory id, as in every backend
        out = sorted(((r[0], float(r[1])) for r in top if r[2]), key=lambda h: (-h[1], h[0]))
        if len(out) >= limit or len(top) < fetch:
            return out[:limit]
        filtered = conn.execute(
            scored + "SELECT s.memory_id, round(s.raw::numeric, 9)::float8 AS score FROM scored s "
            f"JOIN memory_entries e ON e.id = s.memory_id WHERE e.user_id = ? AND e.is_active = 1 {where} "
            "ORDER BY score DESC, s.memory_id LIMIT ?",
            [*head, user_id, *params, limit],
        )
        return [(r[0], float(r[1])) for r in filtered]

    def stats(self, conn: Any, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """The statistics :meth:`search` computes: the shard's document count and mean length, and per term the
        documents that hold it (in their own tokens only when ``context_weight`` is 0)."""
        docs, avgdl, counts = _shard_statistics(conn, keyword_shard(user_id), terms, context_weight <= 0)
        return KeywordStats(docs, avgdl, {t: counts.get(t, 0) for t in terms})

    def optimize(self) -> None:
        """Refresh the planner's statistics of the keyword tables (VACUUM ANALYZE)."""
        with self._db.connection() as raw:
            for table in ("memory_keyword_docs", "memory_keyword_terms", "memory_entries"):
                raw.execute(f"VACUUM ANALYZE {table}")

    def compact(self, user_ids: Sequence[str]) -> None:
        """Nothing to fold: the database's rewrite (``VACUUM FULL``) rewrites the keyword tables too."""

    def close(self) -> None:
        """No background work to stop."""


def _shard_statistics(
    conn: Any, shard: int, terms: Sequence[str], own_only: bool
) -> tuple[int, float, dict[str, int]]:
    """One statement: the shard's document count and mean length (1 when empty), and the documents holding
    each term that any does (in their own tokens only with ``own_only``, FTS5's column filter)."""
    rows = conn.execute(
        "WITH st AS (SELECT count(*) AS n, coalesce(avg(length), 1)::float8 AS avgdl "
        "            FROM memory_keyword_docs WHERE shard = ?) "
        "SELECT st.n, st.avgdl, df.term, df.df FROM st LEFT JOIN (SELECT term, count(*) AS df "
        f"  FROM memory_keyword_terms WHERE shard = ? AND term = ANY(?::text[]) {'AND tf > 0' if own_only else ''} "
        "  GROUP BY term) df ON true",
        [shard, shard, list(terms)],
    ).fetchall()
    docs, avgdl = (int(rows[0][0]), float(rows[0][1])) if rows else (0, 1.0)
    return docs, avgdl, {r[2]: int(r[3]) for r in rows if r[2] is not None}

