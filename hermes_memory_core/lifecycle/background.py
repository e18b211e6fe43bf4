"""Background work of the tier lifecycle: compaction of overflowing session buffers and promotion of what
their evicted turns held, on one worker thread, off the chat path.

Jobs are idempotent and their inputs are durable (the buffered messages, the promotion queue), so a job lost with
a killed process is found again by :meth:`BackgroundLifecycle.resume` at the next start.
"""

from __future__ import annotations

from collections.abc import Hashable

from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.lifecycle.health import ClassifierHealth
from hermes_memory_core.lifecycle.promotion import LLMResolver, compact_session, promote_queued
from hermes_memory_core.lifecycle.worker import BackgroundWorker
from hermes_memory_core.lifecycle.xlang import TermWriter

__all__ = ["BackgroundLifecycle"]


class BackgroundLifecycle:
    """Runs compactions and promotions for one engine.

    Args:
        engine: The open store.
        llm_for: The host model for a session's work (None: the deterministic fallbacks).
    """

    def __init__(self, engine: MemoryEngine, llm_for: LLMResolver) -> None:
        self.engine = engine
        self.llm_for = llm_for
        self.health = ClassifierHealth()  # how many of the model's classifications could be read
        self.worker = BackgroundWorker(self._run)
        self.terms = TermWriter(engine, llm_for)

    def schedule_compaction(self, user_id: str, session_id: str) -> None:
        """Summarise the session's overflowing turns soon (coalesced with a pending job for it)."""
        self.worker.submit(("compact", user_id, session_id))

    def resume(self) -> None:
        """Re-submit work a previous process left undone (overflowing buffers, queued promotions)."""
        for user_id, session_id in self.engine.sessions.overflowing(self.engine.config.ring_size):
            self.schedule_compaction(user_id, session_id)
        if self.engine.sessions.queued(1):
            self.worker.submit(("promote",))
        if self.llm_for("", None) is not None:  # the provider's own model (sessions bring theirs when they open)
            self.schedule_terms()

    def schedule_terms(self) -> None:
        """Give memories written since the last sweep their other-language key terms soon (see
        :mod:`~hermes_memory_core.lifecycle.xlang`; coalesced with a pending sweep)."""
        self.worker.submit(("xlang",))

    def drain(self) -> None:
        """Block until every submitted job has run."""
        self.worker.drain()

    def close(self) -> None:
        """Drain, then stop the worker."""
        self.worker.close()

    def _run(self, job: Hashable) -> None:
        if self.engine.closed or not isinstance(job, tuple):
            return
        if job[0] == "xlang":
            self.terms.sweep()
            return
        if job[0] == "compact":
            compact_session(self.engine, job[1], job[2], self.llm_for(job[1], job[2]))
        if promote_queued(self.engine, self.llm_for, self.health):
            self.schedule_terms()  # promoted memories get their key terms too
