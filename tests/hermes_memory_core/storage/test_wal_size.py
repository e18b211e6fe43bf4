"""The embedded database's write-ahead log does not keep its high-water mark while the store is open: once a
checkpoint empties it, the file is cut back to ``WAL_KEEP_BYTES`` (SQLite's ``journal_size_limit``)."""

from __future__ import annotations

from pathlib import Path

from hermes_memory_core.storage.sqlite.database import WAL_KEEP_BYTES, SQLiteDatabase


def test_an_emptied_log_is_cut_back_while_the_store_is_open(tmp_path: Path) -> None:
    db = SQLiteDatabase(tmp_path / "metadata.sqlite")
    db.open()
    try:
        with db.atomic() as conn:
            conn.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        # one transaction bigger than the limit: the log grows past it (SQLite cannot checkpoint mid-transaction)
        with db.atomic() as conn:
            conn.executemany("INSERT INTO filler (body) VALUES (randomblob(4000))", [()] * 3_000)
        wal = tmp_path / "metadata.sqlite-wal"
        assert wal.stat().st_size > 2 * WAL_KEEP_BYTES
        for _ in range(3):  # small commits after the automatic checkpoint: the log restarts, cut back
            with db.atomic() as conn:
                conn.execute("INSERT INTO filler (body) VALUES (randomblob(100))")
        assert wal.stat().st_size <= WAL_KEEP_BYTES
        assert db.reader().execute("SELECT count(*) FROM filler").fetchone()[0] == 3_003
    finally:
        db.close()
