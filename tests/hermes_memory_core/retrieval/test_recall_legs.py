"""Recall fetches each leg once: the places of the lines it leaves out before fusion (what the user only asked,
the answers to it) are filled from one wider fetch, not by searching each leg again."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.engine.vector_reads import VectorReads


def _count_legs(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    calls: Counter[str] = Counter()
    dense, keyword = VectorReads.dense_candidates, Lookups.keyword_candidates

    def counted_dense(self: VectorReads, *args: Any, **kwargs: Any) -> Any:
        calls["dense"] += 1
        return dense(self, *args, **kwargs)

    def counted_keyword(self: Lookups, *args: Any, **kwargs: Any) -> Any:
        calls["keyword"] += 1
        return keyword(self, *args, **kwargs)

    monkeypatch.setattr(VectorReads, "dense_candidates", counted_dense)
    monkeypatch.setattr(Lookups, "keyword_candidates", counted_keyword)
    return calls


def test_lines_left_out_are_refilled_from_one_fetch_per_leg(mem: MemoryProvider,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    s = mem.session("u", "garden")
    for i in range(10):  # a user who asked about the garden: the asked lines take each leg's first places
        s.add_messages([("user", f"Which vegetables grow best in a garden bed number {i}?"),
                        ("assistant", f"Noted, bed {i}.")])
    for i in range(30):  # more lines than a leg fetches
        s.add_messages([("user", f"The fence of the garden got painted on day {i}."), ("assistant", "Ok.")])
    s.add_messages([("user", "I grow tomatoes and basil in my garden every summer."), ("assistant", "Lovely.")])
    s.close()
    mem.flush()
    calls = _count_legs(monkeypatch)
    hits = mem.recall("Which vegetables grow in the garden?", user_id="u", top_k=5)
    assert any("tomatoes" in h.content for h in hits), [h.content for h in hits]
    assert not any(h.content.startswith("Which vegetables") for h in hits)
    assert calls == {"dense": 1, "keyword": 1}, calls  # before: a second search of each leg for the places left
