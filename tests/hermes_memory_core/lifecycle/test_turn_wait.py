"""A chat turn does not wait for the last turn's archiving; another session still finds what was acknowledged."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider, turn_context
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.lifecycle import background
from tests.conftest import ADMIN, make_config


class Held:
    """Archiving waits until ``release`` is set (at most 20 s); ``done`` is set once a held archive has run."""

    def __init__(self) -> None:
        self.release, self.done = threading.Event(), threading.Event()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    state = Held()
    real = background.archive_completed

    def archive(*args: Any, **kwargs: Any) -> int:
        state.release.wait(20)
        try:
            return real(*args, **kwargs)
        finally:
            state.done.set()

    monkeypatch.setattr(background, "archive_completed", archive)
    yield state
    state.release.set()


@pytest.fixture
def patient(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    """A store whose recall waits as long as it takes for the turns still being kept (no timeout decides)."""
    with MemoryProvider(make_config(tmp_path / "s", recall_settle_seconds=60), embedder=embedder, caller=ADMIN) as mem:
        yield mem


def test_the_next_turn_of_a_session_does_not_wait_for_its_archiving(patient: MemoryProvider, held: Held) -> None:
    s = patient.session("u", "monday")
    s.add_messages([("user", "I'm flying to Chengdu on Friday for the marathon"), ("assistant", "Good luck!")])
    s.add_messages([("user", "Which city am I flying to?")])
    ctx = turn_context(patient, "Which city am I flying to?", user_id="u", session_id="monday")
    assert not held.done.is_set()  # answered while the last turn's archiving was still held back
    assert "Chengdu" in s.view().messages[0].content and not ctx.hits  # shown by the session itself, not twice


def test_another_session_still_waits_for_the_turns_just_said(patient: MemoryProvider, held: Held) -> None:
    s = patient.session("u", "monday")
    s.add_messages([("user", "I'm flying to Chengdu on Friday for the marathon"), ("assistant", "Good luck!")])
    threading.Timer(0.3, held.release.set).start()
    ctx = turn_context(patient, "Which city am I flying to?", user_id="u", session_id="tuesday")
    assert held.done.is_set()  # it waited for the archive
    assert any("Chengdu" in h.content for h in ctx.hits)


def test_a_view_of_the_turns_alone_reads_no_summary(mem: MemoryProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_memory_core.short_term import session as session_module

    s = mem.session("u", "long")
    for i in range(16):  # past the ring: older turns are summarised
        s.add_messages([("user", f"We planned trip number {i} to the coast."), ("assistant", "Sounds lovely.")])
    mem.flush()
    full = s.view()
    assert full.summary

    def judged(text: str) -> str:
        raise AssertionError("the summary was judged")

    monkeypatch.setattr(session_module, "shown_summary", judged)
    turns = s.view(summary=False)
    assert turns.summary == "" and turns.messages == full.messages
