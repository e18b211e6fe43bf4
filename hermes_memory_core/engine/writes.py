"""Writes of memories: new ones (validated, redacted, embedded, stored in both halves), versions, deletes, the
lifecycle's expiries and tier moves, repetitions and key terms.

Every write keeps the two halves consistent: metadata first, then vectors, inside the rows' open transaction; if
the vector write fails, the rows roll back (compensation) and :class:`~hermes_memory_core.errors.ConsistencyError`
says nothing was stored (a ``StorageFullError``, ``KeyboardInterrupt`` or ``SystemExit`` passes on as it is, after
the same compensation). :meth:`~hermes_memory_core.engine.upkeep.Upkeep.reconcile` repairs whatever a crash between
the two left behind. A memory that changes leaves the hot cache; permanent writes are checked and logged.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from hermes_memory_core import validation as v
from hermes_memory_core.engine.access import Languages
from hermes_memory_core.engine.parts import StoreParts, payload
from hermes_memory_core.engine.sealing import Sealing
from hermes_memory_core.errors import ConsistencyError, PermissionDeniedError, StorageFullError
from hermes_memory_core.storage.metadata import NewMemory
from hermes_memory_core.storage.vectors import VectorPoint
from hermes_memory_core.text.language import language_of
from hermes_memory_core.text.perspective import embedding_text
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.trust.redaction import log_redactions
from hermes_memory_core.types import CONVERSATION_KIND, AccessAction, MemoryItem, MemoryRecord, MemoryType

__all__ = ["Writes"]


class Writes:
    """What changes memories in one store."""

    def __init__(self, parts: StoreParts, sealing: Sealing, languages: Languages) -> None:
        self._parts = parts
        self._sealing = sealing
        self._languages = languages

    def new_record(self, item: MemoryItem, now: int, memory_id: str | None = None) -> MemoryRecord:
        """Validate one item into its record (redacted where configured; a short-term one that is no conversation
        memory lives ``short_term_ttl_seconds``)."""
        cfg = self._parts.config
        content = v.check_content(item.content, cfg.max_content_chars)
        memory_type = v.check_memory_type(item.memory_type)
        metadata = v.check_metadata(item.metadata, cfg.max_metadata_bytes)
        content, found = self._parts.redact(content, memory_type)
        if found:
            metadata["pii_redacted"] = found
        created = v.check_timestamp(item.created_at, "created_at")
        created = now if created is None else created
        lasting = memory_type is not MemoryType.SHORT_TERM or metadata.get("kind") == CONVERSATION_KIND
        expires = None if lasting else created + cfg.short_term_ttl_seconds
        return MemoryRecord(
            id=memory_id or str(uuid.uuid4()),
            user_id=v.check_user_id(item.user_id),
            session_id=v.check_session_id(item.session_id),
            content=content,
            memory_type=memory_type,
            importance=v.check_importance(item.importance, cfg.default_importance),
            access_count=0,
            created_at=created,
            updated_at=created,
            expires_at=expires,
            version=1,
            tags=tuple(dict.fromkeys(self._parts.redact(t, memory_type)[0] for t in v.check_tags(item.tags, cfg.max_tags))),
            metadata=metadata,
        )

    def _store(self, records: Sequence[MemoryRecord], vectors: np.ndarray, dialogue: bool) -> None:
        """The metadata rows and the vector points, the points written inside the rows' open transaction: if
        they fail, the rows roll back (which needs no disk space, so a full disk cannot leave a row that was
        reported unstored); if they or the rows' commit fail, the points written are taken back (any a full disk
        keeps are found by no search, and ``reconcile()`` removes them)."""
        with self._parts.write_lock:
            self._parts.need_open()
            if any(self._parts.codec.seals(r.memory_type.value) for r in records):
                self._sealing.ensure_key()
            rows = [NewMemory(r, dialogue and _takes_context(r), language_of(r.content)) for r in records]
            points = [VectorPoint(r.id, vec, payload(r, self._parts.codec))
                      for r, vec in zip(records, vectors, strict=True) if self._parts.has_vector(r.memory_type)]
            inserted = False
            try:
                with self._parts.metadata.atomic():
                    self._parts.metadata.records.insert(rows)
                    inserted = True
                    try:
                        self._parts.vectors.upsert(points)
                    except Exception as exc:
                        if isinstance(exc, StorageFullError):
                            raise  # a full disk: the rows roll back, the error passes on as it is
                        raise ConsistencyError(f"the vector store rejected the write ({exc}); the metadata rows "
                                               "were rolled back, nothing was stored") from exc
            except BaseException:
                if inserted:
                    with contextlib.suppress(Exception):
                        self._parts.vectors.delete([p.id for p in points])
                raise
            self._languages.learn(rows)

    def add_items(
        self,
        items: Sequence[MemoryItem],
        who: Caller,
        *,
        dialogue: bool = False,
        on_progress: Callable[[int, int], None] | None = None,
        memory_ids: Sequence[str] | None = None,
    ) -> list[str]:
        """Validate every item, then embed and store them in batches; see :meth:`MemoryProvider.add_many`.

        Args:
            memory_ids: The new memories' ids (default: fresh UUIDs; ids derived from turns: redone work is a no-op).
            dialogue: The memories are turns of a conversation: those with a session give and take keyword context
                with the session's neighbouring turns. Independent facts (the default) never do, so when they were
                written cannot change what a question finds.
        """
        self._parts.need_open()
        now = self._parts.now()
        records = [self.new_record(it, now, None if memory_ids is None else memory_ids[i]) for i, it in enumerate(items)]
        if not who.write_permanent and any(r.memory_type is MemoryType.PERMANENT for r in records):
            raise PermissionDeniedError(who.refusal("write permanent memories", records[0].user_id))
        ids: list[str] = []
        batch = self._parts.config.embedding_batch_size
        for start in range(0, len(records), batch):
            chunk = records[start : start + batch]
            vectors = self._parts.embed_records(chunk)
            try:
                self._store(chunk, vectors, dialogue)
            except ConsistencyError as exc:
                if ids:
                    raise ConsistencyError(f"{exc} ({len(ids)} earlier memories were stored: {ids[:3]}...)") from exc
                raise
            ids.extend(r.id for r in chunk)
            for r in chunk:
                if r.memory_type is MemoryType.PERMANENT:
                    self._parts.metadata.access.log(r.id, r.user_id, AccessAction.PERMANENT_WRITE, now, who.name)
            if on_progress is not None:
                on_progress(len(ids), len(records))
        log_redactions([(r.id, r.metadata["pii_redacted"]) for r in records if "pii_redacted" in r.metadata], len(records))
        return ids

    def update(
        self,
        rec: MemoryRecord,
        text: str,
        note: str,
        metadata: Mapping[str, Any] | None = None,
        tags: Sequence[str] | None = None,
        at: int | float | None = None,
    ) -> int:
        """Add a version of an owned, checked memory (content already validated). Returns the version number.

        ``at``: when the change was said (a promoted turn's time; default now). A version never starts before the
        one it follows: it takes the later of ``at`` and the memory's last update."""
        text, found = self._parts.redact(text, rec.memory_type)
        tags = None if tags is None else tuple(dict.fromkeys(self._parts.redact(t, rec.memory_type)[0] for t in tags))
        meta = None if metadata is None else dict(metadata)
        if found:
            meta = {**(rec.metadata if meta is None else meta), "pii_redacted": found}
        vector = self._parts.embed_documents([embedding_text(text, rec.role)])[0] if self._parts.has_vector(rec.memory_type) else None
        with self._parts.write_lock:
            self._parts.need_open()
            now = max(self._parts.now() if at is None else int(at), rec.updated_at)
            try:
                lang = language_of(text)
                version = self._parts.metadata.history.add_version(rec.id, text, note, now, rec.user_id, metadata=meta, tags=tags,
                                                    lang=lang)
                self._languages.learn_one(rec.user_id, lang)
                new = replace(rec, content=text, version=version, updated_at=now,
                              metadata=rec.metadata if meta is None else meta,
                              tags=rec.tags if tags is None else tuple(sorted(tags)))
                try:
                    if vector is not None:
                        self._parts.vectors.upsert([VectorPoint(rec.id, vector, payload(new, self._parts.codec))])
                except BaseException as exc:
                    self._parts.metadata.history.revert_version(rec.id, version)
                    if isinstance(exc, StorageFullError) or not isinstance(exc, Exception):
                        raise  # a full disk, Ctrl-C or exit: compensated, then passed on as it is
                    raise ConsistencyError(f"the vector store rejected the update ({exc}); it was rolled back") from exc
            finally:
                self._parts.hot.invalidate(rec.id)
        log_redactions([(rec.id, found)] if found else [], 1)
        return version

    def delete(self, rec: MemoryRecord, reason: str) -> None:
        """Soft-delete an owned, checked memory: it leaves both indexes at once; its history stays."""
        with self._parts.write_lock:
            self._parts.need_open()
            self._parts.metadata.records.soft_delete(rec.id, reason, self._parts.now())
            self._parts.hot.invalidate(rec.id)
            # if this fails the row is inactive anyway: search ignores the point and reconcile removes it
            with contextlib.suppress(Exception):
                self._parts.vectors.delete([rec.id])

    def expire(self, memory_id: str, reason: str, now: int) -> None:
        """Soft-delete a memory the lifecycle let go (no permission check: the store's own decision)."""
        with self._parts.write_lock:
            self._parts.metadata.records.soft_delete(memory_id, reason, now)
            self._parts.hot.invalidate(memory_id)
            self._parts.vectors.delete([memory_id])

    def downgrade(self, memory_id: str, now: int) -> None:
        """Move a stale long-term memory to the short-term tier (it then expires unless used again)."""
        with self._parts.write_lock:
            self._parts.metadata.records.set_tier(memory_id, MemoryType.SHORT_TERM.value, now + self._parts.config.short_term_ttl_seconds,
                                   "forget: stale, low importance", now)
            self._parts.hot.invalidate(memory_id)
            self._parts.vectors.set_payload([memory_id], {"memory_type": MemoryType.SHORT_TERM.value})

    def note_repeat(self, memory_id: str, detail: str = "", at: float | None = None) -> None:
        """Count one repetition of an active memory (a statement remembered again) at ``at`` — when it was said; None:
        now (its time never moves back) — and its cached copy goes."""
        self._parts.metadata.records.note_repeat(memory_id, int(at) if at else self._parts.now(), detail)
        self._parts.hot.invalidate(memory_id)

    def set_xlang_terms(self, memory_id: str, version: int, terms: str) -> bool:
        """Keep a memory's other-language key terms for ``version`` in its keyword entry (False: gone or newer)."""
        return self._parts.metadata.keywords.set_xlang_terms(memory_id, version, terms)


def _takes_context(rec: MemoryRecord) -> bool:
    """Permanent memories neither give nor take conversational context (their words stay theirs alone); with every
    tier sealed, the others lend keyed-hash context tokens."""
    return rec.session_id is not None and rec.memory_type is not MemoryType.PERMANENT
