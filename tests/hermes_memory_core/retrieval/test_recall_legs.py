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
    """Calls to the vector engine (``dense``; ``dense vectors``: the query vectors they carried) and keyword legs."""
    calls: Counter[str] = Counter()
    dense, many, keyword = VectorReads.dense_candidates, VectorReads.dense_candidates_many, Lookups.keyword_candidates

    def counted_dense(self: VectorReads, *args: Any, **kwargs: Any) -> Any:
        calls["dense"] += 1
        calls["dense vectors"] += 1
        return dense(self, *args, **kwargs)

    def counted_many(self: VectorReads, vectors: Any, *args: Any, **kwargs: Any) -> Any:
        calls["dense"] += 1
        calls["dense vectors"] += len(vectors)
        return many(self, vectors, *args, **kwargs)

    def counted_keyword(self: Lookups, *args: Any, **kwargs: Any) -> Any:
        calls["keyword"] += 1
        return keyword(self, *args, **kwargs)

    monkeypatch.setattr(VectorReads, "dense_candidates", counted_dense)
    monkeypatch.setattr(VectorReads, "dense_candidates_many", counted_many)
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
    assert calls == {"dense": 1, "dense vectors": 1, "keyword": 1}, calls  # before: a second search of each leg


def _garden(mem: MemoryProvider) -> None:
    s = mem.session("u", "garden")
    for i in range(40):  # more of the user's lines than a leg fetches
        s.add_messages([("user", f"I painted the fence of my garden on day {i}."), ("assistant", f"Noted, day {i}.")])
    s.add_messages([("user", "I grow tomatoes and basil in my garden every summer."), ("assistant", "Lovely.")])
    s.close()
    mem.flush()


def test_a_first_person_question_is_one_call_to_the_vector_engine(mem: MemoryProvider,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The question about the user and as asked (a first-person message is matched in both forms) are searched in
    one call to the vector engine, with the same hits as two."""
    _garden(mem)
    calls = _count_legs(monkeypatch)
    hits = mem.recall("What do I grow in my garden?", user_id="u", top_k=5)
    assert any("tomatoes" in h.content for h in hits), [h.content for h in hits]
    assert calls["dense"] == 1 and calls["dense vectors"] == 2, calls  # before: two searches


def test_a_line_judged_before_is_not_read_again_to_be_judged(mem: MemoryProvider,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall judges each dialogue candidate (does it only ask? answer a question?) once per version: the next recall
    over the same candidates reads only the records of the hits it returns, with the same hits."""
    _garden(mem)
    first = mem.recall("What do I grow in my garden?", user_id="u", top_k=5)
    asked: list[str] = []
    records = Lookups.hit_records

    def counted(self: Lookups, user_id: str, ids: Any, *args: Any, **kwargs: Any) -> Any:
        asked.extend(ids)
        return records(self, user_id, ids, *args, **kwargs)

    monkeypatch.setattr(Lookups, "hit_records", counted)
    again = mem.recall("What do I grow in my garden?", user_id="u", top_k=5)
    assert [h.id for h in again] == [h.id for h in first]
    assert asked and len(asked) <= 10, len(asked)  # the 10 ranked hits read; before: every dialogue candidate too
