"""Isolation, property-based: no search, get, history, export of one user, or delete of one user's memory
ever touches another user's memories."""

from __future__ import annotations

import itertools
import json
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory_core import MemoryProvider, NotFoundError
from tests.conftest import ADMIN, BACKENDS, make_config

WORDS = ["coffee", "咖啡", "Berlin", "上海", "marathon", "Python", "Java", "peanut", "过敏", "jazz", "猫", "bank",
         "secret", "password", "trip", "会议", "daughter", "invoice"]
TIERS = ["short_term", "long_term", "permanent"]
_counter = itertools.count()

memory_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
users_data = st.lists(
    st.lists(st.tuples(memory_text, st.sampled_from(TIERS)), min_size=1, max_size=4), min_size=2, max_size=3
)


@pytest.fixture(scope="module", params=BACKENDS)
def shared(request, embedder):  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        config = make_config(Path(tmp) / "s", request.param)
        with MemoryProvider(config, embedder=embedder, caller=ADMIN) as mem:
            yield mem, Path(tmp)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=users_data, query=memory_text)
def test_no_operation_crosses_users(shared, data, query) -> None:  # type: ignore[no-untyped-def]
    mem, tmp = shared
    run = next(_counter)
    users = [f"user-{run}-{i}" for i in range(len(data))]
    owned: dict[str, list[str]] = {}
    for user, items in zip(users, data, strict=True):
        owned[user] = mem.add_many([{"content": c, "user_id": user, "memory_type": t, "session_id": "s"}
                                    for c, t in items])
    a, b = users[0], users[1]
    for user in users:
        for hit in mem.search(query, user_id=user, top_k=20):
            assert hit.record.user_id == user and hit.id in owned[user]
    for mid in owned[b]:
        with pytest.raises(NotFoundError):
            mem.get(mid, user_id=a)
        with pytest.raises(NotFoundError):
            mem.history(mid, user_id=a)
        with pytest.raises(NotFoundError):
            mem.delete(mid, user_id=a)
    before_b = {mid: mem.get(mid).content for mid in owned[b]}
    mem.delete(owned[a][0], user_id=a)
    assert {mid: mem.get(mid).content for mid in owned[b]} == before_b
    bundle = tmp / f"export-{run}"
    manifest = mem.export(bundle, user_id=a)
    assert manifest["user_id"] == a
    conn = sqlite3.connect(bundle / "metadata.sqlite")
    try:
        for table in ("memory_entries", "memory_access_log", "sessions"):
            owners = {r[0] for r in conn.execute(f"SELECT DISTINCT user_id FROM {table}")}
            assert owners <= {a}, table
        versions_of = {r[0] for r in conn.execute("SELECT memory_id FROM memory_versions")}
        assert versions_of <= set(owned[a])
        from hermes_memory_core.storage.sqlite.migrations import KEYWORD_SHARDS, fts_table

        fts_rows = sum(conn.execute(f"SELECT count(*) FROM {fts_table(i)}").fetchone()[0] for i in range(KEYWORD_SHARDS))
        assert fts_rows == conn.execute("SELECT count(*) FROM memory_keyword_docs").fetchone()[0]
    finally:
        conn.close()
    payload_users = {json.loads(line)["payload"]["user_id"] for line in (bundle / "points.jsonl").open()}
    assert payload_users <= {a}
    raw = (bundle / "metadata.sqlite").read_bytes()
    for user in users[1:]:
        assert user.encode() not in raw
