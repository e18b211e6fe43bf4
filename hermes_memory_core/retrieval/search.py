"""A search end to end: the filter, the two legs, fusion and ranking, the records of the hits, and the recall gate.

1. **Filter** — :func:`build_filter` validates a caller's arguments into a :class:`SearchFilter` (one user, tiers the
   caller may read, session, tags, time range), which both legs apply inside their engines.
2. **Keyword leg** — BM25 over the user's memories (:meth:`~hermes_memory_core.storage.metadata.MetadataStore.
   keyword_search`), on the local tokenizer's query terms, or the host model's key terms with ``llm_keywords``;
   sealed memories match through the keyed hashes of the same terms.
3. **Vector leg** — the query embedding against the user's points in the vector engine.
4. **Across languages** — when the user also holds memories in the other language than the question's, dense
   scores become calibrated z-scores (:class:`~hermes_memory_core.text.language.DenseCalibrator`: a cross-language
   pair is judged on language-centred vectors, and, for a Chinese question, on the embedding of its English
   dictionary terms too; every score is measured against ordinary sentences of the memory's language), two more
   vector searches bring in other-language candidates, and a Chinese question's keyword terms gain their English
   dictionary terms (Chinese memories are indexed under theirs). A store in the question's language alone takes
   exactly the single-language path.
5. **Fusion** — :func:`~hermes_memory_core.retrieval.ranking.rank` over both legs' candidates with their ranking
   columns; records of the returned hits come from the hot cache when still current, else from the store.
6. **Floor** — with ``min_score`` a question whose best dense match stands out less than that (calibrated z) from
   ordinary sentences gets no hits at all; ``recall`` applies ``recall_min_score`` by default.
7. **Recall** — :meth:`Searcher.recall` applies the gate (nothing for greetings and fillers) and the fact router
   (permanent facts only for identity, configuration and compliance questions).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from hermes_memory_core import validation as v
from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.errors import InvalidInputError, PermissionDeniedError
from hermes_memory_core.llm import LLM
from hermes_memory_core.retrieval.as_of import search_as_of
from hermes_memory_core.retrieval.gate import needs_permanent, should_recall
from hermes_memory_core.retrieval.keywords import KeywordExtractor
from hermes_memory_core.retrieval.ranking import Candidate, rank
from hermes_memory_core.storage.metadata import KeywordFilter
from hermes_memory_core.storage.vectors import VectorFilter
from hermes_memory_core.text.language import DenseCalibrator, Language, language_of
from hermes_memory_core.text.perspective import to_third_person
from hermes_memory_core.text.terms import english_gloss, query_terms
from hermes_memory_core.text.tokenizer import tokenize_query
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import MemoryHit, MemoryType

__all__ = ["SearchFilter", "Searcher", "build_filter", "readable_types"]


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """What a search may return: one user's memories, narrowed by tier, session, tags and creation time.

    Attributes:
        user_id: Whose memories (never anyone else's).
        memory_types: Only these tiers (None: every tier).
        session_id: Only this session's memories.
        tags: Memories carrying at least one of these tags.
        created_from: Inclusive lower bound on ``created_at``.
        created_to: Inclusive upper bound on ``created_at``.
    """

    user_id: str
    memory_types: tuple[str, ...] | None = None
    session_id: str | None = None
    tags: tuple[str, ...] | None = None
    created_from: int | None = None
    created_to: int | None = None

    def for_vectors(self) -> VectorFilter:
        return VectorFilter(self.user_id, self.memory_types, self.session_id, self.tags, self.created_from,
                            self.created_to)

    def for_rows(self, now: int | None) -> KeywordFilter:
        return KeywordFilter(self.memory_types, self.session_id, self.tags, self.created_from, self.created_to, now)


def readable_types(types: tuple[str, ...] | None, who: Caller) -> tuple[str, ...] | None:
    """The tiers a caller may read among ``types`` (None: all); only-permanent without permission is an error."""
    if who.read_permanent:
        return types
    allowed = tuple(t for t in (types or [t.value for t in MemoryType]) if t != MemoryType.PERMANENT.value)
    if not allowed:
        raise PermissionDeniedError(f"caller {who.name!r} may not read permanent memories")
    return allowed


def build_filter(
    user_id: Any,
    who: Caller,
    max_tags: int,
    memory_types: Iterable[MemoryType | str] | None = None,
    session_id: Any = None,
    tags: Iterable[str] | None = None,
    time_range: Any = None,
) -> SearchFilter:
    """Validate a caller's filter arguments (one-line typed errors) into a :class:`SearchFilter`."""
    uid = v.check_user_id(user_id)
    types = readable_types(v.check_memory_types(memory_types), who)
    sid = v.check_session_id(session_id)
    tag_filter = v.check_tags(tags, max_tags) or None
    start, end = v.check_time_range(time_range)
    return SearchFilter(uid, types, sid, tag_filter, start, end)


class Searcher:
    """Hybrid search and gated recall over one engine.

    Args:
        engine: The open store.
    """

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine
        self._keywords: KeywordExtractor | None = None

    def search(
        self,
        query: Any,
        *,
        user_id: Any,
        top_k: Any = 5,
        memory_types: Iterable[MemoryType | str] | None = None,
        session_id: Any = None,
        tags: Iterable[str] | None = None,
        time_range: Any = None,
        now: Any = None,
        min_score: Any = None,
        as_of: Any = None,
        who: Caller,
        llm: LLM | None = None,
    ) -> list[MemoryHit]:
        """Validate, then search (see :meth:`MemoryProvider.search`)."""
        engine = self.engine
        engine.need_open()
        text = v.check_text(query, "query")
        if len(text) > engine.config.max_content_chars:
            raise InvalidInputError(f"query has {len(text)} characters; the limit (max_content_chars) is "
                                    f"{engine.config.max_content_chars}")
        v.check_user_id(user_id)
        k = v.check_top_k(top_k)
        flt = build_filter(user_id, who, engine.config.max_tags, memory_types, session_id, tags, time_range)
        floor = None if min_score is None else v.check_score(min_score, "min_score")
        flt = replace(flt, tags=engine.codec.filter_tags(flt.tags))  # sealed memories carry keyed-hash tags
        at = engine.now(v.check_timestamp(now, "now"))
        then = v.check_timestamp(as_of, "as_of")
        if not text.strip():
            return []
        if then is not None:
            return self.run_as_of(text, flt, k, at if now is not None else then, then, who, llm)
        return self.run(text, flt, k, at, who, llm, floor)

    def run_as_of(
        self, text: str, flt: SearchFilter, k: int, at: int, as_of: int, who: Caller, llm: LLM | None
    ) -> list[MemoryHit]:
        """Search as the store stood at ``as_of`` (see :mod:`~hermes_memory_core.retrieval.as_of`); the hits
        count as accesses, the hot cache is left alone (they may be past versions)."""
        hits = search_as_of(self.engine, text, self.keyword_tokens(text, llm), flt.for_vectors(), flt.for_rows(as_of),
                            k, at, as_of)
        self.engine.note_access([h.record for h in hits], flt.user_id, who)
        return hits

    def run(
        self, text: str, flt: SearchFilter, k: int, at: int, who: Caller, llm: LLM | None, min_score: float | None = None
    ) -> list[MemoryHit]:
        """Search validated arguments: both legs, fusion, the floor, the hits' records, their access counts."""
        engine = self.engine
        weights = engine.config.ranking
        n = max(weights.min_candidates, k * weights.candidate_multiplier)
        vflt = flt.for_vectors()
        # memories speak of "the user" / "用户": a question in the first person is matched in the same form
        about_user = to_third_person(text, keep_requests=True)
        query_vec = engine.embedder.embed_query(about_user)
        ql = language_of(text)
        cross = engine.has_language(flt.user_id, "en" if ql == "zh" else "zh")
        cosines = dict(engine.vectors.search(query_vec, n, vflt))
        cal = self._calibrator(about_user, query_vec, ql, cross) if cross or min_score is not None else None
        found_by_cross: set[str] = set()
        if cross and cal is not None:
            for vec in [cal.cross_query_vector] + ([cal.translated] if cal.translated is not None else []):
                found_by_cross.update(mid for mid, _ in engine.vectors.search(vec, n, vflt) if mid not in cosines)
        tokens = self.keyword_tokens(text, llm, cross)
        if about_user != text:
            tokens = list(dict.fromkeys([*tokens, *query_terms(about_user, cross_language=cross)]))
        terms = engine.codec.query_terms(tokens)
        keyword = engine.metadata.keyword_search(
            flt.user_id, terms, n, flt.for_rows(at), context_weight=weights.keyword_context_weight
        )
        candidates = {*cosines, *found_by_cross, *(mid for mid, _ in keyword)}
        fields = engine.metadata.rank_rows(list(candidates), flt.user_id, now=at)
        confidence: dict[str, float] = {}
        if cal is not None:
            dense_ids = [mid for mid in (*cosines, *found_by_cross) if mid in fields]
            confidence = self._confidence(cal, dense_ids, cosines, fields, ql)
            if min_score is not None and max(confidence.values(), default=float("-inf")) < min_score:
                # nothing stands out densely; a memory kept out of the vector index (permanent_vectors=False) can
                # only be judged by its keyword match, so such matches stay
                unvectored = {mid for mid, score in keyword if score > 0 and mid in fields
                              and not engine.has_vector(MemoryType(fields[mid].memory_type))}
                if not unvectored:
                    return []
                candidates = unvectored
                keyword = [(mid, score) for mid, score in keyword if mid in unvectored]
        dense = confidence if cross else cosines
        merged = {mid: Candidate(mid, dense=dense.get(mid)) for mid in candidates}
        for mid, score in keyword:
            merged[mid].keyword = score
        ranked = rank(list(merged.values()), fields, at, weights, k, query_language=ql if cross else None)
        wanted = [r.id for r in ranked]
        records = engine.hot.lookup(flt.user_id, wanted, fields)
        missing = [mid for mid in wanted if mid not in records]
        if missing:
            records.update(engine.metadata.get_many(missing, flt.user_id, now=at))
        hits = [
            MemoryHit(records[r.id], r.score, r.relevance, cosines.get(r.id), r.keyword, confidence.get(r.id))
            for r in ranked
            if r.id in records
        ]
        engine.hot.record_use(flt.user_id, [h.record for h in hits])
        engine.note_access([h.record for h in hits], flt.user_id, who)
        return hits

    def _calibrator(self, text: str, query_vec: Any, ql: Language, cross: bool) -> DenseCalibrator:
        """The question's dense calibration; a Chinese question asked across languages also brings the
        embedding of its English dictionary terms."""
        translated = None
        if cross and ql == "zh":
            gloss = english_gloss(text)
            if gloss.strip():
                translated = self.engine.embedder.embed_query(gloss)
        return DenseCalibrator(self.engine.language_profile(), query_vec, ql, translated)

    def _confidence(
        self,
        cal: DenseCalibrator,
        ids: list[str],
        cosines: dict[str, float],
        fields: dict[str, Any],
        ql: Language,
    ) -> dict[str, float]:
        """Calibrated z of the dense candidates: from the cosine for a memory in the question's language, from its
        stored vector (fetched) for one in the other language."""
        out: dict[str, float] = {}
        fetch: list[str] = []
        for mid in ids:
            lang = fields[mid].lang or ql
            if lang == ql and mid in cosines:
                out[mid] = cal.z_from_cosine(cosines[mid], ql)
            else:
                fetch.append(mid)
        if fetch:
            vectors = self.engine.vectors.fetch(fetch)
            present = [mid for mid in fetch if mid in vectors]
            if present:
                langs: list[Language] = [fields[mid].lang or ql for mid in present]
                scores = cal.z(np.stack([vectors[mid] for mid in present]), langs)
                out.update(zip(present, (float(s) for s in scores), strict=True))
        return out

    def keyword_tokens(self, text: str, llm: LLM | None, cross: bool = False) -> list[str]:
        """The keyword leg's query: the LLM's key terms when ``llm_keywords`` is on, else the local tokenizer's
        (with a Chinese question's English dictionary terms when the store also holds English memories)."""
        if self.engine.config.llm_keywords and llm is not None:
            if self._keywords is None or self._keywords.llm is not llm:
                self._keywords = KeywordExtractor(llm, self.engine.config.llm_timeout_seconds)
            terms = self._keywords.terms(text)
            if terms:
                toks = tokenize_query(" ".join(terms))
                if toks:
                    return toks
        return query_terms(text, cross_language=cross)

    def recall(
        self,
        query: Any,
        *,
        user_id: Any,
        top_k: Any = 5,
        session_id: Any = None,
        tags: Iterable[str] | None = None,
        time_range: Any = None,
        now: Any = None,
        min_score: Any = None,
        who: Caller,
        llm: LLM | None = None,
    ) -> list[MemoryHit]:
        """Gated recall for a chat turn (see :meth:`MemoryProvider.recall`); an over-long query is recalled on its
        first ``max_content_chars`` characters (a chat turn never fails on a long message)."""
        query = v.check_text(query, "query")[: self.engine.config.max_content_chars]
        if not should_recall(query):
            return []
        permanent = needs_permanent(query) and who.read_permanent
        tiers = [MemoryType.LONG_TERM] + ([MemoryType.PERMANENT] if permanent else [])
        floor = self.engine.config.recall_min_score if min_score is None else min_score
        return self.search(query, user_id=user_id, top_k=top_k, memory_types=tiers, session_id=session_id,
                           tags=tags, time_range=time_range, now=now, min_score=floor, who=who, llm=llm)
