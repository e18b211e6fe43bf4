"""The one filter of a read: which of one user's memories a search, a keyword query, a vector query or a listing may
return. The retrieval room builds it once from a caller's arguments (validated) and hands the same value to both
stores: the vector store filters points on its payload, the metadata store rows in SQL."""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["MemoryFilter"]


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """What a read may return: one user's memories, narrowed by tier, session, tags, creation time and expiry.

    Attributes:
        user_id: Whose memories (never anyone else's). The metadata store's reads take the user as their own first
            argument as well and scope by that one.
        memory_types: Only these tiers (None: every tier).
        session_id: Only this session's memories (None: every session).
        tags: Memories carrying at least one of these tags (None: no tag filter).
        created_from: Inclusive lower bound on ``created_at`` (Unix seconds).
        created_to: Inclusive upper bound on ``created_at`` (Unix seconds).
        now: Rows only: hide memories expired at this Unix time (None: expired ones too). The vector store
            ignores it (expired points are taken out of the index by reconciliation).
    """

    user_id: str
    memory_types: tuple[str, ...] | None = None
    session_id: str | None = None
    tags: tuple[str, ...] | None = None
    created_from: int | None = None
    created_to: int | None = None
    now: int | None = None

    def for_rows(self, now: int | None) -> MemoryFilter:
        """This filter hiding memories expired at ``now``."""
        return replace(self, now=now)
