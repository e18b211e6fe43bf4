"""PostgreSQL's planner statistics never sample user data: they live in pg_statistic, outside the store's tables,
and would keep a user's words and ids after their erasure."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from tests.conftest import POSTGRES_URL, make_config
from tests.fakes import HashingEmbedder


@pytest.mark.server
def test_analyze_keeps_no_value_of_user_data(tmp_path: Path) -> None:
    if not POSTGRES_URL:
        pytest.skip('needs PostgreSQL: run eval "$(.ci/postgres.sh start /tmp/hm-pg)" first')
    import psycopg

    config = make_config(tmp_path / "store", "server")
    with MemoryProvider(config, embedder=HashingEmbedder()) as mem:
        mem.add_many([{"content": f"zebraword note {i % 3}", "user_id": "victimuser", "tags": ["okapitag"]}
                      for i in range(300)])
        session = mem.session("victimuser", "okapisession")
        session.add_messages([("user", "zebraword in a chat"), ("assistant", "noted")])
        session.close()
        mem.flush()
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{config.metadata_schema}"')
        conn.execute("ANALYZE")  # what autovacuum does on its own, sooner or later
        held = conn.execute(
            "SELECT tablename, attname FROM pg_stats WHERE schemaname = %s AND concat(most_common_vals::text, "
            "histogram_bounds::text) ~ '(zebraword|victimuser|okapitag|okapisession)'", (config.metadata_schema,)
        ).fetchall()
    assert held == []
