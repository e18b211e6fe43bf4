"""One daemon thread running submitted jobs in order, pending duplicates coalesced (see
:mod:`~hermes_memory_core.lifecycle.background` for the jobs)."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["BackgroundWorker"]

logger = logging.getLogger("hermes_memory")

#: A job: any hashable value (equal pending jobs coalesce); the lifecycle's are typed values.
J = TypeVar("J", bound=Hashable)


class BackgroundWorker(Generic[J]):
    """A single daemon thread running submitted jobs in order; duplicate pending jobs are coalesced.

    Args:
        run: Called with each job.
    """

    def __init__(self, run: Callable[[J], None]) -> None:
        self._run = run
        self._queue: queue.Queue[J | None] = queue.Queue()
        self._pending: set[J] = set()
        self._running: J | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified whenever a job finishes
        self._thread: threading.Thread | None = None
        self._closed = False
        self.errors = 0

    def submit(self, job: J) -> None:
        """Run ``job`` soon, after those submitted before it (nothing when an equal job is pending, or once closed)."""
        with self._lock:
            if self._closed or job in self._pending:
                return
            self._pending.add(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="hermes-memory-worker", daemon=True)
                self._thread.start()
        self._queue.put(job)

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                with self._lock:
                    self._pending.discard(job)
                    self._running = job
                self._run(job)
            except Exception:
                self.errors += 1
                logger.exception("hermes_memory: background job %r failed", job)
            finally:
                with self._lock:
                    self._running = None
                    self._idle.notify_all()
                self._queue.task_done()

    def settle(self, matches: Callable[[J], bool], timeout: float) -> bool:
        """Wait until no pending or running job ``matches``, at most ``timeout`` seconds; True when none is left.

        Called from the worker thread itself it returns at once (a job never waits for itself)."""
        if threading.current_thread() is self._thread:
            return False
        deadline = time.monotonic() + timeout
        with self._lock:
            while any(matches(job) for job in self._busy()):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
            return True

    def _busy(self) -> list[J]:
        return [*self._pending, *([] if self._running is None else [self._running])]

    def drain(self) -> None:
        """Block until every submitted job has run."""
        if self._thread is not None:
            self._queue.join()

    def close(self) -> None:
        """Drain, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join()
