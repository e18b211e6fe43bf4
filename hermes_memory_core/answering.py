"""A plain search that returns the lines that can answer: what a retriever or a search tool hands a model.

:meth:`MemoryProvider.search` ranks every memory that matches, the user's own earlier questions and the assistant's
"I don't know" among them — and a question asked before matches the same question asked now better than the line
that answers it. :func:`search_answers` leaves those out (what the user only asked, a reply that did not know,
pleasantries, fillers: :func:`~hermes_memory_core.retrieval.recall_policy.holds_no_answer`,
:func:`~hermes_memory_core.context.says_something`) and reads further while they filled the page, so a store full of
questions still gives its answers. ``HermesRetriever``'s default mode and the Hermes Agent / MCP search tool use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from hermes_memory_core import validation as v
from hermes_memory_core.async_twins import async_twin
from hermes_memory_core.context import says_something
from hermes_memory_core.llm import LLM
from hermes_memory_core.retrieval.recall_policy import holds_no_answer
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import MemoryHit, MemoryType

__all__ = ["SLACK", "Searches", "answering", "asearch_answers", "search_answers"]

#: How many more memories a search reads than it returns, so that lines that answer nothing leave room for the next.
SLACK = 8


class Searches(Protocol):
    """What :func:`search_answers` needs of the store (:class:`~hermes_memory_core.provider.MemoryProvider` has it)."""

    def search(self, query: str, *, user_id: str, top_k: int = 5,
               memory_types: Iterable[MemoryType | str] | None = None, session_id: str | None = None,
               tags: Iterable[str] | None = None, time_range: tuple[float | None, float | None] | None = None,
               now: float | None = None, min_score: float | None = None, as_of: float | None = None,
               caller: Caller | None = None, llm: LLM | None = None) -> list[MemoryHit]: ...


def answering(hits: Sequence[MemoryHit]) -> list[MemoryHit]:
    """The hits that can answer something, in their order (what :func:`search_answers` keeps by default)."""
    return [h for h in hits if says_something(h) and not holds_no_answer(h)]


def search_answers(
    memory: Searches,
    query: str,
    *,
    user_id: str,
    top_k: int = 5,
    shown: Callable[[list[MemoryHit]], list[MemoryHit]] = answering,
    **filters: Any,
) -> list[MemoryHit]:
    """The best ``top_k`` memories that can answer ``query`` (see the module docstring), best first.

    Args:
        memory: The open store.
        query: The question or text to match.
        user_id: Whose memories (never anyone else's).
        top_k: How many to return (fewer when the store holds fewer that answer).
        shown: Which of a page's hits count, in order (default: those that can answer; a caller narrows it
            further, e.g. to what a prompt may show, by composing with :func:`answering`).
        **filters: Passed to ``memory.search`` as they are (``memory_types``, ``session_id``, ``tags``,
            ``time_range``, ``now``, ``caller``, ``llm``…).
    """
    size = top_k + SLACK
    while True:
        found = memory.search(query, user_id=user_id, top_k=size, **filters)
        kept = shown(found)
        if len(kept) >= top_k or len(found) < size or size >= v.MAX_TOP_K:
            return kept[:top_k]
        size = min(4 * size, v.MAX_TOP_K)

#: Async twin of :func:`search_answers` (same arguments; runs it in a worker thread).
asearch_answers = async_twin(search_answers)
