"""Recall policy: which recalled lines may answer a question at all.

Asking never makes memory worse. A user asks about themselves, in chat, the way they ask anything — and what they
asked is kept, as a line of the conversation. That line holds no answer, yet it shares the next question's words
and form, so it would outrank the lines that do answer. Likewise the assistant's reply that it did not know ("I
don't have that information") shares the question's words and says nothing. Both leave a turn's recall:

- :func:`only_asks` — a line the user said that only asks (every sentence a question; see
  :mod:`~hermes_memory_core.text.questions`); a question about the conversation itself ("what did I ask you about
  the trip?") keeps them;
- :func:`says_unknown` — a short reply of the assistant that says it does not know or cannot find it.

What the assistant answered to an earlier question may help: :func:`replies_for_questions` gives each earlier
question's place (and its match) to the reply of its turn when that was found.
"""

from __future__ import annotations

import re
from dataclasses import replace

from hermes_memory_core.text.questions import is_question
from hermes_memory_core.types import MemoryHit

__all__ = ["holds_no_answer", "only_asks", "replies_for_questions", "says_unknown", "without_unanswering"]

#: A reply that says the assistant does not know, does not remember or has nothing on it.
_UNKNOWN = re.compile(
    r"\bi (?:do not|don't|dont|can't|cannot|can not|couldn't|could not) (?:know|remember|recall|find|see|tell|say)\b"
    r"|\bi(?:'m| am) not (?:sure|certain|aware)\b|\bno idea\b|\bi have no (?:idea|information|info|record|memory)\b"
    r"|\bi (?:do not|don't|dont) have (?:any |that |this |the |enough )?(?:information|info|details|record|data|memory)\b"
    r"|\byou (?:haven't|have not|never|didn't|did not) (?:told|tell|mentioned|mention|said|say|shared|share)\b"
    r"|\bnothing (?:about|on) (?:that|this|it)\b"
    r"|我不知道|不清楚|我不记得|我记不清|不太确定|我不确定|没有(?:相关|这方面的)?(?:信息|记录|资料|印象)|你(?:没|还没|从没)(?:有)?(?:告诉|说|提)",
    re.IGNORECASE,
)
#: Longer replies may say they are unsure of one thing and still hold others.
_SHORT_REPLY = 240


def only_asks(hit: MemoryHit) -> bool:
    """Whether ``hit`` is a line the user said that only asks (it holds no answer)."""
    return hit.is_conversation and hit.role != "assistant" and is_question(hit.content)


def says_unknown(hit: MemoryHit) -> bool:
    """Whether ``hit`` is a short reply of the assistant saying it does not know or cannot find the answer."""
    return hit.role == "assistant" and len(hit.content) <= _SHORT_REPLY and bool(_UNKNOWN.search(hit.content))


def holds_no_answer(hit: MemoryHit, about_talk: bool = False) -> bool:
    """Whether a recalled line can answer nothing: a line that only asks (unless the question is about what was
    said), or a reply that said it did not know."""
    return says_unknown(hit) or (not about_talk and only_asks(hit))


def without_unanswering(hits: list[MemoryHit], about_talk: bool = False) -> list[MemoryHit]:
    """``hits`` without the lines that hold no answer (:func:`holds_no_answer`), in their order."""
    return [h for h in hits if not holds_no_answer(h, about_talk)]


def _best(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def replies_for_questions(hits: list[MemoryHit]) -> list[MemoryHit]:
    """``hits`` where each line the user said that only asks (:func:`only_asks`) gives its place to the reply of its
    turn when that was found (the reply keeps the better of the two matches: it answers what was asked), unless
    that reply said it did not know. The questions themselves stay where they were (:func:`without_unanswering`
    drops them); other hits keep their order."""
    out: list[MemoryHit] = []
    for hit in hits:
        if only_asks(hit):
            turn = hit.metadata.get("turn")
            reply = next((r for r in hits if r.role == "assistant" and r.session_id == hit.session_id
                          and r.metadata.get("turn") == turn and not says_unknown(r)), None)
            if reply is not None:
                hit = replace(reply, score=max(reply.score, hit.score), relevance=max(reply.relevance, hit.relevance),
                              confidence=_best(reply.confidence, hit.confidence))
        if all(h.id != hit.id for h in out):
            out.append(hit)
    return out
