"""A search end to end: the filter, the two legs, fusion and ranking, the records of the hits.

1. **Filter** — :func:`build_filter` validates a caller's arguments into a :class:`SearchFilter` (one user, tiers the
   caller may read, session, tags, time range), which both legs apply inside their engines.
2. **Keyword leg** — BM25 over the user's memories (:meth:`~hermes_memory_core.storage.metadata.KeywordIndex.
   keyword_search`), on the local tokenizer's query terms, or the host model's key terms with ``llm_keywords``;
   sealed memories match through the keyed hashes of the same terms.
3. **Vector leg** — the query embedding against the user's points in the vector engine.
4. **Across languages** — when the user also holds memories in the other language than the question's, dense
   scores become calibrated z-scores (:class:`~hermes_memory_core.text.language.DenseCalibrator`: a cross-language
   pair is judged on language-centred vectors, and, for a Chinese question, on the embedding of its English
   dictionary terms too; every score is measured against ordinary sentences of the memory's language), two more
   vector searches bring in other-language candidates, and a Chinese question's keyword terms gain their English
   dictionary terms (Chinese memories are indexed under theirs). With the host's model (``llm_translation``), the
   question's translation replaces the dictionary terms and the language-centred search: its embedding alone
   brings in and scores the other-language memories (see
   :class:`~hermes_memory_core.retrieval.translation.TranslatedCalibrator`), its words join the keyword leg
   (:func:`~hermes_memory_core.retrieval.translation.balance_keyword`), and memories are also found by their
   other-language key terms (:mod:`~hermes_memory_core.lifecycle.xlang`). A
   store in the question's language alone takes exactly the single-language path (and asks no model).
5. **Fusion** — :func:`~hermes_memory_core.retrieval.ranking.rank` over both legs' candidates with their ranking
   columns; records of the returned hits come from the hot cache when still current, else from the store.
6. **Floor** — with ``min_score`` a question whose best dense match stands out less than that (calibrated z) from
   ordinary sentences gets no hits at all; ``recall`` applies ``recall_min_score`` by default.
Recall — what a chat turn is given — is decided over these candidates and scores in its own room
(:mod:`~hermes_memory_core.retrieval.recall`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hermes_memory_core import validation as v
from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.errors import InvalidInputError, PermissionDeniedError
from hermes_memory_core.llm import LLM
from hermes_memory_core.lru import BoundedLRU
from hermes_memory_core.retrieval.as_of import search_as_of
from hermes_memory_core.retrieval.keywords import KeywordExtractor
from hermes_memory_core.retrieval.ranking import Candidate, rank
from hermes_memory_core.retrieval.recall_policy import (
    answers_a_question,
    asked,
)
from hermes_memory_core.retrieval.translation import (
    TRANSLATED_CROSS_DENSE_WEIGHT,
    TranslatedQueries,
    Translator,
    balance_keyword,
    other_language,
)
from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.text.language import DenseCalibrator, Language, language_of
from hermes_memory_core.text.perspective import to_third_person
from hermes_memory_core.text.questions import asking_part
from hermes_memory_core.text.terms import english_gloss, query_terms
from hermes_memory_core.text.tokenizer import tokenize_query
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import MemoryHit, MemoryRecord, MemoryType

__all__ = ["NO_FLOOR", "SearchFilter", "Searcher", "about_the_user", "build_filter", "readable_types"]

#: Embeddings of recent questions' translations kept (a repeated question is not embedded twice).
_TRANSLATION_VECTORS = 256
#: Host model objects whose translation caches are kept (an adapter's and the provider's, say).
_TRANSLATORS = 8


#: Questions whose third-person form is kept (:func:`about_the_user`: search and recall both ask it of a question).
_ABOUT_THE_USER: BoundedLRU[str, str] = BoundedLRU(256)


def about_the_user(text: str) -> str:
    """``to_third_person(text, keep_requests=True)``, worked out once per question."""
    return _ABOUT_THE_USER.get_or_compute(text, lambda: to_third_person(text, keep_requests=True))


#: The filter a search validates its arguments into: the one filter type of every read.
SearchFilter = MemoryFilter


@dataclass(frozen=True, slots=True)
class _Request:
    """A search's arguments, validated: the question, the filter, how many hits, when, and the dense floor."""

    text: str
    flt: SearchFilter
    k: int
    at: int
    as_of: int | None
    now_given: bool
    min_score: float | None
    answers_only: bool = False
    own_words_only: bool = False


#: Memory versions whose "holds no answer" verdict a searcher keeps (:meth:`Searcher._holds_no_answer`).
_JUDGED_LINES = 8192
#: Recall fetches each leg at this many times its size once: the places of the lines it leaves out are filled from it
#: (at 16k conversation memories, 95% of the refills of 200 LoCoMo questions asked for at most twice the size).
_WIDER = 2


class _Leg:
    """One leg's candidates, best first, fetched once at ``size``: a longer list is read on in them (a leg's list
    for a size starts with its list for a larger one — exact cosine, BM25 with ties by id — so reading on gives what
    a fetch at that size would), fetched again only past ``size`` when the leg was full."""

    __slots__ = ("_fetch", "_got", "_size")

    def __init__(self, fetch: Callable[[int], list[tuple[str, float]]], size: int,
                 got: list[tuple[str, float]] | None = None) -> None:
        self._fetch, self._size = fetch, size
        self._got = fetch(size) if got is None else got  # ``got``: the fetch at ``size``, already made

    def top(self, m: int) -> list[tuple[str, float]]:
        """The leg's best ``m`` candidates."""
        if m > self._size and len(self._got) >= self._size:
            self._size, self._got = m, self._fetch(m)
        return self._got[:m]


def readable_types(types: tuple[str, ...] | None, who: Caller) -> tuple[str, ...] | None:
    """The tiers a caller may read among ``types`` (None: all); only-permanent without permission is an error."""
    if who.read_permanent:
        return types
    allowed = tuple(t for t in (types or [t.value for t in MemoryType]) if t != MemoryType.PERMANENT.value)
    if not allowed:
        raise PermissionDeniedError(who.refusal("read permanent memories"))
    return allowed


#: Search with dense confidences computed and no floor (recall applies its own).
NO_FLOOR = -1e9


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

    def __init__(self, engine: Lookups) -> None:
        self.engine = engine
        self._keywords: KeywordExtractor | None = None
        self._translators: dict[int, Translator] = {}  # one per host model object (each has its own cache)
        self._translated = TranslatedQueries(_TRANSLATION_VECTORS)
        self._weights_for: Any = None
        self._weights: Any = None
        self._no_answer: BoundedLRU[tuple[str, int], tuple[bool, bool]] = BoundedLRU(_JUDGED_LINES)

    def _holds_no_answer(self, record: MemoryRecord, own_words_only: bool) -> bool:
        """Whether recall leaves ``record`` out before fusion: a line the user only asked, or, with
        ``own_words_only``, the assistant's answer to one; judged once per memory version (the same candidates come
        back turn after turn; a new version is judged again)."""
        judged = self._no_answer.get_or_compute((record.id, record.version),
                                                lambda: (asked(record), answers_a_question(record)))
        return judged[0] or (own_words_only and judged[1])

    def search(
        self,
        query: str,
        *,
        user_id: str,
        top_k: int = 5,
        memory_types: Iterable[MemoryType | str] | None = None,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        now: float | None = None,
        min_score: float | None = None,
        as_of: float | None = None,
        who: Caller,
        llm: LLM | None = None,
    ) -> list[MemoryHit]:
        """Validate (each argument once, one-line typed errors), then search (see :meth:`MemoryProvider.search`)."""
        self.engine.need_open()
        text = v.check_text(query, "query")
        limit = self.engine.config.max_content_chars
        if len(text) > limit:
            raise InvalidInputError(f"query has {len(text)} characters; the limit (max_content_chars) is {limit}")
        floor = None if min_score is None else v.check_score(min_score, "min_score")
        request = self.request(text, user_id, v.check_top_k(top_k), memory_types, session_id, tags, time_range, now,
                                floor, as_of, who)
        return self.execute(request, who, llm)

    def request(
        self, text: str, user_id: object, k: int, memory_types: Iterable[MemoryType | str] | None, session_id: object,
        tags: Iterable[str] | None, time_range: object, now: object, floor: float | None, as_of: object, who: Caller,
    ) -> _Request:
        """The rest of a search's arguments validated (``text``, ``k`` and ``floor`` already are)."""
        engine = self.engine
        flt = build_filter(user_id, who, engine.config.max_tags, memory_types, session_id, tags, time_range)
        flt = engine.codec.seal_filter(flt)  # sealed memories carry keyed-hash tags and sealed session ids
        at = engine.now(v.check_timestamp(now, "now"))
        then = v.check_timestamp(as_of, "as_of")
        return _Request(text, flt, k, at, then, now is not None, floor)

    def execute(self, request: _Request, who: Caller, llm: LLM | None,
                 rest: list[Callable[[int], list[MemoryHit]]] | None = None) -> list[MemoryHit]:
        """Search validated arguments: as the store stands now, or as it stood at ``as_of`` (``rest``: see
        :meth:`run`; not for ``as_of``)."""
        r = request
        if not r.text.strip():
            return []
        if r.as_of is not None:
            return self.run_as_of(r.text, r.flt, r.k, r.at if r.now_given else r.as_of, r.as_of, who, llm)
        return self.run(r.text, r.flt, r.k, r.at, who, llm, r.min_score, r.answers_only, r.own_words_only, rest)

    def run_as_of(
        self, text: str, flt: SearchFilter, k: int, at: int, as_of: int, who: Caller, llm: LLM | None
    ) -> list[MemoryHit]:
        """Search as the store stood at ``as_of`` (see :mod:`~hermes_memory_core.retrieval.as_of`); the hits
        count as accesses, the hot cache is left alone (they may be past versions)."""
        hits = search_as_of(self.engine, text, self.keyword_tokens(text, llm), flt, flt.for_rows(as_of),
                            k, at, as_of)
        self.engine.note_access([h.record for h in hits], flt.user_id, who)
        return hits

    def run(
        self, text: str, flt: SearchFilter, k: int, at: int, who: Caller, llm: LLM | None, min_score: float | None = None,
        answers_only: bool = False, own_words_only: bool = False, rest: list[Callable[[int], list[MemoryHit]]] | None = None,
    ) -> list[MemoryHit]:
        """Search validated arguments: both legs, fusion, the floor, the hits' records, their access counts.
        ``rest``: a list that gets a function returning the next hits of the same ranking (as many as asked), so a
        caller that needs more than ``k`` reads on without searching again.

        ``answers_only`` (recall): lines the user said that only asked leave the candidates before fusion
        (:func:`~hermes_memory_core.retrieval.recall_policy.asked`): questions look alike, so an earlier one would
        be the best match and set the scale every other candidate is measured on. ``own_words_only`` (recall of a
        question that does not speak to the assistant): so do the assistant's answers to such questions
        (:func:`~hermes_memory_core.retrieval.recall_policy.answers_a_question`), drawn from memory and found by the
        question they answered."""
        engine = self.engine
        weights = engine.config.ranking
        n = self.leg_size(k)
        # a long query that ends with a question (a dialogue history, a condensed question with its context) is
        # matched on its question alone: the history's words match the lines it came from and every line that shares
        # its small talk (on LoCoMo, R@10 of a question after eight turns of its dialogue 0.04 with the history's words,
        # as asked alone 0.65; on the fact set, first hits 0.37 -> 0.96)
        text = asking_part(text) or text
        ql = language_of(text)
        cross = engine.languages.has(flt.user_id, "en" if ql == "zh" else "zh")
        pending = self.translation(text, ql, llm) if cross else None  # the model works while the question is embedded
        # memories speak of "the user" / "用户": a question in the first person is matched in the same form
        about_user = about_the_user(text)
        # lines of a conversation keep their speaker's words ("I'm going to Chengdu"): a first-person question is
        # also matched against them as asked (both forms in one call to the model, questions before background work)
        query_vec, *as_asked = engine.turns.embed_queries([about_user] + ([text] if about_user != text else []))
        # recall reads on in each leg for the places of the lines it leaves out (below): each leg is fetched once, wider
        wide = _WIDER * n if answers_only else n
        spoken_vec = as_asked[0] if as_asked else None
        # both forms' dense searches are one call to the vector engine (one pass over its segments)
        first = engine.vector_reads.dense_candidates_many([query_vec, *as_asked], wide, flt)
        dense_leg = _Leg(lambda m: engine.vector_reads.dense_candidates(query_vec, m, flt), wide, first[0])
        cosines = dict(dense_leg.top(n))
        spoken_leg = None if spoken_vec is None else _Leg(
            lambda m: engine.vector_reads.dense_candidates(spoken_vec, m, flt), wide, first[1])
        spoken = dict(spoken_leg.top(n)) if spoken_leg is not None else {}
        translated = pending() if pending is not None else None
        cal = self._calibrator(about_user, query_vec, ql, cross, translated) if cross or min_score is not None else None
        found_by_cross: set[str] = set()
        translated_cosines: dict[str, float] = {}
        if cross and cal is not None:
            # with the model's translation, its embedding alone brings in the other language's candidates (the
            # language-centred question found none it misses on the bilingual fact set; one vector search less keeps the
            # repeated question as cheap as offline)
            vecs = [cal.translated] if translated is not None else [cal.cross_query_vector, cal.translated]
            for vec in (v for v in vecs if v is not None):
                found = engine.vector_reads.dense_candidates(vec, n, flt)
                if translated is not None:  # the translation's cosines score the other language (no fetch)
                    translated_cosines = dict(found)
                found_by_cross.update(mid for mid, _ in found if mid not in cosines)
        # a question with the model's translation needs no dictionary terms: the translation's words stand in
        tokens = self.keyword_tokens(text, llm, cross and translated is None)
        if about_user != text:
            tokens = list(dict.fromkeys([*tokens, *query_terms(about_user, cross_language=cross)]))
        if translated is not None:  # the translation's words find other-language memories by their own words
            tokens = list(dict.fromkeys([*tokens, *self._translated.terms(translated, engine.embedder.embed_query)]))
        terms = engine.codec.query_terms(tokens)
        keyword_leg = _Leg(lambda m: engine.keyword_candidates(
            flt.user_id, terms, m, flt.for_rows(at), context_weight=weights.keyword_context_weight), wide)
        keyword = keyword_leg.top(n)
        by_keyword = {mid for mid, _ in keyword}
        candidates = {*cosines, *found_by_cross, *by_keyword, *spoken}
        fields = engine.rank_rows(list(candidates), flt.user_id, now=at)
        if answers_only:
            dropped: set[str] = set()
            fresh = set(candidates)
            # lines left out took places in each leg's list: those places are filled, up to three times (a user who
            # asked many questions has many asked lines and replies, and a refill brings more of them), read on in
            # each leg's one wider fetch (fetched again only past it)
            for more in (2, 2, 2, 0):
                lines = [mid for mid in fresh if mid in fields and fields[mid].dialogue]
                # a line whose version was judged before needs no record read (the same candidates come back)
                judged = {mid: got for mid in lines if (got := self._no_answer.get((mid, fields[mid].version)))}
                unjudged = [mid for mid in lines if mid not in judged]
                said = engine.hit_records(flt.user_id, unjudged, fields, at) if unjudged else {}
                before = len(dropped)
                dropped.update(mid for mid, got in judged.items() if got[0] or (own_words_only and got[1]))
                dropped.update(mid for mid, rec in said.items() if self._holds_no_answer(rec, own_words_only))
                if not more or len(dropped) == before:
                    break
                wider = n + more * len(dropped)
                legs: list[tuple[dict[str, float], _Leg | None]] = [(cosines, dense_leg), (spoken, spoken_leg)]
                for leg, fetched in legs:
                    if fetched is not None:
                        leg.update((mid, c) for mid, c in fetched.top(wider) if mid not in leg)
                keyword = keyword_leg.top(wider)
                fresh = {*cosines, *spoken, *(mid for mid, _ in keyword)} - candidates
                candidates |= fresh
                fields.update(engine.rank_rows(list(fresh), flt.user_id, now=at) if fresh else {})
            for mid in dropped:
                candidates.discard(mid)
                cosines.pop(mid, None)
                spoken.pop(mid, None)
                found_by_cross.discard(mid)
            keyword = [(mid, score) for mid, score in keyword if mid in candidates]
        by_keyword = {mid for mid, _ in keyword}  # the keyword leg as it stands (a refill read it wider)
        for mid, cosine in spoken.items():
            if mid in fields and fields[mid].dialogue:
                cosines[mid] = max(cosine, cosines.get(mid, cosine))
            elif mid not in cosines and mid not in found_by_cross and mid not in by_keyword:
                candidates.discard(mid)  # found only as asked, and no line of a conversation
        confidence: dict[str, float] = {}
        if cal is not None:
            dense_ids = [mid for mid in (*cosines, *found_by_cross) if mid in fields]
            confidence = self._confidence(cal, dense_ids, cosines, fields, ql, translated_cosines)
            if min_score is not None and max(confidence.values(), default=float("-inf")) < min_score:
                # nothing stands out densely; a memory kept out of the vector index (permanent_vectors=False) can
                # only be judged by its keyword match, so such matches stay
                unvectored = {mid for mid, score in keyword
                              if mid in fields and self.keyword_only(fields[mid].memory_type, score)}
                if not unvectored:
                    return []
                candidates = unvectored
                keyword = [(mid, score) for mid, score in keyword if mid in unvectored]
        if translated is not None:
            keyword = balance_keyword(keyword, {mid: row.lang for mid, row in fields.items()}, ql)
            weights = self._translated_weights(weights)
        dense = confidence if cross else cosines
        merged = {mid: Candidate(mid, dense=dense.get(mid)) for mid in candidates}
        for mid, score in keyword:
            merged[mid].keyword = score
        ranked = rank(list(merged.values()), fields, at, weights, len(merged) if rest is not None else k,
                      query_language=ql if cross else None)

        def hits_of(part: list[Any]) -> list[MemoryHit]:
            records = engine.hit_records(flt.user_id, [r.id for r in part], fields, at)
            hits = [
                MemoryHit(records[r.id], r.score, r.relevance, cosines.get(r.id), r.keyword, confidence.get(r.id),
                          bool(fields[r.id].dialogue))
                for r in part
                if r.id in records
            ]
            engine.cache_hits(flt.user_id, [h.record for h in hits])
            engine.note_access([h.record for h in hits], flt.user_id, who)
            return hits

        if rest is not None:
            read = [k]

            def read_on(count: int) -> list[MemoryHit]:
                part, read[0] = ranked[read[0]:read[0] + count], read[0] + count
                return hits_of(part)

            rest.append(read_on)
        return hits_of(ranked[:k])

    def leg_size(self, k: int) -> int:
        """How many candidates each leg fetches for ``k`` hits."""
        weights = self.engine.config.ranking
        return max(weights.min_candidates, k * weights.candidate_multiplier)

    def keyword_only(self, memory_type: MemoryType | str, keyword_score: float | None) -> bool:
        """A keyword match on a memory kept out of the vector index (``permanent_vectors=False``): the floor judges
        dense matches, so such a memory is judged by its keywords alone and passes it."""
        return (keyword_score or 0.0) > 0 and not self.engine.vector_reads.has_vector(MemoryType(memory_type))

    def translation(self, text: str, ql: Language, llm: LLM | None) -> Callable[[], str | None] | None:
        """Start asking the host's model for the question in the other language (``llm_translation``; cached per
        question, at most ``llm_translation_timeout_seconds``); the returned function waits for it (None: no
        usable answer). None: no model, or switched off."""
        cfg = self.engine.config
        if llm is None or not cfg.llm_translation:
            return None
        translator = self._translators.get(id(llm))
        if translator is None or translator.llm is not llm:
            if len(self._translators) >= _TRANSLATORS:
                self._translators.clear()
            translator = self._translators[id(llm)] = Translator(llm, cfg.llm_translation_timeout_seconds,
                                                                 pool=self.engine.model_pool)
        return translator.start(text, other_language(ql))

    def _translated_weights(self, weights: Any) -> Any:
        """The ranking weights of a question searched with its translation (see
        :data:`~hermes_memory_core.retrieval.translation.TRANSLATED_CROSS_DENSE_WEIGHT`)."""
        if self._weights_for is not weights:
            self._weights_for = weights
            self._weights = weights.model_copy(update={"cross_dense_weight": TRANSLATED_CROSS_DENSE_WEIGHT})
        return self._weights

    def _calibrator(
        self, text: str, query_vec: Any, ql: Language, cross: bool, translation: str | None = None
    ) -> DenseCalibrator:
        """The question's dense calibration; a question asked across languages also brings the embedding of its
        translation: the host model's when there is one (other-language memories are then scored by it alone,
        see :class:`~hermes_memory_core.retrieval.translation.TranslatedCalibrator`), else, for a Chinese
        question, its English dictionary terms."""
        translated = None
        if cross and translation is not None:  # a repeated question: no model call, no embedding, no calibration
            return self._translated.calibrator(translation, query_vec, ql, self.engine.languages.profile(),
                                               self.engine.embedder.embed_query)
        if cross and ql == "zh":
            gloss = english_gloss(text)
            if gloss.strip():
                translated = self.engine.embedder.embed_query(gloss)
        return DenseCalibrator(self.engine.languages.profile(), query_vec, ql, translated)

    def _confidence(
        self,
        cal: DenseCalibrator,
        ids: list[str],
        cosines: dict[str, float],
        fields: dict[str, Any],
        ql: Language,
        translated_cosines: dict[str, float] | None = None,
    ) -> dict[str, float]:
        """Calibrated z of the dense candidates: from the cosine for a memory in the question's language (or, with
        the model's translation, from the translation's cosine for one in the other language), else from its
        stored vector (fetched)."""
        out: dict[str, float] = {}
        fetch: list[str] = []
        by_cosine: dict[Language, tuple[list[str], list[float]]] = {}
        for mid in ids:
            lang = fields[mid].lang or ql
            found = cosines if lang == ql else translated_cosines or {}
            if mid in found:
                got = by_cosine.setdefault(lang, ([], []))
                got[0].append(mid)
                got[1].append(found[mid])
            else:
                fetch.append(mid)
        for lang, (mids, values) in by_cosine.items():
            out.update(zip(mids, (float(z) for z in cal.z_from_cosines(values, lang)), strict=True))
        if fetch:
            vectors = self.engine.vector_reads.stored_vectors(fetch)
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
                self._keywords = KeywordExtractor(llm, self.engine.config.llm_timeout_seconds, pool=self.engine.model_pool)
            terms = self._keywords.terms(text)
            if terms:
                toks = tokenize_query(" ".join(terms))
                if toks:
                    return toks
        return query_terms(text, cross_language=cross)
