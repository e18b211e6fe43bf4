"""Metadata lookups by equality are index lookups on both backends (migration ``m011_lookup_indexes``).

Archiving a chat message asks whether the user's conversation memories already hold its remark; recall looks up a
fact by its key and an answer by its question. Without an index each was a scan of all the user's rows, so writes
grew slower with the store. The planner's own plan (``EXPLAIN``) is checked on a store of a few thousand rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from hermes_memory_core.storage.metadata import NewMemory
from hermes_memory_core.storage.sql.base import SQLMetadataStore
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore
from hermes_memory_core.trust.at_rest import SealingCodec
from hermes_memory_core.trust.encryption import ContentCipher, decode_key
from hermes_memory_core.types import MemoryRecord, MemoryType
from tests.conftest import BACKENDS, TEST_KEY, open_sql_store

ROWS = 3_000


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLMetadataStore]:
    made = open_sql_store(request.param, tmp_path)
    made.codec = SealingCodec(ContentCipher(decode_key(TEST_KEY)), ("permanent",))
    made.records.insert([NewMemory(_rec(i), True) for i in range(ROWS)], note="test")
    yield made
    made.close()


def _rec(i: int) -> MemoryRecord:
    meta: dict[str, object] = {"kind": "conversation", "remark": f"r{i:05d}"}
    if i % 50 == 0:
        meta["fact_key"] = f"k{i}"
    if i % 2:
        meta["question"] = f"q{i // 2}"
    if i % 100 == 0:
        meta["subject"], meta["standing"] = f"s{i}", f"p{i}"
    return MemoryRecord(f"00000000-0000-4000-8000-{i:012d}", "u1" if i % 10 else "u2", "s1", f"line {i}",
                        MemoryType.SHORT_TERM, 0.3, 0, 1_000 + i, 1_000 + i, None, 1, (), meta)


def _plan(store: SQLMetadataStore, key: str, values: list[str]) -> str:
    sql = store.records.metadata_lookup_sql(key, len(values), 1)
    explain = "EXPLAIN QUERY PLAN" if isinstance(store, SQLiteMetadataStore) else "EXPLAIN"
    rows = store.reader().execute(f"{explain} {sql}", ("u1", *values, "short_term")).fetchall()
    return "\n".join(" ".join(str(c) for c in row) for row in rows)


@pytest.mark.parametrize("key", ["remark", "fact_key", "question", "subject", "standing"])
def test_a_lookup_by_value_uses_its_index(store: SQLMetadataStore, key: str) -> None:
    if isinstance(store, SQLiteMetadataStore):
        with store.atomic() as conn:
            conn.execute("ANALYZE")  # the plan holds with the row counts a real store has gathered too
    for values in (["x1"], ["x1", "x2", "x3"]):
        plan = _plan(store, key, values)
        assert f"idx_entries_{key}" in plan, plan
        assert "SCAN memory_entries" not in plan and "Seq Scan" not in plan, plan


def test_the_lookup_finds_the_newest_of_each_value_among_the_users_active_rows(store: SQLMetadataStore) -> None:
    assert store.records.find_by_metadata_values("u1", "remark", ["r00001", "r00010", "r09999"], ("short_term",)) == {
        "r00001": "00000000-0000-4000-8000-000000000001"}  # r00010 is u2's, r09999 nobody's
    assert store.records.find_by_metadata_values("u1", "remark", ["r00001"], ("long_term",)) == {}
    newer = replace(_rec(1), id="00000000-0000-4000-8000-999999999999", created_at=9_000, updated_at=9_000)
    store.records.insert([NewMemory(newer, True)], note="test")
    found = store.records.find_by_metadata_values("u1", "remark", ["r00001"], ("short_term",))
    assert found == {"r00001": "00000000-0000-4000-8000-999999999999"}
    store.records.soft_delete("00000000-0000-4000-8000-999999999999", "gone", 10_000)
    assert store.records.find_by_metadata("u1", "remark", "r00001", ("short_term",)) == "00000000-0000-4000-8000-000000000001"
