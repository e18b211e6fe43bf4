"""Named schema migrations of the PostgreSQL metadata store.

They carry the same names as the SQLite ones (:mod:`~hermes_memory_core.storage.sqlite.migrations`) and create the same
tables and columns (the first tables, written once for both: :mod:`~hermes_memory_core.storage.sql.tables`), so the shared queries run on both and a bundle's rows copy across. Only the keyword index
differs: PostgreSQL keeps BM25 postings in plain tables (term → memory, with term frequency and document length)
where SQLite uses FTS5, with the same user shards and statistics. Each migration runs in its own transaction under an advisory lock, so processes that open
one store at the same moment apply it once.
"""

from __future__ import annotations

import time
from typing import Any

from hermes_memory_core.storage.sql.tables import INITIAL, POSTGRES, SESSIONS, render

__all__ = ["MIGRATIONS", "applied", "apply_pending"]

#: Advisory-lock key that serialises migrations across processes (any constant unique to this project).
_LOCK_KEY = 0x4E524D454D  # "HERMEM"

_M001 = render(INITIAL, POSTGRES)

_M002 = """
CREATE TABLE memory_keyword_docs (
    memory_id TEXT PRIMARY KEY REFERENCES memory_entries(id) ON DELETE CASCADE,
    user_id   TEXT NOT NULL,
    shard     SMALLINT NOT NULL,
    length    INTEGER NOT NULL
);
CREATE INDEX idx_keyword_docs_shard ON memory_keyword_docs(shard, length);
CREATE TABLE memory_keyword_terms (
    user_id    TEXT NOT NULL,
    term       TEXT NOT NULL,
    memory_id  TEXT NOT NULL REFERENCES memory_keyword_docs(memory_id) ON DELETE CASCADE,
    shard      SMALLINT NOT NULL,
    tf         INTEGER NOT NULL,
    doc_length INTEGER NOT NULL,
    PRIMARY KEY (user_id, term, memory_id)
);
CREATE INDEX idx_keyword_terms_shard ON memory_keyword_terms(shard, term);
CREATE INDEX idx_keyword_terms_memory ON memory_keyword_terms(memory_id);
"""

_M003 = render(SESSIONS, POSTGRES)

_M004 = """
ALTER TABLE memory_keyword_terms ADD COLUMN ctf INTEGER NOT NULL DEFAULT 0;
DELETE FROM memory_keyword_docs;
CREATE INDEX idx_entries_session_time ON memory_entries(user_id, session_id, created_at);
INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value
"""

_M005 = """
ALTER TABLE memory_entries ADD COLUMN dialogue SMALLINT NOT NULL DEFAULT 0;
DELETE FROM memory_keyword_docs;
INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value
"""

_M006 = """
ALTER TABLE memory_entries ADD COLUMN lang TEXT;
CREATE INDEX idx_entries_user_lang ON memory_entries(user_id, lang);
DELETE FROM memory_keyword_docs;
INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
INSERT INTO memory_meta (key, value) VALUES ('language_backfill', '1')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value
"""

# The keyword leg reads a user's postings of the query terms: with their frequencies in the primary key's index
# (INCLUDE), that is an index-only scan instead of one random heap read per posting (at 100k memories, continuous
# use: keyword leg p95 59 → 20 ms on this alone).
_M007 = """
ALTER TABLE memory_keyword_terms DROP CONSTRAINT memory_keyword_terms_pkey;
ALTER TABLE memory_keyword_terms ADD CONSTRAINT memory_keyword_terms_pkey
    PRIMARY KEY (user_id, term, memory_id) INCLUDE (tf, ctf, doc_length)
"""

# The last turn of each session kept as conversation memories (archived once, when it leaves the ring or at the end).
_M008 = """
ALTER TABLE sessions ADD COLUMN archived_turn INTEGER NOT NULL DEFAULT -1
"""

# Each memory's key terms in the other language (see the SQLite migration of the same name).
_M009 = """
ALTER TABLE memory_entries ADD COLUMN xlang_terms TEXT
"""

# PostgreSQL's planner statistics keep samples of column values (most common values, histograms) in pg_statistic,
# outside the store's tables: a user's words and ids would outlive their erasure there. No column holding user data
# is sampled (its queries go by index; the planner's defaults serve them).
_M010 = """
ALTER TABLE memory_access_log ALTER COLUMN memory_id SET STATISTICS 0;
ALTER TABLE memory_access_log ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE memory_access_log ALTER COLUMN detail SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN id SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN session_id SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN embedding_id SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN metadata SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN delete_reason SET STATISTICS 0;
ALTER TABLE memory_entries ALTER COLUMN xlang_terms SET STATISTICS 0;
ALTER TABLE memory_keyword_docs ALTER COLUMN memory_id SET STATISTICS 0;
ALTER TABLE memory_keyword_docs ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE memory_keyword_terms ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE memory_keyword_terms ALTER COLUMN term SET STATISTICS 0;
ALTER TABLE memory_keyword_terms ALTER COLUMN memory_id SET STATISTICS 0;
ALTER TABLE memory_meta ALTER COLUMN key SET STATISTICS 0;
ALTER TABLE memory_meta ALTER COLUMN value SET STATISTICS 0;
ALTER TABLE memory_tags ALTER COLUMN memory_id SET STATISTICS 0;
ALTER TABLE memory_tags ALTER COLUMN tag SET STATISTICS 0;
ALTER TABLE memory_versions ALTER COLUMN memory_id SET STATISTICS 0;
ALTER TABLE memory_versions ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE memory_versions ALTER COLUMN note SET STATISTICS 0;
ALTER TABLE promotion_queue ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE promotion_queue ALTER COLUMN session_id SET STATISTICS 0;
ALTER TABLE promotion_queue ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE session_messages ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE session_messages ALTER COLUMN session_id SET STATISTICS 0;
ALTER TABLE session_messages ALTER COLUMN content SET STATISTICS 0;
ALTER TABLE session_messages ALTER COLUMN data SET STATISTICS 0;
ALTER TABLE session_summaries ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE session_summaries ALTER COLUMN session_id SET STATISTICS 0;
ALTER TABLE session_summaries ALTER COLUMN text SET STATISTICS 0;
ALTER TABLE sessions ALTER COLUMN user_id SET STATISTICS 0;
ALTER TABLE sessions ALTER COLUMN session_id SET STATISTICS 0
"""

# The metadata values found by equality (a conversation memory's remark, a fact's key, the question an answer answered) are index lookups per user, not
# a scan of the user's rows on every archived message; partial, so rows without one cost nothing. No statistics:
# the expressions hold user data (see m010).
def _lookup_indexes(keys: tuple[str, ...]) -> str:
    """Partial expression indexes on (user, ``metadata ->> key``) for metadata values looked up by equality; no
    planner statistics on the values (user data)."""
    return ";\n".join(
        f"CREATE INDEX idx_entries_{key} ON memory_entries (user_id, (metadata::jsonb ->> '{key}'))\n"
        f"    WHERE (metadata::jsonb ->> '{key}') IS NOT NULL;\n"
        f"ALTER INDEX idx_entries_{key} ALTER COLUMN 2 SET STATISTICS 0"
        for key in keys)


# the keys as they were when each shipped (never edit a shipped migration)
_M011 = _lookup_indexes(("remark", "fact_key", "question"))
_M012 = _lookup_indexes(("subject", "standing"))

#: (name, DDL) in order; never edit one that has shipped, add new ones at the end.
MIGRATIONS: list[tuple[str, str]] = [
    ("m001_initial", _M001),
    ("m002_keyword_index", _M002),
    ("m003_sessions", _M003),
    ("m004_keyword_context", _M004),
    ("m005_dialogue_flag", _M005),
    ("m006_language", _M006),
    ("m007_keyword_upkeep", _M007),
    ("m008_session_archive", _M008),
    ("m009_xlang_terms", _M009),
    ("m010_no_value_statistics", _M010),
    ("m011_lookup_indexes", _M011),
    ("m012_subject_indexes", _M012),
]

#: Tables whose integer ids come from an identity sequence (bumped after rows are copied in with their ids).
IDENTITY_TABLES = ("memory_access_log", "session_messages", "session_summaries", "promotion_queue")


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def applied(conn: Any) -> list[str]:
    """Names of migrations already applied, in order (the connection's search_path names the schema)."""
    exists = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()[0]
    if exists is None:
        return []
    return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY applied_order").fetchall()]


def apply_pending(raw: Any, schema_sql: Any) -> list[str]:
    """Create the schema if needed and apply every pending migration, each in one transaction.

    Args:
        raw: An autocommit psycopg connection whose search_path is the store's schema.
        schema_sql: ``CREATE SCHEMA IF NOT EXISTS <schema>`` as a composed, safely quoted statement.

    Returns:
        The names applied now.
    """
    ran: list[str] = []
    for name, script in MIGRATIONS:
        with raw.transaction():
            raw.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            raw.execute(schema_sql)
            raw.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, "
                "applied_at BIGINT NOT NULL, applied_order BIGINT GENERATED ALWAYS AS IDENTITY)"
            )
            if name in applied(raw):
                continue
            for statement in _statements(script):
                raw.execute(statement)
            raw.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (%s, %s)", (name, int(time.time())))
        ran.append(name)
    return ran
