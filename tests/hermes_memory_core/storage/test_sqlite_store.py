import threading
from pathlib import Path

from hermes_memory_core.storage import migrations
from hermes_memory_core.storage.sqlite_store import SQLiteMetadataStore


def test_pragmas_and_migrations(tmp_path: Path) -> None:
    store = SQLiteMetadataStore(tmp_path / "m.sqlite")
    store.open()
    conn = store._reader()
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
    assert again._reader().execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(names)
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
    assert int(store._reader().execute("SELECT count(*) FROM memory_meta WHERE key LIKE 't%'").fetchone()[0]) == 200
    store.close()
