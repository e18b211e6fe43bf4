"""Write order and repair: SQLite rows first, vector points inside their transaction, compensation on failure,\nreconcile both ways."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hermes_memory_core import ConsistencyError, MemoryProvider, StorageFullError
from hermes_memory_core.storage.edge_store import EdgeVectorStore
from hermes_memory_core.storage.vectors import VectorPoint


class FailingVectorStore(EdgeVectorStore):
    """A real Edge store whose writes can be made to fail, to inject a fault between the two stores."""

    fail_upserts = False

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if self.fail_upserts:
            raise RuntimeError("injected vector-store failure")
        super().upsert(points)


@pytest.fixture
def failing(config, embedder):  # type: ignore[no-untyped-def]
    store = FailingVectorStore(config.data_dir / "vectors" / config.collection, config.vector_dim)
    with MemoryProvider(config, embedder=embedder, vector_store=store) as mem:
        yield mem, store


def test_failed_vector_write_leaves_nothing(failing) -> None:  # type: ignore[no-untyped-def]
    mem, store = failing
    keep = mem.add("kept memory", user_id="u")
    store.fail_upserts = True
    with pytest.raises(ConsistencyError):
        mem.add("lost memory", user_id="u")
    with pytest.raises(ConsistencyError):
        mem.add_many([{"content": f"m{i}", "user_id": "u"} for i in range(3)])
    stats = mem.stats()
    assert stats.total_active == 1 and stats.vector_points == 1 and stats.versions == 1
    assert mem.engine.metadata.keywords.keyword_search("u", ["lost"], 10) == []
    store.fail_upserts = False
    assert mem.search("kept", user_id="u")[0].id == keep


def test_a_vector_write_failing_on_a_full_disk_leaves_no_row(failing, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """On a full disk, deleting the rows again would fail too: the rows must roll back instead (needing no room)."""
    mem, store = failing
    keep = mem.add("kept memory", user_id="u")

    def full(points: Sequence[VectorPoint]) -> None:
        raise StorageFullError("injected: the disk holding the vectors is full")

    def no_room(*args: object, **kwargs: object) -> None:
        raise StorageFullError("injected: the disk holding the metadata is full")

    monkeypatch.setattr(store, "upsert", full)
    monkeypatch.setattr(mem.engine.metadata.records, "purge", no_room)
    with pytest.raises(StorageFullError):
        mem.add("lost memory", user_id="u")
    monkeypatch.undo()
    assert [r.id for r in mem.list_memories(user_id="u")] == [keep]
    assert mem.stats().total_active == 1 and mem.reconcile().metadata_orphans_reindexed == 0


def test_failed_vector_update_is_rolled_back(failing) -> None:  # type: ignore[no-untyped-def]
    mem, store = failing
    mid = mem.add("version one", user_id="u")
    store.fail_upserts = True
    with pytest.raises(ConsistencyError):
        mem.update(mid, "version two")
    assert mem.get(mid).content == "version one" and len(mem.history(mid)) == 1


def test_reconcile_repairs_orphans_both_ways(mem: MemoryProvider) -> None:
    a = mem.add("metadata orphan: vector lost", user_id="u")
    b = mem.add("healthy memory", user_id="u")
    mem.engine.vectors.delete([a])  # metadata row without a point
    ghost = VectorPoint("00000000-0000-4000-8000-000000000001", mem.embedder.embed_query("ghost"),
                        {"user_id": "u", "memory_type": "long_term", "created_at": 0, "tags": []})
    mem.engine.vectors.upsert([ghost])  # point without a row
    c = mem.add("stale vector", user_id="u")
    mem.engine.metadata.history.add_version(c, "stale vector, updated", "", 1, "u")  # row ahead of its point
    report = mem.reconcile()
    assert report.vector_orphans_removed == 1
    assert report.metadata_orphans_reindexed == 2
    assert mem.engine.vectors.count() == 3
    assert {h.id for h in mem.search("metadata orphan vector lost", user_id="u", top_k=3)} >= {a, b}
    assert mem.reconcile().as_dict() == {"metadata_orphans_reindexed": 0, "vector_orphans_removed": 0,
                                         "keyword_rows_repaired": 0, "expired_removed": 0,
                                         "erasures_finished": 0, "erasures_left": 0}


def test_reconcile_rebuilds_keyword_rows(mem: MemoryProvider) -> None:
    mid = mem.add("我喜欢喝美式咖啡", user_id="u")
    with mem.engine.metadata.atomic() as conn:
        mem.engine.metadata.shared.context.postings.unindex(conn, mid)
    assert mem.engine.metadata.keywords.keyword_search("u", ["咖啡"], 5) == []
    assert mem.reconcile().keyword_rows_repaired == 1
    assert mem.engine.metadata.keywords.keyword_search("u", ["咖啡"], 5)[0][0] == mid
