"""The keyword index's conversational context, kept in step with the rows (both SQL dialects).

Each dialogue memory of a session is indexed with its own tokens and, in a second field, the tokens of its
neighbours in the conversation (the active dialogue memories of the same session written at the moment just before
and just after it): an answer ("Yes, every Sunday!") is found by the words of the question it answers. The keyword
leg weighs that field by ``keyword_context_weight``. Only rows marked ``dialogue`` give or take context (the writer
decides; memories written as independent facts never do), memories written in the same second lend each other
nothing — except the lines of a conversation, which stand in the order they were said: a turn's message and its
reply written together (one ``add_messages`` call, as LangChain's ``RunnableWithMessageHistory`` writes a turn) are
two moments, the message's then the reply's, and a next turn's line written in the same second comes after both —
and a deleted memory's words leave its neighbours' entries at once. A line that only asks lends its words
forward, to the answer after it, never back to the line before it: the reply to one question is not found by the
next question's words (a user who asks a run of questions would otherwise find each answer under its neighbour).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from hermes_memory_core.storage.metadata import NewMemory, RowCodec
from hermes_memory_core.storage.sql.parts import KeywordDoc, KeywordPostings
from hermes_memory_core.text.questions import is_question
from hermes_memory_core.text.tokenizer import tokenize
from hermes_memory_core.types import CONVERSATION_KIND

__all__ = ["CONTEXT_PER_MOMENT", "ContextIndex", "PlainCodec"]

#: Memories of one neighbouring moment that lend their words to a memory's context.
CONTEXT_PER_MOMENT = 4


class PlainCodec:
    """A :class:`~hermes_memory_core.storage.metadata.RowCodec` that keeps content as given and indexes its
    tokens: what a store uses until an engine hands it its own."""

    def seal(self, memory_id: str, memory_type: str, text: str) -> str:
        return text

    def open(self, memory_id: str, stored: str) -> str:
        return stored

    def index_tokens(self, memory_type: str, text: str) -> list[str]:
        return tokenize(text)

    def context_tokens(self, text: str) -> list[str]:
        return tokenize(text)

    def seal_field(self, memory_id: str, memory_type: str, field: str, text: str) -> str:
        return text

    def open_field(self, memory_id: str, field: str, stored: str) -> str:
        return stored

    def pack_metadata(self, memory_id: str, memory_type: str, metadata: Mapping[str, Any], tags: Sequence[str]) -> str:
        return json.dumps(dict(metadata), ensure_ascii=False)

    def unpack_metadata(self, memory_id: str, stored: str | None) -> tuple[dict[str, Any], tuple[str, ...] | None]:
        return (json.loads(stored) if stored else {}), None

    def tag_keys(self, memory_type: str, tags: Sequence[str]) -> list[str]:
        return list(tags)

    def lookup_value(self, memory_type: str, key: str, value: str) -> str:
        return value

    def seal_session(self, user_id: str, session_id: str | None, text: str) -> str:
        return text

    def open_session(self, user_id: str, session_id: str | None, stored: str) -> str:
        return stored

    def session_key(self, user_id: str, session_id: str | None) -> str | None:
        return session_id

    def session_of(self, stored: str | None) -> str | None:
        return stored


class ContextIndex:
    """Keeps a dialect's keyword postings in step with the rows: each memory's own tokens, its other-language key
    terms and its conversational context (module docstring).

    Args:
        postings: The dialect's keyword index.
        codec: The codec of index maintenance at call time (the store's, or the one a recode is sealing under).
        atomic: The store's write transaction (:meth:`repair` runs in one).
    """

    def __init__(
        self,
        postings: KeywordPostings,
        codec: Callable[[], RowCodec],
        atomic: Callable[[], AbstractContextManager[Any]],
    ) -> None:
        self.postings = postings
        self._codec = codec
        self._atomic = atomic

    @property
    def _ix(self) -> RowCodec:
        """The codec of index maintenance (it runs inside write transactions only)."""
        return self._codec()

    def index_inserted(self, conn: Any, rows: Sequence[NewMemory]) -> None:
        """Index memories inserted in the open transaction (a dialogue memory with its neighbours' context, and
        theirs refreshed)."""
        own: dict[str, Sequence[str]] = {}
        spans: dict[tuple[str, str], list[int]] = {}
        alone: list[KeywordDoc] = []
        for row in rows:
            r = row.record
            toks = self._ix.index_tokens(r.memory_type.value, r.content)
            if r.session_id is None or not row.dialogue:
                alone.append((r.id, r.user_id, toks, ()))
            else:
                own[r.id] = toks
                spans.setdefault((r.user_id, r.session_id), []).append(r.created_at)
        if alone:
            self.postings.index_new(conn, alone)
        for (owner, session), times in sorted(spans.items()):  # one lock order for every writer
            self.refresh_context(conn, owner, session, min(times), max(times), own, new=own.keys())

    def _xlang_tokens(self, memory_id: str, tier: str, xlang: str | None) -> list[str]:
        """The tokens of a memory's other-language key terms (the ``xlang_terms`` column, sealed like the content;
        see :mod:`~hermes_memory_core.lifecycle.xlang`). They go into the entry's second field, beside any
        conversational context, weighed by ``keyword_context_weight``: they find the memory from the other
        language without outweighing the own words of memories in the question's language."""
        return self._ix.index_tokens(tier, self._ix.open_field(memory_id, "xlang", xlang)) if xlang else []

    def place(self, conn: Any, memory_id: str) -> tuple[str, str, int] | None:
        """``(user_id, session_id, created_at)`` of a memory that takes part in conversational context."""
        row = conn.execute(
            "SELECT user_id, session_id, created_at, dialogue FROM memory_entries WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None or row[1] is None or not row[3]:
            return None
        return str(row[0]), str(row[1]), int(row[2])

    def reindex(self, conn: Any, memory_id: str, content: str | None = None) -> None:
        """Bring one memory's keyword entry, and its neighbours' context, in line with its current row.

        Args:
            content: The memory's current plain text when the caller has it (else it is read and opened).
        """
        row = conn.execute(
            "SELECT user_id, session_id, memory_type, created_at, content, is_active, dialogue, xlang_terms "
            "FROM memory_entries WHERE id = ?",
            (memory_id,),
        ).fetchone()
        if row is None:
            return
        owner, session, tier, created, stored, active, dialogue, xlang = row
        text = content if content is not None else self._ix.open(memory_id, stored)
        if not active:
            self.postings.unindex(conn, memory_id)
        elif session is None or not dialogue:
            self.postings.index(conn, (memory_id, owner, self._ix.index_tokens(tier, text),
                                       self._xlang_tokens(memory_id, tier, xlang)))
            return
        if session is not None and dialogue:
            own = {memory_id: self._ix.index_tokens(tier, text)} if active else None
            self.refresh_context(conn, owner, session, int(created), int(created), own)

    def refresh_context(
        self,
        conn: Any,
        user_id: str,
        session_id: str,
        lo: int,
        hi: int,
        own: Mapping[str, Sequence[str]] | None = None,
        new: Iterable[str] = (),
    ) -> None:
        """(Re)index the session's dialogue memories created in ``[lo, hi]`` and at the moment just before and
        after, each with its neighbours' tokens as context.

        A session is a sequence of moments (distinct ``created_at``); a memory's context is the memories of the
        moment before and the moment after its own (at most :data:`CONTEXT_PER_MOMENT` of each, by id), so
        memories written in the same second — a batch of statements, not a dialogue — never see each other.

        Args:
            own: Known tokens of some memories (just written); others are tokenized from their rows.
            new: Memories inserted in this transaction, not in the keyword index yet.
        """
        self.postings.lock_session(conn, user_id, session_id)
        where = "FROM memory_entries WHERE user_id = ? AND session_id = ? AND is_active = 1 AND dialogue = 1 AND "
        key = (user_id, session_id)
        below = [r[0] for r in conn.execute(
            f"SELECT DISTINCT created_at {where}created_at < ? ORDER BY created_at DESC LIMIT 2", (*key, lo)
        )]
        above = [r[0] for r in conn.execute(
            f"SELECT DISTINCT created_at {where}created_at > ? ORDER BY created_at LIMIT 2", (*key, hi)
        )]
        first, last = (below[-1] if below else lo), (above[-1] if above else hi)
        rows = sorted(conn.execute(
            f"SELECT id, content, created_at, memory_type, xlang_terms, metadata {where}created_at >= ? "
            "AND created_at <= ? ORDER BY created_at, id",
            (*key, first, last),
        ).fetchall(), key=lambda r: (r[2], *self._said_order(r[0], r[5])))
        moments: list[list[str]] = []
        times: list[int] = []
        order: list[tuple[int, int, int]] = []
        own_toks: dict[str, Sequence[str]] = dict(own or {})
        lent: dict[str, list[str]] = {}
        asks: set[str] = set()
        terms: dict[str, list[str]] = {}
        for mid, stored, created, tier, xlang, meta in rows:
            said = (created, *self._said_order(mid, meta))
            if not order or order[-1] != said:
                moments.append([])
                times.append(created)
                order.append(said)
            moments[-1].append(mid)
            text = self._ix.open(mid, stored)
            if mid not in own_toks:
                own_toks[mid] = self._ix.index_tokens(tier, text)
            terms[mid] = self._xlang_tokens(mid, tier, xlang)
            lent[mid] = self._ix.context_tokens(text)
            if is_question(text):
                asks.add(mid)
        fresh_ids = set(new)
        redo_from = below[0] if below else lo
        redo_to = above[0] if above else hi
        fresh: list[KeywordDoc] = []
        for k, moment in enumerate(moments):
            if not redo_from <= times[k] <= redo_to:
                continue
            context: list[str] = []
            for near in (k - 1, k + 1):
                if 0 <= near < len(moments):
                    for mid in moments[near][:CONTEXT_PER_MOMENT]:
                        if near < k or mid not in asks:  # a question lends its words forward only
                            context.extend(lent[mid])
            for mid in moment:
                if mid in fresh_ids:
                    fresh.append((mid, user_id, own_toks[mid], [*context, *terms[mid]]))
                else:
                    self.postings.index(conn, (mid, user_id, own_toks[mid], [*context, *terms[mid]]))
        if fresh:
            self.postings.index_new(conn, fresh)

    def _said_order(self, memory_id: str, stored: str | None) -> tuple[int, int]:
        """Where a line stands among the lines written in its second: a conversation line by its turn, the user's
        message before the assistant's reply; any other memory first, with all others of its second (one moment)."""
        meta, _tags = self._ix.unpack_metadata(memory_id, stored)
        if meta.get("kind") != CONVERSATION_KIND or not isinstance(meta.get("turn"), int):
            return (-1, 0)
        return (int(meta["turn"]), 1 if meta.get("role") == "assistant" else 0)

    def repair(self) -> int:
        """Index active memories missing from the keyword index (with their conversational context) and drop
        entries of inactive ones. Returns how many memories it fixed."""
        with self._atomic() as conn:
            missing = conn.execute(
                "SELECT e.id, e.user_id, e.session_id, e.memory_type, e.created_at, e.content, e.dialogue, "
                "e.xlang_terms FROM memory_entries e WHERE e.is_active = 1 "
                "AND NOT EXISTS (SELECT 1 FROM memory_keyword_docs d WHERE d.memory_id = e.id)"
            ).fetchall()
            stale = conn.execute(
                "SELECT e.id, e.user_id, e.session_id, e.created_at, e.dialogue FROM memory_keyword_docs d "
                "JOIN memory_entries e ON e.id = d.memory_id WHERE e.is_active = 0"
            ).fetchall()
            for memory_id, *_rest in stale:
                self.postings.unindex(conn, memory_id)
            spans: dict[tuple[str, str], list[int]] = {}
            for memory_id, owner, session, tier, created, stored, dialogue, xlang in missing:
                if session is None or not dialogue:
                    text = self._ix.open(memory_id, stored)
                    self.postings.index(conn, (memory_id, owner, self._ix.index_tokens(tier, text),
                                               self._xlang_tokens(memory_id, tier, xlang)))
                else:
                    spans.setdefault((owner, session), []).append(int(created))
            for _memory_id, owner, session, created, dialogue in stale:
                if session is not None and dialogue:
                    spans.setdefault((owner, session), []).append(int(created))
            for (owner, session), times in sorted(spans.items()):
                self.refresh_context(conn, owner, session, min(times), max(times))
        return len(missing) + len(stale)
