"""Trust round 4, class 3: a hard-deleted conversation memory stays deleted through session end, reopen and
reconcile, and its words leave the session buffer. Strings written for this sweep."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from tests.conftest import ADMIN, make_config
from tests.fakes import Clock

SECRET = "My locker combination at the Ostend swimming pool is hidden under the blue mat"


def _said(mem: MemoryProvider) -> list[str]:
    return [r.content for r in mem.list_memories(user_id="u9", limit=1000) if r.is_conversation]


def _buffer(mem: MemoryProvider, session: str) -> str:
    return " ".join(m.content for t in mem.engine.sessions.turns("u9", session) for m in t)


@pytest.mark.parametrize("when", ["open", "closed"])
def test_a_hard_deleted_line_does_not_come_back(when: str, tmp_path: Path, embedder: Embedder) -> None:
    clock = Clock()
    config = make_config(tmp_path / "s")
    with MemoryProvider(config, embedder=embedder, clock=clock, caller=ADMIN) as mem:
        s = mem.session("u9", "pool")
        s.add_messages([("user", SECRET), ("assistant", "Noted, the blue mat at the Ostend pool.")])
        clock.now += 60
        s.add_messages([("user", "Also I swim on Thursdays before work."), ("assistant", "Thursdays it is.")])
        if when == "closed":
            s.close()
        mem.flush()
        said = [r for r in mem.list_memories(user_id="u9", limit=1000) if r.is_conversation and "locker" in r.content]
        assert len(said) == 1
        mem.delete(said[0].id, user_id="u9", hard=True)
        assert "locker" not in _buffer(mem, "pool")
        s.close()
        mem.reconcile()
        mem.flush()
        assert not any("locker" in t for t in _said(mem))
        assert any("Thursdays" in t for t in _said(mem))  # the rest of the session stays
    with MemoryProvider(config, embedder=embedder, clock=clock, caller=ADMIN) as mem:  # reopen keeps open sessions
        mem.reconcile()
        mem.flush()
        assert not any("locker" in t for t in _said(mem))
        assert "locker" not in _buffer(mem, "pool")


def test_an_invisible_flood_costs_no_later_reader(tmp_path: Path, embedder: Embedder) -> None:
    """Class 6: 90,000 invisible characters in one message are dropped before it is stored (a joiner or two stay)."""
    import time

    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder) as mem:
        s = mem.session("u9", "flood")
        flood = "see you" + "\u200b\u2063\ufe0f\U000e0041" * 22_500 + " at noon 👨\u200d👩\u200d👧"
        s.add_messages([("user", flood), ("assistant", "Noon it is.")])
        stored = s.view().messages[0].content
        assert stored == "see you at noon 👨\u200d👩\u200d👧"
        s.close()
        mem.flush()
        start = time.monotonic()
        mem.recall("when do we meet?", user_id="u9")
        assert time.monotonic() - start < 5
