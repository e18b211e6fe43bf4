"""How both SQL backends split the keyword index by user: shard numbers and the FTS user key."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

__all__ = ["KEYWORD_SHARDS", "PRUNE_MIN_ROWS", "keyword_shard", "user_key", "weighty_terms"]

#: The keyword index is split into this many shards by a hash of the user id, so a query walks the postings of
#: its own shard only (about 1/16 of a large multi-user store), and BM25 statistics are those of the shard.
KEYWORD_SHARDS = 16

#: In a shard of at least this many rows, a query term in half of them or more (BM25 weight at FTS5's floor of
#: 1e-6) is left out of the keyword leg by both backends; the rarest term stays when every term is that common.
#: Smaller shards keep every term (there the leg is fast anyway, and each word of a two-memory store is "in half").
PRUNE_MIN_ROWS = 200


def keyword_shard(user_id: str) -> int:
    """The keyword-index shard that holds this user's documents."""
    return int(hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % KEYWORD_SHARDS


def user_key(user_id: str) -> str:
    """The keyword-index token that scopes a document to its user (safe inside an FTS5 query)."""
    return "u" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def weighty_terms(terms: Sequence[str], counts: Mapping[str, int], rows: int) -> list[str]:
    """``terms`` less those in at least half of a shard's ``rows`` rows (``counts``: rows holding each term), unless
    the shard is small or the term is the rarest one the shard holds (see :data:`PRUNE_MIN_ROWS`)."""
    if rows < PRUNE_MIN_ROWS:
        return list(terms)
    lowest = min((c for t in terms if (c := counts.get(t, 0))), default=0)
    return [t for t in terms if 2 * counts.get(t, 0) < rows or counts.get(t, 0) == lowest]
