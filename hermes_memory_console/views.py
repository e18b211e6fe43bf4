"""What the console shows, as JSON-ready data: memories by tier and kind, a memory with its history, the recall
inspector and the store's health. Everything is read through :class:`~hermes_memory_core.MemoryProvider`'s public
API (only the names of ``hermes_memory_core.__all__``), so permissions, the read-time guard and read-only stores
behave here exactly as for an agent.

Contract: every function takes an open provider and plain values, returns dicts and lists of JSON types, and lets
:class:`~hermes_memory_core.HermesMemoryError` through (the HTTP layer turns it into a one-line error).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import Any

from hermes_memory_core import (
    Caller,
    MemoryHit,
    MemoryProvider,
    MemoryRecord,
    MemoryType,
    needs_permanent,
    prompt_safe,
    render_memory_block,
    should_recall,
)

__all__ = [
    "KINDS",
    "LIST_LIMIT",
    "health",
    "kind_of",
    "memories_by_kind",
    "memory_detail",
    "memory_row",
    "recall_inspection",
    "search_rows",
    "users",
]

#: The kinds a user's memories are shown under, in this order.
KINDS = ("facts", "profile", "said", "notes")
#: Most memories of one user the console lists (and counts per day on the health page).
LIST_LIMIT = 10_000


def kind_of(rec: MemoryRecord) -> str:
    """``facts`` (permanent), ``said`` (conversation memories: what was said, by session), ``profile`` (long-term
    statements about the user), ``notes`` (other short-term memories)."""
    if rec.memory_type is MemoryType.PERMANENT:
        return "facts"
    if rec.is_conversation:
        return "said"
    return "profile" if rec.memory_type is MemoryType.LONG_TERM else "notes"


def memory_row(rec: MemoryRecord) -> dict[str, Any]:
    """One memory as a list row: its record (:meth:`MemoryRecord.to_dict`) plus its kind, who said it and where it
    came from (provenance: session, role, source and the caller's metadata)."""
    row = rec.to_dict()
    meta = rec.metadata
    source = meta.get("source") or meta.get("origin") or ("conversation" if rec.is_conversation else "")
    row.update(kind=kind_of(rec), role=rec.role, permanent=rec.memory_type is MemoryType.PERMANENT,
               provenance={"session": rec.session_id, "source": source or None, "role": rec.role})
    return row


def users(mem: MemoryProvider) -> list[dict[str, Any]]:
    """Every user with active memories and how many, by user id."""
    return [{"user_id": uid, "memories": n} for uid, n in sorted(mem.stats().by_user.items())]


def _records(mem: MemoryProvider, user_id: str) -> list[MemoryRecord]:
    return mem.list_memories(user_id=user_id, limit=LIST_LIMIT)


def memories_by_kind(mem: MemoryProvider, user_id: str) -> dict[str, Any]:
    """One user's active memories grouped by kind (:data:`KINDS`), newest first; what was said also by session."""
    groups: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    sessions: dict[str, list[str]] = defaultdict(list)
    records = sorted(_records(mem, user_id), key=lambda r: r.updated_at, reverse=True)
    for rec in records:
        groups[kind_of(rec)].append(memory_row(rec))
        if kind_of(rec) in ("said", "notes"):
            sessions[rec.session_id or ""].append(rec.id)
    return {"user_id": user_id, "total": len(records), "kinds": groups,
            "sessions": [{"session_id": s or None, "ids": ids} for s, ids in sessions.items()]}


def search_rows(mem: MemoryProvider, user_id: str, query: str, top_k: int = 20) -> list[dict[str, Any]]:
    """The search hits for ``query`` as rows (best first), each with its scores and which leg found it."""
    return [{**memory_row(h.record), **_scores(h)} for h in mem.search(query, user_id=user_id, top_k=top_k)]


def _scores(hit: MemoryHit) -> dict[str, Any]:
    scores = hit.to_dict(("score", "relevance", "dense_score", "keyword_score", "confidence"), score_digits=4)
    legs = [name for name, value in (("keyword", hit.keyword_score), ("vector", hit.dense_score)) if value is not None]
    return {**scores, "legs": legs}


def memory_detail(mem: MemoryProvider, user_id: str, memory_id: str) -> dict[str, Any]:
    """A memory's whole record and every version (oldest first), each with what changed and why."""
    rec = mem.get(memory_id, user_id=user_id)
    versions = mem.history(memory_id, user_id=user_id)
    out = []
    previous = ""
    for ver in versions:
        out.append({"version": ver.version, "content": ver.content, "created_at": ver.created_at, "note": ver.note,
                    "current_from": ver.current_from, "current_to": ver.current_to,
                    "changed": ver.version > 1 and ver.content != previous})
        previous = ver.content
    return {"memory": memory_row(rec), "history": out}


#: Why a line came, was withheld or was left out, and why a block is empty: English templates by code (the page
#: translates the codes; ``text`` carries the English).
REASONS = {
    "legs": "found by {legs}",
    "standing": "a standing preference about replies: it comes on every turn",
    "fact_route": "fact route: the question is about identity, configuration or compliance",
    "best_over_floor": "the best match: confidence {confidence} ≥ floor {floor}",
    "near_best": "close enough to the best match (recall_relative_score)",
    "floor_waived": "below the floor ({confidence} < {floor}) but let through: it answers the question's topic, or "
                    "the question asks about what was said",
    "guard": "the read-time guard reads it as an instruction to the assistant",
    "gate_off": "recall did not run: a greeting or filler",
    "no_route": "permanent facts come only for identity, configuration or compliance questions",
    "short_note": "a short-term note of a session: recall returns long-term memories, conversations and facts",
    "best_below_floor": "the best match's confidence {best} is below the floor {floor}: recall returns nothing",
    "cut": "not close enough to the best match, or beyond top_k",
    "gate": "the recall gate: a greeting or filler does not trigger long-term recall",
    "no_memories": "user {user} has no memories",
    "no_match": "no memory of this user matches the question",
    "all_withheld": "every match was withheld by the read-time guard",
}


def _reason(code: str, **args: Any) -> dict[str, Any]:
    return {"code": code, "args": args, "text": REASONS[code].format(**args)}


def _conf(value: float | None) -> str:
    return "none" if value is None else f"{value:.2f}"


def recall_inspection(mem: MemoryProvider, user_id: str, query: str, top_k: int = 5) -> dict[str, Any]:
    """What the agent would get for ``query`` as ``user_id`` (the agent acts as the user): the gate's decision,
    the exact memory block, each recalled line with its score and why it came (which legs, the fact route, the
    floor), what the read-time guard withheld, what search found that recall left out (and why), and, when the
    block is empty, why. Each reason is ``{"code", "args", "text"}`` (:data:`REASONS`)."""
    agent = Caller.for_user(user_id)
    floor = mem.config.recall_min_score
    gate = should_recall(query)
    route = needs_permanent(query)
    hits = mem.recall(query, user_id=user_id, top_k=top_k, caller=agent)
    candidates = mem.search(query, user_id=user_id, top_k=max(20, top_k * 4), caller=agent)
    found = {h.id for h in candidates}
    best = max((h.confidence for h in candidates if prompt_safe(h) and h.confidence is not None), default=None)
    recalled = {h.id for h in hits}
    lines = []
    for rank, hit in enumerate(hits, 1):
        legs = _scores(hit)["legs"]
        why = [_reason("legs", legs=" and ".join(legs))] if legs and hit.id in found else [_reason("standing")]
        if hit.memory_type is MemoryType.PERMANENT:
            why.append(_reason("fact_route"))
        if floor is not None and hit.confidence is not None and why[0]["code"] == "legs":
            if hit.confidence >= floor and hit.confidence == best:
                why.append(_reason("best_over_floor", confidence=_conf(hit.confidence), floor=f"{floor:g}"))
            elif best is not None and best >= floor:
                why.append(_reason("near_best"))
            else:
                why.append(_reason("floor_waived", confidence=_conf(hit.confidence), floor=f"{floor:g}"))
        lines.append({"rank": rank, **memory_row(hit.record), **_scores(hit), "why": why})
    withheld, left_out = [], []
    for hit in candidates:
        if hit.id in recalled:
            continue
        row = {**memory_row(hit.record), **_scores(hit)}
        if not prompt_safe(hit):
            withheld.append({**row, "why": [_reason("guard")]})
        else:
            left_out.append({**row, "why": [_left_out_reason(hit, gate, route, floor, best, bool(hits))]})
    block = render_memory_block(hits)
    nothing = None
    if not block:
        if not gate:
            nothing = _reason("gate")
        elif not mem.list_memories(user_id=user_id, limit=1):
            nothing = _reason("no_memories", user=user_id)
        elif not candidates:
            nothing = _reason("no_match")
        elif withheld and not left_out:
            nothing = _reason("all_withheld")
        else:
            nothing = _reason("best_below_floor", best=_conf(best), floor=f"{floor:g}" if floor is not None else "none")
    return {"query": query, "user_id": user_id, "gate": gate, "fact_route": route, "floor": floor, "top_k": top_k,
            "block": block, "lines": lines, "withheld": withheld, "left_out": left_out[:10], "nothing": nothing}


def _left_out_reason(hit: MemoryHit, gate: bool, route: bool, floor: float | None, best: float | None,
                     any_recalled: bool) -> dict[str, Any]:
    if not gate:
        return _reason("gate_off")
    if hit.memory_type is MemoryType.PERMANENT and not route:
        return _reason("no_route")
    if hit.memory_type is MemoryType.SHORT_TERM and not hit.is_conversation:
        return _reason("short_note")
    if not any_recalled and floor is not None and (best is None or best < floor):
        return _reason("best_below_floor", best=_conf(best), floor=f"{floor:g}")
    return _reason("cut")


def health(mem: MemoryProvider, user_id: str | None = None) -> dict[str, Any]:
    """The store's counts (by tier, by user), growth by day and tier (``user_id``'s, else every user's), what the
    console can check of it, and the warnings of the store's background work."""
    stats = mem.stats()
    per_day: dict[str, Counter[str]] = defaultdict(Counter)
    for uid in [user_id] if user_id else sorted(stats.by_user):
        for rec in _records(mem, uid):
            per_day[time.strftime("%Y-%m-%d", time.gmtime(rec.created_at))][rec.memory_type.value] += 1
    days = [{"day": day, **{t.value: per_day[day][t.value] for t in MemoryType}} for day in sorted(per_day)]
    checks = [
        {"check": "store", "status": "ok", "detail": f"open at {mem.location}"},
        {"check": "mode", "status": "ok", "detail": "read-only: nothing can be changed" if mem.config.read_only
         else "writable"},
        {"check": "vectors", "status": "ok" if stats.vector_points == stats.total_active else "warn",
         "detail": f"{stats.vector_points} vector points for {stats.total_active} active memories"
         + ("" if stats.vector_points == stats.total_active else ": run hermes-memory reconcile")},
        {"check": "size", "status": "ok", "detail": f"{stats.disk_bytes} bytes on disk, {stats.versions} versions, "
         f"{stats.deleted} deleted memories kept for history"},
    ]
    checks += [{"check": "background work", "status": "warn", "detail": w} for w in stats.warnings]
    if not stats.warnings:
        checks.append({"check": "background work", "status": "ok", "detail": "no warnings"})
    return {**stats.as_dict(), "days": days, "checks": checks, "scope": user_id}

