"""Moving memories between tiers: session compaction, promotion of evicted turns, ``remember``.

- **Compaction** (seed 003 §3.1): while a session holds more than ``ring_size`` turns, its oldest
  ``summarize_turns`` turns become a summary of at most ``summary_chunk_chars`` characters, appended to the
  running summary; their user content goes to the durable promotion queue. When the running summary passes
  ``summary_max_chars``, its older chunks are compressed again into one tighter chunk.
- **Promotion** (§4.2): queued content is classified; long-term content is normalised into one sentence;
  permanent facts with a known topic key supersede the current version (``update``: both versions stay).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.lifecycle.classifier import Classification, Classifier, LLMClassifier, RuleClassifier
from hermes_memory_core.lifecycle.health import ClassifierHealth
from hermes_memory_core.llm import LLM
from hermes_memory_core.short_term.session import USER_ROLES
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, LLMSummarizer, Summarizer
from hermes_memory_core.trust.injection import check_memory_write
from hermes_memory_core.trust.permissions import LIFECYCLE, Caller
from hermes_memory_core.types import MemoryItem, MemoryType

__all__ = ["RememberResult", "classifier_for", "compact_session", "promote_queued", "remember", "summarizer_for"]

#: Finds the host model for a session's background work: ``(user_id, session_id) -> LLM | None``.
LLMResolver = Callable[[str, str | None], LLM | None]

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


def summarizer_for(llm: LLM | None, timeout: float) -> Summarizer:
    """The host model's summarizer, or the extractive fallback without one."""
    return LLMSummarizer(llm, timeout) if llm is not None else ExtractiveSummarizer()


def classifier_for(llm: LLM | None, timeout: float) -> Classifier:
    """The host model's classifier, or the rules without one."""
    return LLMClassifier(llm, timeout) if llm is not None else RuleClassifier()


def compact_session(engine: MemoryEngine, user_id: str, session_id: str, llm: LLM | None) -> int:
    """Summarise overflowing turns of one session. Returns how many chunks were appended."""
    cfg = engine.config
    sessions = engine.sessions
    summarizer = summarizer_for(llm, cfg.llm_timeout_seconds)
    appended = 0
    while True:
        turns = sessions.turns(user_id, session_id)
        if len(turns) <= cfg.ring_size:
            break
        oldest = turns[: cfg.summarize_turns]
        pairs = [(m.role, m.content) for turn in oldest for m in turn]
        summary = summarizer.summarize(pairs, cfg.summary_chunk_chars)
        if cfg.redact_summaries:
            summary = engine.redact_text(summary)
        promote = [" ".join(m.content for m in turn if m.role in USER_ROLES) for turn in oldest]
        numbers = [turn[0].turn for turn in oldest]
        if not sessions.commit_compaction(user_id, session_id, numbers, summary, promote, engine.now()):
            break
        appended += 1
        chunks = sessions.chunks(user_id, session_id)
        if sum(len(c.text) for c in chunks) > cfg.summary_max_chars and len(chunks) > 1:
            older = chunks[:-1]
            tight = summarizer.compress([c.text for c in older], cfg.summary_max_chars // 2)
            if cfg.redact_summaries:
                tight = engine.redact_text(tight)
            sessions.replace_chunks(user_id, session_id, [c.id for c in older], tight, engine.now())
    return appended


@dataclass(slots=True)
class _Plan:
    """What one piece of content will become: a result to report and, for writes, the item to store."""

    result: RememberResult
    item: MemoryItem | None = None


def _classify(classifier: Classifier, content: str, user_id: str, session_id: str | None,
              health: ClassifierHealth | None) -> Classification:
    """Classify, counting a model's answer in ``health`` (usable or not)."""
    decision = classifier.classify(content)
    if health is not None and isinstance(classifier, LLMClassifier):
        health.record(user_id, session_id, decision.usable, decision.reason)
    return decision


def promote_queued(engine: MemoryEngine, llm_for: LLMResolver, health: ClassifierHealth | None = None) -> int:
    """Classify everything in the promotion queue and store it, embedding each batch's new memories together
    (one batch write). Returns how many entries were processed; model classifications are counted in
    ``health``."""
    done = 0
    sessions = engine.sessions
    while True:
        batch = sessions.queued()
        if not batch:
            return done
        finished: list[int] = []
        failed: list[int] = []
        planned: list[tuple[int, _Plan]] = []
        for entry in batch:
            try:
                classifier = classifier_for(llm_for(entry.user_id, entry.session_id), engine.config.llm_timeout_seconds)
                decision = _classify(classifier, entry.content, entry.user_id, entry.session_id, health)
                planned.append((entry.id, plan_write(entry.content, decision, classifier,
                                                     user_id=entry.user_id, session_id=entry.session_id, source="user",
                                                     caller=LIFECYCLE, origin="evicted_turn")))
            except Exception:  # noqa: BLE001 - retried up to MAX_ATTEMPTS, then dropped (it stays in the summary)
                failed.append(entry.id)
        try:
            apply_plans(engine, [p for _e, p in planned], LIFECYCLE)
            finished.extend(e for e, _p in planned)
        except Exception:  # noqa: BLE001
            failed.extend(e for e, _p in planned)
        sessions.dequeue(finished)
        if failed:
            sessions.retry_later(failed, MAX_ATTEMPTS)
        done += len(batch)


def remember(
    engine: MemoryEngine,
    content: str,
    *,
    user_id: str,
    session_id: str | None = None,
    llm: LLM | None = None,
    source: str = "user",
    caller: Caller = LIFECYCLE,
    origin: str = "explicit",
    memory_type: MemoryType | None = None,
    importance: float | None = None,
    tags: tuple[str, ...] = (),
    health: ClassifierHealth | None = None,
) -> RememberResult:
    """Classify ``content`` and store it in the tier it belongs to (see :meth:`MemoryProvider.remember`)."""
    classifier = classifier_for(llm, engine.config.llm_timeout_seconds)
    if memory_type is None:
        decision = _classify(classifier, content, user_id, session_id, health)
    else:
        decision = Classification(memory_type, f"tier given by the caller ({memory_type.value})")
    plan = plan_write(content, decision, classifier, user_id=user_id,
                      session_id=session_id, source=source, caller=caller, origin=origin)
    if plan.item is not None and (importance is not None or tags):
        plan.item = replace(plan.item, importance=plan.item.importance if importance is None else importance,
                            tags=tags or plan.item.tags)
    return apply_plans(engine, [plan], caller)[0]


def plan_write(
    content: str,
    decision: Classification,
    classifier: Classifier,
    *,
    user_id: str,
    session_id: str | None,
    source: str,
    caller: Caller,
    origin: str,
) -> _Plan:
    """Apply the injection guard and the caller's permission to a classification; decide what to store."""
    tier = decision.memory_type
    reason = decision.reason
    verdict = check_memory_write(content, source)
    if not verdict.allow_long_term:
        return _Plan(RememberResult(None, tier, verdict.reason, "rejected"))
    if tier is MemoryType.PERMANENT and not verdict.allow_permanent:
        tier, reason = MemoryType.SHORT_TERM, f"{verdict.reason} (classified permanent: {decision.reason})"
    if tier is MemoryType.PERMANENT and not caller.write_permanent:
        tier, reason = MemoryType.SHORT_TERM, f"caller {caller.name!r} may not write permanent memories"
    meta: dict[str, object] = {"source": origin if source == "user" else source, "reason": reason}
    if tier is MemoryType.SHORT_TERM:
        if session_id is None:
            return _Plan(RememberResult(None, tier, reason, "skipped"))
        text = content
    else:
        text = classifier.normalize(content)
        rewritten = check_memory_write(text, source)
        if not rewritten.allow_long_term:  # a model's rewrite can turn a statement into an instruction
            return _Plan(RememberResult(None, tier, rewritten.reason, "rejected"))
        if decision.key:
            meta["fact_key"] = decision.key
    item = MemoryItem(content=text, user_id=user_id, session_id=session_id, memory_type=tier,
                      importance=IMPORTANCE[tier], metadata=meta)
    return _Plan(RememberResult(None, tier, reason, "added", text), item)


def apply_plans(engine: MemoryEngine, plans: list[_Plan], caller: Caller) -> list[RememberResult]:
    """Store planned writes: short- and long-term ones in one batch (one embedding batch); permanent facts
    one at a time, so a later fact with the same topic key supersedes an earlier one even within a batch."""
    results = [p.result for p in plans]
    batch = [(i, p.item) for i, p in enumerate(plans) if p.item is not None and p.item.memory_type is not MemoryType.PERMANENT]
    if batch:
        ids = engine.add_items([item for _i, item in batch], caller)
        for (i, _item), mid in zip(batch, ids, strict=True):
            results[i] = replace(results[i], id=mid)
    for i, p in enumerate(plans):
        if p.item is None or p.item.memory_type is not MemoryType.PERMANENT:
            continue
        key = p.item.metadata.get("fact_key") if p.item.metadata else None
        current = engine.find_fact(p.item.user_id, str(key)) if key else None
        if current is not None:
            rec = engine.owned(current, p.item.user_id, caller, write=True)
            engine.update(rec, p.item.content, f"superseded: {p.result.reason}")
            results[i] = replace(results[i], id=current, action="versioned")
        else:
            mid = engine.add_items([p.item], caller)[0]
            results[i] = replace(results[i], id=mid)
    return results

