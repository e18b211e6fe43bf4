"""8 threads mixing add / search / update / delete for 2,000 operations: no lock errors, no lost writes."""

from __future__ import annotations

import collections
import random
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider, NotFoundError
from tests.conftest import ADMIN, BACKENDS, make_config

THREADS, OPS = 8, 250


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_eight_threads_two_thousand_ops(tmp_path: Path, embedder, backend: str) -> None:  # type: ignore[no-untyped-def]
    mem = MemoryProvider(make_config(tmp_path / "s", backend), embedder=embedder, caller=ADMIN)
    errors: list[BaseException] = []
    live: dict[str, str] = {}  # id -> latest acknowledged content
    gone: set[str] = set()
    # deletes started per memory: another thread may see a memory gone before its deleter has put it in `gone`
    deleting: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()
    counts = {"add": 0, "search": 0, "update": 0, "delete": 0}

    def worker(n: int) -> None:
        rnd = random.Random(n)
        for i in range(OPS):
            try:
                op = rnd.choices(["add", "search", "update", "delete"], [35, 35, 18, 12])[0]
                with lock:
                    mine = [m for m in live if m.startswith("")]  # snapshot
                if op == "add" or not mine:
                    text = f"thread {n} note {i} about {rnd.choice(['tea', 'coffee', '咖啡', 'trains', 'jazz'])}"
                    mid = mem.add(text, user_id=f"user{n % 3}", memory_type=rnd.choice(["long_term", "permanent"]))
                    with lock:
                        live[mid] = text
                    op = "add"
                elif op == "search":
                    for hit in mem.search("coffee tea", user_id=f"user{n % 3}", top_k=5):
                        assert hit.record.user_id == f"user{n % 3}"
                elif op == "update":
                    mid = rnd.choice(mine)
                    text = f"updated by {n} at {i}"
                    try:
                        mem.update(mid, text)
                        with lock:
                            if mid in live:
                                live[mid] = text
                    except NotFoundError:
                        with lock:
                            assert deleting[mid] >= 1  # deleted by another thread meanwhile
                else:
                    mid = rnd.choice(mine)
                    with lock:
                        deleting[mid] += 1
                    try:
                        mem.delete(mid)
                        with lock:
                            live.pop(mid, None)
                            gone.add(mid)
                    except NotFoundError:
                        with lock:
                            assert deleting[mid] >= 2  # another thread deleted it first
                with lock:
                    counts[op] += 1
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], errors[:3]
    assert sum(counts.values()) == THREADS * OPS
    assert not any(isinstance(e, sqlite3.OperationalError) for e in errors)
    mem.flush()
    points = {p.id for b in mem.engine.vectors.iter_points(with_vectors=False) for p in b}
    for mid in gone:
        assert mid not in points
    for mid in live:
        assert mem.get(mid).id == mid and mid in points  # no lost write
    assert mem.stats().total_active == len(live)
    report = mem.reconcile().as_dict()
    assert report == {"metadata_orphans_reindexed": 0, "vector_orphans_removed": 0, "keyword_rows_repaired": 0,
                      "expired_removed": 0, "erasures_finished": 0, "erasures_left": 0}
    mem.close()


def test_second_process_gets_clear_lock_error(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    code = ("import sys\nfrom hermes_memory_core import MemoryConfig, MemoryProvider, StoreLockedError\n"
            "try:\n    MemoryProvider(MemoryConfig(data_dir=sys.argv[1]))\nexcept StoreLockedError as e:\n"
            "    print(e); sys.exit(3)\n")
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder):
        res = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True,
                             timeout=120)
    assert res.returncode == 3 and "server mode" in res.stdout
