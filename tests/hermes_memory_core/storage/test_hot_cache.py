"""The hot cache keeps each user's most-searched records and never serves a changed or deleted one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider, NotFoundError
from hermes_memory_core.storage.hot_cache import HotCache
from hermes_memory_core.storage.metadata import RankRow
from hermes_memory_core.types import MemoryRecord, MemoryType
from tests.conftest import ADMIN, make_config


def _rec(i: int, version: int = 1, user: str = "u") -> MemoryRecord:
    return MemoryRecord(f"id{i}", user, None, f"text {i}", MemoryType.LONG_TERM, 0.5, 0, 1, 1, None, version)


def _fields(*recs: MemoryRecord) -> dict[str, RankRow]:
    return {r.id: RankRow(None, 1, 1, 0.5, r.version, r.memory_type.value, 0) for r in recs}


def test_keeps_the_most_used_up_to_capacity() -> None:
    cache = HotCache(capacity=2)
    a, b, c = _rec(1), _rec(2), _rec(3)
    for _ in range(3):
        cache.record_use("u", [a])
    cache.record_use("u", [b])
    cache.record_use("u", [c])  # used once, like b: does not displace it
    assert cache.size("u") == 2 and set(cache.lookup("u", ["id1", "id2", "id3"], _fields(a, b, c))) == {"id1", "id2"}
    cache.record_use("u", [c])  # now used more than b
    assert set(cache.lookup("u", ["id1", "id2", "id3"], _fields(a, b, c))) == {"id1", "id3"}
    assert cache.lookup("other", ["id1"], _fields(a)) == {}


def test_stale_versions_tiers_and_missing_rows_are_dropped() -> None:
    cache = HotCache()
    a = _rec(1)
    cache.record_use("u", [a])
    assert cache.lookup("u", ["id1"], _fields(_rec(1, version=2))) == {}  # updated elsewhere
    assert cache.size("u") == 0
    cache.record_use("u", [a])
    assert cache.lookup("u", ["id1"], {}) == {}  # deleted / expired: the store no longer returns its row
    cache.record_use("u", [a])
    moved = {"id1": RankRow(None, 1, 1, 0.5, 1, "short_term", 0)}
    assert cache.lookup("u", ["id1"], moved) == {}  # tier changed
    cache.record_use("u", [a])
    cache.invalidate("id1")
    assert cache.size() == 0


def test_a_cached_record_carries_the_stores_access_count() -> None:
    cache = HotCache()
    cache.record_use("u", [_rec(1)])
    row = {"id1": RankRow(None, 1, 1, 0.5, 1, "long_term", 7)}
    assert cache.lookup("u", ["id1"], row)["id1"].access_count == 7


def test_search_uses_the_cache_and_sees_every_change(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add("我喜欢喝美式咖啡", user_id="u")
        mem.add("The user runs marathons", user_id="u")
        first = mem.search("咖啡", user_id="u", top_k=1)[0]
        misses = mem.hot_cache.misses
        second = mem.search("咖啡", user_id="u", top_k=1)[0]
        assert second.record.content == first.record.content and mem.hot_cache.misses == misses
        assert mem.hot_cache.hits >= 1
        mem.update(mid, "我喜欢喝拿铁咖啡", user_id="u")
        assert mem.search("咖啡", user_id="u", top_k=1)[0].record.content == "我喜欢喝拿铁咖啡"
        mem.flush()
        cached = mem.search("咖啡", user_id="u", top_k=1)[0].record
        mem.flush()
        # the cached copy reads exactly like the stored row, whose count now includes this search too
        assert dataclasses.replace(cached, access_count=cached.access_count + 1) == mem.get(mid, user_id="u")
        mem.delete(mid, user_id="u")
        assert all(h.id != mid for h in mem.search("咖啡", user_id="u"))
        with pytest.raises(NotFoundError):
            mem.get(mid, user_id="u")


def test_records_read_last_are_served_while_current_and_bounded() -> None:
    cache = HotCache(capacity=1)  # most-returned: 1; read last: 20
    read = [_rec(i) for i in range(25)]
    cache.remember(read)
    assert set(cache.lookup("u", [r.id for r in read], _fields(*read))) == {f"id{i}" for i in range(5, 25)}
    assert cache.lookup("other", ["id5"], _fields(read[5])) == {}  # never another user's
    assert cache.lookup("u", ["id6"], _fields(_rec(6, version=2))) == {}  # changed since: dropped
    assert cache.lookup("u", ["id6"], _fields(read[6])) == {}
    touched = {"id7": RankRow(None, 1, 2, 0.5, 1, "long_term", 3)}  # a repeat noted elsewhere: newer row
    assert cache.lookup("u", ["id7"], touched) == {}
    cache.invalidate("id8")
    cache.remember([_rec(1, user="gone")])
    cache.drop_user("gone")
    found = cache.lookup("u", ["id8", "id9"], _fields(read[8], read[9]))
    assert set(found) == {"id9"} and cache.lookup("gone", ["id1"], _fields(_rec(1, user="gone"))) == {}
    assert HotCache(capacity=0).recent_capacity == 0  # the cache off is all of it off
