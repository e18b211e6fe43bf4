"""Conversation memories: what was said in a session stays findable after the session.

Every chat surface writes its turns into a session buffer (:mod:`~hermes_memory_core.short_term.session`). A turn is
*archived* once — when it leaves the ring buffer (compaction) or when its session ends (``close()``, a session idle
for ``session_idle_seconds``, or the same user opening another session); an answered turn is also kept as soon as
it is answered, and the store's next open keeps every turn of a session a previous process left open, its last,
unanswered one included — and archiving keeps each user and
assistant message of it as a **conversation memory**: a short-term memory marked ``metadata["kind"] ==
"conversation"`` with the speaker's ``role``, its turn, the message's time and session, written as a dialogue (so
each message is also found by the words of its neighbours in the session). It outlives the session and fades by
disuse (``conversation_retention_days`` in :mod:`~hermes_memory_core.lifecycle.forgetting`).

What a conversation memory never is: a statement about the user. The profile (long-term) and facts (permanent) are
still extracted from the user's words by the classifier (the promotion queue), conservatively; a conversation
memory is rendered as "the user said" / "the assistant said" with its date.

What is not kept: system and tool messages, fillers the recall gate ignores ("ok", "谢谢"), and any message the
injection guard refuses (it never becomes a memory of any kind; in the assistant's words "you" is the user, so
its advice — "you should rest" — is not read as an order to an assistant). Content is redacted like every short-term write
(``redact_tiers``). A remark the user's conversation memories already hold (same words up to case, punctuation
and filler words; see :func:`~hermes_memory_core.lifecycle.dedupe.fact_signature`) is one memory that counts the
repetition, not a second one. Memory ids derive from ``(user, session, turn, message)``, so archiving that a
killed process redoes writes nothing twice.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

from hermes_memory_core.engine.faces import WithLookups, WithParts, WithReads, WithWrites
from hermes_memory_core.lifecycle.dedupe import fact_signature
from hermes_memory_core.retrieval.gate import should_recall
from hermes_memory_core.short_term.compaction import user_words
from hermes_memory_core.short_term.session import USER_ROLES
from hermes_memory_core.text.questions import is_question, question_key
from hermes_memory_core.trust.permissions import LIFECYCLE
from hermes_memory_core.trust.read_verdicts import lines_allowed
from hermes_memory_core.types import CONVERSATION_KIND, MemoryItem, MemoryRecord, MemoryType, Message

__all__ = ["CONVERSATION_IMPORTANCE", "PIECE_CHARS", "ArchivedMessages", "archive_completed", "archive_turns",
           "conversation_id", "end_session", "erase_said", "speaker", "user_words"]


class ConversationStore(WithParts, WithLookups, WithReads, WithWrites, Protocol):
    """What keeping conversations uses of the engine: session rows, lookups by id and remark, conversation writes."""


#: Importance of a conversation memory: below the profile (0.6) and facts (0.9), so they rank first on a tie.
CONVERSATION_IMPORTANCE = 0.3
#: A long message is kept as pieces of at most this many characters (each its own memory, found on its own).
PIECE_CHARS = 1200
_NAMESPACE = uuid.UUID("5b1f8a53-2f4e-4c1e-9a53-6d0c3c1b7e21")
_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "chatbot": "assistant",
          "model": "assistant"}


def speaker(role: str) -> str | None:
    """``user`` or ``assistant`` for a message role a conversation memory keeps; None for system, tool, ..."""
    return _ROLES.get(role)


def conversation_id(user_id: str, session_id: str, turn: int, index: int, piece: int = 0) -> str:
    """The memory id of one piece of one message of a session's turn (the same inputs always give the same id)."""
    return str(uuid.uuid5(_NAMESPACE, f"{user_id}\x00{session_id}\x00{turn}\x00{index}\x00{piece}"))


def _pieces(text: str) -> list[str]:
    """``text`` in pieces of at most :data:`PIECE_CHARS`, cut after a sentence or a space where one is near."""
    out: list[str] = []
    while len(text) > PIECE_CHARS:
        window = text[:PIECE_CHARS]
        cut = max(window.rfind(mark) for mark in (". ", "。", "! ", "? ", "！", "？", "\n"))
        if cut < PIECE_CHARS // 2:
            cut = window.rfind(" ")
        cut = cut + 1 if cut >= PIECE_CHARS // 2 else PIECE_CHARS
        out.append(text[:cut].strip())
        text = text[cut:].strip()
    return [p for p in [*out, text] if p]


class ArchivedMessages:
    """The messages (their memory ids) one store's archiving has settled in this process: kept, found kept, or
    counted as a repeat of a remark already held.

    A session's archive runs over every turn still in its buffer, on every turn. A repeated remark is not stored
    under its own id, so that id's absence could not say it was handled: each archive counted every repeat still in
    the buffer again (a write and an access-log row each). And a turn kept before was read again, line by line, to
    find its ids stored. A turn whose lines are all settled here is passed over. Bounded (the most recent
    ``limit``); a new process reads the buffer once and may count a buffered repeat once more, never once per turn.
    """

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, memory_id: object) -> bool:
        with self._lock:
            return memory_id in self._ids

    def add(self, *memory_ids: str) -> None:
        with self._lock:
            for memory_id in memory_ids:
                self._ids[memory_id] = None
                self._ids.move_to_end(memory_id)
            while len(self._ids) > self.limit:
                self._ids.popitem(last=False)


def _remark(role: str, text: str) -> str:
    """The key of a remark: who said it and what it says up to case, punctuation and filler words."""
    return hashlib.sha256(repr((role, fact_signature(text))).encode()).hexdigest()[:32]


def archive_turns(engine: ConversationStore, user_id: str, session_id: str, turns: Sequence[Sequence[Message]],
                  settled: ArchivedMessages | None = None) -> int:
    """Keep the user and assistant messages of ``turns`` as conversation memories (see the module docstring), in
    one batch write. Returns how many memories were written (repeats and pieces already stored are not).
    ``settled``: the store's archived messages in this process (:class:`ArchivedMessages`: passed over; the
    messages settled now join them)."""
    if not engine.parts.config.conversation_memories:
        return 0
    items: list[MemoryItem] = []
    ids: list[str] = []
    batch_remarks: dict[str, int] = {}
    for turn in turns:
        lines = [(index, message, role, text) for index, message in enumerate(turn)
                 if (role := speaker(message.role)) is not None and (text := " ".join(message.content.split()))
                 and should_recall(text)]  # what may be kept of the turn: user and assistant lines that say something
        if settled is not None and all(conversation_id(user_id, session_id, message.turn, index, piece) in settled
                                       for index, message, _role, text in lines for piece in range(len(_pieces(text)))):
            continue  # kept, found kept or counted as a repeat by an earlier archive of this buffer
        # the assistant's reply to a turn in which the user only asked is an answer drawn from memory, not news
        asked = [m for m in turn if speaker(m.role) == "user" and m.content.strip()]
        answers_question = bool(asked) and all(is_question(m.content) for m in asked)
        question = question_key(" ".join(m.content for m in asked)) if answers_question else ""
        allowed = lines_allowed([(speaker(m.role) or m.role, m.content) for m in turn])  # whole, together, once
        for index, message, role, text in lines:
            if not allowed[index]:
                continue
            for piece_no, piece in enumerate(_pieces(text)):
                mid = conversation_id(user_id, session_id, message.turn, index, piece_no)
                if settled is not None and mid in settled:
                    continue
                if engine.reads.record(mid, include_inactive=True) is not None:
                    if settled is not None:
                        settled.add(mid)
                    continue  # archived before a crash, or since deleted: either way not again
                remark = _remark(role, piece)
                held = engine.lookups.find_by_metadata(user_id, "remark", remark, [MemoryType.SHORT_TERM])
                if held is not None:
                    engine.writes.note_repeat(held, "conversation", at=message.created_at)  # when said again
                    if settled is not None:
                        settled.add(mid)  # counted once: its id stays absent, so nothing else would say so
                    continue
                if remark in batch_remarks:
                    continue
                batch_remarks[remark] = len(items)
                meta = {"kind": CONVERSATION_KIND, "role": role, "turn": message.turn, "remark": remark,
                        "source": "conversation"}
                if role == "assistant" and answers_question:
                    meta.update(answers="question", question=question)
                items.append(MemoryItem(piece, user_id, session_id, MemoryType.SHORT_TERM, CONVERSATION_IMPORTANCE,
                                        (), meta, message.created_at or None))
                ids.append(mid)
    if items:
        engine.writes.add_items(items, LIFECYCLE, dialogue=True, memory_ids=ids)
        if settled is not None:
            settled.add(*ids)
    return len(items)


def archive_completed(engine: ConversationStore, user_id: str, session_id: str, open_turn: bool = False,
                      settled: ArchivedMessages | None = None) -> int:
    """Keep the session's completed turns (those the assistant answered, and every turn before the last) as
    conversation memories now, without waiting for them to leave the ring: what was said is findable from the next
    session on, however the last one ended. Turns already kept are skipped (their ids exist).

    ``open_turn``: keep the last turn too when the user's message in it is still unanswered — a session a previous
    process left open (it ended or crashed before the answer): the user said it, and no answer is coming from that
    process. An answer written later joins the same turn and is kept beside it; the user's message is not kept
    again (its id exists), and is promoted once, when the session ends."""
    turns = engine.parts.sessions.turns(user_id, session_id)
    if turns and not open_turn and all(m.role in USER_ROLES for m in turns[-1]):
        turns = turns[:-1]  # the open turn: its answer is still to come
    return archive_turns(engine, user_id, session_id, turns, settled) if turns else 0


def erase_said(
    engine: ConversationStore, user_id: str, session_id: str, turns: Sequence[Sequence[Message]]
) -> list[MemoryRecord]:
    """The conversation memories kept from ``turns``, active or not (an undo erases them: the user took them back)."""
    found = []
    for turn in turns:
        for index, message in enumerate(turn):
            pieces = len(_pieces(" ".join(message.content.split()))) or 1
            for piece in range(pieces):
                rec = engine.reads.record(conversation_id(user_id, session_id, message.turn, index, piece),
                                    include_inactive=True)
                if rec is not None:
                    found.append(rec)
    return found


def end_session(engine: ConversationStore, user_id: str, session_id: str, settled: ArchivedMessages | None = None) -> int:
    """A session ended: archive its buffered turns past the archive mark (conversation memories) and queue what the
    user said in them for promotion, moving the mark. The buffer itself stays (a session that goes on keeps its
    context); its turns are not archived again when they leave the ring. Returns the memories written."""
    sessions = engine.parts.sessions
    mark = sessions.archived_turn(user_id, session_id)
    turns = [t for t in sessions.turns(user_id, session_id) if t and t[0].turn > mark]
    if not turns:
        return 0
    written = archive_turns(engine, user_id, session_id, turns, settled)
    sessions.mark_archived(user_id, session_id, turns[-1][0].turn, [user_words(t) for t in turns], engine.parts.now(),
                           said_at=[t[0].created_at for t in turns])
    return written
