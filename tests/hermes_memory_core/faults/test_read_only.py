"""Read-only stores can be read: on read-only media (opened so by itself) or with ``read_only=True`` /
``--read-only``, search, recall, list, get, history, stats and export work; every write raises one typed line
(``ReadOnlyStoreError``) and no byte of the store changes. The media tests mount a tmpfs and remount it read-only
(root only; skipped elsewhere with that reason)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider, ReadOnlyStoreError
from hermes_memory_core.cli import main
from hermes_memory_core.portability import verify_bundle
from hermes_memory_core.storage.client_store import QdrantClientVectorStore
from tests.conftest import ADMIN, BACKENDS, TEST_KEY, make_config
from tests.fakes import HashingEmbedder

ROOT = Path(__file__).resolve().parents[3]

#: Fills a store in a child process, then closes it (``clean``) or dies without closing (``killed``: SQLite's
#: ``-wal`` and ``-shm`` and the vector engine's unflushed log stay behind). Prints the ids as JSON. Its vectors are
#: in a small SQLite file, or in a vector-engine shard (``small_max`` 0).
FILL = """
import json, os, sys
from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from tests.fakes import HashingEmbedder
data, ending, key, small_max = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
mem = MemoryProvider(MemoryConfig(data_dir=data, encryption_key=key, small_store_max_points=small_max),
                     embedder=HashingEmbedder(), caller=Caller.admin("t"))
ids = {}
ids["python"] = mem.add("The user prefers Python over Java", user_id="u", tags=["lang"])
ids["name"] = mem.add("The user's name is Ada Lovelace", user_id="u", memory_type="permanent")
mem.update(ids["python"], "The user prefers Python and Rust over Java", version_note="added Rust")
ids["gone"] = mem.add("A memory that was deleted", user_id="u")
mem.delete(ids["gone"])
ids["other"] = mem.add("Another user likes tea", user_id="v")
print(json.dumps(ids), flush=True)
if ending == "killed":
    os._exit(0)
mem.close()
"""


#: ``small_store_max_points`` of each vector layout.
LAYOUTS = {"small": 10_000, "shard": 0}


def fill(data: Path, ending: str = "clean", layout: str = "small") -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run([sys.executable, "-c", FILL, str(data), ending, TEST_KEY, str(LAYOUTS[layout])],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    ids: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return ids


def checksums(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path) with its SHA-256: a new, removed or changed file shows."""
    out: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def reads(ids: dict[str, str], bundle: Path) -> list[tuple[str, Callable[[MemoryProvider], None]]]:
    """Every read operation, each checking its answer."""

    def search(mem: MemoryProvider) -> None:
        hits = mem.search("Which language does the user prefer, Python or Java?", user_id="u")
        assert hits and hits[0].id == ids["python"] and "Rust" in hits[0].content

    def recall(mem: MemoryProvider) -> None:
        assert ids["python"] in [h.id for h in mem.recall("Python or Java for the new project?", user_id="u",
                                                          min_score=-100.0)]

    def listing(mem: MemoryProvider) -> None:
        assert {r.id for r in mem.list_memories(user_id="u")} == {ids["python"], ids["name"]}

    def get(mem: MemoryProvider) -> None:
        assert mem.get(ids["name"]).content == "The user's name is Ada Lovelace"

    def history(mem: MemoryProvider) -> None:
        assert [v.version for v in mem.history(ids["python"])] == [1, 2]
        assert len(mem.history(ids["gone"])) == 1

    def stats(mem: MemoryProvider) -> None:
        assert mem.stats().total_active == 3

    def export(mem: MemoryProvider) -> None:
        manifest = mem.export(bundle)
        assert manifest["counts"]["memories_active"] == 3 and manifest["counts"]["points"] == 3
        verify_bundle(bundle)

    return [("search", search), ("recall", recall), ("list", listing), ("get", get), ("history", history),
            ("stats", stats), ("export", export)]


def writes(ids: dict[str, str]) -> list[tuple[str, Callable[[MemoryProvider], object]]]:
    """Every kind of write; each must be refused."""
    return [
        ("add", lambda m: m.add("a new memory", user_id="u")),
        ("add_many", lambda m: m.add_many([{"content": "one more", "user_id": "u"}])),
        ("update", lambda m: m.update(ids["python"], "The user prefers Go")),
        ("delete", lambda m: m.delete(ids["python"])),
        ("hard delete", lambda m: m.delete(ids["python"], hard=True)),
        ("remember", lambda m: m.remember("I prefer green tea", user_id="u", session_id="s")),
        ("session", lambda m: m.session("u", "s").add_messages([{"role": "user", "content": "hello there"}])),
        ("purge_user", lambda m: m.purge_user("u")),
        ("forget", lambda m: m.forget()),
        ("reconcile", lambda m: m.reconcile()),
        ("optimize", lambda m: m.optimize()),
        ("rotate_key", lambda m: m.rotate_key()),
    ]


def refuse_every_write(mem: MemoryProvider, ids: dict[str, str]) -> None:
    for name, op in writes(ids):
        with pytest.raises(ReadOnlyStoreError) as caught:
            op(mem)
        assert "\n" not in str(caught.value) and "read-only" in str(caught.value), name


def no_background_threads(before: set[threading.Thread]) -> None:
    started = [t.name for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not [n for n in started if "hermes" in n.lower()], started


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("ending", ["clean", "killed"])
def test_read_only_flag_on_a_writable_folder_changes_no_byte(tmp_path: Path, ending: str, layout: str) -> None:
    data = tmp_path / "store"
    ids = fill(data, ending, layout)
    assert (data / "vectors" / "hermes_memories" / "hermes_collection.json").exists() == (layout == "shard")
    before = checksums(data)
    threads = set(threading.enumerate())
    with MemoryProvider(make_config(data, read_only=True), embedder=HashingEmbedder(), caller=ADMIN) as mem:
        assert mem.engine.read_only
        for name, op in reads(ids, tmp_path / "bundle"):
            op(mem)
            assert checksums(data) == before, f"{name} changed the store's files"
        refuse_every_write(mem, ids)
        assert checksums(data) == before
        no_background_threads(threads)
    assert checksums(data) == before
    with MemoryProvider(make_config(data), embedder=HashingEmbedder(), caller=ADMIN) as mem:  # still a good store
        assert mem.stats().total_active == 3
        mem.add("written after the read-only open", user_id="u")


@contextlib.contextmanager
def read_only_mount(tmp_path: Path) -> Iterator[tuple[Path, Callable[[bool], None]]]:
    """A tmpfs at ``tmp_path/media`` and a function that remounts it read-only (True) or writable (False)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a filesystem and remount it read-only")
    media = tmp_path / "media"
    media.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512m", "tmpfs", str(media)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")

    def remount(read_only: bool) -> None:
        subprocess.run(["mount", "-o", f"remount,{'ro' if read_only else 'rw'}", str(media)], check=True)

    try:
        yield media, remount
    finally:
        subprocess.run(["umount", "-l", str(media)], check=False)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("ending", ["clean", "killed", "killed-no-shm"])
def test_a_store_on_read_only_media_opens_read_only_by_itself(tmp_path: Path, ending: str, layout: str) -> None:
    """``clean``: no SQLite log (read ``immutable``); ``killed``: its ``-wal`` and ``-shm`` are read as they are;
    ``killed-no-shm``: a log without its index (read from a private copy). Every acknowledged write is found."""
    with read_only_mount(tmp_path) as (media, remount):
        data = media / "store"
        ids = fill(data, ending.removesuffix("-no-shm"), layout)
        if ending == "killed":
            assert (data / "metadata.sqlite-wal").exists() and (data / "metadata.sqlite-shm").exists()
        if ending == "killed-no-shm":
            (data / "metadata.sqlite-shm").unlink()
        before = checksums(data)
        remount(True)
        with pytest.raises(OSError, match="Read-only file system"):
            (data / "probe").write_text("x")
        with MemoryProvider(make_config(data), embedder=HashingEmbedder(), caller=ADMIN) as mem:
            assert mem.engine.read_only and "cannot be written" in mem.engine.read_only_reason
            for _name, op in reads(ids, tmp_path / "bundle"):
                op(mem)
            refuse_every_write(mem, ids)
        assert checksums(data) == before
        remount(False)
        with MemoryProvider(make_config(data), embedder=HashingEmbedder(), caller=ADMIN) as mem:
            assert not mem.engine.read_only and mem.stats().total_active == 3
            mem.add("written once the media is writable again", user_id="u")


def test_an_empty_read_only_folder_is_no_store(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReadOnlyStoreError, match="no store to read"):
        MemoryProvider(make_config(tmp_path / "empty", read_only=True), embedder=HashingEmbedder(), caller=ADMIN)
    assert list((tmp_path / "empty").iterdir()) == []


def test_a_read_only_store_shares_its_folder_but_not_with_a_writer(tmp_path: Path) -> None:
    data = tmp_path / "store"
    fill(data)
    cfg = make_config(data, read_only=True)
    with MemoryProvider(cfg, embedder=HashingEmbedder(), caller=ADMIN) as one, \
            MemoryProvider(cfg, embedder=HashingEmbedder(), caller=ADMIN) as two:
        assert one.stats().total_active == two.stats().total_active == 3
        from hermes_memory_core import StoreLockedError

        with pytest.raises(StoreLockedError):
            MemoryProvider(make_config(data), embedder=HashingEmbedder(), caller=ADMIN)


def _server_digest(mem: MemoryProvider) -> dict[str, str]:
    """Each table of the store's PostgreSQL schema with a digest of all its rows."""
    import psycopg

    cfg = mem.config
    assert cfg.metadata_url is not None
    out: dict[str, str] = {}
    with psycopg.connect(cfg.metadata_url.get_secret_value(), autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
                                             " AND table_type = 'BASE TABLE'", (cfg.metadata_schema,))]
        for table in sorted(tables):
            row = conn.execute(f'SELECT md5(coalesce(string_agg(t::text, \'|\' ORDER BY t::text), \'\')) '
                               f'FROM "{cfg.metadata_schema}"."{table}" t').fetchone()
            out[table] = str(row[0] if row else "")
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_read_only_on_each_metadata_backend_refuses_writes(tmp_path: Path, backend: str) -> None:
    """On PostgreSQL too: reads answer, writes raise ``ReadOnlyStoreError`` and no row changes."""
    cfg = make_config(tmp_path / "store", backend)
    shared: Any = None
    vectors: Callable[[], Any] = lambda: None  # noqa: E731 - the embedded engine builds its own
    if backend == "server":
        from qdrant_client import QdrantClient

        shared = QdrantClient(location=":memory:") if cfg.qdrant_url == ":memory:" else None
        if shared is not None:  # one in-process collection for both opens
            vectors = lambda: QdrantClientVectorStore(":memory:", 384, cfg.collection, client=shared)  # noqa: E731
    with MemoryProvider(cfg, embedder=HashingEmbedder(), vector_store=vectors(), caller=ADMIN) as mem:
        ids = {"python": mem.add("The user prefers Python over Java", user_id="u"),
               "name": mem.add("The user's name is Ada Lovelace", user_id="u", memory_type="permanent")}
    ro = cfg.model_copy(update={"read_only": True})
    with MemoryProvider(ro, embedder=HashingEmbedder(), vector_store=vectors(), caller=ADMIN) as mem:
        before = _server_digest(mem) if backend == "server" else checksums(tmp_path / "store")
        assert mem.search("Python or Java?", user_id="u")[0].id == ids["python"]
        assert mem.get(ids["name"]).content.startswith("The user's name")
        assert len(mem.list_memories(user_id="u")) == 2
        refuse_every_write(mem, ids)
        after = _server_digest(mem) if backend == "server" else checksums(tmp_path / "store")
        assert after == before


def test_cli_read_only_reads_and_refuses_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("hermes_memory_core.engine.load_embedder", lambda *_a, **_k: HashingEmbedder())
    monkeypatch.setenv("HERMES_MEMORY_ENCRYPTION_KEY", TEST_KEY)
    store = ["--data-dir", str(tmp_path / "d")]
    assert main(["add", "The user prefers Python over Java", "--user", "u", *store]) == 0
    mid = capsys.readouterr().out.strip().split()[-1]
    before = checksums(tmp_path / "d")
    ro = [*store, "--read-only"]
    for argv in (["search", "Python?", "--user", "u"], ["list", "--user", "u"], ["get", mid], ["history", mid],
                 ["stats"], ["recall", "Python or Java?", "--user", "u"], ["export", str(tmp_path / "b")]):
        assert main([*argv, *ro]) == 0, argv
        capsys.readouterr()
    assert (tmp_path / "b" / "manifest.json").is_file()
    for argv in (["add", "more", "--user", "u"], ["update", mid, "new text"], ["delete", mid],
                 ["remember", "I like tea", "--user", "u"], ["purge-user", "--user", "u", "--yes"], ["reconcile"],
                 ["forget"]):
        code = main([*argv, *ro])
        err = capsys.readouterr().err
        assert code == 2, argv
        assert err.count("\n") == 1 and err.startswith("hermes-memory: ReadOnlyStoreError:"), (argv, err)
    assert checksums(tmp_path / "d") == before
