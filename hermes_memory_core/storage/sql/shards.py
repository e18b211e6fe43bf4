"""How both SQL backends split the keyword index by user: shard numbers and the FTS user key."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

__all__ = ["CAP_MIN_ROWS", "KEYWORD_SHARDS", "MAX_QUERY_TERMS", "PRUNE_MIN_ROWS", "keyword_shard", "user_key", "weighty_terms"]

#: The keyword index is split into this many shards by a hash of the user id, so a query walks the postings of
#: its own shard only (about 1/16 of a large multi-user store), and BM25 statistics are those of the shard.
KEYWORD_SHARDS = 16

#: In a shard of at least this many rows, a query term in half of them or more (BM25 weight at FTS5's floor of
#: 1e-6) is left out of the keyword leg by both backends; the rarest term stays when every term is that common.
#: Smaller shards keep every term (there the leg is fast anyway, and each word of a two-memory store is "in half").
PRUNE_MIN_ROWS = 200

#: In a shard of at least :data:`CAP_MIN_ROWS` rows, a ranked keyword search (not the lasting tiers' few memories)
#: asks for at most this many of its terms that the shard holds: the rarest (ties in the query's order). A whole chat
#: message has 10-25 terms, each in hundreds to thousands of a heavy user's lines; their union is most of the store,
#: and FTS5 scores every row it matches (reading each one's size). The common terms' weight is small beside the rare
#: ones' (BM25's IDF: a term in 46 of 17k lines weighs 5.9, one in 3,000 weighs 1.5); at 16k lines the cap scores
#: ~2,900 rows a message, not ~9,500. Applied from 200 rows, LoCoMo R@10, the query shapes and long use's recall gave
#: the same figures as every term (6 terms moved long use's recall by 0.003; see docs/benchmarks.md, "Round five").
MAX_QUERY_TERMS = 8

#: Shards smaller than this keep every term of a long query: their leg is cheap anyway, and small stores (a new
#: user's, the relevance model's training stores) rank exactly as before.
CAP_MIN_ROWS = 1_000


def keyword_shard(user_id: str) -> int:
    """The keyword-index shard that holds this user's documents."""
    return int(hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % KEYWORD_SHARDS


def user_key(user_id: str) -> str:
    """The keyword-index token that scopes a document to its user (safe inside an FTS5 query)."""
    return "u" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def weighty_terms(terms: Sequence[str], counts: Mapping[str, int], rows: int, cap: int | None = None) -> list[str]:
    """``terms`` less those in at least half of a shard's ``rows`` rows (``counts``: rows holding each term), unless
    the shard is small or the term is the rarest one the shard holds (see :data:`PRUNE_MIN_ROWS`); with ``cap``, of
    the terms left that the shard holds only the ``cap`` rarest when the shard has :data:`CAP_MIN_ROWS` rows or more
    (see :data:`MAX_QUERY_TERMS`), in their order."""
    if rows < PRUNE_MIN_ROWS:
        return list(terms)
    lowest = min((c for t in terms if (c := counts.get(t, 0))), default=0)
    kept = [t for t in terms if 2 * counts.get(t, 0) < rows or counts.get(t, 0) == lowest]
    held = [t for t in kept if counts.get(t, 0)]
    if cap is None or rows < CAP_MIN_ROWS or len(held) <= cap:
        return kept
    rarest = set(sorted(held, key=lambda t: counts[t])[:cap])  # (a stable sort: ties keep the query's order)
    return [t for t in kept if t in rarest or not counts.get(t, 0)]
