"""How both SQL backends split the keyword index by user: shard numbers and the FTS user key."""

from __future__ import annotations

import hashlib

__all__ = ["KEYWORD_SHARDS", "keyword_shard", "user_key"]

#: The keyword index is split into this many shards by a hash of the user id, so a query walks the postings of
#: its own shard only (about 1/16 of a large multi-user store), and BM25 statistics are those of the shard.
KEYWORD_SHARDS = 16


def keyword_shard(user_id: str) -> int:
    """The keyword-index shard that holds this user's documents."""
    return int(hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % KEYWORD_SHARDS


def user_key(user_id: str) -> str:
    """The keyword-index token that scopes a document to its user (safe inside an FTS5 query)."""
    return "u" + hashlib.sha1(user_id.encode("utf-8", "surrogatepass")).hexdigest()[:20]
