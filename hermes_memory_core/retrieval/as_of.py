"""Search "as of" a past moment: the memories that existed then, each with the version that was current then.

The indexes hold current versions only, so a past moment is answered in two parts:

- **Unchanged memories** — created by then and not updated or deleted since — are what the two legs already
  index: the usual vector and keyword queries run with ``created_at <= as_of`` (and expiry judged at ``as_of``).
- **Changed memories** — updated or soft-deleted since — come from the metadata store as they were then
  (:meth:`~hermes_memory_core.storage.metadata.VersionHistory.records_as_of`). Their text then is scored the way
  each leg scores an indexed memory: BM25 with the keyword index's own statistics (FTS5's formula and numbers,
  so the scores compare with the keyword leg's), and the cosine of its embedding with the query's. At most
  :data:`EMBED_LIMIT` of them get a dense score per query (the best by keyword score, then the most recent); the
  rest compete on their keyword score alone. Past versions never change, so their vectors are cached
  (:class:`~hermes_memory_core.storage.hot_cache.VersionVectors`) and a repeated as-of query embeds nothing.

The search without ``as_of`` does none of this. Hard-deleted and purged memories are gone for every moment.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.retrieval.ranking import Candidate, rank
from hermes_memory_core.storage.metadata import KeywordFilter, KeywordStats, RankRow
from hermes_memory_core.storage.vectors import VectorFilter
from hermes_memory_core.types import MemoryHit, MemoryRecord

__all__ = ["EMBED_LIMIT", "bm25", "search_as_of"]

#: Changed memories whose past text is embedded for one as-of query (vectors of past versions are then cached).
EMBED_LIMIT = 128
# BM25 parameters of SQLite FTS5 (and of the PostgreSQL keyword leg).
_K1 = 1.2
_B = 0.75


def bm25(tokens: Sequence[str], terms: Sequence[str], stats: KeywordStats, context: Sequence[str] = (),
         context_weight: float = 0.0) -> float:
    """FTS5's BM25 of one document (its own tokens and context tokens) for the query ``terms``, under the index's
    statistics: a term's frequency is ``tf + context_weight × ctf``, a document's length counts every field
    (the user-key field's one token included), ``idf = ln((N − df + 0.5) / (df + 0.5))``, 1e-6 when not positive.
    Rounded to 9 decimals, like the keyword leg's scores."""
    own, near = Counter(tokens), Counter(context)
    length = len(tokens) + len(context) + 1
    docs = max(stats.docs, 1)
    score = 0.0
    for term in dict.fromkeys(terms):
        f = own[term] + context_weight * near[term]
        if f <= 0:
            continue
        df = stats.df.get(term, 0)
        idf = math.log((docs - df + 0.5) / (df + 0.5))
        idf = idf if idf > 0 else 1e-6
        score += idf * f * (_K1 + 1) / (f + _K1 * (1 - _B + _B * length / stats.avg_length))
    return round(score, 9)


def _rank_row(rec: MemoryRecord) -> RankRow:
    return RankRow(rec.session_id, rec.created_at, rec.updated_at, rec.importance, rec.version,
                   rec.memory_type, rec.access_count)


def search_as_of(
    engine: Lookups,
    text: str,
    terms: Sequence[str],
    vflt: VectorFilter,
    kflt: KeywordFilter,
    k: int,
    now: int,
    as_of: int,
) -> list[MemoryHit]:
    """The best ``k`` memories for ``text`` as the store stood at ``as_of`` (see the module docstring).

    Args:
        terms: The keyword leg's query terms (before keyed hashing).
        vflt: The vector filter of the search (user, tiers, session, tags, time range).
        kflt: The same filter for rows.
        now: The time the ranking treats as the present.
    """
    weights = engine.config.ranking
    user_id = vflt.user_id
    n = max(weights.min_candidates, k * weights.candidate_multiplier)
    until = as_of if vflt.created_to is None else min(vflt.created_to, as_of)
    vflt = replace(vflt, created_to=until)
    kflt = replace(kflt, created_to=until, now=as_of)
    past = {r.id: r for r in engine.records_as_of(user_id, as_of, kflt)}
    query_vec = np.asarray(engine.embedder.embed_query(text), dtype=np.float32)
    qterms = engine.codec.query_terms(terms)
    extra = min(len(past), n)  # changed memories the legs return are set aside: ask for that many more
    dense = {m: s for m, s in engine.vector_reads.dense_candidates(query_vec, n + extra, vflt) if m not in past}
    w = weights.keyword_context_weight
    keyword = {m: s for m, s in engine.keyword_candidates(user_id, qterms, n + extra, kflt, context_weight=w)
               if m not in past}
    if past:
        stats = engine.keyword_stats(user_id, qterms, w)
        then_kw = {m: bm25(engine.codec.index_tokens(r.memory_type.value, r.content), qterms, stats)
                   for m, r in past.items()}
        keyword.update({m: s for m, s in then_kw.items() if s > 0})
        chosen = sorted(past, key=lambda m: (-then_kw[m], -past[m].updated_at, m))[:EMBED_LIMIT]
        vecs = engine.vector_reads.past_version_vectors([past[m] for m in chosen])
        norms = np.linalg.norm(vecs, axis=1) * max(float(np.linalg.norm(query_vec)), 1e-12)
        sims = (vecs @ query_vec) / np.maximum(norms, 1e-12)
        dense.update({m: float(s) for m, s in zip(chosen, sims, strict=True)})
    dense = dict(sorted(dense.items(), key=lambda h: (-h[1], h[0]))[:n])
    keyword = dict(sorted(keyword.items(), key=lambda h: (-h[1], h[0]))[:n])
    merged: dict[str, Candidate] = {m: Candidate(m, dense=s) for m, s in dense.items()}
    for m, s in keyword.items():
        merged.setdefault(m, Candidate(m)).keyword = s
    current = [m for m in merged if m not in past]
    fields = engine.rank_rows(current, user_id, now=as_of)
    fields.update({m: _rank_row(past[m]) for m in merged if m in past})
    ranked = rank(list(merged.values()), fields, now, weights, k)
    records: dict[str, MemoryRecord] = {m: past[m] for m in merged if m in past}
    records.update(engine.active_records([r.id for r in ranked if r.id not in past], user_id, now=as_of))
    return [MemoryHit(records[r.id], r.score, r.relevance, r.dense, r.keyword) for r in ranked if r.id in records]
