"""The reads that find memories: the keyword leg of a search, ranking rows, hit records, lookups by metadata.

:class:`Lookups` is what recall (``retrieval/``) and the lifecycle's duplicate and update checks are handed. Each
read keeps the rules that tie the parts together: hits come from the hot cache while current, searched records are
counted there and in the access log, lookups by metadata ask with the value as each tier stores it. The vector reads
(the dense leg, stored vectors, past versions embedded once and cached) are its :attr:`Lookups.vector_reads`, the
users' languages and the embedder's language profile its :attr:`Lookups.languages`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hermes_memory_core.engine.access import AccessBuffer, Languages
from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.engine.vector_reads import VectorReads
from hermes_memory_core.storage.metadata import DEFAULT_CONTEXT_WEIGHT, KeywordFilter, KeywordStats, RankRow
from hermes_memory_core.trust.at_rest import SealingCodec
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["Lookups"]


class Lookups:
    """Finding memories in one store.

    Attributes:
        config: The store's configuration.
        embedder: The store's embedding model.
        model_pool: The store's model calls (translation runs there).
        vector_reads: The vector half's reads (:class:`~hermes_memory_core.engine.vector_reads.VectorReads`).
        languages: Which languages each user's memories are in, and the embedder's language profile
            (:class:`~hermes_memory_core.engine.access.Languages`).
    """

    def __init__(self, parts: StoreParts, access: AccessBuffer, languages: Languages) -> None:
        self._parts = parts
        self._access = access
        self.languages = languages
        self.vector_reads = VectorReads(parts)
        self.config = parts.config
        self.embedder = parts.embedder
        self.turns = parts.turns  # the question's embeddings: first and once a turn (embedding/turns.py)
        self.model_pool = parts.model_pool

    @property
    def codec(self) -> SealingCodec:
        """The store's codec as it is now (query terms and lookup values take its form)."""
        return self._parts.codec

    def now(self, value: float | None = None) -> int:
        """The current Unix time in seconds (or ``value``, truncated)."""
        return self._parts.now(value)

    def need_open(self) -> None:
        """Raise :class:`~hermes_memory_core.errors.StoreClosedError` once the store is closed."""
        self._parts.need_open()

    # ------------------------------------------------------------------ the legs
    def keyword_candidates(
        self,
        user_id: str,
        terms: Sequence[str],
        limit: int,
        flt: KeywordFilter | None = None,
        context_weight: float = DEFAULT_CONTEXT_WEIGHT,
    ) -> list[tuple[str, float]]:
        """The keyword leg: BM25 over one user's active memories, ``(id, score)`` best first (``terms`` already in
        the codec's form, :meth:`SealingCodec.query_terms`)."""
        return self._parts.metadata.keywords.keyword_search(user_id, terms, limit, flt, context_weight=context_weight)

    def keyword_stats(self, user_id: str, terms: Sequence[str], context_weight: float) -> KeywordStats:
        """BM25 statistics of the user's keyword shard for ``terms`` (to score text the index does not hold)."""
        return self._parts.metadata.keywords.keyword_stats(user_id, terms, context_weight)

    def rank_rows(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, RankRow]:
        """The ranking columns of the user's active, unexpired memories among ``ids``."""
        return self._parts.metadata.records.rank_rows(ids, user_id, now=now)

    def records_as_of(self, user_id: str, as_of: int, flt: KeywordFilter) -> list[MemoryRecord]:
        """The user's memories changed since ``as_of``, as they were then (see
        :meth:`VersionHistory.records_as_of`)."""
        return self._parts.metadata.history.records_as_of(user_id, as_of, flt)

    # ------------------------------------------------------------------ records of hits
    def active_records(self, ids: Sequence[str], user_id: str, now: int | None = None) -> dict[str, MemoryRecord]:
        """The user's active, unexpired memories among ``ids`` (others silently left out)."""
        return self._parts.metadata.records.get_many(ids, user_id, now=now)

    def hit_records(
        self, user_id: str, ids: Sequence[str], current: dict[str, RankRow], now: int
    ) -> dict[str, MemoryRecord]:
        """The records of a search's hits: from the hot cache where its copy is ``current``, the rest read."""
        records = self._parts.hot.lookup(user_id, ids, current)
        missing = [mid for mid in ids if mid not in records]
        if missing:
            read = self._parts.metadata.records.get_many(missing, user_id, now=now)
            self._parts.hot.remember(read.values())  # recall reads the same candidates again on the next turn
            records.update(read)
        return records

    def cache_hits(self, user_id: str, records: Sequence[MemoryRecord]) -> None:
        """Count returned hits in the hot cache (the user's most-searched records stay cached)."""
        self._parts.hot.record_use(user_id, records)

    def note_access(self, records: Iterable[MemoryRecord], user_id: str, who: Caller) -> None:
        """Buffer one search access per returned record; written in batches."""
        self._access.note(records, user_id, who)

    # ------------------------------------------------------------------ lookups by metadata
    def find_by_metadata(self, user_id: str, key: str, value: str, tiers: Sequence[MemoryType]) -> str | None:
        """Id of the user's current memory of these tiers whose ``metadata[key]`` is ``value``; each tier is asked
        with the value as it stores it (a keyed hash where sealed), in the order given."""
        for tier in tiers:
            found = self._parts.metadata.records.find_by_metadata(
                user_id, key, self._parts.codec.lookup_value(tier.value, key, value), [tier.value])
            if found is not None:
                return found
        return None

    def find_by_metadata_values(self, user_id: str, key: str, values: Sequence[str],
                                tier: MemoryType) -> dict[str, str]:
        """:meth:`find_by_metadata` for several values of one tier in one query: ``{value: id}`` for those found."""
        stored = {self._parts.codec.lookup_value(tier.value, key, value): value for value in values}
        found = self._parts.metadata.records.find_by_metadata_values(user_id, key, list(stored), [tier.value])
        return {stored[kept]: mid for kept, mid in found.items()}
