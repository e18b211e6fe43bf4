"""Named schema migrations for the SQLite metadata store, applied in order, each in one transaction.

A migration is a function ``mNNN_name(conn)``; the ``schema_migrations`` table records which ran. Add new
ones at the end of :data:`MIGRATIONS`; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence

from hermes_memory_core.storage.sql.shards import KEYWORD_SHARDS
from hermes_memory_core.storage.sql.tables import INITIAL, SESSIONS, SQLITE, render

__all__ = ["KEYWORD_SHARDS", "MIGRATIONS", "applied", "apply_pending", "fts_table", "lookup_expression", "pending"]


def m001_initial(conn: sqlite3.Connection) -> None:
    """Tables of docs/design.md#storage: entries, versions, access log, meta, tags."""
    conn.executescript(render(INITIAL, SQLITE))


def lookup_expression(key: str) -> str:
    """The SQL expression of metadata ``key``'s text, as the store's queries and its lookup indexes both write it
    (SQLite uses an expression index only for the same expression)."""
    return f"json_extract(metadata, '$.{key}')"


def fts_table(shard: int) -> str:
    """Name of one keyword-index shard (an identifier we generate, never user data)."""
    if not 0 <= shard < KEYWORD_SHARDS:
        raise ValueError(f"no keyword shard {shard}")
    return f"memory_fts_{shard:02d}"


def m002_keyword_index(conn: sqlite3.Connection) -> None:
    """FTS5 keyword index over pre-tokenized text (Chinese characters and bigrams, stemmed English), in
    ``KEYWORD_SHARDS`` tables chosen by user.

    ``memory_keyword_docs`` gives each memory a stable integer document number (the FTS rowid) and its shard, so the
    index survives VACUUM and a row can be replaced without scanning the index.
    """
    conn.executescript(
        """
        CREATE TABLE memory_keyword_docs (
            doc       INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_id TEXT NOT NULL UNIQUE REFERENCES memory_entries(id) ON DELETE CASCADE,
            shard     INTEGER NOT NULL
        );
        """
    )
    for shard in range(KEYWORD_SHARDS):
        conn.execute(f"CREATE VIRTUAL TABLE {fts_table(shard)} USING fts5(user_key, tokens, tokenize = 'unicode61')")


def m003_sessions(conn: sqlite3.Connection) -> None:
    """Short-term memory: per-session messages (the ring buffer), running summary chunks, a durable promotion
    queue for evicted turns, session activity for forgetting, and last-access times for freshness."""
    conn.executescript(render(SESSIONS, SQLITE))


def m004_keyword_context(conn: sqlite3.Connection) -> None:
    """Keyword index with a second field: each memory's conversational context (its neighbours' tokens).

    FTS5 tables cannot gain a column, so the shards are recreated empty and ``keyword_index_rebuild`` is set in
    ``memory_meta``: the store re-indexes every memory at its next open, once the encryption key is loaded (the
    tokens of permanent memories are stored as keyed hashes). The index on (user, session, time) finds
    neighbours.
    """
    conn.execute("DELETE FROM memory_keyword_docs")
    for shard in range(KEYWORD_SHARDS):
        conn.execute(f"DROP TABLE {fts_table(shard)}")
        conn.execute(
            f"CREATE VIRTUAL TABLE {fts_table(shard)} USING fts5(user_key, tokens, context, tokenize = 'unicode61')"
        )
    conn.execute("CREATE INDEX idx_entries_session_time ON memory_entries(user_id, session_id, created_at)")
    conn.execute(
        "INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    )


def m005_dialogue_flag(conn: sqlite3.Connection) -> None:
    """A row flag for memories that are turns of a dialogue: only they give and take conversational context in the
    keyword index, and only when the writer says so (``add_many(dialogue=True)``). Before, every memory with a
    session lent its words to the memories written around it, so the time a fact was written changed what
    questions found. Existing memories become independent facts, and the keyword index is rebuilt at the next
    open (under the loaded key) without the context it lent."""
    conn.execute("ALTER TABLE memory_entries ADD COLUMN dialogue INTEGER NOT NULL DEFAULT 0")
    conn.execute("DELETE FROM memory_keyword_docs")
    for shard in range(KEYWORD_SHARDS):
        conn.execute(f"DELETE FROM {fts_table(shard)}")
    conn.execute(
        "INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    )


def m006_language(conn: sqlite3.Connection) -> None:
    """Each memory's language (``zh``/``en``): cross-language search scores a memory against a question in the
    other language differently, and Chinese memories are also indexed under their English dictionary terms. Rows
    of existing stores get their language, and the keyword index its new terms, at the next open (under the key)."""
    conn.execute("ALTER TABLE memory_entries ADD COLUMN lang TEXT")
    conn.execute("CREATE INDEX idx_entries_user_lang ON memory_entries(user_id, lang)")
    conn.execute("DELETE FROM memory_keyword_docs")
    for shard in range(KEYWORD_SHARDS):
        conn.execute(f"DELETE FROM {fts_table(shard)}")
    for key in ("keyword_index_rebuild", "language_backfill"):
        conn.execute(
            "INSERT INTO memory_meta (key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = '1'", (key,)
        )


def m007_keyword_upkeep(conn: sqlite3.Connection) -> None:
    """Let an FTS5 ``merge`` command merge a level as soon as it holds two segments (``usermerge``; the default 4
    left a store filled session by session with many small segments): the store's background merge (see
    :mod:`~hermes_memory_core.storage.sqlite.upkeep`) then keeps each shard near one segment per level."""
    for shard in range(KEYWORD_SHARDS):
        table = fts_table(shard)
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('usermerge', 2)")


def m008_session_archive(conn: sqlite3.Connection) -> None:
    """Each session records the last turn kept as conversation memories (``archived_turn``): turns are archived
    when they leave the ring buffer or when the session ends, and each turn exactly once."""
    conn.execute("ALTER TABLE sessions ADD COLUMN archived_turn INTEGER NOT NULL DEFAULT -1")


def m009_xlang_terms(conn: sqlite3.Connection) -> None:
    """Each memory's key terms in the other language (from the host's model, written in the background; NULL until
    then): the keyword index holds them beside the memory's own words, so a question in the other language finds
    it by them. Sealed like the content for tiers kept sealed."""
    conn.execute("ALTER TABLE memory_entries ADD COLUMN xlang_terms TEXT")


def m010_no_value_statistics(conn: sqlite3.Connection) -> None:
    """No planner statistics that sample column values: the PostgreSQL store stops sampling user data (its
    statistics live outside the store's tables and would outlive an erasure). SQLite's own statistics are counts
    (``sqlite_stat1``); value samples (``sqlite_stat4``, only in builds that have it) are dropped if present."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat4'").fetchone():
        conn.execute("DELETE FROM sqlite_stat4")


def m011_lookup_indexes(conn: sqlite3.Connection) -> None:
    """The metadata values the store finds by equality (``remark`` of conversation memories, ``fact_key`` of keyed
    facts, ``question`` of the assistant's answers, which recall looks up for a question asked again) get an
    expression index per user, holding only the rows that carry one: archiving a message asks whether its remark is already held, and that question was a scan
    of all the user's conversation memories (0.7 ms per message at 1k memories, 39 ms at 50k)."""
    for key in ("remark", "fact_key", "question"):  # the keys as they were when this shipped (never edit a shipped migration)
        field = lookup_expression(key)
        conn.execute(f"CREATE INDEX idx_entries_{key} ON memory_entries(user_id, {field}) WHERE {field} IS NOT NULL")


def m012_subject_indexes(conn: sqlite3.Connection) -> None:
    """Recall looks up, on every turn, the user's standing reply preferences (``standing``) and the system-of-record
    facts on the subjects a recalled claim is about (``subject``): an index lookup per user like ``m011``'s, not a
    scan of the user's memories (4 ms of a 10 ms recall at 4k memories)."""
    for key in ("subject", "standing"):  # the keys as they were when this shipped (never edit a shipped migration)
        field = lookup_expression(key)
        conn.execute(f"CREATE INDEX idx_entries_{key} ON memory_entries(user_id, {field}) WHERE {field} IS NOT NULL")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_initial,
    m002_keyword_index,
    m003_sessions,
    m004_keyword_context,
    m005_dialogue_flag,
    m006_language,
    m007_keyword_upkeep,
    m008_session_archive,
    m009_xlang_terms,
    m010_no_value_statistics,
    m011_lookup_indexes,
    m012_subject_indexes,
]


def _ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)"
    )


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of migrations already applied, in order (read-only)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return []
    return [row[0] for row in conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")]


def pending(conn: sqlite3.Connection) -> list[str]:
    """Names of migrations not applied yet (read-only)."""
    done = set(applied(conn))
    return [m.__name__ for m in MIGRATIONS if m.__name__ not in done]


def apply_pending(conn: sqlite3.Connection, only: Sequence[str] | None = None) -> list[str]:
    """Apply every pending migration (or only those named in ``only``), each atomically with the row that records it.

    Args:
        conn: A connection in autocommit mode (``isolation_level=None``).
        only: Apply these migrations at most (a bundle is rebuilt at the level it was written at, then migrated).

    Returns:
        The names applied now.
    """
    _ensure_table(conn)
    done = set(applied(conn))
    ran: list[str] = []
    for migration in MIGRATIONS:
        if migration.__name__ in done or (only is not None and migration.__name__ not in only):
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # executescript commits implicitly; run its statements one by one inside our transaction.
            _run_in_transaction(conn, migration)
            conn.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                (migration.__name__, int(time.time())),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # a failed COMMIT (a full disk) has rolled back already
                conn.execute("ROLLBACK")
            raise
        ran.append(migration.__name__)
    return ran


class _NoScriptConnection:
    """Passes ``executescript`` statements through ``execute`` so they stay inside the open transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def executescript(self, script: str) -> None:
        for statement in _split_sql(script):
            self._conn.execute(statement)

    def execute(self, *args: object) -> sqlite3.Cursor:
        return self._conn.execute(*args)  # type: ignore[arg-type]


def _split_sql(script: str) -> list[str]:
    statements, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                statements.append(buf.strip())
            buf = ""
    if buf.strip():
        statements.append(buf.strip())
    return statements


def _run_in_transaction(conn: sqlite3.Connection, migration: Callable[[sqlite3.Connection], None]) -> None:
    migration(_NoScriptConnection(conn))  # type: ignore[arg-type]
