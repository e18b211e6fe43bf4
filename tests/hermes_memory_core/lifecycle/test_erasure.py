"""Erasure that is complete: ``purge_user`` and ``delete(hard=True)`` leave no byte of the erased words
in any file of the store, touch no other user, and a process killed midway leaves a state the next open,
``reconcile()`` or ``purge_user`` completes. On both metadata backends (PostgreSQL: its table files are read
when the test server is local)."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from hermes_memory_core import Caller, InvalidInputError, MemoryProvider, NotFoundError, PermissionDeniedError
from hermes_memory_core.cli import main
from hermes_memory_core.embedding import Embedder
from tests.conftest import ADMIN, BACKENDS, POSTGRES_URL, TEST_KEY, make_config


def _words(secret: str) -> dict[str, str]:
    """Unique words for every place a user's data lives (so a grep can tell them from anything else)."""
    return {k: f"{k}{secret}" for k in ("long", "version", "deleted", "fact", "tag", "short", "chat", "queued",
                                          "session", "neighbour")}


def _populate(mem: MemoryProvider, user: str, secret: str, queue: bool = True) -> dict[str, str]:
    """One user's data in every table: tiers, versions, a soft delete, tags, a session buffer with its summary,
    a promotion-queue entry (the next open promotes it), access-log rows and hot-cache entries."""
    w = _words(secret)
    session = w["session"]
    a = mem.add(f"The user collects {w['long']} stamps", user_id=user, session_id=session, tags=[w["tag"]])
    mem.add(f"The user answered {w['neighbour']} yesterday", user_id=user, session_id=session)
    mem.update(a, f"The user collects {w['version']} stamps and coins")
    gone = mem.add(f"The user sold the {w['deleted']} bike", user_id=user)
    mem.delete(gone, reason=f"asked {secret}")
    mem.add(f"The user's passport is {w['fact']}", user_id=user, memory_type="permanent", tags=[w["tag"]])
    mem.remember(f"let us look at {w['short']} today", user_id=user, session_id=session)
    chat = mem.session(user, session)
    for i in range(14):
        chat.add_messages([("user", f"turn {i}: my plan for {w['chat']} is number {i}"), ("assistant", "ok")])
    mem.flush()
    if queue:
        with mem.engine.metadata.atomic() as conn:
            conn.execute("INSERT INTO promotion_queue (user_id, session_id, content, created_at) VALUES (?, ?, ?, ?)",
                         (user, session, f"I often think about {w['queued']}", 1))
    for query in ("stamps", "passport", "bike", w["long"]):
        mem.search(query, user_id=user)
    mem.flush()
    return w


def _vector_bytes(mem: MemoryProvider, user: str, own: bool = False) -> list[bytes]:
    """Each of the user's vectors as the engine stores them (whole: the test embedder's values repeat). With ``own``,
    only those no other user's vector equals: the test embedder hashes words into 384 buckets, so two users' lines
    that differ in one unique word get the same vector about once in 770 words, and the other user's copy rightly
    stays after a purge."""
    dtype = getattr(mem.engine.vectors, "dtype", "float32")  # the embedded store keeps 16-bit floats
    points = [(p.payload["user_id"], np.asarray(p.vector, dtype=dtype).tobytes())
              for b in mem.engine.vectors.iter_points(with_vectors=True) for p in b]
    others = {vec for who, vec in points if who != user} if own else set()
    return [vec for who, vec in points if who == user and vec not in others]


def _files_holding(root: Path, needles: list[bytes]) -> dict[str, list[bytes]]:
    found: dict[str, list[bytes]] = {}
    for base, _dirs, files in os.walk(root):
        for name in files:
            try:
                data = Path(base, name).read_bytes()
            except FileNotFoundError:  # removed while we walked (PostgreSQL rewrites its relation-cache file)
                continue
            hits = [n for n in needles if n in data]
            if hits:
                found[os.path.join(base, name)] = hits
    return found


def _needles(words: dict[str, str], vectors: list[bytes], user: str) -> list[bytes]:
    """Every word, the user id, its unique tail on its own (a keyword index stores a term after the prefix it shares
    with the term before it) and the first bytes of every vector."""
    return [v.encode() for v in words.values()] + vectors + [user.encode(), user[-8:].encode()]


def _postgres_files_holding(needles: list[bytes]) -> dict[str, list[bytes]] | None:
    """The PostgreSQL database's own files holding a needle, or None when they cannot be read from here."""
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:  # type: ignore[arg-type]
        try:
            conn.execute("CHECKPOINT")  # dropped relation files are unlinked at the checkpoint
            root = Path(conn.execute("SHOW data_directory").fetchone()[0])  # type: ignore[index]
            oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]  # type: ignore[index]
        except psycopg.Error:
            return None
    folder = root / "base" / str(oid)
    if not os.access(folder, os.R_OK):
        return None
    return _files_holding(folder, needles)


def _rows_holding(mem: MemoryProvider, text: str) -> list[str]:
    """Tables of the store with a row whose text holds ``text`` (any column)."""
    tables = ["memory_entries", "memory_versions", "memory_tags", "memory_access_log", "memory_meta", "sessions",
              "session_messages", "session_summaries", "promotion_queue", "memory_keyword_docs"]
    conn = mem.engine.metadata.reader()
    out = []
    for table in tables:
        if mem.config.metadata_url:
            n = conn.execute(f"SELECT count(*) FROM {table} t WHERE CAST(t AS TEXT) LIKE ?", (f"%{text}%",)).fetchone()[0]
        else:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            n = conn.execute(f"SELECT count(*) FROM {table} WHERE " + " OR ".join(f"CAST({c} AS TEXT) LIKE ?" for c in cols),
                             [f"%{text}%"] * len(cols)).fetchone()[0]
        if n:
            out.append(table)
    return out


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _snapshot(mem: MemoryProvider, user: str, secret: str) -> tuple[object, ...]:
    # the set found, not its order: BM25 statistics are those of a keyword shard, which users share
    hits = sorted((h.id, h.content) for h in mem.search("stamps passport bike plan", user_id=user, top_k=50))
    rows = [(r.id, r.content, r.version) for r in mem.list_memories(user_id=user, limit=1000)]
    view = mem.session(user, _words(secret)["session"]).view()
    return hits, rows, view.summary, [[m.content for m in t] for t in view.turns]


def test_purge_user_leaves_no_byte_and_no_other_user_is_touched(
    backend: str, tmp_path: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    victim, other = f"victim{uuid.uuid4().hex[:8]}", f"other{uuid.uuid4().hex[:8]}"
    with MemoryProvider(make_config(tmp_path / "s", backend), embedder=embedder, caller=ADMIN) as mem:
        words = _populate(mem, victim, victim[-8:])
        # the other user's data has no queued promotion: the next open would promote it in the background, and the
        # snapshot taken after the reopen would race that (legitimate) change
        _populate(mem, other, other[-8:], queue=False)
        vectors = _vector_bytes(mem, victim, own=True)
        assert len(vectors) >= 4 and mem.hot_cache.size(victim) > 0
        before = _snapshot(mem, other, other[-8:])
        if backend == "embedded":  # the needles are found where they are: the grep below can fail
            held = {n for hits in _files_holding(tmp_path, [*vectors, words["fact"].encode()]).values() for n in hits}
            assert set(vectors) <= held and words["fact"].encode() not in held  # permanent content is sealed
        elif (pg_before := _postgres_files_holding([words["long"].encode()])) is not None:
            assert pg_before  # the table files are readable and do hold the words before the purge
        report = mem.purge_user(victim)
        assert report.user_id == victim and report.memories >= 5
        assert victim not in mem.stats().by_user and mem.hot_cache.size(victim) == 0
        assert mem.search("stamps", user_id=victim) == [] and _vector_bytes(mem, victim) == []
        assert mem.session(victim, words["session"]).view().turns == []
        assert mem.engine.metadata.erasure.pending_erasures() == []
        for word in words.values():
            assert _rows_holding(mem, word) == [], word
        assert _snapshot(mem, other, other[-8:]) == before
        assert mem.engine.metadata.integrity_check() == "ok"
        needles = _needles(words, vectors, victim)
        assert _files_holding(tmp_path, needles) == {}  # while the store is open
        if backend == "server":
            pg = _postgres_files_holding(needles)
            with capsys.disabled():
                print(f"\n[purge {backend}] {report.memories} memories in {report.seconds:.2f} s; PostgreSQL files "
                      f"{'not readable here' if pg is None else 'checked'}")
            assert not pg
    assert _files_holding(tmp_path, needles) == {}  # and after it closed
    with MemoryProvider(make_config(tmp_path / "s", backend), embedder=embedder, caller=ADMIN) as mem:
        mem.flush()  # whatever the open resumes has run
        if backend == "embedded":
            assert _snapshot(mem, other, other[-8:]) == before


def test_purge_user_needs_an_admin_and_good_input(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN) as mem:
        mem.add("The user likes tea", user_id="u")
        for caller in (Caller("anonymous"), Caller("reader", read_permanent=True)):
            with pytest.raises(PermissionDeniedError):
                mem.purge_user("u", caller=caller)
        with pytest.raises(InvalidInputError):
            mem.purge_user("")
        with pytest.raises(InvalidInputError):
            mem.purge_user(None)  # type: ignore[arg-type]
        assert mem.stats().by_user == {"u": 1} and mem.engine.metadata.erasure.pending_erasures() == []
        assert mem.purge_user("nobody").memories == 0  # an unknown user is nothing to erase, not an error


async def test_async_purge(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN) as mem:
        mem.add("The user likes tea", user_id="u")
        assert (await mem.apurge_user("u")).memories == 1 and mem.stats().total_active == 0


def test_hard_delete_erases_one_memory_completely(backend: str, tmp_path: Path, embedder: Embedder) -> None:
    clock = [1_700_000_000.0]
    secret = uuid.uuid4().hex[:10]
    with MemoryProvider(make_config(tmp_path / "s", backend), embedder=embedder, caller=ADMIN,
                        clock=lambda: clock[0]) as mem:
        ids = []
        for text in ("Do you collect anything?", f"Yes, zz{secret} stamps", "Nice, since when?"):
            ids.append(mem.add(text, user_id="u", session_id="s1", tags=[f"tag{secret}"] if "zz" in text else None))
            clock[0] += 10
        mem.update(ids[1], f"Yes, zz{secret} stamps and yy{secret} coins")
        assert mem.search(f"zz{secret}", user_id="u", top_k=3)  # the neighbours' context holds its words too
        vec = _vector_bytes(mem, "u")
        mem.delete(ids[1], hard=True)
        with pytest.raises(NotFoundError):
            mem.history(ids[1])
        assert mem.search(f"zz{secret}", user_id="u", top_k=3) == [] or all(
            h.keyword_score is None for h in mem.search(f"zz{secret}", user_id="u", top_k=3))
        assert [h.id for h in mem.search("collect anything", user_id="u", top_k=1)] == [ids[0]]
        assert ("hard_delete", int(clock[0]), "") in mem.engine.metadata.access.access_log(ids[1])
        assert _rows_holding(mem, secret) == []
        assert mem.engine.metadata.integrity_check() == "ok"
        assert _files_holding(tmp_path, [f"zz{secret}".encode(), f"yy{secret}".encode(), f"tag{secret}".encode()]) == {}
        assert len(_vector_bytes(mem, "u")) == len(vec) - 1
        # a soft-deleted memory can be erased too; a permanent one needs the permission
        soft = mem.add(f"ww{secret} bike", user_id="u")
        mem.delete(soft)
        mem.delete(soft, hard=True)
        fact = mem.add("The user's passport is P1", user_id="u", memory_type="permanent")
        with pytest.raises(PermissionDeniedError):
            mem.delete(fact, hard=True, caller=Caller("reader", read_permanent=True))
        assert mem.get(fact).content == "The user's passport is P1"
        with pytest.raises(InvalidInputError):
            mem.delete(fact, hard="yes")  # type: ignore[arg-type]
        assert _files_holding(tmp_path, [f"ww{secret}".encode()]) == {}


# ------------------------------------------------------------------------------------------ killed midway
CHILD = """
import os, signal, sys
from pathlib import Path
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from tests.fakes import HashingEmbedder
data, stage, victim, key = sys.argv[1:5]
def die(*_a, **_k):
    os.kill(os.getpid(), signal.SIGKILL)
if stage == "rows":        # metadata rows gone, vector points not yet
    from hermes_memory_core.storage.edge_store import EdgeVectorStore
    EdgeVectorStore.delete_user = die
elif stage == "swap":      # the old shard renamed away, the rewritten one not yet in place (a store with a shard)
    real = Path.rename
    calls = []
    def rename(self, target):
        calls.append(target)
        if str(target).endswith(".old"):
            real(self, target)
            die()
        return real(self, target)
    Path.rename = rename
elif stage == "residue":   # rows and points gone, the keyword shard and WAL not yet rewritten
    from hermes_memory_core.storage.sql.erasure import SQLErasureRows
    SQLErasureRows.erase_residue = die
mem = MemoryProvider(MemoryConfig(data_dir=data, encryption_key=key, small_store_max_points=0 if stage == "swap"
                                  else 10_000), embedder=HashingEmbedder(), caller=Caller.admin("crash"))
print("PURGE", flush=True)
mem.purge_user(victim)
print("DONE", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _pending_in_file(data: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{data / 'metadata.sqlite'}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT key FROM memory_meta WHERE key LIKE 'erasure:%'")]
    finally:
        conn.close()


def _run_child(data: Path, stage: str, victim: str, kill_after: float | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(data), stage, victim, TEST_KEY],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.strip() == "PURGE", (first, proc.stderr.read() if proc.stderr else "")
    if kill_after is not None:
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL, err[-2000:]
    return out


@pytest.mark.parametrize("stage", ["rows", "swap", "residue"])
def test_a_purge_killed_midway_is_completed(stage: str, tmp_path: Path, embedder: Embedder) -> None:
    data = tmp_path / "s"
    victim = f"victim{uuid.uuid4().hex[:8]}"
    shard = {"small_store_max_points": 0} if stage == "swap" else {}  # only a shard is swapped
    with MemoryProvider(make_config(data, **shard), embedder=embedder, caller=ADMIN) as mem:
        words = _populate(mem, victim, victim[-8:])
        _populate(mem, "other", "otherword", queue=False)
        vectors = _vector_bytes(mem, victim, own=True)
        before = _snapshot(mem, "other", "otherword")
    out = _run_child(data, stage, victim)
    assert "DONE" not in out
    assert _pending_in_file(data) == [f"erasure:user:{victim}"]  # the intent survived the kill
    assert _files_holding(data, [words["long"].encode()])  # and the erasure is not complete yet
    with MemoryProvider(make_config(data, **shard), embedder=embedder, caller=ADMIN) as mem:
        report = mem.reconcile()
        assert report.vector_orphans_removed == 0 and report.metadata_orphans_reindexed == 0
        assert mem.engine.metadata.erasure.pending_erasures() == []
        assert victim not in mem.stats().by_user and _snapshot(mem, "other", "otherword") == before
        assert mem.engine.metadata.integrity_check() == "ok"
    assert _files_holding(data, _needles(words, vectors, victim)) == {}


@pytest.mark.slow
def test_purges_killed_at_random_points(tmp_path: Path, embedder: Embedder) -> None:
    rnd = random.Random(15)
    data = tmp_path / "s"
    with MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
        mem.add_many([{"content": f"filler memory {i} about topic {i % 37}", "user_id": f"bulk{i % 20}"}
                      for i in range(3000)])
        _populate(mem, "other", "otherword", queue=False)
        before = _snapshot(mem, "other", "otherword")
    for round_no in range(4):
        victim = f"victim{round_no}x{uuid.uuid4().hex[:6]}"
        with MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
            words = _populate(mem, victim, victim[-8:])
            vectors = _vector_bytes(mem, victim, own=True)
        _run_child(data, "random", victim, kill_after=rnd.uniform(0.0, 3.0))
        with MemoryProvider(make_config(data), embedder=embedder, caller=ADMIN) as mem:
            mem.reconcile()
            assert victim not in mem.stats().by_user and _snapshot(mem, "other", "otherword") == before
            assert mem.engine.metadata.erasure.pending_erasures() == []
        assert _files_holding(data, _needles(words, vectors, victim)) == {}


def test_cli_purge_user(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path / "d"), "--json"]
    assert main(["add", "The user collects qqwhistle stamps", "--user", "gone", *d]) == 0
    assert main(["add", "The user likes tea", "--user", "stays", *d]) == 0
    capsys.readouterr()
    assert main(["purge-user", "--user", "gone", *d]) == 1  # without --yes nothing happens
    assert "--yes" in capsys.readouterr().err
    assert main(["stats", *d]) == 0
    assert json.loads(capsys.readouterr().out)["by_user"] == {"gone": 1, "stays": 1}
    assert main(["purge-user", "--user", "gone", "--yes", *d]) == 0
    assert json.loads(capsys.readouterr().out)["memories"] == 1
    assert main(["stats", *d]) == 0
    assert json.loads(capsys.readouterr().out)["by_user"] == {"stays": 1}
    assert _files_holding(tmp_path / "d", [b"qqwhistle"]) == {}


CHILD_SERVER = """
import json, os, signal, sys
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.storage.sql.erasure import SQLErasureRows
from tests.fakes import HashingEmbedder
config, victim = json.loads(sys.argv[1]), sys.argv[2]
SQLErasureRows.erase_residue = lambda *_a, **_k: os.kill(os.getpid(), signal.SIGKILL)
mem = MemoryProvider(MemoryConfig(**config), embedder=HashingEmbedder(), caller=Caller.admin("crash"))
print("PURGE", flush=True)
mem.purge_user(victim)
print("DONE", flush=True)
"""


@pytest.mark.server
def test_a_purge_killed_before_vacuum_is_completed_on_postgres(tmp_path: Path, embedder: Embedder) -> None:
    """Rows deleted and committed, VACUUM FULL not run: the dead tuples still hold the words until the next open."""
    if not POSTGRES_URL:
        pytest.skip("needs PostgreSQL (HERMES_TEST_POSTGRES_URL)")
    from tests.conftest import fresh_schema

    config = {"data_dir": str(tmp_path / "s"), "encryption_key": TEST_KEY, "metadata_url": POSTGRES_URL,
              "metadata_schema": fresh_schema(), "vector_backend": "qdrant", "qdrant_url": ":memory:",
              "collection": "c_crash"}
    victim = f"victim{uuid.uuid4().hex[:8]}"
    from hermes_memory_core import MemoryConfig

    with MemoryProvider(MemoryConfig(**config), embedder=embedder, caller=ADMIN) as mem:  # type: ignore[arg-type]
        words = _populate(mem, victim, victim[-8:])
        _populate(mem, "other", "otherword", queue=False)
        rows_before = [(r.id, r.content) for r in mem.list_memories(user_id="other", limit=1000)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    proc = subprocess.run([sys.executable, "-c", CHILD_SERVER, json.dumps(config), victim], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == -signal.SIGKILL and "DONE" not in proc.stdout, proc.stderr[-2000:]
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        keys = [r[0] for r in conn.execute(
            f'SELECT key FROM "{config["metadata_schema"]}".memory_meta WHERE key LIKE %s', ("erasure:%",))]
    assert keys == [f"erasure:user:{victim}"]  # the intent survived the kill
    held = _postgres_files_holding([words["long"].encode()])
    assert held is None or held  # and the dead tuples still hold the words
    with MemoryProvider(MemoryConfig(**config), embedder=embedder, caller=ADMIN) as mem:  # type: ignore[arg-type]
        # the open finished the erasure; reconcile finds nothing more to do
        assert mem.reconcile().erasures_finished == 0 and mem.engine.metadata.erasure.pending_erasures() == []
        assert victim not in mem.stats().by_user
        assert [(r.id, r.content) for r in mem.list_memories(user_id="other", limit=1000)] == rows_before
        for word in words.values():
            assert _rows_holding(mem, word) == [], word
        assert not _postgres_files_holding([w.encode() for w in words.values()] + [victim.encode()])


async def test_async_twins_of_restore_and_hard_delete(tmp_path: Path, embedder: Embedder) -> None:
    """``arestore`` is now built by ``async_twin`` from the classmethod: same signature, same result."""
    import inspect

    assert list(inspect.signature(MemoryProvider.arestore).parameters) == list(
        inspect.signature(MemoryProvider.restore).parameters)
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add("The user likes tea", user_id="u")
        mem.export(tmp_path / "b")
        assert await mem.adelete(mid, hard=True)
    restored = await MemoryProvider.arestore(tmp_path / "b", make_config(tmp_path / "r"), embedder=embedder,
                                             caller=ADMIN)
    with restored:
        assert restored.get(mid).content == "The user likes tea"
