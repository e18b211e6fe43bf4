"""Reads of memories by id and by listing: the store's own reads, and the caller's, checked and logged.

A permanent memory read or written for a caller is checked against the caller's permission and logged
(``permanent_read`` / ``permanent_write`` / ``permanent_denied``); the store's own reads (the lifecycle's) are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_memory_core import validation as v
from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.errors import NotFoundError, PermissionDeniedError
from hermes_memory_core.storage.metadata import KeywordFilter, LifecycleRow
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import AccessAction, MemoryRecord, MemoryType, MemoryVersion

__all__ = ["Reads"]


class Reads:
    """Memories by id, their histories and listings."""

    def __init__(self, parts: StoreParts, lookups: Lookups) -> None:
        self._parts = parts
        self._lookups = lookups

    def record(self, memory_id: str, include_inactive: bool = False) -> MemoryRecord | None:
        """One memory by id (active only unless asked), no permission check (the store's own reads)."""
        return self._parts.metadata.records.get(memory_id, include_inactive=include_inactive)

    def require(self, rec: MemoryRecord, who: Caller, write: bool) -> None:
        """Check and log access to a permanent memory (others need no permission)."""
        if rec.memory_type is not MemoryType.PERMANENT:
            return
        allowed = who.may(rec.user_id, write)
        action = (AccessAction.PERMANENT_WRITE if write else AccessAction.PERMANENT_READ) if allowed \
            else AccessAction.PERMANENT_DENIED
        self._parts.metadata.access.log(rec.id, rec.user_id, action, self._parts.now(), who.name)
        if not allowed:
            # the owner is never named: a caller that may not read the memory learns nothing of whose it is (a caller
            # bound to a user is told which user it is bound to)
            raise PermissionDeniedError(who.refusal(f"{'change' if write else 'read'} permanent memory {rec.id}",
                                                    rec.user_id if who.user_id is not None else None))

    def owned(
        self, memory_id: Any, user_id: str | None, who: Caller, write: bool = False, include_inactive: bool = False
    ) -> MemoryRecord:
        """The memory with this id, checked against its owner and the caller's permanent-tier permission."""
        mid = v.check_id(memory_id)
        rec = self._parts.metadata.records.get(mid, include_inactive=include_inactive)
        if rec is None or (user_id is not None and rec.user_id != v.check_user_id(user_id)):
            what = "memory" if include_inactive else "active memory"
            raise NotFoundError(f"no {what} with id {mid}" + ("" if user_id is None else f" for user {user_id!r}"))
        self.require(rec, who, write)
        return rec

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every version of a memory, oldest first (the caller checked permission)."""
        return self._parts.metadata.history.versions(memory_id)

    def list_records(
        self, user_id: str, flt: KeywordFilter, limit: int, offset: int, who: Caller, now: int
    ) -> list[MemoryRecord]:
        """One user's active memories matching ``flt``, oldest first; each permanent one listed is logged as a
        permanent read by ``who``."""
        metadata = self._parts.metadata
        records = metadata.records.list_records(user_id, flt, limit, offset)
        for rec in records:
            if rec.memory_type is MemoryType.PERMANENT:
                metadata.access.log(rec.id, rec.user_id, AccessAction.PERMANENT_READ, now, who.name)
        return records

    def find_fact(self, user_id: str, fact_key: str, tiers: Sequence[MemoryType] = (MemoryType.PERMANENT,)) -> str | None:
        """Id of the user's current memory of these tiers (default: permanent) with this topic key, if any; each tier
        is asked with the key as it stores it (a keyed hash where sealed), in the order given."""
        return self._lookups.find_by_metadata(user_id, "fact_key", fact_key, tiers)

    def lifecycle_rows(self, tiers: Sequence[str]) -> list[LifecycleRow]:
        """Active memories of these tiers with what forgetting weighs."""
        return self._parts.metadata.lifecycle.lifecycle_rows(tiers)

    def lacking_xlang_terms(self, tiers: Sequence[str], limit: int) -> list[tuple[MemoryRecord, str | None]]:
        """Active memories of these tiers without other-language key terms, with their language."""
        return self._parts.metadata.keywords.lacking_xlang_terms(tiers, limit=limit)
