"""The keyword index over SQL (both dialects): the :class:`~hermes_memory_core.storage.metadata.KeywordIndex` role.

Searches and statistics are the dialect's postings' (:class:`~hermes_memory_core.storage.sql.parts.KeywordPostings`:
FTS5's BM25 on SQLite, the same ranking over postings tables on PostgreSQL); the index is kept in step with the rows
by :class:`~hermes_memory_core.storage.sql.context.ContextIndex`, which this role repairs and feeds a memory's
other-language key terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_memory_core.storage.metadata import DEFAULT_CONTEXT_WEIGHT, KeywordFilter, KeywordStats
from hermes_memory_core.storage.sql.parts import KeywordQuery
from hermes_memory_core.storage.sql.rows import COLUMNS, SQLRows
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["SQLKeywordIndex"]


class SQLKeywordIndex:
    """The :class:`~hermes_memory_core.storage.metadata.KeywordIndex` role of a SQL store (its contract).

    Args:
        rows: The store's shared parts (database, codec, keyword index, row reading).
    """

    def __init__(self, rows: SQLRows) -> None:
        self._rows = rows

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
        flt = flt or KeywordFilter(user_id)
        where, params = self._rows.filters(flt)
        tiers = tuple(flt.memory_types or ())
        # the postings are kept to a few memories before ranking: the lasting tiers', or the tiers of one session
        session = flt.session_id if tiers else None
        lasting = tiers if tiers and (MemoryType.SHORT_TERM.value not in tiers or session is not None) else ()
        query = KeywordQuery(user_id, list(dict.fromkeys(terms)), limit, where, params, context_weight, lasting,
                             session if lasting else None)
        return self._rows.context.postings.search(self._rows.reader(), query)

    def keyword_stats(self, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """BM25 statistics of the user's keyword shard for ``terms`` (as :meth:`keyword_search` weighs them)."""
        return self._rows.context.postings.stats(self._rows.reader(), user_id, list(dict.fromkeys(terms)),
                                                 context_weight)

    def repair_keyword_index(self) -> int:
        """Index active memories missing from the keyword index and drop entries of inactive ones (how many)."""
        return self._rows.context.repair()

    def optimize_keyword_index(self) -> None:
        """Compact the keyword index (a maintenance step; results do not change)."""
        self._rows.context.postings.optimize()

    def set_xlang_terms(self, memory_id: str, version: int, terms: str) -> bool:
        """Store a memory's other-language key terms (sealed like its content) and re-index it, if it is still
        active at ``version`` (a newer version gets terms of its own). Returns whether they were stored."""
        with self._rows.atomic() as conn:
            row = conn.execute(
                "SELECT memory_type FROM memory_entries WHERE id = ? AND version = ? AND is_active = 1"
                + self._rows.db.for_update,
                (memory_id, version),
            ).fetchone()
            if row is None:
                return False
            stored = self._rows.codec.seal_field(memory_id, str(row[0]), "xlang", terms)
            conn.execute("UPDATE memory_entries SET xlang_terms = ? WHERE id = ?", (stored, memory_id))
            self._rows.context.reindex(conn, memory_id)
            return True

    def xlang_terms(self, memory_id: str) -> str | None:
        """A memory's other-language key terms as stored for its current version (opened), or None."""
        row = self._rows.reader().execute(
            "SELECT xlang_terms FROM memory_entries WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return self._rows.codec.open_field(memory_id, "xlang", row[0])

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
        rows = self._rows.reader().execute(
            f"SELECT {COLUMNS}, lang FROM memory_entries WHERE {where} ORDER BY created_at, id LIMIT ?",
            (*params, limit),
        ).fetchall()
        return [(self._rows.record(r[:-1]), r[-1]) for r in rows]
