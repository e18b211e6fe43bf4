"""Two small memories of the engine about its store: the buffered access log of search hits, and which languages
each user's memories are in."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.storage.metadata import AccessRecord, NewMemory
from hermes_memory_core.text.language import LanguageProfile
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import AccessAction, MemoryRecord, MemoryType

__all__ = ["AccessBuffer", "Languages"]


class AccessBuffer:
    """Search accesses, buffered and written in batches (``access_log_flush_every``) by a short-lived thread, so a
    search never waits for the access log's transaction."""

    def __init__(self, parts: StoreParts) -> None:
        self._parts = parts
        self._lock = threading.Lock()
        self._buffer: list[AccessRecord] = []
        self._flushing = False

    def note(self, records: Iterable[MemoryRecord], user_id: str, who: Caller) -> None:
        """Buffer one search access per returned record; written in batches."""
        at = self._parts.now()
        entries = [
            AccessRecord(r.id, user_id, at, AccessAction.SEARCH, who.name if r.memory_type is MemoryType.PERMANENT else "")
            for r in records
        ]
        if not entries:
            return
        with self._lock:
            self._buffer.extend(entries)
            full = len(self._buffer) >= self._parts.config.access_log_flush_every and not self._flushing
            if full:
                self._flushing = True
        if full:  # written by a short-lived thread: a search never waits for the access log's transaction
            threading.Thread(target=self._flush_in_background, name="hermes-access-log", daemon=True).start()

    def _flush_in_background(self) -> None:
        try:
            with self._parts.write_lock:
                if not self._parts.closed:
                    self.flush()
        finally:
            with self._lock:
                self._flushing = False

    def discard(self, user_id: str, memory_id: str | None = None) -> None:
        """Drop buffered access records of a user (or one memory of theirs) about to be erased."""
        with self._lock:
            self._buffer = [
                a for a in self._buffer
                if a.user_id != user_id or (memory_id is not None and a.memory_id != memory_id)
            ]

    def flush(self) -> None:
        """Write buffered access records now."""
        with self._lock:
            pending, self._buffer = self._buffer, []
        if pending:
            self._parts.metadata.access.record_access(pending)


class Languages:
    """Which languages each user's memories are in, and the embedder's language profile.

    An embedded store (one process) remembers each user's answer and keeps it current on its own writes; a server
    store asks every time (other processes write)."""

    def __init__(self, parts: StoreParts) -> None:
        self._parts = parts
        self._known: dict[str, set[str]] = {}
        self._profile: LanguageProfile | None = None
        self._profile_lock = threading.Lock()

    def has(self, user_id: str, lang: str) -> bool:
        """Whether the user holds an active memory in this language."""
        parts = self._parts
        if parts.config.metadata_url is not None:
            return parts.metadata.records.has_language(user_id, lang)
        known = self._known.get(user_id)
        if known is None:
            known = {code for code in ("zh", "en") if parts.metadata.records.has_language(user_id, code)}
            self._known[user_id] = known
        return lang in known

    def forget(self, user_id: str) -> None:
        """Forget what is known of a user's languages (their memories were erased)."""
        self._known.pop(user_id, None)

    def learn(self, rows: Sequence[NewMemory]) -> None:
        """Note the languages of rows just written."""
        for row in rows:
            known = self._known.get(row.record.user_id)
            if known is not None and row.lang is not None:
                known.add(row.lang)

    def learn_one(self, user_id: str, lang: str) -> None:
        """Note the language of a version just written."""
        if user_id in self._known:
            self._known[user_id].add(lang)

    def profile(self) -> LanguageProfile:
        """The embedder's language profile (background sentences and language means that calibrate dense scores):
        shipped for the default model, else built once from the shipped corpus (a few seconds, then cached)."""
        with self._profile_lock:
            if self._profile is None:
                embedder = self._parts.embedder
                shipped = LanguageProfile.for_model(embedder.model_id)
                self._profile = shipped if shipped is not None else LanguageProfile.build(embedder)
            return self._profile
