"""Forgetting (docs/design.md#forgetting): expire the scene, let the stale profile fade, never touch facts.

- short-term memories of closed sessions (closed explicitly, or idle for ``session_idle_seconds``) expire, except
  conversation memories (what was said, :mod:`~hermes_memory_core.lifecycle.conversation`): one neither recalled
  nor repeated for ``conversation_retention_days`` expires, one recall keeps returning stays;
- a long-term memory unused (not updated, not returned by search) for ``forget_expire_days`` with importance
  below ``forget_expire_importance`` expires; one unused for ``forget_downgrade_days`` with importance below
  ``forget_downgrade_importance`` is downgraded to short-term (it then expires after ``short_term_ttl_seconds``
  unless it is used again);
- permanent memories and memories with importance ≥ ``forget_protect_importance`` are never touched.
Expiring is a soft delete: the history stays, the memory leaves the indexes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from hermes_memory_core.engine.faces import WithParts, WithReads, WithWrites
from hermes_memory_core.types import MemoryType

__all__ = ["ForgetReport", "forget"]


class ForgetStore(WithParts, WithReads, WithWrites, Protocol):
    """What forgetting uses of the engine: the clock and session rows, lifecycle rows, expiries and tier moves."""


_DAY = 86_400


@dataclass(slots=True)
class ForgetReport:
    """What ``forget()`` did — or, with ``dry_run``, would do. Each list holds memory ids."""

    dry_run: bool
    expired_short_term: list[str] = field(default_factory=list)
    expired_conversation: list[str] = field(default_factory=list)
    downgraded: list[str] = field(default_factory=list)
    expired_long_term: list[str] = field(default_factory=list)
    protected: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "expired_short_term": len(self.expired_short_term),
            "expired_conversation": len(self.expired_conversation),
            "downgraded": len(self.downgraded),
            "expired_long_term": len(self.expired_long_term),
            "protected": self.protected,
        }


#: Tiers forgetting looks at; permanent memories are never touched.
_FORGETTABLE = (MemoryType.SHORT_TERM.value, MemoryType.LONG_TERM.value)


def forget(engine: ForgetStore, *, dry_run: bool = False, now: int | None = None) -> ForgetReport:
    """Plan (and unless ``dry_run``, do) what the module docstring describes. ``now`` defaults to the clock."""
    cfg = engine.parts.config
    at = engine.parts.now(now)
    report = ForgetReport(dry_run)
    closed = engine.parts.sessions.closed_sessions(at, cfg.session_idle_seconds)
    for row in engine.reads.lifecycle_rows(_FORGETTABLE):
        idle_days = (at - max(row.updated_at, row.last_accessed_at or 0)) / _DAY
        if row.memory_type == MemoryType.SHORT_TERM.value and row.expires_at is None:  # a conversation memory
            if row.importance >= cfg.forget_protect_importance:
                report.protected += 1
            elif idle_days >= cfg.conversation_retention_days:
                report.expired_conversation.append(row.id)
            continue
        if row.memory_type == MemoryType.SHORT_TERM.value:
            if row.session_id is not None and (row.user_id, row.session_id) in closed:
                report.expired_short_term.append(row.id)
            continue
        if row.importance >= cfg.forget_protect_importance:
            report.protected += 1
            continue
        if idle_days >= cfg.forget_expire_days and row.importance < cfg.forget_expire_importance:
            report.expired_long_term.append(row.id)
        elif idle_days >= cfg.forget_downgrade_days and row.importance < cfg.forget_downgrade_importance:
            report.downgraded.append(row.id)
    if dry_run:
        return report
    for mid in report.expired_short_term:
        engine.writes.expire(mid, "forget: session closed", at)
    for mid in report.expired_long_term:
        engine.writes.expire(mid, "forget: stale and unimportant", at)
    for mid in report.expired_conversation:
        engine.writes.expire(mid, "forget: conversation unused for conversation_retention_days", at)
    for mid in report.downgraded:
        engine.writes.downgrade(mid, at)
    return report
