"""A busy reader does not stall everyone: while another process holds a read transaction on
``metadata.sqlite``, ``purge_user`` waits a bounded time for its checkpoint without the write lock, reports what is
left, and ``reconcile()`` finishes it once the reader is gone."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.engine import METADATA_FILE

READER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN")
conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the read transaction holds its snapshot
print("HOLDING", flush=True)
sys.stdin.read()  # until the test closes our stdin
"""


@pytest.fixture
def reader(mem: MemoryProvider) -> Iterator[subprocess.Popen[str]]:
    """Another process holding a read transaction on the store's SQLite file until the test ends it."""
    path = Path(mem.config.data_dir) / METADATA_FILE
    proc = subprocess.Popen([sys.executable, "-c", READER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "HOLDING"
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)


def _on_disk(mem: MemoryProvider, needle: bytes) -> bool:
    return any(needle in p.read_bytes() for p in Path(mem.config.data_dir).glob(f"{METADATA_FILE}*"))


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=30)


def test_purge_waits_a_bounded_time_without_the_write_lock(mem: MemoryProvider, reader, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    mem.add_many([{"content": f"secret of alice {i}", "user_id": "alice"} for i in range(5)])
    keep = mem.add("bob's memory", user_id="bob")
    metadata = mem.engine.metadata
    metadata.checkpoint_wait = 8.0  # type: ignore[attr-defined]
    waiting = threading.Event()
    checkpoint = metadata.checkpoint

    def entered() -> None:
        waiting.set()
        checkpoint()

    monkeypatch.setattr(metadata, "checkpoint", entered)
    reports: list[object] = []
    purge = threading.Thread(target=lambda: reports.append(mem.purge_user("alice")))
    purge.start()
    assert waiting.wait(60)
    started = time.monotonic()
    other = mem.add("written while the purge waits for the reader", user_id="bob")  # not stalled by the wait
    assert purge.is_alive() and time.monotonic() - started < 6.0
    purge.join(60)
    assert not purge.is_alive()
    report = reports[0]
    assert "reconcile()" in report.left and report.memories == 5  # type: ignore[attr-defined]
    assert mem.search("secret of alice", user_id="alice") == []
    assert {h.id for h in mem.search("memory", user_id="bob")} == {keep, other}
    assert len(metadata.pending_erasures()) == 1  # recorded again: what is left is not forgotten
    assert _on_disk(mem, b"secret of alice")  # the reader's snapshot keeps the old pages in the file
    _release(reader)
    assert mem.reconcile().erasures_finished == 1
    assert metadata.pending_erasures() == [] and not _on_disk(mem, b"secret of alice")


def test_purge_without_a_reader_leaves_nothing(mem: MemoryProvider) -> None:
    mem.add("secret of alice", user_id="alice")
    report = mem.purge_user("alice")
    assert report.left == "" and report.as_dict()["left"] == "" and report.memories == 1
    assert mem.engine.metadata.pending_erasures() == [] and not _on_disk(mem, b"secret of alice")
    assert (Path(mem.config.data_dir) / f"{METADATA_FILE}-wal").stat().st_size == 0


def test_a_reader_of_the_small_vector_file_is_reported_as_left_and_reconcile_finishes(mem: MemoryProvider) -> None:
    mem.add_many([{"content": f"secret of alice {i}", "user_id": "alice"} for i in range(3)])
    mem.add("bob's memory", user_id="bob")
    small = next(p for p in Path(mem.config.data_dir).rglob("*.sqlite") if p.name != METADATA_FILE)
    proc = subprocess.Popen([sys.executable, "-c", READER, str(small)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HOLDING"
        report = mem.purge_user("alice")
        assert "write-ahead log busy" in report.left  # not a silent leftover
        assert len(mem.engine.metadata.pending_erasures()) == 1
        assert mem.search("secret of alice", user_id="alice") == []
    finally:
        _release(proc)
    assert mem.reconcile().erasures_finished == 1
    assert mem.engine.metadata.pending_erasures() == []
    assert mem.search("memory", user_id="bob")
