"""Incremental summaries of evicted turns (docs/design.md#short-term-buffer-and-summaries): an LLM summarizer and an extractive fallback.

Both keep what a later turn needs to go on — the task goal, facts the user confirmed, open items — and respect a
character limit: at most 200 characters per appended chunk, so four evicted turns cost a prompt about as much as one
more turn, and tighter points when the running summary is compressed again past 500 characters, so the summary
never outgrows the 12 turns it stands beside (docs/design.md#short-term-buffer-and-summaries). Neither lets an instruction to the assistant into a summary, which goes
into every later prompt as system content: the extractive one never picks a sentence the injection guard flags,
and a model's summary passes :func:`~hermes_memory_core.trust.injection.sanitize_summary` before and after it is
cut to length.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from hermes_memory_core.llm import LLM, ModelPool, ask
from hermes_memory_core.text.questions import is_question
from hermes_memory_core.trust.injection import find_injection, sanitize_summary

__all__ = [
    "COMPRESS_PROMPT",
    "SUMMARY_PROMPT",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "clip",
]

SUMMARY_PROMPT = """You maintain the running memory of a conversation between a user and an AI assistant.
Summarize the turns below in at most {limit} characters, in the language of the conversation.
Keep: the user's task goal, facts the user confirmed, and open items still to be done. Drop greetings and filler.
Output only the summary text.

Turns:
{turns}"""

COMPRESS_PROMPT = """Compress these running-summary notes of a conversation into tighter points of at most {limit}
characters in total, in the same language. Keep the task goal, confirmed facts and open items; merge repeats.
Output only the points.

Notes:
{notes}"""


class Summarizer(Protocol):
    """Turns text into a summary of at most ``limit`` characters."""

    def summarize(self, turns: Sequence[tuple[str, str]], limit: int) -> str: ...

    def compress(self, notes: Sequence[str], limit: int) -> str: ...


def clip(text: str, limit: int) -> str:
    """Collapse whitespace and cut to ``limit`` characters, ending with an ellipsis when cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def render_turns(turns: Sequence[tuple[str, str]]) -> str:
    return "\n".join(f"{role}: {content}" for role, content in turns)


_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_SIGNAL = re.compile(
    r"\d|\b(?:need|want|goal|must|should|please|deadline|todo|to do|plan|decided|confirmed|prefer|will|next)\b"
    r"|需要|想要|目标|必须|应该|请|截止|计划|决定|确认|待办|下一步|还要|喜欢|要",
    re.IGNORECASE,
)


class ExtractiveSummarizer:
    """Deterministic fallback: keeps the most informative sentences of the user's messages, in order; the
    sentences that ask are left out (a turn that only asked adds nothing).

    A sentence scores by signals of goals, confirmed facts and open items (numbers, "need", "决定", ...);
    the best ones are kept in their original order until the limit is reached.
    """

    def summarize(self, turns: Sequence[tuple[str, str]], limit: int) -> str:
        user_lines = [c for r, c in turns if r in ("user", "human")] or [c for _r, c in turns]
        sentences: list[tuple[int, int, str]] = []
        for text in user_lines:
            for m in _SENTENCE.finditer(text):
                s = " ".join(m.group().split())
                # an instruction never becomes part of a summary, nor does a question (what the user asks is chat:
                # a summary of the questions asked tells the next turn nothing)
                if len(s) > 3 and find_injection(s) is None and not is_question(s):
                    sentences.append((len(sentences), len(_SIGNAL.findall(s)), s))
        if not sentences:
            return ""
        ranked = sorted(sentences, key=lambda x: (-x[1], x[0]))
        chosen: list[tuple[int, str]] = []
        used = 0
        for idx, _score, s in ranked:
            cost = len(s) + (2 if chosen else 0)
            if used + cost <= limit:
                chosen.append((idx, s))
                used += cost
        if not chosen:
            return clip(ranked[0][2], limit)
        return clip("; ".join(s for _i, s in sorted(chosen)), limit)

    def compress(self, notes: Sequence[str], limit: int) -> str:
        if not notes:
            return ""
        share = max(limit // len(notes) - 2, 8)
        return sanitize_summary(clip(" | ".join(clip(n, share) for n in notes), limit))


class LLMSummarizer:
    """Summaries from the host's model, clipped to the limit; the extractive summarizer on any failure."""

    def __init__(self, llm: LLM, timeout: float = 60.0, pool: ModelPool | None = None) -> None:
        self.llm = llm
        self.timeout = timeout
        self.pool = pool  # the store's model threads (None: the shared default)
        self.fallback = ExtractiveSummarizer()

    def summarize(self, turns: Sequence[tuple[str, str]], limit: int) -> str:
        answer = ask(self.llm, SUMMARY_PROMPT.format(limit=limit, turns=render_turns(turns)), self.timeout, self.pool)
        clean = sanitize_summary(answer) if answer else ""
        return sanitize_summary(clip(clean, limit)) if clean.strip() else self.fallback.summarize(turns, limit)

    def compress(self, notes: Sequence[str], limit: int) -> str:
        answer = ask(self.llm, COMPRESS_PROMPT.format(limit=limit, notes="\n".join(notes)), self.timeout, self.pool)
        clean = sanitize_summary(answer) if answer else ""
        return sanitize_summary(clip(clean, limit)) if clean.strip() else self.fallback.compress(notes, limit)
