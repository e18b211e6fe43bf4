"""Compaction of a session's ring (docs/design.md#short-term-buffer-and-summaries): while a session holds more than
``ring_size`` turns, its oldest ``summarize_turns`` turns become a summary of at most ``summary_chunk_chars``
characters, appended to the running summary, and what the user said in them goes to the durable promotion queue.
When the running summary passes ``summary_max_chars``, its older chunks are compressed again into one tighter chunk.

Turns leaving the ring that a session end has not archived yet are handed to the owner's ``archive`` first (the
lifecycle keeps them as conversation memories), so short-term memory needs nothing of the rooms that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.llm import LLM, ModelPool
from hermes_memory_core.short_term.session import USER_ROLES
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from hermes_memory_core.text.questions import without_questions
from hermes_memory_core.trust.injection import sanitize_summary
from hermes_memory_core.trust.read_verdicts import shown_summary
from hermes_memory_core.types import Message

__all__ = ["TurnArchiver", "compact_session", "summarizer_for", "user_words"]

#: Keeps turns that leave the ring: ``(user_id, session_id, turns) -> memories written``.
TurnArchiver = Callable[[str, str, Sequence[Sequence[Message]]], int]


def summarizer_for(llm: LLM | None, timeout: float, pool: ModelPool | None = None) -> Summarizer:
    """The host model's summarizer (its calls on ``pool``, the store's), or the extractive fallback without one."""
    return LLMSummarizer(llm, timeout, pool) if llm is not None else ExtractiveSummarizer()


def user_words(turn: Sequence[Message]) -> str:
    """What the user stated in one turn (the promotion queue's entry for it): their messages without the sentences
    that ask (what the user asks is chat, never knowledge; see :mod:`~hermes_memory_core.text.questions`)."""
    return " ".join(said for m in turn if m.role in USER_ROLES and (said := without_questions(m.content).strip()))


def compact_session(parts: StoreParts, user_id: str, session_id: str, llm: LLM | None, archive: TurnArchiver) -> int:
    """Summarise overflowing turns of one session (see the module docstring), handing the turns that leave the ring
    unarchived to ``archive``. Returns how many chunks were appended."""
    cfg = parts.config
    sessions = parts.sessions
    summarizer = summarizer_for(llm, cfg.llm_timeout_seconds, parts.model_pool)
    appended = 0
    while True:
        turns = sessions.turns(user_id, session_id)
        if len(turns) <= cfg.ring_size:
            break
        oldest = turns[: cfg.summarize_turns]
        pairs = [(m.role, m.content) for turn in oldest for m in turn]
        summary = sanitize_summary(summarizer.summarize(pairs, cfg.summary_chunk_chars))  # attacks split by turns
        if cfg.redact_summaries:
            summary = parts.redact_text(summary)
        mark = sessions.archived_turn(user_id, session_id)
        fresh = [turn for turn in oldest if turn[0].turn > mark]  # turns a session end has not archived yet
        archive(user_id, session_id, fresh)
        numbers = [turn[0].turn for turn in oldest]
        if not sessions.commit_compaction(user_id, session_id, numbers, summary, [user_words(t) for t in fresh],
                                          parts.now(), archived_through=max(numbers) if fresh else None,
                                          said_at=[t[0].created_at for t in fresh]):
            break
        appended += 1
        chunks = sessions.chunks(user_id, session_id)
        if sum(len(c.text) for c in chunks) > cfg.summary_max_chars and len(chunks) > 1:
            older = chunks[:-1]
            tight = sanitize_summary(summarizer.compress([c.text for c in older], cfg.summary_max_chars // 2))
            if cfg.redact_summaries:
                tight = parts.redact_text(tight)
            sessions.replace_chunks(user_id, session_id, [c.id for c in older], tight, parts.now())
    if appended:  # the summary the next turn shows is judged and redacted here, off the chat path (read_verdicts
        # keeps both), and so is the renderer's check of what the view shows
        redactor = parts.redactor if cfg.redact_summaries else None
        shown_summary(shown_summary(" ".join(c.text for c in sessions.chunks(user_id, session_id)), redactor))
    return appended
