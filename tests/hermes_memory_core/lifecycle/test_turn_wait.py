"""A chat turn does not wait for the last turn's archiving; another session still finds what was acknowledged."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider, turn_context
from hermes_memory_core.lifecycle import background


@pytest.fixture
def slow_archive(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Archiving waits (at most 5 s) until the returned event is set."""
    release = threading.Event()
    real = background.archive_completed

    def archive(*args: Any, **kwargs: Any) -> int:
        release.wait(5)
        return real(*args, **kwargs)

    monkeypatch.setattr(background, "archive_completed", archive)
    return release


def test_the_next_turn_of_a_session_does_not_wait_for_its_archiving(mem: MemoryProvider,
                                                                    slow_archive: threading.Event) -> None:
    s = mem.session("u", "monday")
    s.add_messages([("user", "I'm flying to Chengdu on Friday for the marathon"), ("assistant", "Good luck!")])
    s.add_messages([("user", "Which city am I flying to?")])
    started = time.monotonic()
    ctx = turn_context(mem, "Which city am I flying to?", user_id="u", session_id="monday")
    assert time.monotonic() - started < 1.5  # the archive job is still held back (5 s)
    assert "Chengdu" in s.view().messages[0].content and not ctx.hits  # shown by the session itself, not twice
    slow_archive.set()


def test_another_session_still_waits_for_the_turns_just_said(mem: MemoryProvider,
                                                             slow_archive: threading.Event) -> None:
    s = mem.session("u", "monday")
    s.add_messages([("user", "I'm flying to Chengdu on Friday for the marathon"), ("assistant", "Good luck!")])
    threading.Timer(0.3, slow_archive.set).start()
    started = time.monotonic()
    ctx = turn_context(mem, "Which city am I flying to?", user_id="u", session_id="tuesday")
    assert time.monotonic() - started >= 0.25
    assert any("Chengdu" in h.content for h in ctx.hits)
