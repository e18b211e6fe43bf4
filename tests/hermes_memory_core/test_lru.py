"""The shared bounded LRU: at most ``capacity`` entries, least recently used out first, a value computed once."""

from __future__ import annotations

import pytest

from hermes_memory_core.lru import BoundedLRU


def test_the_least_recently_used_entry_leaves_first() -> None:
    lru: BoundedLRU[str, int] = BoundedLRU(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("a") == 1  # "a" is now the most recently used
    lru.put("c", 3)
    assert "b" not in lru and lru.get("a") == 1 and lru.get("c") == 3 and len(lru) == 2
    assert lru.get("b", -1) == -1


def test_a_value_is_computed_once_while_kept() -> None:
    lru: BoundedLRU[str, str] = BoundedLRU(8)
    calls: list[str] = []

    def compute(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert [lru.get_or_compute(t, lambda t=t: compute(t)) for t in ["x", "y", "x", "x"]] == ["X", "Y", "X", "X"]
    assert calls == ["x", "y"] and (lru.hits, lru.misses) == (2, 2)
    lru.clear()
    assert lru.get_or_compute("x", lambda: compute("x")) == "X" and calls == ["x", "y", "x"]


def test_a_capacity_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        BoundedLRU(0)
