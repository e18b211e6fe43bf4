"""Fusion and ranking of the keyword and vector legs (docs/design.md#how-search-finds-and-ranks), as plain functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hermes_memory_core.config import RankingConfig
from hermes_memory_core.storage.metadata import RankRow

__all__ = ["Candidate", "Ranked", "minmax", "rank"]

_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class Ranked:
    """A candidate after ranking: final score, fused relevance and the raw leg scores."""

    id: str
    score: float
    relevance: float
    dense: float | None
    keyword: float | None


@dataclass(slots=True)
class Candidate:
    """A memory found by at least one leg."""

    id: str
    dense: float | None = None
    keyword: float | None = None


def minmax(values: Mapping[str, float]) -> dict[str, float]:
    """Scale scores to [0, 1] over the candidate set; a single or constant score maps to 1."""
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    span = hi - lo
    if span <= 1e-12:
        return dict.fromkeys(values, 1.0)
    return {k: (v - lo) / span for k, v in values.items()}


def rank(
    candidates: Sequence[Candidate],
    records: Mapping[str, RankRow],
    now: float,
    weights: RankingConfig,
    top_k: int,
    query_language: str | None = None,
) -> list[Ranked]:
    """Merge the legs and order by the configured rule (see :class:`RankingConfig`).

    Candidates without a record (deleted, expired, other user) are dropped.

    Args:
        query_language: Set when the store holds memories in a language other than the question's (the dense
            scores are then calibrated z-scores): a memory in the other language weighs its legs by
            ``cross_dense_weight``, with its keyword score scaled as ``cross_keyword_scale`` says.
    """
    present = [c for c in candidates if c.id in records]
    dense = minmax({c.id: c.dense for c in present if c.dense is not None})
    # a BM25 score at FTS5's floor (1e-6 per term) comes only from words in most of the store: no evidence at all,
    # but min-max would give the best such "match" full weight in a small store
    raw_keyword = {c.id: c.keyword for c in present if c.keyword is not None and c.keyword > weights.keyword_min_score}
    keyword = minmax(raw_keyword)
    leg_total = weights.dense_weight + weights.keyword_weight
    base = {
        c.id: (weights.dense_weight * dense.get(c.id, 0.0) + weights.keyword_weight * keyword.get(c.id, 0.0)) / leg_total
        for c in present
    }
    if query_language is not None:
        cross = [c for c in present if records[c.id].lang not in (None, query_language)]
        cross_keyword = _cross_keyword(cross, records, raw_keyword, keyword, weights.cross_keyword_scale)
        for c in cross:
            wd = weights.cross_dense_weight_dialogue if records[c.id].dialogue else weights.cross_dense_weight
            base[c.id] = wd * dense.get(c.id, 0.0) + (1.0 - wd) * cross_keyword.get(c.id, 0.0)
    neighbour = _neighbour_relevance(present, records, base, weights.context_window_seconds) if weights.context_boost else {}
    boost = weights.context_boost
    mix_total = weights.relevance_weight + weights.recency_weight
    w_rel, w_rec = weights.relevance_weight / mix_total, weights.recency_weight / mix_total
    half_life, fresh_base, fresh_max = weights.recency_half_life_days, weights.freshness_base, weights.freshness_max_days
    imp_floor, imp_scale = 1.0 - weights.importance_weight, 2.0 * weights.importance_weight
    scored: list[tuple[float, float, str, Candidate]] = []
    for c in present:
        row = records[c.id]
        relevance = (base[c.id] + boost * neighbour.get(c.id, 0.0)) / (1.0 + boost)
        age_days = (now - row.updated_at) / _DAY
        if age_days < 0.0:
            age_days = 0.0
        score = w_rel * relevance + w_rec * 0.5 ** (age_days / half_life)
        score *= fresh_base ** (age_days if age_days < fresh_max else fresh_max)
        score *= imp_floor + imp_scale * row.importance
        scored.append((-score, -relevance, c.id, c))
    scored.sort(key=lambda s: s[:3])  # ids are unique: the candidate itself is never compared
    return [Ranked(mid, -neg_score, -neg_rel, c.dense, c.keyword) for neg_score, neg_rel, mid, c in scored[:top_k]]


def _cross_keyword(
    cross: Sequence[Candidate],
    records: Mapping[str, RankRow],
    raw: Mapping[str, float],
    scaled: Mapping[str, float],
    how: str,
) -> dict[str, float]:
    """Keyword scores of cross-language candidates: min-max over every candidate (``all``), or each divided by the
    best score among candidates of its own language (``language``: a memory matched only through dictionary
    terms competes with its own language, not with the question's)."""
    if how == "all":
        return {c.id: scaled[c.id] for c in cross if c.id in scaled}
    best: dict[str | None, float] = {}
    for mid, score in raw.items():
        lang = records[mid].lang
        best[lang] = max(best.get(lang, 0.0), score)
    out: dict[str, float] = {}
    for c in cross:
        if c.id in raw:
            top = best.get(records[c.id].lang, 0.0)
            out[c.id] = raw[c.id] / top if top > 0 else 0.0
    return out


def _neighbour_relevance(
    present: Sequence[Candidate], records: Mapping[str, RankRow], base: Mapping[str, float], window: int
) -> dict[str, float]:
    """For each dialogue candidate, the higher base relevance of its nearest earlier and later dialogue candidate in
    the same session written within ``window`` seconds (a question and its answer are neighbours). Independent
    memories (not written as dialogue) have no neighbours: when they were written never changes their rank."""
    by_session: dict[str, list[tuple[int, str]]] = {}
    for c in present:
        row = records[c.id]
        if row.session_id is not None and row.dialogue:
            by_session.setdefault(row.session_id, []).append((row.created_at, c.id))
    out: dict[str, float] = {}
    for items in by_session.values():
        if len(items) < 2:
            continue
        items.sort()
        for i, (at, mid) in enumerate(items):
            best = 0.0
            if i > 0 and 0 < at - items[i - 1][0] <= window:
                best = base[items[i - 1][1]]
            if i + 1 < len(items) and 0 < items[i + 1][0] - at <= window:
                best = max(best, base[items[i + 1][1]])
            out[mid] = best
    return out
