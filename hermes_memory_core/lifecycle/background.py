"""Background work of the tier lifecycle: compaction of overflowing session buffers, the end of sessions (their
turns kept as conversation memories), and promotion of what the user said in them, on one worker thread, off the
chat path.

Each kind of work is a small frozen value (:data:`Job`): the worker coalesces equal pending values and
:meth:`BackgroundLifecycle._run` dispatches on the value's type. What happens to a turn after it is written is
:meth:`BackgroundLifecycle.written`, in one place; :class:`BackgroundLifecycle` is the one narrow interface the
short-term room talks to (:class:`~hermes_memory_core.short_term.session.SessionEvents`).

Jobs are idempotent and their inputs are durable (the buffered messages, the promotion queue), so a job lost with
a killed process is found again by :meth:`BackgroundLifecycle.resume` at the next start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from hermes_memory_core.engine.faces import WithEraser, WithLookups, WithParts, WithReads, WithUpkeep, WithWrites
from hermes_memory_core.lifecycle.conversation import (
    ArchivedMessages,
    archive_completed,
    archive_turns,
    end_session,
    erase_said,
)
from hermes_memory_core.lifecycle.erasure import erase_memory
from hermes_memory_core.lifecycle.health import ClassifierHealth
from hermes_memory_core.lifecycle.promotion import LLMResolver, promote_queued
from hermes_memory_core.lifecycle.worker import BackgroundWorker
from hermes_memory_core.lifecycle.xlang import TermWriter
from hermes_memory_core.short_term.compaction import compact_session
from hermes_memory_core.types import Message

__all__ = ["Archive", "BackgroundLifecycle", "Compact", "EndLeftSessions", "EndSession", "Job", "LifecycleStore",
           "Promote", "SweepTerms"]


@dataclass(frozen=True, slots=True)
class Compact:
    """Summarise a session's turns that overflow its ring (and keep them as conversation memories)."""

    user_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class Archive:
    """Keep a session's completed turns as conversation memories; with ``open_turn`` its last, unanswered user
    message too (the process that would have answered it is gone)."""

    user_id: str
    session_id: str
    open_turn: bool = False


@dataclass(frozen=True, slots=True)
class EndSession:
    """A session ended: archive its buffered turns and queue what the user said in them for promotion."""

    user_id: str
    session_id: str


@dataclass(frozen=True, slots=True)
class EndLeftSessions:
    """The user opened ``session_id`` at ``at``: end the sessions they left (each once; see :func:`end_session`)."""

    user_id: str
    session_id: str
    at: int


@dataclass(frozen=True, slots=True)
class Promote:
    """Promote the queued statements (what users said, waiting for classification)."""


@dataclass(frozen=True, slots=True)
class SweepTerms:
    """Give memories written since the last sweep their other-language key terms
    (:mod:`~hermes_memory_core.lifecycle.xlang`)."""


class LifecycleStore(WithParts, WithLookups, WithReads, WithWrites, WithEraser, WithUpkeep, Protocol):
    """What the background lifecycle uses of the engine: what its rooms use (conversations, compaction, promotion,
    key terms, and the erasure of what a user took back) — every component but the key's."""


#: One piece of background work (equal values coalesce while pending).
Job = Compact | Archive | EndSession | EndLeftSessions | Promote | SweepTerms
#: The jobs that keep what a user said (a recall right after a turn waits for them: :meth:`BackgroundLifecycle.settle`).
_KEEPS_SAID = (Compact, Archive, EndSession, EndLeftSessions)


def _shown(job: object, shown_session: str | None) -> bool:
    """Whether ``job`` only keeps turns of ``shown_session`` that are still in its buffer (its archive or compaction)."""
    return shown_session is not None and isinstance(job, Archive | Compact) and job.session_id == shown_session


class BackgroundLifecycle:
    """Runs compactions and promotions for one engine; what the short-term room tells of its sessions.

    Args:
        engine: The open store.
        llm_for: The host model for a session's work (None: the deterministic fallbacks).
    """

    def __init__(self, engine: LifecycleStore, llm_for: LLMResolver) -> None:
        self.engine = engine
        self.parts = engine.parts
        self.llm_for = llm_for
        self.health = ClassifierHealth()  # how many of the model's classifications could be read
        self.worker: BackgroundWorker[Job] = BackgroundWorker(self._run)
        self.terms = TermWriter(engine, llm_for)
        self.archived = ArchivedMessages()  # messages archived (kept, or counted as a repeat) by this process

    # ------------------------------------------------------------------ what the sessions tell (SessionEvents)
    def written(self, user_id: str, session_id: str, *, opened: bool, overflowing: bool) -> None:
        """What happens to a turn after it is written, in this order: a session's first turn says its user left
        their other sessions (they end); the session's completed turns are kept as conversation memories; turns
        past the ring are summarised. Each soon, on the worker; then their promotions and key terms
        (:meth:`_run`)."""
        if opened:
            self.began(user_id, session_id)
        self.worker.submit(Archive(user_id, session_id))
        if overflowing:
            self.worker.submit(Compact(user_id, session_id))

    def began(self, user_id: str, session_id: str) -> None:
        """The user is in ``session_id`` now: end the sessions they left, soon."""
        self.worker.submit(EndLeftSessions(user_id, session_id, self.parts.now()))

    def ended(self, user_id: str, session_id: str) -> None:
        """The session ended: archive its buffered turns and promote what the user said in them, soon."""
        self.worker.submit(EndSession(user_id, session_id))

    def undo(self, user_id: str, session_id: str, turns: Sequence[Sequence[Message]]) -> None:
        """The user takes ``turns`` back (read after :meth:`wait`, so an archive of them in flight has landed): every
        conversation memory kept from them is erased completely."""
        for rec in erase_said(self.engine, user_id, session_id, turns):
            erase_memory(self.engine, rec)

    def wait(self) -> None:
        """Block until every submitted job has run (:meth:`drain`)."""
        self.drain()

    # ------------------------------------------------------------------ scheduling
    def end_idle_sessions(self, now: int | None = None) -> None:
        """Schedule the end of every session closed or idle at ``now`` whose buffered turns are not archived yet."""
        sessions = self.parts.sessions
        for user_id, session_id in sessions.unarchived(self.parts.now(now), self.parts.config.session_idle_seconds):
            self.ended(user_id, session_id)

    def resume(self) -> None:
        """Re-submit work a previous process left undone (overflowing buffers, ended sessions not archived yet, the
        turns of sessions still open — a process that ended without closing them: the answered ones and the last
        user message still waiting for its answer —, queued promotions). On a store only one process opens at a time
        (the embedded default) those open sessions ended with their process: they are ended now, so what the user
        said in them is promoted to the profile and facts too."""
        sessions = self.parts.sessions
        for user_id, session_id in sessions.overflowing(self.parts.config.ring_size):
            self.worker.submit(Compact(user_id, session_id))
        now = self.parts.now()
        # a store that serves one process at a time: the process that held its open sessions is gone, so they ended
        # (and what the user said in them is promoted now); a store shared by processes ends only idle ones
        idle = -now if self.parts.alone else self.parts.config.session_idle_seconds
        ended = set(sessions.unarchived(now, idle))
        for user_id, session_id in sessions.unarchived(now, -now):  # every session with turns not archived yet
            if (user_id, session_id) in ended:
                self.ended(user_id, session_id)
            else:  # the process that would answer its last turn is gone: that turn is kept too
                self.worker.submit(Archive(user_id, session_id, open_turn=True))
        if self.parts.sessions.queued(1):
            self.worker.submit(Promote())
        if self.llm_for("", None) is not None:  # the provider's own model (sessions bring theirs when they open)
            self.schedule_terms()

    def schedule_terms(self) -> None:
        """Give memories written since the last sweep their other-language key terms soon (see
        :mod:`~hermes_memory_core.lifecycle.xlang`; coalesced with a pending sweep)."""
        self.worker.submit(SweepTerms())

    def settle(self, user_id: str, timeout: float, shown_session: str | None = None) -> bool:
        """Wait, at most ``timeout`` seconds, until no job that keeps what ``user_id`` said is pending or running
        (archives, session ends, compactions and the promotions they trigger): a recall right after a turn or a
        new session then finds the turns just answered. The archives and compactions of ``shown_session`` are not
        waited for: their turns are still in that session's buffer, which the caller shows. True when none was left."""
        return self.worker.settle(lambda job: isinstance(job, _KEEPS_SAID) and job.user_id == user_id
                                  and not _shown(job, shown_session), timeout)

    def drain(self) -> None:
        """Block until every submitted job has run."""
        self.worker.drain()

    def close(self) -> None:
        """End the sessions this process leaves open, then drain and stop the worker.

        On a store one process opens at a time (the embedded default) the next open would end them anyway: they end
        here instead, so what the user said in them is classified and summarised by the host model their surface
        was given (:meth:`MemoryProvider.close`, also at interpreter exit), not by the rules in a later process
        that has no model. A store shared by processes ends only idle sessions, as before."""
        parts = self.parts
        if parts.alone and not parts.read_only and not parts.closed:
            now = parts.now()
            for user_id, session_id in parts.sessions.unarchived(now, -now):
                self.ended(user_id, session_id)
        self.worker.close()

    # ------------------------------------------------------------------ running
    def _run(self, job: Job) -> None:
        """Run one job; then promote what it queued, and give what it wrote its key terms when a model serves it."""
        if self.parts.closed:
            return
        said = 0  # conversation memories written (turns that left the ring, or whose session ended)
        session: str | None = None  # whose model serves the key terms of what was written
        match job:
            case SweepTerms():
                self.terms.sweep()
                return
            case Compact(user_id, session_id):
                compact_session(self.parts, user_id, session_id, self.llm_for(user_id, session_id),
                                partial(archive_turns, self.engine, settled=self.archived))
                said, session = 1, session_id  # compaction may have archived turns; a sweep with nothing to do is cheap
            case Archive(user_id, session_id, open_turn):
                said = archive_completed(self.engine, user_id, session_id, open_turn=open_turn,
                                         settled=self.archived)
                session = session_id
            case EndSession(user_id, session_id):
                said, session = end_session(self.engine, user_id, session_id, self.archived), session_id
            case EndLeftSessions(user_id, session_id, at):
                for uid, sid in self.parts.sessions.unarchived(at, 0, user_id=user_id, except_session=session_id):
                    said += end_session(self.engine, uid, sid, self.archived)
        promoted = promote_queued(self.engine, self.llm_for, self.health)
        if (promoted or said) and self.llm_for(_user_of(job), session) is not None:
            # promoted and conversation memories get their key terms too, from the model that serves them: without
            # one a sweep asks nobody, yet reads up to 2,000 memories lacking terms (every conversation line does)
            self.schedule_terms()


def _user_of(job: Job) -> str:
    """The user a job works for ("" for the store-wide ones)."""
    return job.user_id if isinstance(job, _KEEPS_SAID) else ""
