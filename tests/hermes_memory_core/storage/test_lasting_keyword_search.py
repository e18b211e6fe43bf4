"""A keyword search of the lasting tiers alone (the duplicate check of a promoted fact) ranks only their matches.

A chat user's store is mostly conversation lines (short-term): a search of the long-term and permanent tiers first
ranked the best matches of every tier, found them all conversation lines, and then ranked every match again with
the filter joined — a write cost that grew with the user's conversation. Now those tiers' matches alone are ranked,
in one statement, with the same results as the filtered ranking.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.storage.metadata import NewMemory
from hermes_memory_core.storage.sql.base import SQLMetadataStore
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.types import MemoryRecord, MemoryType
from tests.conftest import BACKENDS, open_sql_store

LINES = 600


def _rec(i: int, tier: MemoryType, text: str) -> MemoryRecord:
    return MemoryRecord(f"00000000-0000-4000-8000-{i:012d}", "u1", "s1", text, tier, 0.5, 0, 1_000 + i, 1_000 + i,
                        None, 1, (), {"kind": "conversation"} if tier is MemoryType.SHORT_TERM else {})


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLMetadataStore]:
    made = open_sql_store(request.param, tmp_path)
    rows = [_rec(i, MemoryType.SHORT_TERM, f"coffee coffee talk number {i} about the coffee") for i in range(LINES)]
    rows += [_rec(LINES + i, MemoryType.LONG_TERM, f"The user drinks coffee {'black ' * i}every day")
             for i in range(5)]
    rows += [_rec(LINES + 9, MemoryType.PERMANENT, "The user is allergic to coffee")]
    made.records.insert([NewMemory(r, True) for r in rows], note="test")
    yield made
    made.close()


def _search(store: SQLMetadataStore, tiers: tuple[str, ...] | None, limit: int) -> list[tuple[str, float]]:
    terms = ["coffee"]  # plain terms (no codec seals anything here)
    return store.keywords.keyword_search("u1", terms, limit, MemoryFilter("u1", tiers), context_weight=0.0)


def test_the_lasting_tiers_rank_as_the_filtered_whole(store: SQLMetadataStore) -> None:
    everything = _search(store, None, LINES + 20)
    for tiers in (("long_term",), ("long_term", "permanent"), ("permanent",)):
        wanted = {"long_term": range(LINES, LINES + 5), "permanent": [LINES + 9]}
        ids = {f"00000000-0000-4000-8000-{i:012d}" for t in tiers for i in wanted[t]}
        for limit in (1, 3, 12):
            assert _search(store, tiers, limit) == [h for h in everything if h[0] in ids][:limit], (tiers, limit)


def test_the_lasting_tiers_are_searched_in_one_statement(store: SQLMetadataStore) -> None:
    if not isinstance(store, SQLiteMetadataStore):
        pytest.skip("statements counted on SQLite")
    statements: list[str] = []
    conn = store.reader()
    conn.set_trace_callback(statements.append)
    try:
        found = _search(store, ("long_term", "permanent"), 3)
    finally:
        conn.set_trace_callback(None)
    assert len(found) == 3
    searches = [s for s in statements if "bm25" in s]
    assert len(searches) == 1, statements  # before: the best of every tier (all conversation lines), then again


def _session_store(kind: str, tmp_path: Path) -> SQLMetadataStore:
    made = open_sql_store(kind, tmp_path)
    rows = [MemoryRecord(f"00000000-0000-4000-8000-{i:012d}", "u1", f"s{i % 40}",
                         f"coffee {'coffee ' * (i % 7)}talk number {i}", MemoryType.SHORT_TERM, 0.5, 0, 1_000 + i,
                         1_000 + i, None, 1, (), {"kind": "conversation"}) for i in range(LINES)]
    made.records.insert([NewMemory(r, True) for r in rows], note="test")
    return made


@pytest.mark.parametrize("kind", BACKENDS)
def test_one_sessions_memories_rank_as_the_filtered_whole_in_one_statement(kind: str, tmp_path: Path) -> None:
    """The short-term duplicate check searches one session's lines: only their matches are ranked, with the same
    results as ranking the user's every line and keeping the session's."""
    store = _session_store(kind, tmp_path)
    try:
        everything = store.keywords.keyword_search("u1", ["coffee"], LINES + 20, MemoryFilter("u1"), 0.0)
        statements: list[str] = []
        sqlite = isinstance(store, SQLiteMetadataStore)
        if sqlite:
            store.reader().set_trace_callback(statements.append)
        for session in ("s3", "s17"):
            ids = {f"00000000-0000-4000-8000-{i:012d}" for i in range(LINES) if f"s{i % 40}" == session}
            for limit in (1, 5, 12):
                found = store.keywords.keyword_search(
                    "u1", ["coffee"], limit, MemoryFilter("u1", ("short_term",), session_id=session), 0.0)
                assert found == [h for h in everything if h[0] in ids][:limit], (session, limit)
        if sqlite:
            store.reader().set_trace_callback(None)
            assert len([s for s in statements if "bm25" in s]) == 6  # one ranking a search, never the user's all
            assert all("m.session_id" in s for s in statements if "bm25" in s)
    finally:
        store.close()
