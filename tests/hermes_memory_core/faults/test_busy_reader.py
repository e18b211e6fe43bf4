"""A busy reader does not stall everyone: while another process holds a read transaction on
``metadata.sqlite`` or the small vector file (or, on PostgreSQL, a transaction older than the erasure is open),
``purge_user`` waits a bounded time without the write lock, reports what is left, and ``reconcile()`` finishes it
once the reader is gone."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.engine import METADATA_FILE
from hermes_memory_core.storage.small_vectors import SmallVectorStore
from tests.conftest import ADMIN, NEEDS_POSTGRES, POSTGRES_URL, make_config
from tests.hermes_memory_core.lifecycle.test_erasure import _postgres_files_holding

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


@contextlib.contextmanager
def _reader_of(path: Path) -> Iterator[None]:
    """Another process holding a read transaction on the SQLite file at ``path`` while the block runs."""
    proc = subprocess.Popen([sys.executable, "-c", READER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HOLDING"
        yield
    finally:
        _release(proc)


def _small_vector_file(data_dir: Path) -> Path:
    return next(p for p in data_dir.rglob("*.sqlite") if p.name != METADATA_FILE)


def test_purge_waits_a_bounded_time_without_the_write_lock(mem: MemoryProvider, reader, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    mem.add_many([{"content": f"secret of alice {i}", "user_id": "alice"} for i in range(5)])
    keep = mem.add("bob's memory", user_id="bob")
    metadata = mem.engine.metadata
    metadata.checkpoint_wait = 8.0  # type: ignore[attr-defined]
    waiting = threading.Event()
    checkpoint = metadata.erasure.checkpoint

    def entered() -> None:
        waiting.set()
        checkpoint()

    monkeypatch.setattr(metadata.erasure, "checkpoint", entered)
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
    assert len(metadata.erasure.pending_erasures()) == 1  # recorded again: what is left is not forgotten
    assert _on_disk(mem, b"secret of alice")  # the reader's snapshot keeps the old pages in the file
    _release(reader)
    assert mem.reconcile().erasures_finished == 1
    assert metadata.erasure.pending_erasures() == [] and not _on_disk(mem, b"secret of alice")


def test_purge_without_a_reader_leaves_nothing(mem: MemoryProvider) -> None:
    mem.add("secret of alice", user_id="alice")
    report = mem.purge_user("alice")
    assert report.left == "" and report.as_dict()["left"] == "" and report.memories == 1
    assert mem.engine.metadata.erasure.pending_erasures() == [] and not _on_disk(mem, b"secret of alice")
    assert (Path(mem.config.data_dir) / f"{METADATA_FILE}-wal").stat().st_size == 0


def test_a_reader_of_the_small_vector_file_is_reported_as_left_and_reconcile_finishes(mem: MemoryProvider) -> None:
    mem.add_many([{"content": f"secret of alice {i}", "user_id": "alice"} for i in range(3)])
    mem.add("bob's memory", user_id="bob")
    with _reader_of(_small_vector_file(Path(mem.config.data_dir))):
        report = mem.purge_user("alice")
        assert "write-ahead log busy" in report.left  # not a silent leftover
        assert len(mem.engine.metadata.erasure.pending_erasures()) == 1
        assert mem.search("secret of alice", user_id="alice") == []
        early = mem.reconcile()  # run while the reader is still there: it says the erasure is still left
        assert early.erasures_finished == 0 and early.erasures_left == 1
    done = mem.reconcile()
    assert done.erasures_finished == 1 and done.erasures_left == 0
    assert mem.engine.metadata.erasure.pending_erasures() == []
    assert mem.search("memory", user_id="bob")


def test_a_purge_waiting_for_a_reader_of_the_vector_file_holds_no_lock(mem: MemoryProvider, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The purge is held at the start of its wait for the vector file's log: another user's write goes through."""
    mem.add("secret of alice", user_id="alice")
    mem.add("bob's memory", user_id="bob")
    at_wait, go_on = threading.Event(), threading.Event()
    empty_log = SmallVectorStore._empty_log

    def held(self: SmallVectorStore) -> None:
        at_wait.set()
        assert go_on.wait(60)
        empty_log(self)

    monkeypatch.setattr(SmallVectorStore, "_empty_log", held)
    purge = threading.Thread(target=mem.purge_user, args=("alice",))
    purge.start()
    try:
        assert at_wait.wait(60)
        written: list[str] = []
        writer = threading.Thread(target=lambda: written.append(mem.add("written meanwhile", user_id="bob")))
        writer.start()
        writer.join(30)
        assert written and purge.is_alive()  # the write did not wait for the purge
    finally:
        go_on.set()
        purge.join(60)
    assert mem.engine.metadata.erasure.pending_erasures() == []
    assert {h.content for h in mem.search("memory meanwhile", user_id="bob")} >= {"written meanwhile"}



@NEEDS_POSTGRES
def test_a_transaction_older_than_the_purge_on_postgres_is_reported_and_reconcile_finishes(
        tmp_path: Path, embedder: Embedder) -> None:
    """Another session's snapshot from before the purge can still read the deleted rows, so VACUUM FULL keeps
    them: the purge waits, says so in ``left`` and keeps the intent; once it ends, ``reconcile()`` finishes."""
    import psycopg

    victim = f"victim{uuid.uuid4().hex[:8]}"
    with MemoryProvider(make_config(tmp_path / "s", "server"), embedder=embedder, caller=ADMIN) as mem:
        mem.add_many([{"content": f"{victim} note {i}", "user_id": victim} for i in range(3)])
        mem.add("bob's memory", user_id="bob")
        holder = psycopg.connect(POSTGRES_URL, autocommit=True)  # type: ignore[arg-type]
        try:
            holder.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            holder.execute("SELECT count(*) FROM pg_class").fetchone()  # its snapshot predates the purge
            report = mem.purge_user(victim)
            assert "transactions older than the erasure" in report.left and report.memories == 3
            assert f"server sessions {holder.info.backend_pid}" in report.left
            assert len(mem.engine.metadata.erasure.pending_erasures()) == 1  # what is left is not forgotten
            assert mem.search(f"{victim} note", user_id=victim) == []
        finally:
            holder.close()
        assert mem.reconcile().erasures_finished == 1
        assert mem.engine.metadata.erasure.pending_erasures() == []
        assert [h.content for h in mem.search("memory", user_id="bob")] == ["bob's memory"]
    assert not _postgres_files_holding([victim.encode()])


@NEEDS_POSTGRES
def test_only_transactions_begun_before_the_rewrite_hold_it_back_on_postgres(tmp_path: Path, embedder: Embedder,
                                                                           monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A busy database always has a transaction open; one begun while the rewrite waits (a later report query,
    while shorter ones finish) sees the rows deleted and must not hold it back: the rewrite waits only for the
    one older than the delete."""
    import psycopg

    from hermes_memory_core.storage.postgres import database

    victim = f"victim{uuid.uuid4().hex[:8]}"
    with MemoryProvider(make_config(tmp_path / "s", "server"), embedder=embedder, caller=ADMIN) as mem:
        mem.add(f"{victim} secret", user_id=victim)
        older = psycopg.connect(POSTGRES_URL, autocommit=True)  # type: ignore[arg-type]
        older.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        older.execute("SELECT count(*) FROM pg_class").fetchone()  # a snapshot from before the delete
        mem.engine.metadata.erasure.erase_user_rows(victim)
        later = psycopg.connect(POSTGRES_URL, autocommit=True)  # type: ignore[arg-type]
        wait = database.retry_while_busy

        def while_waiting(attempt, *args):  # type: ignore[no-untyped-def]
            later.execute("BEGIN")
            later.execute("SELECT txid_current()").fetchone()  # begun after the rewrite started
            with psycopg.connect(POSTGRES_URL, autocommit=True) as short:  # type: ignore[arg-type]
                short.execute("SELECT txid_current()").fetchone()  # and a shorter one finishes after it
            threading.Timer(0.3, older.close).start()
            return wait(attempt, *args)

        monkeypatch.setattr(database, "retry_while_busy", while_waiting)
        try:
            mem.engine.metadata.db.rewrite()  # no StoreBusyError: only `older` held it back, for 0.3 s
        finally:
            later.close()
            older.close()


@NEEDS_POSTGRES
def test_a_purge_on_postgres_waits_for_a_short_older_transaction(tmp_path: Path, embedder: Embedder) -> None:
    """A transaction that ends within the wait only delays the purge: nothing is left, no file holds the user."""
    import psycopg

    victim = f"victim{uuid.uuid4().hex[:8]}"
    with MemoryProvider(make_config(tmp_path / "s", "server"), embedder=embedder, caller=ADMIN) as mem:
        mem.add(f"{victim} secret", user_id=victim)
        holder = psycopg.connect(POSTGRES_URL, autocommit=True)  # type: ignore[arg-type]
        holder.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        holder.execute("SELECT count(*) FROM pg_class").fetchone()
        ender = threading.Timer(0.3, holder.close)
        ender.start()
        try:
            report = mem.purge_user(victim)
        finally:
            ender.join()
        assert report.left == "" and mem.engine.metadata.erasure.pending_erasures() == []
    assert not _postgres_files_holding([victim.encode()])


def test_the_cli_says_a_purge_is_not_complete_while_a_reader_holds_the_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``purge-user`` does not claim a complete erasure a reader kept from finishing: exit 1 and what is left."""
    from hermes_memory_core.cli import main

    d = ["--data-dir", str(tmp_path / "d")]
    assert main(["add", "The user collects qqwhistle stamps", "--user", "gone", *d]) == 0
    assert main(["add", "The user likes tea", "--user", "stays", *d]) == 0
    with _reader_of(_small_vector_file(tmp_path / "d")):
        capsys.readouterr()
        assert main(["purge-user", "--user", "gone", "--yes", *d]) == 1
        out = capsys.readouterr().out
        assert "not yet complete" in out and "reconcile()" in out and "everything else" not in out
        assert main(["reconcile", *d]) == 1  # too early: it says so
        assert "erasures_left: 1" in capsys.readouterr().out
    assert main(["reconcile", *d]) == 0  # the open finishes the recorded erasure, the reader gone
    assert main(["purge-user", "--user", "gone", "--yes", *d]) == 0
    assert "everything else they left" in capsys.readouterr().out
    assert main(["stats", "--json", *d]) == 0
    assert json.loads(capsys.readouterr().out)["by_user"] == {"stays": 1}
    assert not any(b"qqwhistle" in p.read_bytes() for p in (tmp_path / "d").rglob("*") if p.is_file())


def test_a_hard_delete_a_reader_kept_from_finishing_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """``delete(hard=True)`` returns no report: it logs a warning, and ``delete --hard`` exits 1 saying so."""
    from hermes_memory_core.cli import main

    d = ["--data-dir", str(tmp_path / "d")]
    assert main(["add", "The user hides a zzsecret", "--user", "u", *d]) == 0
    mid = capsys.readouterr().out.strip()
    assert main(["add", "The user likes tea", "--user", "u", *d]) == 0
    with _reader_of(_small_vector_file(tmp_path / "d")):
        capsys.readouterr()
        with caplog.at_level("WARNING", logger="hermes_memory.erasure"):
            assert main(["delete", mid, "--hard", "--user", "u", *d]) == 1
        assert "not yet complete" in capsys.readouterr().out
        assert any(mid in r.getMessage() and "not yet complete" in r.getMessage() for r in caplog.records)
    assert main(["reconcile", *d]) == 0  # the open finishes the recorded erasure, the reader gone
    capsys.readouterr()
    assert main(["get", mid, *d]) == 2
    assert not any(b"zzsecret" in p.read_bytes() for p in (tmp_path / "d").rglob("*") if p.is_file())


def test_closing_beside_a_reader_does_not_wait_for_it(tmp_path: Path, embedder: Embedder) -> None:
    """The last checkpoint at close is tried once: a reader holding the log leaves it for the next open (it made a
    close after any write wait the busy timeout, 5 s; here 2 minutes, so a wait cannot pass for a slow machine)."""
    mem = MemoryProvider(make_config(tmp_path / "s"), embedder=embedder)
    mem.add("The user likes tea", user_id="u")
    with mem.engine.metadata.atomic() as conn:  # the writer connection
        conn.execute("PRAGMA busy_timeout=120000")
    with _reader_of(tmp_path / "s" / METADATA_FILE):
        mem.add("The user likes green tea", user_id="u")
        started = time.monotonic()
        mem.close()
        closing = time.monotonic() - started
    assert closing < 60.0, closing
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder) as again:
        assert again.stats().total_active == 2
