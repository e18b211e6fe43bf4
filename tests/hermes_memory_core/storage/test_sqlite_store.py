import threading
from pathlib import Path

from hermes_memory_core.storage.sqlite import migrations
from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore


def test_pragmas_and_migrations(tmp_path: Path) -> None:
    store = SQLiteMetadataStore(tmp_path / "m.sqlite")
    store.open()
    conn = store.reader()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert store.applied_migrations() == [m.__name__ for m in migrations.MIGRATIONS]
    assert migrations.pending(conn) == []
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memory_entries", "memory_versions", "memory_access_log", "memory_meta", "memory_tags"} <= tables
    names = store.applied_migrations()
    store.close()
    again = SQLiteMetadataStore(tmp_path / "m.sqlite")
    again.open()  # re-applies nothing
    assert again.applied_migrations() == names
    assert again.reader().execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(names)
    again.close()


def test_atomic_nesting_rolls_back_inner_only(tmp_path: Path) -> None:
    store = SQLiteMetadataStore(tmp_path / "m.sqlite")
    store.open()
    with store.atomic():
        store.set_meta("a", "1")
        try:
            with store.atomic():
                store.set_meta("b", "2")
                raise RuntimeError("inner")
        except RuntimeError:
            pass
    assert store.get_meta("a") == "1" and store.get_meta("b") is None
    store.close()


def test_concurrent_readers_and_one_writer(tmp_path: Path) -> None:
    store = SQLiteMetadataStore(tmp_path / "m.sqlite")
    store.open()
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(50):
                store.set_meta(f"t{n}-{i}", str(i))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def read() -> None:
        try:
            for _ in range(200):
                store.get_meta("t0-0")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)] + [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert int(store.reader().execute("SELECT count(*) FROM memory_meta WHERE key LIKE 't%'").fetchone()[0]) == 200
    store.close()


def test_a_store_from_before_the_context_field_is_rebuilt_at_open(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    """A store written before m004 (2-column FTS shards, no context) upgrades at open: the index is rebuilt
    under the loaded key, with conversational context, and answers as a new store does."""
    import sqlite3

    from hermes_memory_core import MemoryProvider
    from tests.conftest import ADMIN, make_config

    cfg = make_config(tmp_path / "s")
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        ask, answer = mem.add_many([
            {"content": "Do you go running?", "user_id": "u", "session_id": "chat", "created_at": 1_700_000_000},
            {"content": "Yes, every Sunday morning!", "user_id": "u", "session_id": "chat", "created_at": 1_700_000_030},
        ], dialogue=True)
        secret = mem.add("My passport number is E1234", user_id="u", memory_type="permanent")
        before = [(h.id, round(h.score, 6)) for h in mem.search("running", user_id="u", now=1_700_000_100)]
    # turn the file back into the pre-m004 layout
    conn = sqlite3.connect(str(tmp_path / "s" / "metadata.sqlite"), isolation_level=None)
    conn.execute("DELETE FROM memory_keyword_docs")
    for shard in range(migrations.KEYWORD_SHARDS):
        conn.execute(f"DROP TABLE {migrations.fts_table(shard)}")
        conn.execute(f"CREATE VIRTUAL TABLE {migrations.fts_table(shard)} USING fts5(user_key, tokens)")
    conn.execute("DROP INDEX idx_entries_session_time")
    conn.execute("DELETE FROM memory_meta WHERE key = 'keyword_index_rebuild'")
    conn.execute("DELETE FROM schema_migrations WHERE name = 'm004_keyword_context'")
    conn.close()
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.applied_migrations()[-1] == "m004_keyword_context"
        assert mem.engine.metadata.get_meta("keyword_index_rebuild") == "0"
        assert [(h.id, round(h.score, 6)) for h in mem.search("running", user_id="u", now=1_700_000_100)] == before
        assert {ask, answer} <= {h.id for h in mem.search("running", user_id="u")}
        assert mem.search("passport", user_id="u")[0].id == secret  # hashed tokens, rebuilt with the key


def _segments(store: SQLiteMetadataStore) -> int:
    conn = store.reader()
    return sum(int(conn.execute(f"SELECT count(DISTINCT segid) FROM {migrations.fts_table(s)}_idx").fetchone()[0])
               for s in range(migrations.KEYWORD_SHARDS))


def _fill_session_by_session(store: SQLiteMetadataStore, sessions: int = 40) -> None:
    from hermes_memory_core.storage.metadata import NewMemory
    from hermes_memory_core.types import MemoryRecord, MemoryType

    for s in range(sessions):  # one write transaction per session, as an agent's memory fills
        rows = [MemoryRecord(f"00000000-0000-4000-8000-{s * 10 + i:012d}", "u", f"s{s}", f"turn {i} of talk {s} about "
                             f"{['tea', 'rain', 'bikes', 'maps'][i % 4]}", MemoryType.LONG_TERM, 0.5, 0,
                             1_000 + s * 100 + i, 1_000 + s * 100 + i, None, 1, (), {}) for i in range(5)]
        store.records.insert([NewMemory(r, True) for r in rows], note="test")


def test_keyword_segments_merge_without_changing_a_result(tmp_path: Path) -> None:
    """Each write leaves an FTS5 segment; the merge (here run by hand) reads fewer and answers the same."""
    store = SQLiteMetadataStore(tmp_path / "m.sqlite", background_merge=False)
    store.open()
    _fill_session_by_session(store)
    before, segments = store.keywords.keyword_search("u", ["bike", "rain", "talk"], 40), _segments(store)
    store.merge_keyword_segments()
    assert _segments(store) < segments and _segments(store) <= 3
    assert store.keywords.keyword_search("u", ["bike", "rain", "talk"], 40) == before
    assert store.integrity_check() == "ok"
    store.close()


def test_the_store_merges_its_keyword_segments_by_itself(tmp_path: Path) -> None:
    import time

    paused = SQLiteMetadataStore(tmp_path / "a.sqlite", background_merge=False)
    paused.open()
    _fill_session_by_session(paused)
    store = SQLiteMetadataStore(tmp_path / "b.sqlite")
    store.open()
    _fill_session_by_session(store)
    deadline = time.monotonic() + 30
    while not store.postings.merger.idle() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.postings.merger.idle() and store.postings.merger.steps > 0
    assert _segments(store) < _segments(paused)
    assert store.keywords.keyword_search("u", ["tea", "map"], 40) == paused.keywords.keyword_search("u", ["tea", "map"], 40)
    store.close()  # a closed store's merge thread has stopped
    assert store.postings.merger._thread is not None and not store.postings.merger._thread.is_alive()
    paused.close()


def test_a_settled_merge_leaves_nothing_to_write(tmp_path: Path) -> None:
    """After ``settle_keyword_merges`` (what a flush ends with) the background merge has no step in flight or
    asked for: the files stay as they are (a reader beside the app sees no byte change after its flush)."""
    store = SQLiteMetadataStore(tmp_path / "m.sqlite")
    store.open()
    _fill_session_by_session(store)
    store.settle_keyword_merges()
    merger = store.postings.merger
    assert merger.idle() and not merger._active and merger.steps > 0
    steps, log = merger.steps, (tmp_path / "m.sqlite-wal").read_bytes()
    store.settle_keyword_merges()  # nothing left: returns at once
    assert merger.steps == steps and (tmp_path / "m.sqlite-wal").read_bytes() == log
    store.close()
