"""Value types that cross the public API: tiers, records, hits, versions and reports."""

from __future__ import annotations

import enum
import html
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CONVERSATION_KIND",
    "HIT_FIELDS",
    "RECORD_FIELDS",
    "AccessAction",
    "ErasureKind",
    "MemoryHit",
    "MemoryItem",
    "MemoryRecord",
    "MemoryType",
    "MemoryVersion",
    "Message",
    "ReconcileReport",
    "RememberAction",
    "StoreStats",
]


#: ``metadata["kind"]`` of a conversation memory: one message a chat surface kept from a session (what the user or
#: the assistant said, ``metadata["role"]`` says who), a short-term memory that outlives its session and fades with
#: disuse (``conversation_retention_days``), never a statement about the user.
CONVERSATION_KIND = "conversation"


class MemoryType(enum.StrEnum):
    """The three tiers: short-term holds the scene, long-term the profile, permanent the facts."""

    SHORT_TERM = "short_term"
    LONG_TERM = "long_term"
    PERMANENT = "permanent"


class RememberAction(enum.StrEnum):
    """What ``remember`` did with a piece of content (``RememberResult.action``). A string enum: it compares equal
    to, and serialises as, its value.

    Members:
        ADDED: Stored as a new memory.
        DUPLICATE: A memory of the user already holds this fact: nothing new is stored; that memory counts the
            repetition.
        VERSIONED: A long-term or permanent memory on the same topic (or one this statement reports a change of)
            got it as its next version.
        KEPT_APART: It contradicts a fact written with more authority: stored as a long-term "the user says"
            memory beside it.
        SKIPPED: Short-term content without a session: nothing stored.
        REJECTED: The injection guard refused it: nothing stored.
    """

    ADDED = "added"
    DUPLICATE = "duplicate"
    VERSIONED = "versioned"
    KEPT_APART = "kept_apart"
    SKIPPED = "skipped"
    REJECTED = "rejected"


class AccessAction(enum.StrEnum):
    """What one row of a memory's access log records. A string enum stored as its value.

    Members:
        ADD: The memory was stored.
        SEARCH: A search returned the memory.
        PERMANENT_READ: An allowed read of a permanent memory (``detail``: the caller).
        PERMANENT_WRITE: An allowed write of a permanent memory (``detail``: the caller).
        PERMANENT_DENIED: A refused read or write of a permanent memory (``detail``: the caller).
        UPDATE: A new version was written (``detail``: its note).
        DELETE: A soft delete (``detail``: the reason).
        REPEAT: A statement the memory already holds was said again.
        HARD_DELETE: The memory was erased for good.
    """

    ADD = "add"
    SEARCH = "search"
    PERMANENT_READ = "permanent_read"
    PERMANENT_WRITE = "permanent_write"
    PERMANENT_DENIED = "permanent_denied"
    UPDATE = "update"
    DELETE = "delete"
    REPEAT = "repeat"
    HARD_DELETE = "hard_delete"


class ErasureKind(enum.StrEnum):
    """What a durable erasure intent names. A string enum: it compares equal to, and is recorded as, its value.

    Members:
        USER: Every row of one user.
        MEMORY: One memory.
    """

    USER = "user"
    MEMORY = "memory"


#: The keys of :meth:`MemoryRecord.to_dict`, in their order.
RECORD_FIELDS = ("id", "user_id", "session_id", "content", "memory_type", "importance", "access_count", "created_at",
                 "updated_at", "expires_at", "version", "tags", "metadata")
#: The keys of :meth:`MemoryHit.to_dict`: the record's, then the scores.
HIT_FIELDS = (*RECORD_FIELDS, "score", "relevance", "dense_score", "keyword_score", "confidence", "dialogue")
_SCORES = ("score", "relevance", "dense_score", "keyword_score", "confidence")


def _pick(full: dict[str, Any], fields: Sequence[str] | None) -> dict[str, Any]:
    if fields is None:
        return full
    unknown = [f for f in fields if f not in full]
    if unknown:
        raise ValueError(f"unknown fields {unknown}; known: {list(full)}")
    return {f: full[f] for f in fields}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)


def _html_table(rows: Sequence[dict[str, Any]], caption: str = "") -> str:
    """Rows (dicts with the same keys) as an HTML table for Jupyter, every value escaped; times (keys ending in
    ``_at``, ``current_from``, ``current_to``) as UTC dates."""
    if not rows:
        return f"<p>{html.escape(caption)}: none</p>" if caption else "<p>none</p>"
    def show(key: str, value: Any) -> str:
        if isinstance(value, int) and (key.endswith("_at") or key in ("current_from", "current_to")):
            value = time.strftime("%Y-%m-%d %H:%M", time.gmtime(value))
        return html.escape(_cell(value))
    head = "".join(f"<th>{html.escape(k)}</th>" for k in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{show(k, v)}</td>" for k, v in row.items()) + "</tr>" for row in rows)
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


#: The columns a record shows as a table row in Jupyter (see ``_repr_html_``).
_RECORD_COLUMNS = ("content", "memory_type", "importance", "version", "created_at", "updated_at", "session_id", "tags",
                   "id")


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One stored memory as the metadata store holds it (the current version).

    Attributes:
        id: UUID shared by the metadata row and the vector point.
        user_id: Owner; every read is scoped to one user.
        session_id: Session the memory came from, if any.
        content: Current text.
        memory_type: Tier.
        importance: 0..1; gates forgetting and scales ranking.
        access_count: How often search returned it.
        created_at: Unix seconds when first stored.
        updated_at: Unix seconds of the latest version.
        expires_at: Unix seconds after which it is no longer returned, or None.
        version: Number of the current version (1 = never updated).
        tags: Free-form labels.
        metadata: JSON-serialisable extra data given by the caller.
    """

    id: str
    user_id: str
    session_id: str | None
    content: str
    memory_type: MemoryType
    importance: float
    access_count: int
    created_at: int
    updated_at: int
    expires_at: int | None
    version: int
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def is_conversation(self) -> bool:
        """Whether this is a conversation memory (see :data:`CONVERSATION_KIND`)."""
        return self.metadata.get("kind") == CONVERSATION_KIND

    @property
    def role(self) -> str | None:
        """Who said a conversation memory (``user``, ``assistant``); None for other memories."""
        role = self.metadata.get("role") if self.is_conversation else None
        return role if isinstance(role, str) else None

    def to_dict(self, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """The record as a JSON-ready dict: the tier as its string, tags as a list, a copy of ``metadata``.

        The one serialisation of a memory that every surface (CLI, agent tools, adapters) uses; each picks the keys
        it shows.

        Args:
            fields: The keys to return, in this order (any of :data:`RECORD_FIELDS`); None: all of them.

        Raises:
            ValueError: A key that is not one of :data:`RECORD_FIELDS`.
        """
        full = {"id": self.id, "user_id": self.user_id, "session_id": self.session_id, "content": self.content,
                "memory_type": self.memory_type.value, "importance": self.importance,
                "access_count": self.access_count, "created_at": self.created_at, "updated_at": self.updated_at,
                "expires_at": self.expires_at, "version": self.version, "tags": list(self.tags),
                "metadata": dict(self.metadata)}
        return _pick(full, fields)

    def _repr_html_(self) -> str:
        """Jupyter shows a record as a one-row table."""
        return _html_table([self.to_dict(_RECORD_COLUMNS)], f"memory of {self.user_id}")


@dataclass(frozen=True, slots=True)
class MemoryHit:
    """A memory returned by search, with its final score and the parts it was made of.

    Attributes:
        record: The memory.
        score: Final ranking score (higher is better).
        relevance: Fused relevance in 0..1 before recency, freshness and importance.
        dense_score: Cosine similarity from the vector leg, or None if the leg did not return it.
        keyword_score: BM25 score from the keyword leg, or None if the leg did not return it.
        confidence: How far the memory's dense match stands out from ordinary sentences of its language for this
            question (a z-score, comparable across languages and questions; ~4 and above is a real match), or
            None when it was not computed.
        dialogue: The memory is a line of a conversation (a conversation memory, or a turn imported with
            ``add_many(..., dialogue=True)``), not a statement about the user.
    """

    record: MemoryRecord
    score: float
    relevance: float
    dense_score: float | None = None
    keyword_score: float | None = None
    confidence: float | None = None
    dialogue: bool = False

    # Flat accessors so callers can write ``hit.content`` as with a record.
    @property
    def id(self) -> str:
        return self.record.id

    @property
    def content(self) -> str:
        return self.record.content

    @property
    def memory_type(self) -> MemoryType:
        return self.record.memory_type

    @property
    def created_at(self) -> int:
        return self.record.created_at

    @property
    def updated_at(self) -> int:
        return self.record.updated_at

    @property
    def metadata(self) -> dict[str, Any]:
        return self.record.metadata

    @property
    def tags(self) -> tuple[str, ...]:
        return self.record.tags

    @property
    def session_id(self) -> str | None:
        return self.record.session_id

    @property
    def importance(self) -> float:
        return self.record.importance

    @property
    def is_conversation(self) -> bool:
        return self.record.is_conversation

    @property
    def role(self) -> str | None:
        return self.record.role

    def to_dict(self, fields: Sequence[str] | None = None, *, score_digits: int | None = None) -> dict[str, Any]:
        """The hit as a JSON-ready dict: its record's keys (see :meth:`MemoryRecord.to_dict`), then its scores.

        Args:
            fields: The keys to return, in this order (any of :data:`HIT_FIELDS`); None: all of them.
            score_digits: Round the scores to this many decimals (surfaces that show them use 4); None: exact.

        Raises:
            ValueError: A key that is not one of :data:`HIT_FIELDS`.
        """
        full = self.record.to_dict()
        scores: dict[str, float | None] = {"score": self.score, "relevance": self.relevance,
                                           "dense_score": self.dense_score, "keyword_score": self.keyword_score,
                                           "confidence": self.confidence}
        for name in _SCORES:
            value = scores[name]
            full[name] = value if value is None or score_digits is None else round(value, score_digits)
        full["dialogue"] = self.dialogue
        return _pick(full, fields)

    def _repr_html_(self) -> str:
        """Jupyter shows a hit as a one-row table: the record's columns and the scores."""
        return _html_table([self.to_dict(("score", "confidence", "dense_score", "keyword_score", *_RECORD_COLUMNS),
                                         score_digits=4)], f"search hit for {self.record.user_id}")


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """One memory to write with ``add_many``; fields mirror the arguments of ``add``."""

    content: str
    user_id: str
    session_id: str | None = None
    memory_type: MemoryType | str = MemoryType.LONG_TERM
    importance: float | None = None
    tags: tuple[str, ...] | list[str] = ()
    metadata: dict[str, Any] | None = None
    created_at: int | float | None = None


@dataclass(frozen=True, slots=True)
class MemoryVersion:
    """One version of a memory. Versions are append-only; the highest number is current.

    Attributes:
        memory_id: The memory.
        version: Its number (1 = the first).
        content: The text of this version.
        created_at: Unix seconds when this version was written.
        note: Why it was written (``version_note``, ``superseded: ...``, ``changed: ...``).
        current_from: Unix seconds from which this version was the memory's current one (its ``created_at``).
        current_to: Unix seconds at which it stopped being current — the next version's ``created_at``, or the
            memory's deletion time for the last version of a deleted memory; None while it is still current.
            ``search(..., as_of=t)`` answers from the version with ``current_from <= t < current_to``.
    """

    memory_id: str
    version: int
    content: str
    created_at: int
    note: str
    current_from: int = 0
    current_to: int | None = None

    def _repr_html_(self) -> str:
        """Jupyter shows a version as a one-row table."""
        return _html_table([{"version": self.version, "content": self.content, "note": self.note,
                             "current_from": self.current_from, "current_to": self.current_to,
                             "memory_id": self.memory_id}])


@dataclass(slots=True)
class ReconcileReport:
    """What ``reconcile()`` found and repaired.

    Attributes:
        metadata_orphans_reindexed: Active rows with no vector point; re-embedded and re-indexed.
        vector_orphans_removed: Vector points with no active metadata row; removed.
        keyword_rows_repaired: Keyword-index rows missing or stale; rebuilt.
        expired_removed: Expired memories taken out of the vector index.
        erasures_finished: Erasures (``purge_user``, hard deletes) a killed process had left half done, finished.
        erasures_left: Erasures still not complete: a reader (or on PostgreSQL an older transaction) still holds
            files they must rewrite; run ``reconcile()`` again once it is gone.
    """

    metadata_orphans_reindexed: int = 0
    vector_orphans_removed: int = 0
    keyword_rows_repaired: int = 0
    expired_removed: int = 0
    erasures_finished: int = 0
    erasures_left: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "metadata_orphans_reindexed": self.metadata_orphans_reindexed,
            "vector_orphans_removed": self.vector_orphans_removed,
            "keyword_rows_repaired": self.keyword_rows_repaired,
            "expired_removed": self.expired_removed,
            "erasures_finished": self.erasures_finished,
            "erasures_left": self.erasures_left,
        }


@dataclass(slots=True)
class StoreStats:
    """Counts and sizes of a store.

    Attributes:
        total_active: Active memories in all tiers.
        by_type: Active memories per tier.
        by_user: Active memories per user.
        vector_points: Points in the vector index.
        versions: Stored versions across all memories.
        deleted: Soft-deleted memories kept for history.
        disk_bytes: Bytes under the data directory (0 for a server store).
        warnings: One line each: size thresholds passed (``warn_user_memories``); from
            :meth:`MemoryProvider.stats`, also sessions whose model classifications were mostly unusable.
    """

    total_active: int
    by_type: dict[str, int]
    by_user: dict[str, int]
    vector_points: int
    versions: int
    deleted: int
    disk_bytes: int
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "warnings": list(self.warnings),
            "total_active": self.total_active,
            "by_type": dict(self.by_type),
            "by_user": dict(self.by_user),
            "vector_points": self.vector_points,
            "versions": self.versions,
            "deleted": self.deleted,
            "disk_bytes": self.disk_bytes,
        }

    def _repr_html_(self) -> str:
        """Jupyter shows the counts as tables: totals, by tier, by user, and the warnings."""
        totals = {"active": self.total_active, "vector points": self.vector_points, "versions": self.versions,
                  "deleted": self.deleted, "bytes on disk": self.disk_bytes}
        parts = [_html_table([totals], "store"), _html_table([dict(self.by_type)], "by tier"),
                 _html_table([{"user": u, "memories": n} for u, n in sorted(self.by_user.items())], "by user")]
        if self.warnings:
            parts.append(_html_table([{"warning": w} for w in self.warnings], "warnings"))
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message in a session buffer.

    Attributes:
        role: Who spoke (``user``, ``assistant``, ``tool``, ``system``, ...).
        content: Its text.
        data: Adapter payload (e.g. a serialised LangChain message) returned as stored.
        created_at: Unix seconds.
        turn: Turn number within the session (set by the store).
    """

    role: str
    content: str
    data: dict[str, Any] = field(default_factory=dict)
    created_at: int = 0
    turn: int = -1
