"""Recall's ordering rules: what goes first in a turn's recall, each rule a function named for what it decides.

- :func:`on_topic_first` — the user's fact on the question's topic before lines that merely sound alike;
- :func:`speaker_first` — for a question about the user alone, what the user said before the assistant's lines;
- :func:`said_about_first` — for a question about what was said, the lines holding its words;
- :func:`close_to_best` — profile and fact memories far below the best leave;
- :func:`about_user_alone` / :func:`asks_about_talk` — which kind of question it is.
"""

from __future__ import annotations

import re

from hermes_memory_core.lifecycle.classifier import fact_key_of
from hermes_memory_core.text.perspective import has_first_person
from hermes_memory_core.text.tokenizer import tokenize, tokenize_query
from hermes_memory_core.trust.authority import passed_on_text
from hermes_memory_core.types import MemoryHit, MemoryType

__all__ = ["ADDRESSED", "about_user_alone", "asks_about_talk", "close_to_best", "on_topic", "on_topic_first",
           "passed_on", "said_about_first", "speaker_first"]


def on_topic(hit: MemoryHit, topics: frozenset[str]) -> bool:
    """Whether ``hit`` is the user's fact on one of ``topics``: keyed so when stored, or, for a profile or fact
    memory written without a key, by what it says ("The user lives in Hangzhou")."""
    if not topics or hit.is_conversation or hit.dialogue:
        return False
    key = hit.metadata.get("fact_key")
    if not isinstance(key, str) and hit.memory_type is not MemoryType.SHORT_TERM:
        key = fact_key_of(hit.content)
    return isinstance(key, str) and key.split("_", 1)[0] in topics


def on_topic_first(hits: list[MemoryHit], topics: frozenset[str], lead: str | None = None) -> list[MemoryHit]:
    """``hits`` with the keyed facts on the question's topics first (a question about where the user lives gets the
    user's current residence fact before memories that merely sound alike), each group in its order — the facts on
    the ``lead`` topic, the one the question asks most directly, before the others ("我做什么工作？": the job before the
    employer)."""
    if not topics:
        return hits
    first = [h for h in hits if on_topic(h, topics)]
    if lead is not None:
        led = frozenset({lead})
        first = [h for h in first if on_topic(h, led)] + [h for h in first if not on_topic(h, led)]
    return first + [h for h in hits if not on_topic(h, topics)]


#: A question that speaks to the assistant or of both speakers ("what did you suggest", "what did we decide").
ADDRESSED = re.compile(r"\b(?:you|your|yours|we|us|our)\b|你|您|我们|咱们", re.IGNORECASE)


def about_user_alone(query: str) -> bool:
    """Whether a question asks about the user alone ("What instrument do I play?"), not about what the assistant said
    or what both said ("what did you suggest?", "what did we decide?")."""
    return has_first_person(query) and not ADDRESSED.search(query)


#: A question about the conversation itself: what the user (or both) said, told, talked about, mentioned.
_ABOUT_TALK = re.compile(
    r"\b(?:i|we|you)\s+(?:\w+\s+)?(?:say|said|tell|told|asked|talk|talked|discuss|discussed|mention|mentioned|chat"
    r"|chatted)\b|\b(?:did|have)\s+(?:i|we)\s+(?:ever\s+)?ask\b"
    r"|\b(?:talk|talked|discuss|discussed|chat|chatted|conversation)\b.{0,30}?\b(?:last time|before|earlier|yesterday|"
    r"last week)\b|(?:我|我们|咱们|你)(?:上次|之前|刚才|以前|昨天|那天|都)*(?:说|聊|谈|讲|提|问)(?:过|了|到)",
    re.IGNORECASE)


def asks_about_talk(query: str) -> bool:
    """Whether a question asks what was said or asked ("What did I say about the weather?", "What did I ask you about
    the trip?", "What did we talk about last time?", "我们上次聊了什么？"): the lines of the conversation are its answer, however weakly the dense floor rates
    them against ordinary sentences, so recall keeps them."""
    return bool(_ABOUT_TALK.search(query))


_TALK_WORDS = frozenset(tokenize("say said tell told talk talked discuss discussed mention mentioned chat chatted last "
                                  "time before earlier yesterday week conversation"))


def said_about_first(hits: list[MemoryHit], query: str) -> list[MemoryHit]:
    """For a question about what was said, the hits whose own words hold one of the question's (English) words
    first — "What did I say about the weather?" gets the line about the weather before the greeting that merely sounds
    like a chat —, each group in its order."""
    words = {t for t in tokenize_query(query) if t.isascii()} - _TALK_WORDS
    if not words:
        return hits
    first = [h for h in hits if words & set(tokenize(h.content))]
    return first + [h for h in hits if all(h.id != f.id for f in first)]


def speaker_first(hits: list[MemoryHit], keep: frozenset[str] = frozenset()) -> list[MemoryHit]:
    """For a question about the user alone, what the user said — and what is kept about them — before the
    assistant's lines: the user is the authority on themselves, and a reply found by the question's words ("That's a
    fun instrument.") is context, not the answer. The hits in ``keep`` (the reply the user got when they asked this
    same question before) stay where they stand. Each group keeps its order."""
    mine = {h.id for h in hits if h.id in keep or (h.role != "assistant" and not passed_on(h))}
    return [h for h in hits if h.id in mine] + [h for h in hits if h.id not in mine]


def passed_on(hit: MemoryHit) -> bool:
    """Whether a line of a conversation holds someone else's words the user passed on (a quoted or forwarded
    message, another speaker's line: :func:`~hermes_memory_core.trust.authority.passed_on_text`)."""
    return (hit.is_conversation or hit.dialogue) and passed_on_text(hit.content)


def close_to_best(hits: list[MemoryHit], ratio: float, topics: frozenset[str] = frozenset(),
                  about_user: bool = False) -> list[MemoryHit]:
    """The hits without the profile and fact memories scoring below ``ratio`` of the best score (none dropped for
    ``ratio`` 0): a question about the user gets the fact that answers it and what competes with it, not the user's
    other facts. Keyed facts on the question's ``topics`` always stay; lines of a conversation (conversation
    memories, dialogue imports) are kept up to ``top_k``: what was said is found among many similar lines, and the
    evidence is often not the first of them. For a question ``about_user`` alone the assistant's replies do not set
    the bar (a reply that shares the question's words would push out the profile memory that answers it)."""
    if not hits or ratio <= 0:
        return hits
    bar = max((h.score for h in hits if not (about_user and h.role == "assistant")), default=0.0) * ratio
    return [h for h in hits if h.score >= bar or h.dialogue or h.is_conversation or on_topic(h, topics)]


