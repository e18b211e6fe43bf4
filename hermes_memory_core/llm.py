"""The LLM protocol the core uses: prompt in, text out, sync and async.

The adapters wrap the host framework's model onto it (a LangChain ``BaseLanguageModel``, a LlamaIndex ``LLM``);
the core never imports a framework. When no LLM is configured, deterministic fallbacks stand in: the extractive
summarizer (:mod:`hermes_memory_core.short_term.summarizer`) and the rule-based classifier and normaliser
(:mod:`hermes_memory_core.lifecycle.classifier`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

__all__ = ["LLM", "CallableLLM", "StructuredLLM", "aask", "ask", "ask_json"]

logger = logging.getLogger("hermes_memory")

_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="hermes-llm")


@runtime_checkable
class LLM(Protocol):
    """A text-completion model: ``complete`` and its async twin ``acomplete``."""

    def complete(self, prompt: str) -> str:
        """Return the model's answer to ``prompt``."""

    async def acomplete(self, prompt: str) -> str:
        """Async twin of :meth:`complete`."""


@runtime_checkable
class StructuredLLM(Protocol):
    """Optional capability: a model that can answer with an object matching a JSON schema.

    Adapters implement it with the host's structured-output support when the model has it; ``None`` means
    "not supported here", and callers fall back to parsing text.
    """

    def complete_json(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any] | None: ...


class CallableLLM:
    """Adapts plain functions to :class:`LLM`.

    Args:
        fn: ``prompt -> text``.
        afn: Optional ``async prompt -> text``; without it ``acomplete`` runs ``fn`` in a worker thread.

    Example::

        llm = CallableLLM(lambda prompt: my_client.generate(prompt))
    """

    def __init__(self, fn: Callable[[str], str], afn: Callable[[str], Awaitable[str]] | None = None) -> None:
        self._fn = fn
        self._afn = afn

    def complete(self, prompt: str) -> str:
        return self._fn(prompt)

    async def acomplete(self, prompt: str) -> str:
        if self._afn is not None:
            return await self._afn(prompt)
        return await asyncio.to_thread(self._fn, prompt)


def ask(llm: LLM, prompt: str, timeout: float) -> str | None:
    """Call ``llm.complete`` with a timeout. Returns None on timeout, exception or a non-text answer.

    The caller falls back to its deterministic path on None; a slow or broken model never breaks memory.
    """
    future = _POOL.submit(llm.complete, prompt)
    try:
        answer = future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        logger.warning("hermes_memory: LLM call timed out after %.1fs; using the fallback", timeout)
        return None
    except Exception as exc:  # noqa: BLE001 - any model failure means "use the fallback"
        logger.warning("hermes_memory: LLM call failed (%s); using the fallback", exc)
        return None
    return answer if isinstance(answer, str) else None


async def aask(llm: LLM, prompt: str, timeout: float) -> str | None:
    """Async twin of :func:`ask`."""
    try:
        answer = await asyncio.wait_for(llm.acomplete(prompt), timeout)
    except TimeoutError:
        logger.warning("hermes_memory: LLM call timed out after %.1fs; using the fallback", timeout)
        return None
    except Exception as exc:  # noqa: BLE001
        logger.warning("hermes_memory: LLM call failed (%s); using the fallback", exc)
        return None
    return answer if isinstance(answer, str) else None


def ask_json(llm: Any, prompt: str, schema: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """Structured answer from a :class:`StructuredLLM`, or None (not supported, failed, timed out)."""
    if not isinstance(llm, StructuredLLM):
        return None
    future = _POOL.submit(llm.complete_json, prompt, schema)
    try:
        answer = future.result(timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - includes the timeout; the text path is tried next
        logger.info("hermes_memory: structured output unavailable (%s); parsing text instead", exc)
        return None
    return answer if isinstance(answer, dict) else None
