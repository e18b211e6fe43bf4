"""The LLM protocol the core uses: prompt in, text out, sync and async.

The adapters wrap the host framework's model onto it (a LangChain ``BaseLanguageModel``, a LlamaIndex ``LLM``);
the core never imports a framework. When no LLM is configured, deterministic fallbacks stand in: the extractive
summarizer (:mod:`hermes_memory_core.short_term.summarizer`) and the rule-based classifier and normaliser
(:mod:`hermes_memory_core.lifecycle.classifier`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

__all__ = ["LLM", "MODEL_WORKERS", "CallableLLM", "ModelPool", "StructuredLLM", "aask", "ask", "ask_json", "default_pool"]

logger = logging.getLogger("hermes_memory")

#: Threads of one :class:`ModelPool`: the most model calls of one store that run at once, and so the most
#: threads a hanging model can hold in that store.
MODEL_WORKERS = 4


_Job = tuple[concurrent.futures.Future[Any], Callable[..., Any], tuple[Any, ...], float]


class ModelPool:
    """The threads that wait on the host's model for one store (the engine owns one and closes it with itself).

    The bound: at most ``workers`` calls (:data:`MODEL_WORKERS`, 4) run at once, each on a daemon thread of this
    pool, and at most ``4 * workers`` wait in line behind them. Whoever asked stops waiting at its own timeout
    (counted from the moment it asked, waiting in line included) and its call is withdrawn if it has not
    started. While a call is still running after its caller stopped waiting (the model hangs, or is far slower
    than the timeouts allow), new calls fail at once instead of queueing behind it: the callers fall back as
    without a model until that call returns. So a model that hangs holds at most ``workers`` threads of this
    pool (in practice one: later calls are refused) until it returns, a caller waits at most its timeout (and
    not at all once the model is known to hang), another store's pool is never affected, and :meth:`close`
    returns at once: calls not started are cancelled, callers still waiting are answered with an error, and a
    running call finishes on its own thread (a daemon thread: it never keeps the process from exiting).

    Args:
        workers: Calls that run at once.
        name: Thread name prefix.
    """

    def __init__(self, workers: int = MODEL_WORKERS, name: str = "hermes-llm") -> None:
        if workers < 1:
            raise ValueError("a model pool needs at least one worker")
        self.workers = workers
        self._name = name
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._running: dict[int, float] = {}  # thread -> when its caller stops waiting
        self._futures: dict[int, concurrent.futures.Future[Any]] = {}  # thread -> the call it runs
        self._waiting = 0
        self._lock = threading.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (later calls fail at once)."""
        return self._closed

    def submit(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> concurrent.futures.Future[Any]:
        """Run ``fn(*args)`` on a thread of this pool. The future has failed already when the pool is closed,
        when a running call's caller has stopped waiting (the model hangs: a new call would likely wait in vain),
        or when ``4 * workers`` calls wait in line.

        Args:
            timeout: How long the caller will wait (while the call runs, the thread counts as stuck after it).
        """
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            now = time.monotonic()
            why = ("the store's model pool is closed" if self._closed
                   else "the model hangs: a call of this store is still running after its caller gave up"
                   if any(d < now for d in self._running.values())
                   else "too many model calls wait" if self._waiting >= 4 * self.workers else None)
            if why is not None:
                future.set_exception(RuntimeError(why))
                return future
            self._waiting += 1
            deadline = float("inf") if timeout is None else now + timeout
            if not self._threads:  # started with the first call: a store that never asks its model holds none
                for i in range(self.workers):
                    thread = threading.Thread(target=self._work, name=f"{self._name}-{i}", daemon=True)
                    self._threads.append(thread)
                    thread.start()
            self._queue.put((future, fn, args, deadline))
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, fn, args, deadline = item
            me = threading.get_ident()
            with self._lock:
                self._waiting -= 1
                if self._closed:  # taken from the line as close() emptied it: never run, its caller is answered
                    future.cancel()
                    continue
                running = future.set_running_or_notify_cancel()
                if running:
                    self._running[me] = deadline
                    self._futures[me] = future
            if not running:
                continue
            try:
                result = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, who decides
                with contextlib.suppress(concurrent.futures.InvalidStateError):  # failed by close() meanwhile
                    future.set_exception(exc)
            else:
                with contextlib.suppress(concurrent.futures.InvalidStateError):
                    future.set_result(result)
            finally:
                with self._lock:
                    self._running.pop(me, None)
                    self._futures.pop(me, None)

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float) -> Any:
        """``fn(*args)`` on this pool, waited for at most ``timeout`` seconds (then withdrawn if not started).

        Raises:
            concurrent.futures.TimeoutError: No answer in time.
            Exception: Whatever ``fn`` raised, or RuntimeError when the pool is closed.
        """
        future = self.submit(fn, *args, timeout=timeout)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    def close(self) -> None:
        """Cancel calls not started and let the threads end (a running call is not waited for). Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            threads = len(self._threads)
            running = list(self._futures.values())
        for future in running:  # whoever still waits on a running call is answered now
            with contextlib.suppress(concurrent.futures.InvalidStateError):
                future.set_exception(RuntimeError("the store's model pool is closed"))
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
                with self._lock:
                    self._waiting -= 1
        for _ in range(threads):
            self._queue.put(None)


#: The pool of model calls made without a store's (an :class:`~hermes_memory_core.lifecycle.classifier.
#: LLMClassifier` built by hand, say); a store's own calls run on the store's pool.
_DEFAULT_POOL = ModelPool(name="hermes-llm-default")


def default_pool() -> ModelPool:
    """The shared pool of model calls made outside a store (see :class:`ModelPool`)."""
    return _DEFAULT_POOL


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


def ask(llm: LLM, prompt: str, timeout: float, pool: ModelPool | None = None) -> str | None:
    """Call ``llm.complete`` on ``pool`` (the store's; None: a shared default) with a timeout. Returns None on
    timeout, exception or a non-text answer.

    The caller falls back to its deterministic path on None; a slow or broken model never breaks memory.
    """
    try:
        answer = (pool or _DEFAULT_POOL).call(llm.complete, prompt, timeout=timeout)
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


def ask_json(
    llm: Any, prompt: str, schema: dict[str, Any], timeout: float, pool: ModelPool | None = None
) -> dict[str, Any] | None:
    """Structured answer from a :class:`StructuredLLM` (on ``pool`` as in :func:`ask`), or None (not supported,
    failed, timed out)."""
    if not isinstance(llm, StructuredLLM):
        return None
    try:
        answer = (pool or _DEFAULT_POOL).call(llm.complete_json, prompt, schema, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - includes the timeout; the text path is tried next
        logger.info("hermes_memory: structured output unavailable (%s); parsing text instead", exc)
        return None
    return answer if isinstance(answer, dict) else None
