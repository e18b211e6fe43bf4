"""Moving memories between tiers: session compaction, promotion of evicted turns, ``remember``.

- **Compaction** (seed 003 §3.1): while a session holds more than ``ring_size`` turns, its oldest
  ``summarize_turns`` turns become a summary of at most ``summary_chunk_chars`` characters, appended to the
  running summary; their user content goes to the durable promotion queue. When the running summary passes
  ``summary_max_chars``, its older chunks are compressed again into one tighter chunk.
- **Promotion** (§4.2): queued content is classified; long-term content is normalised into one sentence;
  permanent facts with a known topic key supersede the current version (``update``: both versions stay).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_memory_core.lifecycle.classifier import Classification, LLMClassifier, RuleClassifier
from hermes_memory_core.llm import LLM
from hermes_memory_core.short_term.store import USER_ROLES
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer
from hermes_memory_core.trust.injection import check_memory_write
from hermes_memory_core.trust.permissions import LIFECYCLE, Caller
from hermes_memory_core.types import MemoryType

if TYPE_CHECKING:
    from hermes_memory_core.provider import MemoryProvider

__all__ = ["RememberResult", "classifier_for", "compact_session", "promote_queued", "remember", "summarizer_for"]

IMPORTANCE = {MemoryType.SHORT_TERM: 0.3, MemoryType.LONG_TERM: 0.6, MemoryType.PERMANENT: 0.9}
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class RememberResult:
    """What ``remember`` did.

    Attributes:
        id: The stored (or newly versioned) memory, or None when nothing was stored.
        memory_type: The tier the content was classified into.
        reason: The classifier's reason.
        action: ``added``, ``versioned`` (a permanent fact superseded), ``skipped`` (short-term content without
            a session) or ``rejected`` (the injection guard refused it; nothing stored).
        content: What was stored (the normalised sentence for long-term memories).
    """

    id: str | None
    memory_type: MemoryType
    reason: str
    action: str
    content: str | None = None


def summarizer_for(llm: LLM | None, timeout: float) -> Any:
    return LLMSummarizer(llm, timeout) if llm is not None else ExtractiveSummarizer()


def classifier_for(llm: LLM | None, timeout: float) -> Any:
    return LLMClassifier(llm, timeout) if llm is not None else RuleClassifier()


def compact_session(provider: MemoryProvider, user_id: str, session_id: str, llm: LLM | None) -> int:
    """Summarise overflowing turns of one session. Returns how many chunks were appended."""
    cfg = provider.config
    summarizer = summarizer_for(llm, cfg.llm_timeout_seconds)
    appended = 0
    while True:
        turns = provider.sessions.turns(user_id, session_id)
        if len(turns) <= cfg.ring_size:
            break
        oldest = turns[: cfg.summarize_turns]
        pairs = [(m.role, m.content) for turn in oldest for m in turn]
        summary = summarizer.summarize(pairs, cfg.summary_chunk_chars)
        promote = [" ".join(m.content for m in turn if m.role in USER_ROLES) for turn in oldest]
        numbers = [turn[0].turn for turn in oldest]
        if not provider.sessions.commit_compaction(user_id, session_id, numbers, summary, promote, provider._now()):
            break
        appended += 1
        chunks = provider.sessions.chunks(user_id, session_id)
        if sum(len(c.text) for c in chunks) > cfg.summary_max_chars and len(chunks) > 1:
            older = chunks[:-1]
            tight = summarizer.compress([c.text for c in older], cfg.summary_max_chars // 2)
            provider.sessions.replace_chunks(user_id, session_id, [c.id for c in older], tight, provider._now())
    return appended


def promote_queued(provider: MemoryProvider, llm_for: Any) -> int:
    """Classify and store everything in the promotion queue. Returns how many entries were processed."""
    done = 0
    while True:
        batch = provider.sessions.queued()
        if not batch:
            return done
        finished: list[int] = []
        failed: list[int] = []
        for entry_id, user_id, session_id, content, _attempts in batch:
            try:
                remember(provider, content, user_id=user_id, session_id=session_id, llm=llm_for(user_id, session_id),
                         source="user", caller=LIFECYCLE, origin="evicted_turn")
                finished.append(entry_id)
            except Exception:  # noqa: BLE001 - retried up to MAX_ATTEMPTS, then dropped (it stays in the summary)
                failed.append(entry_id)
        provider.sessions.dequeue(finished)
        if failed:
            provider.sessions.retry_later(failed, MAX_ATTEMPTS)
        done += len(batch)


def remember(
    provider: MemoryProvider,
    content: str,
    *,
    user_id: str,
    session_id: str | None = None,
    llm: LLM | None = None,
    source: str = "user",
    caller: Caller = LIFECYCLE,
    origin: str = "explicit",
) -> RememberResult:
    """Classify ``content`` and store it in the tier it belongs to (see :meth:`MemoryProvider.remember`)."""
    classifier = classifier_for(llm, provider.config.llm_timeout_seconds)
    decision: Classification = classifier.classify(content)
    return store_decision(provider, content, decision, classifier, user_id=user_id, session_id=session_id,
                          source=source, caller=caller, origin=origin)


def store_decision(
    provider: MemoryProvider,
    content: str,
    decision: Classification,
    classifier: Any,
    *,
    user_id: str,
    session_id: str | None,
    source: str,
    caller: Caller,
    origin: str,
) -> RememberResult:
    tier = decision.memory_type
    reason = decision.reason
    verdict = check_memory_write(content, source)
    if not verdict.allow_long_term:
        return RememberResult(None, tier, verdict.reason, "rejected")
    if tier is MemoryType.PERMANENT and not verdict.allow_permanent:
        tier, reason = MemoryType.SHORT_TERM, f"{verdict.reason} (classified permanent: {decision.reason})"
    if tier is MemoryType.PERMANENT and not caller.write_permanent:
        tier, reason = MemoryType.SHORT_TERM, f"caller {caller.name!r} may not write permanent memories"
    decision = Classification(tier, reason, decision.key)
    meta: dict[str, Any] = {"source": origin if source == "user" else source, "reason": decision.reason}
    if tier is MemoryType.SHORT_TERM:
        if session_id is None:
            return RememberResult(None, tier, decision.reason, "skipped")
        mid = provider.add(content, user_id=user_id, session_id=session_id, memory_type=tier,
                           importance=IMPORTANCE[tier], metadata=meta)
        return RememberResult(mid, tier, decision.reason, "added", content)
    if tier is MemoryType.LONG_TERM:
        text = classifier.normalize(content)
        if decision.key:
            meta["fact_key"] = decision.key
        mid = provider.add(text, user_id=user_id, session_id=session_id, memory_type=tier,
                           importance=IMPORTANCE[tier], metadata=meta)
        return RememberResult(mid, tier, decision.reason, "added", text)
    text = classifier.normalize(content)
    if decision.key:
        meta["fact_key"] = decision.key
        current = provider.metadata.find_current_fact(user_id, decision.key)
        if current is not None:
            provider.update(current, text, version_note=f"superseded: {decision.reason}", user_id=user_id,
                            caller=caller)
            return RememberResult(current, tier, decision.reason, "versioned", text)
    mid = provider.add(text, user_id=user_id, session_id=session_id, memory_type=tier,
                       importance=IMPORTANCE[tier], metadata=meta, caller=caller)
    return RememberResult(mid, tier, decision.reason, "added", text)
