"""ONE contract suite, run against every vector backend (see storage/vectors.py for the contract).

The qdrant-client backend runs on ':memory:' here and against a real server when QDRANT_URL is set.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core import BackendUnavailableError, DimensionMismatchError, StoreClosedError
from hermes_memory_core.storage.client_store import QdrantClientVectorStore
from hermes_memory_core.storage.edge_store import EdgeVectorStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint, VectorStore

DIM = 8
Factory = Callable[[int], VectorStore]


def _edge(tmp: Path) -> Factory:
    return lambda dim: EdgeVectorStore(tmp / "shard", dim, "contract")


def _edge_shard(tmp: Path) -> Factory:
    """The embedded engine past a small store (its points in a shard from the first write)."""
    return lambda dim: EdgeVectorStore(tmp / "shard", dim, "contract", small_max=0)


def _client_memory(tmp: Path) -> Factory:
    client_holder: dict[str, object] = {}

    def make(dim: int) -> VectorStore:
        from qdrant_client import QdrantClient

        client = client_holder.setdefault("c", QdrantClient(location=":memory:"))
        return QdrantClientVectorStore(":memory:", dim, "contract", client=client)

    return make


def _client_server(tmp: Path) -> Factory:
    url = os.environ["QDRANT_URL"]
    name = f"contract_{uuid.uuid4().hex[:8]}"
    return lambda dim: QdrantClientVectorStore(url, dim, name, api_key=os.environ.get("QDRANT_API_KEY"))


BACKENDS = [
    pytest.param(_edge, id="qdrant-edge"),
    pytest.param(_edge_shard, id="qdrant-edge-shard"),
    pytest.param(_client_memory, id="qdrant-client-memory"),
    pytest.param(
        _client_server,
        id="qdrant-server",
        marks=[pytest.mark.server, pytest.mark.skipif(not os.environ.get("QDRANT_URL"),
                                                      reason="set QDRANT_URL=http://host:6333 to run against a server")],
    ),
]


@pytest.fixture(params=BACKENDS)
def factory(request: pytest.FixtureRequest, tmp_path: Path) -> Factory:
    return request.param(tmp_path)  # type: ignore[no-any-return]


@pytest.fixture
def store(factory: Factory) -> Iterator[VectorStore]:
    s = factory(DIM)
    s.open()
    yield s
    s.close()


def _vec(*head: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(head)] = head
    return v


def _pt(vec: np.ndarray, user: str = "u1", **payload: object) -> VectorPoint:
    base = {"user_id": user, "session_id": "s1", "memory_type": "long_term", "created_at": 100, "tags": []}
    base.update(payload)
    return VectorPoint(str(uuid.uuid4()), vec, base)


def test_upsert_search_order_and_scores(store: VectorStore) -> None:
    a, b, c = _pt(_vec(1, 0)), _pt(_vec(1, 1)), _pt(_vec(0, 1))
    store.upsert([a, b, c])
    hits = store.search(_vec(1, 0), 3, VectorFilter("u1"))
    assert [h[0] for h in hits] == [a.id, b.id, c.id]
    assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert all(-1.0 - 1e-6 <= s <= 1.0 + 1e-6 for _, s in hits)
    assert store.count() == 3


def test_search_many_is_each_vector_searched(store: VectorStore) -> None:
    """Several query vectors in one call give, in order, what :meth:`search` gives for each (the filter applies to all)."""
    rng = np.random.default_rng(7)
    store.upsert([_pt(rng.normal(size=DIM).astype(np.float32), session_id=f"s{i % 3}") for i in range(40)]
                 + [_pt(_vec(1, 0), user="u2")])
    queries = [rng.normal(size=DIM).astype(np.float32) for _ in range(3)]
    for flt in (VectorFilter("u1"), VectorFilter("u1", session_id="s1"), VectorFilter("nobody")):
        batched = store.search_many(queries, 7, flt)
        assert batched == [store.search(q, 7, flt) for q in queries]
        assert len(batched) == 3
    assert store.search_many([], 5, VectorFilter("u1")) == []


def test_limit_and_user_filter(store: VectorStore) -> None:
    store.upsert([_pt(_vec(1, i * 0.1)) for i in range(5)] + [_pt(_vec(1, 0), user="u2")])
    assert len(store.search(_vec(1, 0), 2, VectorFilter("u1"))) == 2
    assert len(store.search(_vec(1, 0), 10, VectorFilter("u1"))) == 5
    assert len(store.search(_vec(1, 0), 10, VectorFilter("u2"))) == 1
    assert store.search(_vec(1, 0), 10, VectorFilter("nobody")) == []


def test_payload_filters(store: VectorStore) -> None:
    p1 = _pt(_vec(1), memory_type="permanent", session_id="a", tags=["x"], created_at=10)
    p2 = _pt(_vec(1), memory_type="long_term", session_id="b", tags=["y", "z"], created_at=20)
    store.upsert([p1, p2])
    q = _vec(1)
    ids = lambda f: {h[0] for h in store.search(q, 10, f)}  # noqa: E731
    assert ids(VectorFilter("u1", memory_types=("permanent",))) == {p1.id}
    assert ids(VectorFilter("u1", memory_types=("permanent", "long_term"))) == {p1.id, p2.id}
    assert ids(VectorFilter("u1", session_id="b")) == {p2.id}
    assert ids(VectorFilter("u1", tags=("z",))) == {p2.id}
    assert ids(VectorFilter("u1", created_from=15)) == {p2.id}
    assert ids(VectorFilter("u1", created_to=15)) == {p1.id}


def test_upsert_replaces_and_delete(store: VectorStore) -> None:
    p = _pt(_vec(1, 0))
    store.upsert([p])
    store.upsert([VectorPoint(p.id, _vec(0, 1), p.payload)])
    assert store.count() == 1
    assert store.search(_vec(0, 1), 1, VectorFilter("u1"))[0][1] == pytest.approx(1.0, abs=1e-5)
    store.delete([p.id, str(uuid.uuid4())])  # unknown ids are not an error
    assert store.count() == 0 and store.search(_vec(1), 5, VectorFilter("u1")) == []


def test_iter_points_round_trip(store: VectorStore) -> None:
    pts = [_pt(_vec(1, i)) for i in range(7)]
    store.upsert(pts)
    got = [p for batch in store.iter_points(batch_size=3) for p in batch]
    assert {p.id for p in got} == {p.id for p in pts}
    by_id = {p.id: p for p in got}
    for p in pts:
        expected = p.vector / np.linalg.norm(p.vector)
        assert np.allclose(by_id[p.id].vector, expected, atol=1e-3)  # (the embedded store keeps 16-bit floats)
        assert by_id[p.id].payload["user_id"] == "u1"
    ids_only = [p for batch in store.iter_points(with_vectors=False) for p in batch]
    assert len(ids_only) == 7


def test_fetch_returns_stored_unit_vectors(store: VectorStore) -> None:
    pts = [_pt(_vec(3, i)) for i in range(4)]
    store.upsert(pts)
    unknown = str(uuid.uuid4())
    got = store.fetch([pts[0].id, pts[2].id, unknown])
    assert set(got) == {pts[0].id, pts[2].id}
    for p in (pts[0], pts[2]):
        assert np.allclose(got[p.id], p.vector / np.linalg.norm(p.vector), atol=1e-3)  # (16-bit floats)
    assert store.fetch([]) == {}


def test_wrong_vector_size_is_rejected(store: VectorStore) -> None:
    with pytest.raises(DimensionMismatchError):
        store.upsert([VectorPoint(str(uuid.uuid4()), np.ones(DIM + 1, np.float32), {"user_id": "u1"})])


def test_dimension_mismatch_at_open_names_both(factory: Factory) -> None:
    first = factory(DIM)
    first.open()
    first.upsert([_pt(_vec(1))])
    first.flush()
    first.close()
    other = factory(DIM * 2)
    with pytest.raises(DimensionMismatchError, match=rf"{DIM}.*{DIM * 2}|{DIM * 2}.*{DIM}"):
        other.open()
    other.close()


def test_reopen_keeps_points(factory: Factory) -> None:
    s = factory(DIM)
    s.open()
    p = _pt(_vec(1))
    s.upsert([p])
    s.flush()
    s.close()
    s2 = factory(DIM)
    s2.open()
    assert [h[0] for h in s2.search(_vec(1), 1, VectorFilter("u1"))] == [p.id]
    s2.close()


def test_set_payload_changes_filters_not_vectors(store: VectorStore) -> None:
    p = _pt(_vec(1, 0), memory_type="long_term")
    store.upsert([p])
    store.set_payload([p.id], {"memory_type": "short_term"})
    assert store.search(_vec(1, 0), 5, VectorFilter("u1", memory_types=("long_term",))) == []
    hit = store.search(_vec(1, 0), 5, VectorFilter("u1", memory_types=("short_term",)))
    assert hit[0][0] == p.id and hit[0][1] == pytest.approx(1.0, abs=1e-5)
    store.set_payload([], {"memory_type": "x"})  # nothing to do


def test_optimize_keeps_results(store: VectorStore) -> None:
    pts = [_pt(_vec(1, i * 0.1)) for i in range(20)]
    store.upsert(pts)
    before = store.search(_vec(1, 0), 5, VectorFilter("u1"))
    store.optimize()
    assert store.search(_vec(1, 0), 5, VectorFilter("u1")) == before


def test_delete_user_removes_only_that_users_points(store: VectorStore) -> None:
    mine = [_pt(_vec(1, i * 0.1)) for i in range(4)]
    theirs = [_pt(_vec(1, i * 0.1), user="u2") for i in range(3)]
    store.upsert(mine + theirs)
    store.delete_user("u1")
    store.delete_user("nobody")  # nothing to remove is not an error
    assert store.search(_vec(1), 10, VectorFilter("u1")) == [] and store.count() == 3
    assert {h[0] for h in store.search(_vec(1), 10, VectorFilter("u2"))} == {p.id for p in theirs}


def test_compact_deleted_keeps_live_points_and_drops_deleted_bytes(factory: Factory, tmp_path: Path) -> None:
    s = factory(DIM)
    s.open()
    gone = [_pt(_vec(1, i * 0.1), user="erased-user-x", tags=["erasedtagx"]) for i in range(5)]
    kept = [_pt(_vec(i * 0.1, 1), user="u2", tags=["kept"]) for i in range(5)]
    s.upsert(gone + kept)
    s.flush()
    before = s.search(_vec(0, 1), 5, VectorFilter("u2"))
    s.delete([p.id for p in gone])
    s.compact_deleted()
    assert s.search(_vec(0, 1), 5, VectorFilter("u2")) == before and s.count() == 5
    s.upsert([_pt(_vec(1, 1))])  # still writable
    s.flush()
    s.close()
    s2 = factory(DIM)
    s2.open()
    assert s2.count() == 6 and s2.search(_vec(0, 1), 5, VectorFilter("u2")) == before
    s2.close()
    for base, _dirs, files in os.walk(tmp_path):  # an embedded engine's files keep no byte of the deleted points
        for name in files:
            data = Path(base, name).read_bytes()
            assert b"erased-user-x" not in data and b"erasedtagx" not in data, name


def test_a_closed_store_says_so(store: VectorStore) -> None:
    store.close()
    with pytest.raises(StoreClosedError, match="not open"):
        store.search(np.ones(DIM, dtype=np.float32), 1, VectorFilter("u"))


def test_an_unreachable_server_is_a_backend_error() -> None:
    """Port 1 on the loopback refuses at once: the error names the URL, and is the one server mode raises."""
    with pytest.raises(BackendUnavailableError, match=r"cannot reach Qdrant at http://127\.0\.0\.1:1"):
        QdrantClientVectorStore("http://127.0.0.1:1", DIM, "contract").open()
