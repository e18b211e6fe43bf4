"""Background work of the tier lifecycle: compaction of overflowing session buffers, the end of sessions (their
turns kept as conversation memories), and promotion of what the user said in them, on one worker thread, off the
chat path.

Jobs are idempotent and their inputs are durable (the buffered messages, the promotion queue), so a job lost with
a killed process is found again by :meth:`BackgroundLifecycle.resume` at the next start.
"""

from __future__ import annotations

from collections.abc import Hashable

from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.lifecycle.conversation import archive_completed, archive_turns, end_session
from hermes_memory_core.lifecycle.health import ClassifierHealth
from hermes_memory_core.lifecycle.promotion import LLMResolver, promote_queued
from hermes_memory_core.lifecycle.worker import BackgroundWorker
from hermes_memory_core.lifecycle.xlang import TermWriter
from hermes_memory_core.short_term.compaction import compact_session

__all__ = ["BackgroundLifecycle"]


def _shown(job: tuple[object, ...], shown_session: str | None) -> bool:
    """Whether ``job`` only keeps turns of ``shown_session`` that are still in its buffer (its archive or compaction)."""
    return shown_session is not None and job[0] in ("archive", "compact") and job[2] == shown_session


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

    def schedule_archive(self, user_id: str, session_id: str) -> None:
        """Keep the session's completed turns as conversation memories soon (coalesced per session)."""
        self.worker.submit(("archive", user_id, session_id))

    def schedule_end(self, user_id: str, session_id: str) -> None:
        """The session ended: archive its buffered turns and promote what the user said in them, soon."""
        self.worker.submit(("end", user_id, session_id))

    def schedule_new_session(self, user_id: str, session_id: str) -> None:
        """The user opened another session: end the ones they left (each once; see :func:`end_session`)."""
        self.worker.submit(("left", user_id, session_id, self.engine.now()))

    def end_idle_sessions(self, now: int | None = None) -> None:
        """Schedule the end of every session closed or idle at ``now`` whose buffered turns are not archived yet."""
        sessions = self.engine.sessions
        for user_id, session_id in sessions.unarchived(self.engine.now(now), self.engine.config.session_idle_seconds):
            self.schedule_end(user_id, session_id)

    def resume(self) -> None:
        """Re-submit work a previous process left undone (overflowing buffers, ended sessions not archived yet, the
        turns of sessions still open — a process that ended without closing them: the answered ones and the last
        user message still waiting for its answer —, queued promotions). On a store only one process opens at a time
        (the embedded default) those open sessions ended with their process: they are ended now, so what the user
        said in them is promoted to the profile and facts too."""
        sessions = self.engine.sessions
        for user_id, session_id in sessions.overflowing(self.engine.config.ring_size):
            self.schedule_compaction(user_id, session_id)
        now = self.engine.now()
        # a store that serves one process at a time: the process that held its open sessions is gone, so they ended
        # (and what the user said in them is promoted now); a store shared by processes ends only idle ones
        idle = -now if self.engine.alone else self.engine.config.session_idle_seconds
        ended = set(sessions.unarchived(now, idle))
        for user_id, session_id in sessions.unarchived(now, -now):  # every session with turns not archived yet
            if (user_id, session_id) in ended:
                self.schedule_end(user_id, session_id)
            else:  # the process that would answer its last turn is gone: that turn is kept too
                self.worker.submit(("archive-open", user_id, session_id))
        if self.engine.sessions.queued(1):
            self.worker.submit(("promote",))
        if self.llm_for("", None) is not None:  # the provider's own model (sessions bring theirs when they open)
            self.schedule_terms()

    def schedule_terms(self) -> None:
        """Give memories written since the last sweep their other-language key terms soon (see
        :mod:`~hermes_memory_core.lifecycle.xlang`; coalesced with a pending sweep)."""
        self.worker.submit(("xlang",))

    def settle(self, user_id: str, timeout: float, shown_session: str | None = None) -> bool:
        """Wait, at most ``timeout`` seconds, until no job that keeps what ``user_id`` said is pending or running
        (archives, session ends, compactions and the promotions they trigger): a recall right after a turn or a
        new session then finds the turns just answered. The archives and compactions of ``shown_session`` are not
        waited for: their turns are still in that session's buffer, which the caller shows. True when none was left."""
        said = {"compact", "archive", "archive-open", "end", "left"}
        return self.worker.settle(lambda job: isinstance(job, tuple) and len(job) > 1 and job[0] in said
                                  and job[1] == user_id and not _shown(job, shown_session), timeout)

    def drain(self) -> None:
        """Block until every submitted job has run."""
        self.worker.drain()

    def close(self) -> None:
        """End the sessions this process leaves open, then drain and stop the worker.

        On a store one process opens at a time (the embedded default) the next open would end them anyway: they end
        here instead, so what the user said in them is classified and summarised by the host model their surface
        was given (:meth:`MemoryProvider.close`, also at interpreter exit), not by the rules in a later process
        that has no model. A store shared by processes ends only idle sessions, as before."""
        engine = self.engine
        if engine.alone and not engine.read_only and not engine.closed:
            now = engine.now()
            for user_id, session_id in engine.sessions.unarchived(now, -now):
                self.schedule_end(user_id, session_id)
        self.worker.close()

    def _run(self, job: Hashable) -> None:
        if self.engine.closed or not isinstance(job, tuple):
            return
        if job[0] == "xlang":
            self.terms.sweep()
            return
        said = 0  # conversation memories written (turns that left the ring, or whose session ended)
        if job[0] == "compact":
            compact_session(self.engine, job[1], job[2], self.llm_for(job[1], job[2]), archive_turns)
            said = 1  # compaction may have archived turns; a sweep with nothing to do is one query
        elif job[0] in ("archive", "archive-open"):
            said = archive_completed(self.engine, job[1], job[2], open_turn=job[0] == "archive-open")
        elif job[0] == "end":
            said = end_session(self.engine, job[1], job[2])
        elif job[0] == "left":
            for user_id, session_id in self.engine.sessions.unarchived(job[3], 0, user_id=job[1], except_session=job[2]):
                said += end_session(self.engine, user_id, session_id)
        promoted = promote_queued(self.engine, self.llm_for, self.health)
        if promoted or (said and self.llm_for(job[1], job[2] if job[0] != "left" else None) is not None):
            self.schedule_terms()  # promoted and conversation memories get their key terms too
