"""Small stores are small: a new embedded store keeps its vectors in one SQLite file until it holds
``small_max`` points, then moves them into a vector-engine shard once (a crash on the way leaves one of the two in
charge, never none); a store written with a shard keeps it."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core.storage.edge_store import EdgeVectorStore
from hermes_memory_core.storage.small_vectors import SmallVectorStore
from hermes_memory_core.storage.vectors import VectorFilter, VectorPoint

DIM = 16


def _points(n: int, user: str = "u", seed: int = 0) -> list[VectorPoint]:
    rng = np.random.default_rng(seed)
    return [VectorPoint(str(uuid.uuid4()), rng.normal(size=DIM).astype(np.float32),
                        {"user_id": user, "session_id": "s", "memory_type": "long_term", "created_at": i,
                         "tags": ["t"]}) for i in range(n)]


def _apparent(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_a_new_store_is_small_and_grows_into_a_shard_with_the_same_answers(tmp_path: Path) -> None:
    path = tmp_path / "vectors" / "c"
    store = EdgeVectorStore(path, DIM, "c", small_max=50)
    store.open()
    first = _points(40)
    store.upsert(first)
    assert not path.exists() and store.small_path.is_file()
    assert _apparent(tmp_path) < 2**20  # the shard's preallocated files would be ~166 MiB apparent
    query = first[3].vector
    small_hits = store.search(query, 10, VectorFilter("u"))
    assert small_hits[0][0] == first[3].id and small_hits[0][1] == pytest.approx(1.0, abs=5e-4)  # (16-bit floats)
    more = _points(20, seed=1)
    store.upsert(more)  # passes 50: every point moves into a shard
    assert (path / "hermes_collection.json").is_file() and not store.small_path.exists()
    assert store.count() == 60
    every = first + more
    unit = np.stack([p.vector / np.linalg.norm(p.vector) for p in every])
    exact = [every[i].id for i in np.argsort(-(unit @ (query / np.linalg.norm(query))))[:5]]
    assert [h[0] for h in store.search(query, 5, VectorFilter("u"))] == exact
    store.close()
    again = EdgeVectorStore(path, DIM, "c", small_max=50)
    again.open()
    assert again.count() == 60 and again.search(query, 1, VectorFilter("u"))[0][0] == first[3].id
    again.close()


def test_a_store_with_a_shard_keeps_it(tmp_path: Path) -> None:
    """A store written before small stores existed (a shard from its first point) opens as it is."""
    path = tmp_path / "c"
    old = EdgeVectorStore(path, DIM, "c", small_max=0)
    old.open()
    pts = _points(5)
    old.upsert(pts)
    old.close()
    assert (path / "hermes_collection.json").is_file()
    store = EdgeVectorStore(path, DIM, "c")  # the default threshold now
    store.open()
    assert store.count() == 5 and not store.small_path.exists()
    store.upsert(_points(1, seed=2))
    assert store.count() == 6 and not store.small_path.exists()
    store.close()


def test_a_move_cut_short_leaves_the_small_file_in_charge(tmp_path: Path) -> None:
    path = tmp_path / "c"
    store = EdgeVectorStore(path, DIM, "c", small_max=10)
    store.open()
    pts = _points(8)
    store.upsert(pts)
    store.close()
    path.with_name("c.growing").write_text("x")  # a shard being built in place, then a kill
    half = EdgeVectorStore(path, DIM, "c", small_max=0)
    half._shard = half._create(path)
    half.upsert(_points(3, seed=5))
    half.close()
    store = EdgeVectorStore(path, DIM, "c", small_max=10)
    store.open()
    assert store.count() == 8 and not path.with_name("c.growing").exists() and not path.exists()
    store.close()


def test_a_move_that_renamed_its_shard_removes_the_stale_small_file(tmp_path: Path) -> None:
    path = tmp_path / "c"
    store = EdgeVectorStore(path, DIM, "c", small_max=10)
    store.open()
    store.upsert(_points(8))
    store.upsert(_points(8, seed=1))  # moved into the shard
    store.close()
    stale = SmallVectorStore(store.small_path, DIM)  # as if the kill came between the rename and the removal
    stale.open()
    stale.upsert(_points(2, seed=9))
    stale.close()
    store = EdgeVectorStore(path, DIM, "c", small_max=10)
    store.open()
    assert store.count() == 16 and not store.small_path.exists()
    store.close()


def test_deleted_points_leave_no_byte_in_the_small_file(tmp_path: Path) -> None:
    store = EdgeVectorStore(tmp_path / "c", DIM, "c")
    store.open()
    gone = [VectorPoint(p.id, p.vector, {**p.payload, "user_id": "erased-user-x", "tags": ["erasedtagx"]})
            for p in _points(5)]
    kept = _points(5, seed=3)
    store.upsert(gone + kept)
    store.delete_user("erased-user-x")
    store.compact_deleted()
    assert store.count() == 5
    store.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert b"erased-user-x" not in data and b"erasedtagx" not in data, path.name


def test_a_reader_holding_the_small_file_is_a_typed_busy_error_not_a_silent_leftover(tmp_path: Path) -> None:
    import sqlite3

    from hermes_memory_core.errors import StoreBusyError

    store = EdgeVectorStore(tmp_path / "c", DIM, "c")
    store.open()
    store.upsert([VectorPoint(p.id, p.vector, {**p.payload, "user_id": "erased-user-x"}) for p in _points(3)])
    reader = sqlite3.connect(str(store.small_path), isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM points").fetchone()  # a read transaction pins the log
    try:
        store.delete_user("erased-user-x")
        with pytest.raises(StoreBusyError, match="write-ahead log busy"):
            store.compact_deleted()
    finally:
        reader.execute("COMMIT")
        reader.close()
    store.compact_deleted()  # the reader gone, the rewrite completes
    store.close()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"erased-user-x" not in path.read_bytes(), path.name


def test_a_full_disk_is_a_typed_error_for_a_small_store(tmp_path: Path) -> None:
    import os

    from hermes_memory_core.errors import StorageFullError

    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small filesystem")
    media = tmp_path / "small"
    media.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(media)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        store = EdgeVectorStore(media / "c", 384, "c")
        store.open()
        written, error = 0, None
        for i in range(10_000):
            try:
                store.upsert(_big(50, i))
            except StorageFullError as exc:
                error = exc
                break
            written += 50
        assert error is not None and "full" in str(error) and str(media) in str(error)
        assert store.count() == written  # the failed batch left nothing; the acknowledged ones stay
        store.close()
    finally:
        subprocess.run(["umount", "-l", str(media)], check=False)


def _big(n: int, seed: int) -> list[VectorPoint]:
    rng = np.random.default_rng(seed)
    return [VectorPoint(str(uuid.uuid4()), rng.normal(size=384).astype(np.float32),
                        {"user_id": "u", "memory_type": "long_term", "created_at": 1, "tags": []}) for _ in range(n)]
