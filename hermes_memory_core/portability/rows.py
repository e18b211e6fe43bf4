"""Rows in and out of bundles: a bundle's SQLite file is always rebuilt from rows, never copied.

- **Export** copies the rows a bundle may carry from a consistent copy of the store into a fresh file made by the
  migrations: only active memories (a soft-deleted memory's content, versions, tags and log never travel), and
  with a ``user_id`` only that user's rows. The keyword index is not carried (shared index pages held other users'
  words, and deleted words); whoever restores rebuilds it.
- **Restore** copies a verified bundle's rows into a fresh staging store the same way, so nothing of the bundle's
  file but its rows reaches a store; :func:`sealed_row_problems` then checks that every permanent memory is sealed
  and everything sealed opens under the target's key.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_memory_core.errors import EncryptionKeyError
from hermes_memory_core.storage.sql.rows import ROW_TABLES  # the tables a bundle carries, in foreign-key order
from hermes_memory_core.storage.sqlite import migrations
from hermes_memory_core.storage.sqlite.schema import is_plain_name
from hermes_memory_core.trust.at_rest import SealingCodec

__all__ = ["ROW_TABLES", "Selection", "copy_rows", "fresh_file", "row_tables", "sealed_row_problems"]

#: Never carried: bookkeeping of the file and the keyword index (rebuilt under the target's key).
_NOT_ROWS = ("schema_migrations", "sqlite_sequence", "memory_keyword_docs")
#: Meta rows that describe one file, not the store.
_FILE_META = ("keyword_index_rebuild", "export_partials")  # notes about this file (and its exports in progress)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which rows an export carries.

    Attributes:
        user_id: Only this user's rows (None: every user's).
    """

    user_id: str | None = None


def fresh_file(path: Path, migration_names: Sequence[str]) -> sqlite3.Connection:
    """A new SQLite file with exactly the named migrations applied; returns a connection to it (autocommit)."""
    conn = sqlite3.connect(Path(path).resolve().as_uri(), isolation_level=None, uri=True)
    conn.execute("PRAGMA journal_mode=DELETE")
    migrations.apply_pending(conn, list(migration_names))
    conn.execute("DELETE FROM memory_meta")  # what the migrations noted for this file; the copied rows follow
    return conn


def _columns(conn: sqlite3.Connection, table: str, schema: str = "main") -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA {schema}.table_info({table})").fetchall()]


def row_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of a database (ours, checked) whose rows travel in bundles, in foreign-key order."""
    names = {
        r[0] for r in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        if not str(r[1] or "").upper().startswith("CREATE VIRTUAL")
    }
    extra = sorted(
        n for n in names - set(ROW_TABLES) - set(_NOT_ROWS)
        if not n.startswith(("memory_fts_", "sqlite_")) and is_plain_name(n)
    )
    return [t for t in ROW_TABLES if t in names] + extra


def _where(table: str, columns: Sequence[str], sel: Selection) -> tuple[str, list[Any]] | None:
    """The rows of ``table`` an export carries (SQL on the attached ``src``), or None to carry none."""
    user = [] if sel.user_id is None else [sel.user_id]
    mine = "" if sel.user_id is None else " AND user_id = ?"
    if table == "memory_meta":
        return f"WHERE key NOT IN ({','.join('?' * len(_FILE_META))})", list(_FILE_META)
    if table == "memory_entries":
        return f"WHERE is_active = 1{mine}", user
    if "memory_id" in columns:
        owner = " AND user_id = ?" if "user_id" in columns and sel.user_id is not None else ""
        return (
            f"WHERE memory_id IN (SELECT id FROM src.memory_entries WHERE is_active = 1{mine}){owner}",
            user + (user if owner else []),
        )
    if "user_id" in columns:
        return ("WHERE 1 = 1" + mine), user
    return None if sel.user_id is not None else ("", [])  # a store-wide table: never in a per-user bundle


def copy_rows(dst: sqlite3.Connection, src: Path, sel: Selection | None) -> dict[str, int]:
    """Copy rows from the database at ``src`` into ``dst`` (a :func:`fresh_file` connection, same schema): those
    ``sel`` picks, or every row (a restore).

    Returns the rows copied per table.
    """
    dst.execute("ATTACH DATABASE ? AS src", (Path(src).resolve().as_uri() + "?mode=ro&immutable=1",))
    copied: dict[str, int] = {}
    try:
        dst.execute("BEGIN")
        for table in row_tables(dst):
            cols = _columns(dst, table)
            if cols != _columns(dst, table, "src"):
                raise sqlite3.DatabaseError(f"table {table} has other columns in the source")
            if sel is not None:
                where = _where(table, cols, sel)
            elif table == "memory_meta":  # a restore takes every row but the file's own notes
                where = _where(table, cols, Selection())
            else:
                where = ("", [])
            if where is None:
                continue
            listed = ", ".join(cols)
            cur = dst.execute(f"INSERT INTO main.{table} ({listed}) SELECT {listed} FROM src.{table} {where[0]}", where[1])
            copied[table] = cur.rowcount
        dst.execute("COMMIT")
    except BaseException:
        if dst.in_transaction:
            dst.execute("ROLLBACK")
        raise
    finally:
        dst.execute("DETACH DATABASE src")
    return copied


def _memory_rows(conn: Any) -> Iterator[tuple[str, str, str, str, str | None]]:
    yield from conn.execute("SELECT id, memory_type, content, metadata, delete_reason FROM memory_entries")


def sealed_row_problems(conn: Any, codec: SealingCodec, limit: int = 5) -> list[str]:
    """What a restored store's rows hold that its key cannot vouch for ([] when all is well): permanent memories
    (rows or versions) kept in plain text, and sealed values of any row that do not open under ``codec``'s key."""
    problems: list[str] = []

    def opens(action: Any, *args: Any) -> bool:
        try:
            action(*args)
        except (EncryptionKeyError, ValueError, KeyError, TypeError):
            return False
        return True

    tiers: dict[str, str] = {}
    for memory_id, tier, content, metadata, reason in _memory_rows(conn):
        tiers[memory_id] = tier
        if tier == "permanent" and not codec.is_sealed(content):
            problems.append(f"permanent memory {memory_id} is stored in plain text")
        elif not opens(codec.open, memory_id, content):
            problems.append(f"memory {memory_id} does not decrypt under this store's key")
        elif not opens(codec.unpack_metadata, memory_id, metadata):
            problems.append(f"the metadata of memory {memory_id} does not decrypt under this store's key")
        elif reason is not None and not opens(codec.open_field, memory_id, "reason", reason):
            problems.append(f"the delete reason of memory {memory_id} does not decrypt under this store's key")
        if len(problems) >= limit:
            return problems
    for memory_id, terms in conn.execute(
        "SELECT id, xlang_terms FROM memory_entries WHERE xlang_terms IS NOT NULL AND xlang_terms != ''"
    ).fetchall():  # other-language key terms (lifecycle.xlang) are sealed like the content
        if tiers.get(memory_id) == "permanent" and not codec.is_sealed(terms):
            problems.append(f"the key terms of permanent memory {memory_id} are stored in plain text")
        elif not opens(codec.open_field, memory_id, "xlang", terms):
            problems.append(f"the key terms of memory {memory_id} do not decrypt under this store's key")
        if len(problems) >= limit:
            return problems
    for memory_id, version, content, note in conn.execute(
        "SELECT memory_id, version, content, note FROM memory_versions"
    ).fetchall():
        if tiers.get(memory_id) == "permanent" and not codec.is_sealed(content):
            problems.append(f"version {version} of permanent memory {memory_id} is stored in plain text")
        elif not (opens(codec.open, memory_id, content) and opens(codec.open_field, memory_id, "note", note)):
            problems.append(f"version {version} of memory {memory_id} does not decrypt under this store's key")
        if len(problems) >= limit:
            return problems
    for memory_id, detail in conn.execute("SELECT memory_id, detail FROM memory_access_log").fetchall():
        if not opens(codec.open_field, memory_id, "log", detail):
            problems.append(f"an access-log row of memory {memory_id} does not decrypt under this store's key")
            break
    for table, columns in (("session_messages", "content, data"), ("session_summaries", "text"),
                           ("promotion_queue", "content")):
        for user, session, *values in conn.execute(f"SELECT user_id, session_id, {columns} FROM {table}").fetchall():
            if not (opens(codec.session_of, session)
                    and all(opens(codec.open_session, user, codec.session_of(session), v) for v in values)):
                problems.append(f"a row of {table} does not decrypt under this store's key")
                break
    return problems[:limit]
