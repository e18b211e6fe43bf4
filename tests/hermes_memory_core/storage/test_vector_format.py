"""The embedded vector store keeps new vectors as 16-bit floats, and a store written before that (32-bit floats, no
format flag) opens, searches and is rewritten as it was.

The old-format files are written here the way the code before the flag wrote them: a small file whose ``meta`` has
only its ``dim`` row and 32-bit blobs, and a shard the engine created with its default (32-bit) datatype beside a
sidecar that names no datatype.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core.storage.edge_store import EdgeVectorStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint

DIM = 32


def _points(n: int, seed: int = 0) -> list[VectorPoint]:
    rng = np.random.default_rng(seed)
    return [VectorPoint(str(uuid.UUID(int=seed * 10_000 + i + 1)), rng.normal(size=DIM).astype(np.float32),
                        {"user_id": "u", "session_id": "s", "memory_type": "short_term", "created_at": i, "tags": []})
            for i in range(n)]


def _unit(points: list[VectorPoint]) -> np.ndarray:
    m = np.stack([p.vector for p in points]).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _exact(points: list[VectorPoint], query: np.ndarray, k: int) -> list[tuple[str, float]]:
    scores = _unit(points) @ (query / np.linalg.norm(query))
    return [(points[i].id, float(scores[i])) for i in np.argsort(-scores, kind="stable")[:k]]


def _old_small_file(path: Path, points: list[VectorPoint]) -> None:
    """A small vector file as written before the format flag."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path))
    conn.executescript("CREATE TABLE points (id TEXT PRIMARY KEY, vector BLOB NOT NULL, payload TEXT NOT NULL);"
                       "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);")
    conn.execute("INSERT INTO meta VALUES ('dim', ?)", (str(DIM),))
    conn.executemany("INSERT INTO points VALUES (?, ?, ?)",
                     [(p.id, vec.astype(np.float32).tobytes(), json.dumps(p.payload))
                      for p, vec in zip(points, _unit(points), strict=True)])
    conn.commit()
    conn.close()


def _old_shard(path: Path, points: list[VectorPoint]) -> None:
    """A shard as written before the format flag: the engine's default datatype, a sidecar naming none."""
    import qdrant_edge as qe

    path.mkdir(parents=True)
    shard = qe.EdgeShard.create(str(path), qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=DIM,
                                                                                     distance=qe.Distance.Cosine)))
    shard.update(qe.UpdateOperation.upsert_points(
        [qe.Point(id=p.id, vector=p.vector.tolist(), payload=p.payload) for p in points]))
    shard.flush()
    shard.close()
    (path / "hermes_collection.json").write_text(json.dumps({"dim": DIM, "distance": "cosine", "name": "c"}))


def _scores_match(got: list[tuple[str, float]], want: list[tuple[str, float]], atol: float) -> None:
    assert [h[0] for h in got] == [h[0] for h in want]
    assert np.allclose([h[1] for h in got], [h[1] for h in want], atol=atol)


def test_a_new_small_file_keeps_16_bit_vectors_the_same_before_and_after_a_reopen(tmp_path: Path) -> None:
    points = _points(200)
    store = EdgeVectorStore(tmp_path / "c", DIM, "c")
    store.open()
    store.upsert(points)
    query = points[7].vector + 0.3 * points[9].vector
    before = store.search(query, 10, VectorFilter("u"))
    stored = store.fetch([points[7].id])[points[7].id]
    store.close()
    conn = sqlite3.connect(str(store.small_path))
    assert conn.execute("SELECT value FROM meta WHERE key = 'vector_dtype'").fetchone() == ("float16",)
    assert {len(b) for (b,) in conn.execute("SELECT vector FROM points")} == {DIM * 2}
    conn.close()
    again = EdgeVectorStore(tmp_path / "c", DIM, "c")
    again.open()
    assert again.dtype == "float16"
    assert again.search(query, 10, VectorFilter("u")) == before  # what search saw is what was stored
    assert np.array_equal(again.fetch([points[7].id])[points[7].id], stored)
    _scores_match(before, _exact(points, query, 10), atol=2e-3)
    again.close()


def test_an_old_small_file_opens_searches_and_stays_32_bit(tmp_path: Path) -> None:
    points = _points(120)
    store = EdgeVectorStore(tmp_path / "c", DIM, "c")
    _old_small_file(store.small_path, points)
    store.open()
    assert store.dtype == "float32"
    query = points[3].vector - 0.5 * points[4].vector
    _scores_match(store.search(query, 10, VectorFilter("u")), _exact(points, query, 10), atol=1e-6)
    more = _points(30, seed=1)
    store.upsert(more)  # written in the file's own format
    store.close()
    conn = sqlite3.connect(str(store.small_path))
    assert conn.execute("SELECT value FROM meta WHERE key = 'vector_dtype'").fetchone() is None
    assert {len(b) for (b,) in conn.execute("SELECT vector FROM points")} == {DIM * 4}
    conn.close()
    again = EdgeVectorStore(tmp_path / "c", DIM, "c")
    again.open()
    _scores_match(again.search(query, 10, VectorFilter("u")), _exact(points + more, query, 10), atol=1e-6)
    again.close()


def test_an_old_shard_opens_searches_and_its_rewrites_stay_32_bit(tmp_path: Path) -> None:
    points = _points(150)
    path = tmp_path / "c"
    _old_shard(path, points)
    store = EdgeVectorStore(path, DIM, "c")
    store.open()
    assert store.dtype == "float32" and not store.small_path.exists()
    query = points[11].vector + points[12].vector
    want = _exact(points, query, 10)
    _scores_match(store.search(query, 10, VectorFilter("u")), want, atol=1e-5)
    store.delete([points[0].id])
    store.compact_deleted()  # a fresh shard replaces it: in the shard's own format
    assert json.loads((path / "hermes_collection.json").read_text())["datatype"] == "float32"
    assert np.allclose(store.fetch([points[11].id])[points[11].id], _unit(points)[11], atol=1e-6)
    _scores_match(store.search(query, 10, VectorFilter("u")), [h for h in want if h[0] != points[0].id][:10]
                  if points[0].id in {h[0] for h in want} else want, atol=1e-5)
    store.close()


@pytest.mark.parametrize("small_max", [0, 50])
def test_a_new_shard_keeps_16_bit_vectors(tmp_path: Path, small_max: int) -> None:
    """Created as one, or grown from a new small file."""
    points = _points(80)
    path = tmp_path / "c"
    store = EdgeVectorStore(path, DIM, "c", small_max=small_max)
    store.open()
    store.upsert(points)
    assert json.loads((path / "hermes_collection.json").read_text())["datatype"] == "float16"
    got = store.fetch([points[5].id])[points[5].id]
    assert np.array_equal(got, _unit(points)[5].astype(np.float16).astype(np.float32))
    query = points[5].vector
    _scores_match(store.search(query, 5, VectorFilter("u")), _exact(points, query, 5), atol=2e-3)
    store.close()
