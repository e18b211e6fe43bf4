"""Optional LLM keyword extraction for the keyword leg (docs/design.md#how-search-finds-and-ranks).

A question such as "你还记得我上次说的那家咖啡店叫什么吗？" carries a handful of words that matter ("咖啡店") among
many that only add noise to BM25. When ``llm_keywords`` is on and the provider has an LLM, the host's model is
asked for the 2–3 most specific terms of the question, and the keyword leg searches those. Any failure — no
answer within ``llm_timeout_seconds``, an error, an answer with no usable term — falls back to the local
tokenizer, so a slow or broken model never breaks search. Answers are cached per question.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict

from hermes_memory_core.llm import LLM, ModelPool, ask

__all__ = ["KEYWORD_PROMPT", "KeywordExtractor", "parse_keywords"]

KEYWORD_PROMPT = (
    "You pick search keywords for a memory search. From the question below, give the 2 or 3 most specific words "
    "or short phrases that a stored memory answering it would contain: names, places, things, activities, "
    "dates. Leave out question words and filler. Keep the question's language. Answer with a JSON list of "
    'strings only, for example ["咖啡店", "上周"] or ["marathon", "Berlin"].\n\nQuestion: {question}'
)
_MAX_TERMS = 3
_MAX_TERM_CHARS = 40
_MAX_WORDS = 4


def parse_keywords(answer: str | None) -> list[str] | None:
    """The terms in a model's answer (a JSON list, or one term per line / comma), or None if there are none."""
    if not answer:
        return None
    terms: list[str] = []
    match = re.search(r"\[.*?\]", answer, re.S)
    if match:
        try:
            parsed = json.loads(match.group())
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            terms = [t for t in parsed if isinstance(t, str)]
            if not terms:
                return None
    if not terms:  # a model that ignored the format: accept a short list, never a sentence (a refusal, say)
        pieces = [p.strip().strip("\"'`*-•. ") for p in re.split(r"[\n,，、;；]+", answer)]
        if any(len(p.split()) > _MAX_WORDS for p in pieces):
            return None
        terms = pieces
    cleaned = [t.strip().strip("\"'`*-•. ") for t in terms]
    cleaned = [t for t in cleaned if t and len(t) <= _MAX_TERM_CHARS]
    return cleaned[:_MAX_TERMS] or None


class KeywordExtractor:
    """Asks an LLM for the key terms of a question, with a per-question LRU cache.

    Args:
        llm: The host's model.
        timeout: Seconds to wait for an answer.
        cache_size: Questions remembered.
    """

    def __init__(self, llm: LLM, timeout: float, cache_size: int = 1024, pool: ModelPool | None = None) -> None:
        self.llm = llm
        self.timeout = timeout
        self.pool = pool
        self._cache: OrderedDict[str, list[str] | None] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()

    def terms(self, question: str) -> list[str] | None:
        """2–3 key terms of ``question``, or None (use the local tokenizer)."""
        with self._lock:
            if question in self._cache:
                self._cache.move_to_end(question)
                return self._cache[question]
        terms = parse_keywords(ask(self.llm, KEYWORD_PROMPT.format(question=question), self.timeout, self.pool))
        with self._lock:
            self._cache[question] = terms
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return terms
