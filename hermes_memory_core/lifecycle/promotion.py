"""Moving memories between tiers: promotion of evicted turns, ``remember``.

- **Compaction** of a session's ring lives with the ring (:mod:`~hermes_memory_core.short_term.compaction`; its
  names stay importable from here): it queues the user content of the turns it summarises for promotion.
- **Promotion** (docs/design.md#promotion-and-classification): queued content is classified; long-term content is normalised into one sentence.
- **One memory per fact** (:mod:`~hermes_memory_core.lifecycle.dedupe`): a statement a memory of the user
  already holds stores nothing new; that memory counts the repetition.
- **The user's own preferences about replies** (:mod:`~hermes_memory_core.trust.injection_preference`): "Please
  always reply in Chinese", said by the user on their own authority (``remember`` acting as the user, or promotion
  of what the user said in their session), becomes a long-term preference memory ("The user prefers replies in
  Chinese.", keyed by its topic so a new one versions it) instead of being refused as a standing order; the same
  words from a tool, another agent or a caller acting for someone else stay refused.
- **Changes become versions** (:mod:`~hermes_memory_core.lifecycle.updates`): a statement whose topic key matches
  an active long-term or permanent memory, or that reports a change of something a memory holds, becomes that
  memory's next version (both stay in ``history``); a permanent fact is superseded only with at least the
  authority it was written with. A statement holding several keyed facts is split, one memory per fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from hermes_memory_core.engine.faces import WithLookups, WithParts, WithReads, WithWrites
from hermes_memory_core.lifecycle.classifier import (
    Classification,
    Classifier,
    LLMClassifier,
    RuleClassifier,
    fact_key_of,
    is_hypothetical,
    not_a_fact,
    someone_elses_news,
    split_facts,
)
from hermes_memory_core.lifecycle.dedupe import find_duplicate, same_fact
from hermes_memory_core.lifecycle.health import ClassifierHealth
from hermes_memory_core.lifecycle.updates import (
    authority,
    claim_text,
    fact_authority,
    find_change_target,
    is_change,
)
from hermes_memory_core.llm import LLM, ModelPool
from hermes_memory_core.retrieval.gate import should_recall
from hermes_memory_core.retrieval.recall_policy import GENERIC_TERMS
from hermes_memory_core.short_term.compaction import compact_session, summarizer_for
from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.text.questions import is_question, sentences, without_questions
from hermes_memory_core.text.terms import document_terms
from hermes_memory_core.trust.authority import QUOTED, fact_subject, others_words
from hermes_memory_core.trust.injection import check_memory_write, find_injection
from hermes_memory_core.trust.injection_preference import (  # PREFERENCE_REASON: why a preference is kept as one
    PREFERENCE_KEYS,
    PREFERENCE_REASON,
    Preference,
    own_preference,
    standing_preference,
)
from hermes_memory_core.trust.permissions import LIFECYCLE, Caller
from hermes_memory_core.types import MemoryItem, MemoryRecord, MemoryType, RememberAction

__all__ = ["RememberResult", "classifier_for", "compact_session", "promote_queued", "remember", "summarizer_for"]


class PromotionStore(WithParts, WithLookups, WithReads, WithWrites, Protocol):
    """What promotion uses of the engine: the queue, duplicate and update lookups, record reads, writes."""


#: Finds the host model for a session's background work: ``(user_id, session_id) -> LLM | None``.
LLMResolver = Callable[[str, str | None], LLM | None]

#: Why a write is refused when the host model's classification says the content addresses the assistant.
MODEL_REFUSAL = "injection guard (host model): an instruction addressed to the assistant, not a fact"
#: Why a question is not remembered (what the user asks is chat: it stays a conversation line, never a profile entry,
#: a fact or a version of one).
QUESTION_REASON = "a question, not a statement: what the user asks is chat, kept only as a conversation line"
IMPORTANCE = {MemoryType.SHORT_TERM: 0.3, MemoryType.LONG_TERM: 0.6, MemoryType.PERMANENT: 0.9}
MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class RememberResult:
    """What ``remember`` did.

    Attributes:
        id: The stored (or newly versioned) memory, or None when nothing was stored.
        memory_type: The tier the content was classified into.
        reason: The classifier's reason.
        action: What was done (:class:`~hermes_memory_core.types.RememberAction`, a string enum): ``added``;
            ``duplicate`` (a memory of the user already holds this fact: nothing new is stored, ``id`` is that
            memory, which counts the repetition); ``versioned`` (a long-term or permanent memory on the same topic,
            or one this statement reports a change of, got it as its next version; ``id`` is that memory);
            ``kept_apart`` (it contradicts a fact written with more authority: stored as a long-term "the user
            says" memory beside it); ``skipped`` (short-term content without a session) or ``rejected`` (the
            injection guard refused it, or the host model's classification said it is an
            instruction addressed to the assistant; nothing stored).
        content: What was stored (the normalised sentence for long-term memories), or the memory's content for
            a duplicate.
        parts: When the content held several keyed facts, the result for each (this result is the first's).
    """

    id: str | None
    memory_type: MemoryType
    reason: str
    action: RememberAction
    content: str | None = None
    parts: tuple[RememberResult, ...] = ()


def classifier_for(llm: LLM | None, timeout: float, pool: ModelPool | None = None) -> Classifier:
    """The host model's classifier (its calls on ``pool``, the store's), or the rules without one."""
    return LLMClassifier(llm, timeout, pool) if llm is not None else RuleClassifier()


@dataclass(slots=True)
class _Plan:
    """What one piece of content will become: a result to report and, for writes, the item to store.

    Attributes:
        change: The content reports a change (it may version the memory it changes).
        topic: The keyed fact the user's own words state (:func:`~hermes_memory_core.lifecycle.classifier.
            fact_key_of`, read before any rewrite), which only a memory of the same fact may give way to.
        permanent_ok: The guard and the caller allow this content to change a permanent memory.
        weight: The claim's authority (see :func:`~hermes_memory_core.lifecycle.updates.authority`).
        news: The content says something is so now ("I'm now…", "现在…", or a change): with ``change``, what lets a
            host model's topic key version a memory the rules would key on no such topic.
    """

    result: RememberResult
    item: MemoryItem | None = None
    change: bool = False
    permanent_ok: bool = False
    weight: int = 0
    topic: str | None = None
    news: bool = False


def _classify(classifier: Classifier, content: str, user_id: str, session_id: str | None,
              health: ClassifierHealth | None) -> Classification:
    """Classify, counting a model's answer in ``health`` (usable or not)."""
    decision = classifier.classify(content)
    if health is not None and isinstance(classifier, LLMClassifier):
        health.record(user_id, session_id, decision.usable, decision.reason)
    return decision


def promote_queued(engine: PromotionStore, llm_for: LLMResolver, health: ClassifierHealth | None = None) -> int:
    """Classify everything in the promotion queue and store it, embedding each batch's new memories together
    (one batch write). Returns how many entries were processed; model classifications are counted in
    ``health``."""
    done = 0
    sessions = engine.parts.sessions
    while True:
        batch = sessions.queued()
        if not batch:
            return done
        finished: list[int] = []
        failed: list[int] = []
        planned: list[tuple[int, _Plan]] = []
        entries: list[int] = []  # planned without an error (their plans may be empty)
        for entry in batch:
            try:
                classifier = classifier_for(llm_for(entry.user_id, entry.session_id), engine.parts.config.llm_timeout_seconds,
                                            engine.parts.model_pool)
                # what the user said in their own session: their own words; what they asked is chat, never knowledge
                stated = without_questions(entry.content)
                parts, own = own_parts(split_facts(stated)) if stated.strip() else ([], False)
                plans = [plan_write(part, _classify(classifier, part, entry.user_id, entry.session_id, health),
                                    classifier, user_id=entry.user_id, session_id=entry.session_id,
                                    source=QUOTED if others_words(entry.content) else "user",
                                    caller=LIFECYCLE, origin="evicted_turn", own=own, said_at=entry.said_at)
                         for part in parts]
                # what was said is already kept as conversation memories: promotion adds only profile and facts
                planned.extend((entry.id, p) for p in plans if not (engine.parts.config.conversation_memories and p.item
                                                                    and p.item.memory_type is MemoryType.SHORT_TERM))
                entries.append(entry.id)
            except Exception:  # noqa: BLE001 - retried up to MAX_ATTEMPTS, then dropped (it stays in the summary)
                failed.append(entry.id)
        try:
            apply_plans(engine, [p for _e, p in planned], LIFECYCLE)
            finished.extend(entries)
        except Exception:  # noqa: BLE001
            failed.extend(entries)
        sessions.dequeue(finished)
        if failed:
            sessions.retry_later(failed, MAX_ATTEMPTS)
        done += len(batch)


def remember(
    engine: PromotionStore,
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
    classifier = classifier_for(llm, engine.parts.config.llm_timeout_seconds, engine.parts.model_pool)
    stated = without_questions(content)
    if not stated.strip():  # a question holds no fact about the user: nothing to remember (an attack is named so)
        verdict = check_memory_write(content, source)
        if not verdict.allow_long_term:
            return RememberResult(None, MemoryType.SHORT_TERM, verdict.reason, RememberAction.REJECTED)
        return RememberResult(None, MemoryType.SHORT_TERM, QUESTION_REASON, RememberAction.SKIPPED)
    plans = []
    parts, own = split_facts(stated), False
    source = QUOTED if source == "user" and others_words(content) else source  # someone else's words, as a whole
    if source == "user" and caller.user_id == user_id:  # on the user's own authority: a caller acting as that user
        parts, own = own_parts(parts)
    for part in parts:
        if memory_type is None:
            decision = _classify(classifier, part, user_id, session_id, health)
        else:
            decision = Classification(memory_type, f"tier given by the caller ({memory_type.value})")
        plan = plan_write(part, decision, classifier, user_id=user_id,
                          session_id=session_id, source=source, caller=caller, origin=origin, own=own)
        if plan.item is not None and (importance is not None or tags):
            plan.item = replace(plan.item, importance=plan.item.importance if importance is None else importance,
                                tags=tags or plan.item.tags)
        plans.append(plan)
    results = apply_plans(engine, plans, caller)
    return results[0] if len(results) == 1 else replace(results[0], parts=tuple(results))


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
    own: bool = False,
    said_at: int = 0,
) -> _Plan:
    """Apply the injection guard and the caller's permission to a classification; decide what to store.

    ``own``: the content is the user's own words on their own authority (see :func:`own_parts`); only then
    does a lasting preference about replies become a preference memory rather than a refused standing order.
    ``said_at``: when the user said it (a promoted turn's time), kept as the memory's creation time; 0: now."""
    if own and source == "user":
        pref = own_preference(content)
        if pref is not None:
            return _preference_plan(pref, user_id, session_id, origin, caller)
    tier = decision.memory_type
    reason = decision.reason
    if tier is not MemoryType.SHORT_TERM and is_question(content):  # whatever the classifier answered
        return _Plan(RememberResult(None, MemoryType.SHORT_TERM, QUESTION_REASON, RememberAction.SKIPPED))
    veto = not_a_fact(content)  # a wish, a remark about today, a request: no fact, whatever a model answered
    if veto is not None and tier is not MemoryType.SHORT_TERM:
        tier, reason = MemoryType.SHORT_TERM, f"rules: {veto} (classified {tier.value}: {reason})"
    verdict = check_memory_write(content, source)
    if not verdict.allow_long_term:
        return _Plan(RememberResult(None, tier, verdict.reason, RememberAction.REJECTED))
    if not verdict.own_words and tier is not MemoryType.SHORT_TERM:  # not the user's words: a note, never their profile
        tier, reason = MemoryType.SHORT_TERM, verdict.reason
    if decision.to_assistant:  # the host model, in the classification answer: an order to the assistant
        return _Plan(RememberResult(None, tier, MODEL_REFUSAL, RememberAction.REJECTED))
    if tier is MemoryType.PERMANENT and not verdict.allow_permanent:
        tier, reason = MemoryType.SHORT_TERM, f"{verdict.reason} (classified permanent: {decision.reason})"
    if tier is MemoryType.PERMANENT and not caller.may(user_id, write=True):
        # the user's own statement stays theirs as a profile memory; anyone else's claim stays in the session
        tier = MemoryType.LONG_TERM if source == "user" else MemoryType.SHORT_TERM
        reason = f"caller {caller.name!r} may not write permanent memories: stored as {tier.value}"
    meta: dict[str, object] = {"source": origin if source == "user" else source, "reason": reason}
    if source == "tool" and (subject := fact_subject(content)) is not None:
        meta["subject"] = subject  # what a system of record's value is about: a claim in chat on it stays below
    hypothetical = is_hypothetical(content)  # what is not so is no fact and changes none, whatever its words name
    if tier is MemoryType.SHORT_TERM and session_id is None and origin == "explicit" and source == "user" \
            and verdict.allow_permanent and decision.usable and not hypothetical:
        # asked to remember a first-person statement the rules found nothing lasting in: the user's word, kept in
        # their profile rather than dropped (there is no session to keep it with)
        tier, reason = MemoryType.LONG_TERM, f"{reason}; a first-person statement asked to be remembered"
    if tier is MemoryType.SHORT_TERM:
        if session_id is None:
            return _Plan(RememberResult(None, tier, reason, RememberAction.SKIPPED))
        text = content
    else:
        # a greeting or a thanks around the statement is no part of the fact ("Hi! I work as a data engineer.")
        said = [piece for piece in sentences(content) if should_recall(piece)]
        text = classifier.normalize(" ".join(said) if said else content)
        if is_question(text):  # a host model's rewrite (or its answer to it) can ask rather than state
            return _Plan(RememberResult(None, tier, QUESTION_REASON, RememberAction.SKIPPED))
        rewritten = check_memory_write(text, source)
        if not rewritten.allow_long_term:  # a model's rewrite can turn a statement into an instruction
            return _Plan(RememberResult(None, tier, rewritten.reason, RememberAction.REJECTED))
        if decision.key and veto is None and not (someone_elses_news(content)
                                                  and decision.key.split("_", 1)[0] != "family"):
            # (a model's key for "My sister lives in Paris" is not the user's residence: it versions nothing)
            meta["fact_key"] = decision.key
    item = MemoryItem(content=text, user_id=user_id, session_id=session_id, memory_type=tier,
                      importance=IMPORTANCE[tier], metadata=meta, created_at=said_at or None)
    return _Plan(RememberResult(None, tier, reason, RememberAction.ADDED, text), item,
                 change=is_change(content) and veto is None,  # (a hypothetical is vetoed)
                 permanent_ok=verdict.allow_permanent and caller.may(user_id, write=True),
                 weight=authority(caller, source),
                 topic="" if veto is not None else fact_key_of(content),
                 news=veto is None and (is_change(content) or bool(_NOW.search(content))))


#: Words saying a value holds now ("Now my favourite band is Radiohead", "我现在喜欢听周杰伦").
_NOW = re.compile(r"\b(?:now|nowadays|these days|anymore|any more|instead)\b|现在|如今|目前|改成|换成", re.IGNORECASE)


_SENTENCE = re.compile(r"(?<=[.!?;。！？；\n])\s*")
_CLAUSE = re.compile(r"(?<=[,，])\s*")


def _own_pieces(part: str) -> list[str] | None:
    """``part`` with each lasting preference about replies on its own and the rest kept together (cut at sentences,
    else at commas), or None when it holds none."""
    if own_preference(part) is not None:
        return [part]
    for cut in (_SENTENCE, _CLAUSE):
        pieces = [p for p in cut.split(part) if p.strip()]
        prefs = [p for p in pieces if own_preference(p) is not None]
        if prefs:
            rest = " ".join(p for p in pieces if own_preference(p) is None).strip(" ,，")
            return [*prefs, rest] if rest else prefs
    return None


def own_parts(parts: list[str]) -> tuple[list[str], bool]:
    """One message of the user's own, split into statements: each lasting preference about replies on its own
    (:func:`~hermes_memory_core.trust.injection_preference.own_preference`), and whether they may be kept as
    preferences — nothing else in the message is flagged by the guard. A message that also carries an order, a
    claim or a request to reveal comes back as it was, with False: each part is judged as before."""
    out: list[str] = []
    for part in parts:
        out.extend(_own_pieces(part) or [part])
    rest = [p for p in out if own_preference(p) is None]
    if len(rest) == len(out) or (rest and find_injection(" ".join(rest), "user") is not None):
        return parts, False
    return out, True


def _preference_plan(pref: Preference, user_id: str, session_id: str | None, origin: str, caller: Caller) -> _Plan:
    """A long-term preference memory keyed by its topic (a new reply language versions the old one)."""
    meta: dict[str, object] = {"source": origin, "reason": PREFERENCE_REASON, "fact_key": pref.key, "standing": pref.key}
    item = MemoryItem(content=pref.statement, user_id=user_id, session_id=session_id, memory_type=MemoryType.LONG_TERM,
                      importance=IMPORTANCE[MemoryType.LONG_TERM], metadata=meta)
    return _Plan(RememberResult(None, MemoryType.LONG_TERM, PREFERENCE_REASON, RememberAction.ADDED, pref.statement),
                 item, weight=authority(caller, "user"))


def apply_plans(engine: PromotionStore, plans: list[_Plan], caller: Caller) -> list[RememberResult]:
    """Store planned writes. Each is first checked against the user's memories (a duplicate, a new version, a
    claim kept apart: :func:`_settle`); what remains to be added waits and goes in one batch write (one embedding
    batch), written earlier whenever a later statement of the batch may concern it."""
    results = [p.result for p in plans]
    pending: list[tuple[int, MemoryItem]] = []

    def write_pending() -> None:
        if pending:
            ids = engine.writes.add_items([item for _i, item in pending], caller)
            for (i, item), mid in zip(pending, ids, strict=True):  # content as stored: redacted where configured
                results[i] = replace(results[i], id=mid,
                                     content=engine.parts.redact(item.content, MemoryType(item.memory_type))[0])
            pending.clear()

    for i, p in enumerate(plans):
        if p.item is None:
            continue
        if any(_may_concern(p, item) for _i, item in pending):
            write_pending()
        settled = _settle(engine, p, caller)
        if isinstance(settled, RememberResult):
            results[i] = settled
        elif settled.item is not None:
            results[i] = settled.result
            pending.append((i, settled.item))
    write_pending()
    return results


def _may_concern(plan: _Plan, waiting: MemoryItem) -> bool:
    """Whether a planned write may duplicate, version or change a write still waiting for the batch."""
    assert plan.item is not None
    if plan.item.user_id != waiting.user_id:
        return False
    key = plan.item.metadata.get("fact_key") if plan.item.metadata else None
    return plan.change or (key is not None and key == (waiting.metadata or {}).get("fact_key")) or same_fact(
        plan.item.content, waiting.content)


#: At most this many of a user's lasting memories are read to find the one that holds a fact.
_PROFILE_SCAN = 2000


def same_fact_target(
    engine: PromotionStore, user_id: str, key: str, tiers: tuple[MemoryType, ...]
) -> MemoryRecord | None:
    """The user's active memory of ``tiers`` that holds the keyed fact ``key`` (by its stored ``fact_key`` or by
    what it says, see :func:`~hermes_memory_core.lifecycle.classifier.fact_key_of`), the most recently changed
    one; None when no memory holds that fact."""
    now = engine.parts.now()
    flt = MemoryFilter(user_id, tuple(t.value for t in tiers), now=now)
    # the lifecycle reads as the lifecycle: a permanent fact read here is logged as such
    found = [rec for rec in engine.reads.list_records(user_id, flt.for_rows(now), _PROFILE_SCAN, 0, LIFECYCLE, now)
             if _holds_key(rec, key)]
    return max(found, key=lambda r: (r.updated_at, r.created_at), default=None)


def _holds_key(rec: MemoryRecord, key: str) -> bool:
    """Whether ``rec`` holds the keyed fact ``key``: what it says, as the rules key it now, or, where they key it on
    no topic, the key it was stored with. A fact stored under a topic the table has since split keeps to what it says
    ("The user works at Google", stored as ``occupation``, is the employer now: "I'm a nurse now" leaves it be)."""
    said = fact_key_of(rec.content)
    stored = rec.metadata.get("fact_key")
    return said == key or (stored == key and (said is None or said.split("_", 1)[0] == key.split("_", 1)[0]))


#: Words that name no subject of their own, beside recall's generic terms (a gloss of "用户", "喜欢", "现在").
_NO_SUBJECT = GENERIC_TERMS | frozenset("user consumer fond smile moment present alway also still really".split())


def _shares_subject(a: str, b: str) -> bool:
    """Whether two statements name a common subject: an English word (their own or a dictionary gloss of their
    Chinese) other than generic ones ("favourite band" in "My favourite band is Muse" / "Now my favourite band is
    Radiohead"; nothing in "I'm allergic to penicillin" / "I'm now learning piano")."""
    def words(text: str) -> set[str]:
        return {t for t in document_terms(text) if t.isascii() and t not in _NO_SUBJECT}
    return bool(words(a) & words(b))


def _family(key: str | None) -> str | None:
    """The topic family of a fact key ("family" of "family_partner"); None for no key."""
    return key.split("_", 1)[0] if key else None


def _dedupe_tiers(tier: MemoryType, caller: Caller) -> tuple[MemoryType, ...]:
    """Tiers a statement of ``tier`` is a duplicate in: its own and the lasting ones, permanent only for callers
    who may read it (else a duplicate would tell them what a sealed fact says)."""
    readable = (MemoryType.PERMANENT,) if caller.read_permanent else ()
    if tier is MemoryType.PERMANENT:
        return readable
    if tier is MemoryType.LONG_TERM:
        return (MemoryType.LONG_TERM, *readable)
    return (MemoryType.SHORT_TERM, MemoryType.LONG_TERM, *readable)


def _settle(engine: PromotionStore, p: _Plan, caller: Caller) -> RememberResult | _Plan:
    """What a planned write does to the user's memories: a duplicate (counted on the memory that holds it), a
    new version of a memory on the same topic or of the one it reports a change of, or a claim kept apart; else
    the plan, to add."""
    item = p.item
    assert item is not None
    tier = MemoryType(item.memory_type)
    duplicate = find_duplicate(engine.lookups, item.user_id, item.content, _dedupe_tiers(tier, caller), item.session_id)
    if duplicate is not None:
        engine.reads.require(duplicate, caller, write=False)
        engine.writes.note_repeat(duplicate.id, at=item.created_at)  # said again then, not when promoted
        return replace(p.result, id=duplicate.id, memory_type=duplicate.memory_type, action=RememberAction.DUPLICATE,
                       content=duplicate.content, reason=f"already remembered ({p.result.reason})")
    if tier is MemoryType.SHORT_TERM:
        return p
    key = (item.metadata or {}).get("fact_key")
    if key in PREFERENCE_KEYS and not standing_preference(item.content, item.metadata or {}):
        # only the user's own words key a reply preference: anyone else's is kept beside it, never versions it
        item = replace(item, metadata={**{k: v for k, v in (item.metadata or {}).items() if k != "fact_key"},
                                       "claim_about": key})
        p, key = replace(p, item=item), None
    found = engine.reads.find_fact(item.user_id, str(key), (tier,)) if key else None
    target, how = (engine.reads.record(found), "superseded") if found else (None, "")
    if target is not None and not _holds_key(target, str(key)):
        target = None  # stored under a key the table has since split, it says another fact now (see _holds_key)
    if target is not None and key not in PREFERENCE_KEYS and p.weight < 2 and not (
            _family(p.topic) == _family(str(key))
            or (p.news and (_family(fact_key_of(target.content)) == _family(str(key))
                            or _shares_subject(target.content, item.content)))):
        # a key alone never replaces a memory: a host model's key ("hobby", "pet", a catch-all "chat") on a statement
        # the rules put on no such topic is a memory of its own unless it says the value changed, of a memory the
        # rules read on that topic ("I've relocated to Lisbon" after "I live in Hangzhou") or of one it names the
        # subject of ("Now my favourite band is Radiohead" after "My favourite band is Muse"); not "I also play chess
        # online" after "I swim on Saturdays", "Biscuit hated the car ride" after "I have a border collie called
        # Biscuit", "I'm now learning piano" after "I'm allergic to penicillin" (a system of record's key and the
        # user's reply preferences keep their own rules)
        target = None
    if target is not None and key in PREFERENCE_KEYS and not standing_preference(target.content, target.metadata):
        target = None  # an older keyed memory nobody's own words set: the user's preference is added beside it
    lasting = (MemoryType.LONG_TERM, MemoryType.PERMANENT) if p.permanent_ok else (MemoryType.LONG_TERM,)
    topic = fact_key_of(item.content) if p.topic is None else p.topic  # "": what is no fact has no topic
    if target is None and topic is not None:
        # one fact, whoever worded it and in which language ("用户住在北京" / "I moved to Shanghai"); a statement
        # of a keyed fact never changes a memory of another fact, however many words or places they share
        target, how = same_fact_target(engine, item.user_id, topic, (tier,)), "superseded"
    elif target is None and p.change:
        target, how = find_change_target(engine.lookups, item.user_id, item.content, lasting), "changed"
    if target is None and p.weight < 2 and "disputes" not in (item.metadata or {}) \
            and (subject := fact_subject(item.content)) is not None:  # a claim on a value a tool wrote
        found = engine.lookups.find_by_metadata(item.user_id, "subject", subject,
                                                _dedupe_tiers(MemoryType.LONG_TERM, caller))
        fact = engine.reads.record(found) if found else None
        return p if fact is None else _kept_apart(engine, p, fact, caller)
    if target is not None and standing_preference(target.content, target.metadata) \
            and not standing_preference(item.content, item.metadata or {}):
        return p  # how the user wants to be answered changes only by their own words ("from now on…" by a tool is kept beside)
    if target is None:
        return p
    if target.memory_type is not MemoryType.PERMANENT and p.weight < fact_authority(target) == 2:
        return _kept_apart(engine, p, target, caller)  # a tool's value is not replaced by a weaker word
    if target.memory_type is MemoryType.PERMANENT:
        if not p.permanent_ok or p.weight < fact_authority(target):
            return _kept_apart(engine, p, target, caller)
        engine.reads.require(target, caller, write=True)
    engine.writes.update(target, item.content, f"{how}: {p.result.reason}", at=item.created_at)  # when it was said
    return replace(p.result, id=target.id, memory_type=target.memory_type, action=RememberAction.VERSIONED,
                   content=engine.parts.redact(item.content, target.memory_type)[0])  # as update stored it


def _kept_apart(engine: PromotionStore, p: _Plan, fact: MemoryRecord, caller: Caller) -> RememberResult | _Plan:
    """A claim about a fact written with more authority: a long-term "the user says" memory beside the fact."""
    assert p.item is not None
    meta = {k: v for k, v in (p.item.metadata or {}).items() if k != "fact_key"}
    meta.update({"claim_about": (p.item.metadata or {}).get("fact_key"), "disputes": fact.id})
    reason = f"kept apart: fact {fact.id} was written with more authority ({p.result.reason})"
    claim = _Plan(RememberResult(None, MemoryType.LONG_TERM, reason, RememberAction.KEPT_APART, claim_text(p.item.content)),
                  replace(p.item, content=claim_text(p.item.content), memory_type=MemoryType.LONG_TERM,
                          importance=IMPORTANCE[MemoryType.LONG_TERM], metadata=meta))
    return _settle(engine, claim, caller)

