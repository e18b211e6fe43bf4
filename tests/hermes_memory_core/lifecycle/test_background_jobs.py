"""The background lifecycle's jobs are typed values, dispatched by type, and one interface hears of sessions."""

from __future__ import annotations

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.lifecycle.background import (
    Archive,
    BackgroundLifecycle,
    Compact,
    EndLeftSessions,
    EndSession,
    Promote,
    SweepTerms,
)
from hermes_memory_core.short_term.session import SessionEvents
from tests.conftest import ADMIN
from tests.fakes import Clock


class _Recorder:
    """Stands in for the worker's queue: what was submitted, in order."""

    def __init__(self) -> None:
        self.jobs: list[object] = []

    def submit(self, job: object) -> None:
        self.jobs.append(job)


def test_equal_jobs_are_equal_values_and_kinds_stay_apart() -> None:
    assert Archive("u", "s") == Archive("u", "s") and hash(Archive("u", "s")) == hash(Archive("u", "s"))
    assert Archive("u", "s") != Archive("u", "s", open_turn=True)
    assert Compact("u", "s") != EndSession("u", "s")
    assert Promote() == Promote() and SweepTerms() == SweepTerms()


def test_what_happens_after_a_write_is_told_in_order(config: MemoryConfig, embedder: Embedder) -> None:
    with MemoryProvider(config, embedder=embedder, caller=ADMIN, clock=Clock()) as mem:
        life: BackgroundLifecycle = mem._background  # type: ignore[attr-defined]
        events: SessionEvents = mem._sessions.events  # type: ignore[attr-defined]
        assert events is life  # one narrow interface: the sessions hear nothing else of the provider
        recorder = _Recorder()
        real = life.worker
        life.worker = recorder  # type: ignore[assignment]
        try:
            life.written("u1", "s1", opened=True, overflowing=True)
            life.written("u1", "s1", opened=False, overflowing=False)
        finally:
            life.worker = real
        now = mem.engine.now()
        assert recorder.jobs == [EndLeftSessions("u1", "s1", now), Archive("u1", "s1"), Compact("u1", "s1"),
                                 Archive("u1", "s1")]


def test_a_turn_written_in_a_session_is_kept_and_settle_waits_for_it(config: MemoryConfig, embedder: Embedder) -> None:
    with MemoryProvider(config, embedder=embedder, caller=ADMIN, clock=Clock()) as mem:
        mem.session("u1", "s1").add_messages([{"role": "user", "content": "I keep two tortoises."},
                                              {"role": "assistant", "content": "Noted."}])
        assert mem._background.settle("u1", 10)  # type: ignore[attr-defined]
        kept = mem.list_memories(user_id="u1")
        assert any("tortoises" in r.content for r in kept)



class _Model:
    """A host model that answers nothing useful (the test only asks whether a sweep was scheduled for it)."""

    def complete(self, prompt: str) -> str:
        return ""

    async def acomplete(self, prompt: str) -> str:
        return ""


def _sweeps(mem: MemoryProvider, session_llm: object | None) -> int:
    """How many key-term sweeps a session in which the user says something about themselves runs, its end included."""
    life: BackgroundLifecycle = mem._background  # type: ignore[attr-defined]
    swept: list[int] = []
    real = life.terms.sweep
    life.terms.sweep = lambda: swept.append(1) or real()  # type: ignore[method-assign]
    session = mem.session("u1", "s1", llm=session_llm)  # type: ignore[arg-type]
    session.add_messages([("user", "I moved to Hangzhou last spring."), ("assistant", "Hangzhou is lovely.")])
    session.close()
    mem.flush()
    if session_llm is None:  # the rules promoted what the user said (a model that answers nothing promotes nothing)
        assert mem.list_memories(user_id="u1", memory_types=["long_term", "permanent"])
    return len(swept)


def test_no_key_term_sweep_without_a_model_to_ask(config: MemoryConfig, embedder: Embedder) -> None:
    # a sweep asks the model that serves a memory; with none it asked nobody, yet read up to 2,000 memories lacking
    # terms (every conversation line of a store without a model) after each promotion: a write cost that grew
    with MemoryProvider(config, embedder=embedder, caller=ADMIN, clock=Clock()) as mem:
        assert _sweeps(mem, None) == 0


def test_a_session_with_a_model_still_sweeps_what_it_promoted(config: MemoryConfig, embedder: Embedder) -> None:
    with MemoryProvider(config, embedder=embedder, caller=ADMIN, clock=Clock()) as mem:
        assert _sweeps(mem, _Model()) >= 1


def test_an_archive_passes_over_turns_this_process_already_archived(config: MemoryConfig, embedder: Embedder) -> None:
    # every turn archives the whole buffer again: the turns kept before were read line by line to find them stored
    with MemoryProvider(config, embedder=embedder, caller=ADMIN, clock=Clock()) as mem:
        s = mem.session("u1", "s1")
        for i in range(4):
            s.add_messages([("user", f"I planted {i + 2} rows of beans today."), ("assistant", "Good luck with them!")])
            mem.flush()  # each turn archived (a repeat in one batch with what it repeats is counted by the next)
        life: BackgroundLifecycle = mem._background  # type: ignore[attr-defined]
        reads = life.engine.reads
        looked: list[str] = []
        real = reads.record
        reads.record = lambda mid, include_inactive=False: looked.append(mid) or real(mid, include_inactive)  # type: ignore[method-assign]
        try:
            life.worker.submit(Archive("u1", "s1"))
            mem.flush()
        finally:
            reads.record = real  # type: ignore[method-assign]
        assert looked == []
        kept = [r.content for r in mem.list_memories(user_id="u1", limit=100) if r.is_conversation]
        assert sum("beans" in c for c in kept) == 4 and sum("Good luck" in c for c in kept) == 1
