"""The server store's database: a PostgreSQL schema reached through a connection pool (the
:class:`~hermes_memory_core.storage.sql.parts.SQLDatabase` part of
:class:`~hermes_memory_core.storage.postgres.store.PostgresMetadataStore`).

Reads borrow a pooled connection per statement (autocommit, like SQLite's readers); writes run in one transaction
per call, nested calls as savepoints. Rows a write is about to change are locked first (``SELECT … FOR UPDATE``),
so writers in different processes never lose an update. Every open store holds a shared advisory lock of its
schema; a restore takes the exclusive one (:meth:`PostgresDatabase.exclusive`).

Needs the ``postgres`` extra (``psycopg`` and ``psycopg-pool``).
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hermes_memory_core.busy import BUSY_WAIT_S, retry_while_busy
from hermes_memory_core.errors import (
    BackendUnavailableError,
    ConfigError,
    ConsistencyError,
    StoreBusyError,
    StoreClosedError,
    StoreLockedError,
)
from hermes_memory_core.storage.postgres import migrations as postgres_migrations
from hermes_memory_core.storage.postgres.schema import schema_problems, store_lock_key
from hermes_memory_core.storage.sql.rows import ROW_TABLES
from hermes_memory_core.storage.sqlite import migrations as sqlite_migrations

__all__ = ["PostgresDatabase", "redact_url", "translate"]

#: Empties every table of the store, keyword index included (restore and its undo).
_TRUNCATE_ALL = f"TRUNCATE {', '.join(ROW_TABLES)}, memory_keyword_docs, memory_keyword_terms"
_HINT = re.compile(r"(?<![\w)\]'\"])\+(?=[A-Za-z_])")


@functools.lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """Our ``?``-placeholder SQL in psycopg's dialect: ``%s`` placeholders, no SQLite ``+column`` hints."""
    return _HINT.sub("", sql.replace("%", "%%")).replace("?", "%s")


class _Rows:
    """Fetched rows with the cursor methods our queries use."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self._rows)


class _Connection:
    """A psycopg connection that accepts the shared ``?`` SQL."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(translate(sql), list(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = [list(r) for r in rows]
        if rows:
            with self.raw.cursor() as cur:
                cur.executemany(translate(sql), rows)


class _PooledReader:
    """Runs each read on a connection borrowed from the pool (committed data only, never waits for a writer)."""

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Rows:
        with self._db.connection() as raw:
            cur = raw.execute(translate(sql), list(params))
            return _Rows(cur.fetchall() if cur.description is not None else [])


def _require_psycopg() -> tuple[Any, Any, Any]:
    try:
        import psycopg
        from psycopg import sql
        from psycopg_pool import ConnectionPool
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigError(
            "metadata_url needs the PostgreSQL driver: pip install 'hermes-memory-layer[postgres]'"
        ) from exc
    return psycopg, sql, ConnectionPool


def redact_url(url: str) -> str:
    """The URL without its password (for messages and store keys)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}{parts.path}"


class PostgresDatabase:
    """A store's PostgreSQL schema: its connections, transactions, migrations, in-use lock and copies.

    Args:
        url: ``postgresql://user:password@host:port/dbname``.
        schema: Schema that holds the tables (created if missing; a lower-case identifier).
        pool_size: Most connections this process opens.
    """

    greatest = "greatest"
    for_update = " FOR UPDATE"

    def __init__(self, url: str, schema: str = "hermes_memory", pool_size: int = 8) -> None:
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
            raise ConfigError(f"metadata_schema {schema!r} is not a lower-case SQL identifier")
        self.url = url
        self.schema = schema
        self.pool_size = pool_size
        self.location = f"{redact_url(url)}#{schema}"
        self._pool: Any = None
        self._write_lock = threading.RLock()
        self._tx: _Connection | None = None
        self._closed = False
        self._holder: Any = None  # the connection that holds this store's in-use lock
        self._lock_key = store_lock_key(schema)

    # ------------------------------------------------------------------ connections
    def open(self) -> None:
        """Connect (holding the store's shared in-use lock), apply pending migrations, check the schema.

        Raises:
            BackendUnavailableError: The server cannot be reached.
            StoreLockedError: A restore holds the store (for longer than 30 s).
            ConsistencyError: The schema holds a trigger, rule, view or table our migrations did not create.
        """
        psycopg, sql, pool_cls = _require_psycopg()
        schema_id = sql.Identifier(self.schema)

        def configure(conn: Any) -> None:
            conn.execute(sql.SQL("SET search_path TO {}").format(schema_id))
            # psycopg prepares a statement run 5 times, and PostgreSQL then tends to a generic plan, blind to the
            # values: for "this user's rows in language X ... LIMIT 1" that plan is a sequential scan of every
            # user's rows (28 ms at 100k) where the value-aware plan probes an index (0.03 ms). Plan with the values.
            conn.execute("SET plan_cache_mode = force_custom_plan")

        try:  # one direct connection first: fails fast with the server's own message, migrates, holds the lock
            raw = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            raise BackendUnavailableError(
                f"cannot open the PostgreSQL metadata store at {self.location}: {exc}"
            ) from exc
        try:
            configure(raw)
            self._hold_shared(raw, wait=30.0)
            postgres_migrations.apply_pending(raw, sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema_id))
            problems = schema_problems(raw, self.schema)
            if problems:
                raise ConsistencyError(
                    f"the store at {self.location} holds schema objects Hermes Memory did not create "
                    f"({'; '.join(problems[:5])}); refusing to open it"
                )
        except BaseException as exc:
            raw.close()
            if isinstance(exc, psycopg.OperationalError):
                raise BackendUnavailableError(f"cannot open the PostgreSQL metadata store at {self.location}: {exc}") from exc
            raise
        self._holder = raw
        self._pool = pool_cls(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            kwargs={"autocommit": True},
            configure=configure,
            open=False,
            name=f"hermes-memory:{self.schema}",
        )
        try:
            self._pool.open(wait=True, timeout=15)
        except Exception as exc:
            self._pool.close()
            self._pool = None
            raise BackendUnavailableError(
                f"cannot open a connection pool to {self.location}: {exc}"
            ) from exc

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled autocommit psycopg connection (search_path set to the store's schema)."""
        if self._closed or self._pool is None:
            raise StoreClosedError("the metadata store is closed")
        with self._pool.connection() as raw:
            yield raw

    def reader(self) -> _PooledReader:
        if self._closed or self._pool is None:
            raise StoreClosedError("the metadata store is closed")
        return _PooledReader(self)

    def close(self) -> None:
        with self._write_lock:
            self._closed = True
            if self._pool is not None:
                self._pool.close()
                self._pool = None
            if self._holder is not None:
                with contextlib.suppress(Exception):
                    self._holder.close()  # the server drops the session's locks with it
                self._holder = None

    # ------------------------------------------------------------------ in use
    def _hold_shared(self, raw: Any, wait: float) -> None:
        deadline = time.monotonic() + wait
        while not raw.execute("SELECT pg_try_advisory_lock_shared(%s)", (self._lock_key,)).fetchone()[0]:
            if time.monotonic() > deadline:
                raise StoreLockedError(f"the store at {self.location} is being restored by another process")
            time.sleep(0.2)

    def _holders(self) -> list[int]:
        """Process ids of other sessions holding this store's in-use lock."""
        rows = self._holder.execute(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
            "AND classid::bigint = %s AND objid::bigint = %s AND pid != pg_backend_pid()",
            (self._lock_key >> 32, self._lock_key & 0xFFFFFFFF),
        ).fetchall()
        return sorted({int(r[0]) for r in rows})

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Be the only process with this store open for the duration (a restore); back to shared afterwards.

        Raises:
            StoreLockedError: Another process has the store open (its server-side process ids are named).
        """
        raw = self._holder
        if raw is None:
            raise StoreClosedError("the metadata store is closed")
        raw.execute("SELECT pg_advisory_unlock_shared(%s)", (self._lock_key,))
        deadline = time.monotonic() + 2.0  # a session that just closed may still be ending on the server
        while not (got := raw.execute("SELECT pg_try_advisory_lock(%s)", (self._lock_key,)).fetchone()[0]):
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if not got:
            others = self._holders()
            self._hold_shared(raw, wait=30.0)
            raise StoreLockedError(
                f"the store at {self.location} is open in other processes (server sessions {others}); close them "
                "before restoring over it"
            )
        try:
            yield
        finally:
            raw.execute("SELECT pg_advisory_unlock(%s)", (self._lock_key,))
            self._hold_shared(raw, wait=30.0)

    @contextlib.contextmanager
    def atomic(self) -> Iterator[_Connection]:
        """A write transaction; nested calls become savepoints. One writer per process, many across processes."""
        with self._write_lock:
            if self._tx is not None:
                with self._tx.raw.transaction():
                    yield self._tx
                return
            with self.connection() as raw, raw.transaction():
                self._tx = _Connection(raw)
                try:
                    yield self._tx
                finally:
                    self._tx = None

    def applied_migrations(self) -> list[str]:
        with self.connection() as raw:
            return postgres_migrations.applied(raw)

    def json_text(self, column: str, key: str) -> str:
        return f"({column}::jsonb ->> '{key}')"

    def rewrite(self) -> None:
        """``VACUUM FULL`` every table that held the users' rows: plain VACUUM leaves dead tuples' bytes in heap
        and index pages; FULL rewrites each table and its indexes into new files (each table is locked while it
        is rewritten). PostgreSQL's own WAL and backups are outside the store (the operator's retention).

        A deleted row stays in the new files while any transaction of the database holds a snapshot older than
        the delete (it may still read it), so this waits, up to :data:`~hermes_memory_core.busy.BUSY_WAIT_S`,
        holding no lock of ours, for the transactions begun before it to end (later ones do not count, so a busy
        database does not hold it back), and where another role's sessions are hidden from us, checks what VACUUM
        reports it kept.

        Raises:
            StoreBusyError: Transactions older than the delete were still open (their server sessions named),
                or VACUUM kept deleted row versions they may see.
        """
        self._rewrite_after_older((*ROW_TABLES, "memory_keyword_docs", "memory_keyword_terms"))

    def checkpoint(self) -> None:
        """Rewrite the bookkeeping table (an erasure's intent row names the user), waiting as :meth:`rewrite`."""
        self._rewrite_after_older(("memory_meta",))

    def _rewrite_after_older(self, tables: Sequence[str]) -> None:
        """``VACUUM FULL`` the tables once every transaction that began before now has ended (the deletes to make
        final committed before now; transactions begun later see them deleted, so they never hold the rewrite
        back, however busy the database)."""
        with self.connection() as raw:
            horizon = int(raw.execute("SELECT txid_snapshot_xmax(txid_current_snapshot())").fetchone()[0])
        retry_while_busy(lambda: self._vacuum_full(tables, horizon))

    def _vacuum_full(self, tables: Sequence[str], horizon: int) -> None:
        """One try: ``VACUUM FULL`` the tables unless a transaction older than ``horizon`` is open, then check that
        nothing deleted stayed when some session's snapshot is hidden from us (another role's)."""
        kept: list[int] = []

        def count_kept(diag: Any) -> None:
            # VACUUM (FULL, VERBOSE) reports, per table, "N dead row versions cannot be removed yet" (its detail,
            # the count first in every translation of the message)
            if diag.severity_nonlocalized == "INFO" and diag.message_detail:
                found = re.search(r"\d+", diag.message_detail)
                kept.append(int(found.group()) if found else 0)

        with self.connection() as raw:
            older, hidden = _older_snapshots(raw, horizon)
            if older:
                raise StoreBusyError(_SNAPSHOTS_HELD.format(who="server sessions " + ", ".join(map(str, older))))
            raw.add_notice_handler(count_kept)
            try:
                for table in tables:
                    raw.execute(f"VACUUM (FULL, VERBOSE) {table}")
            finally:
                raw.remove_notice_handler(count_kept)
        if hidden and any(kept):
            raise StoreBusyError(_SNAPSHOTS_HELD.format(who=f"VACUUM kept {sum(kept)} deleted row versions"))

    # ------------------------------------------------------------------ checks
    def integrity_check(self) -> str:
        problems: list[str] = []
        queries = {
            "memories whose current version row is missing": (
                "SELECT count(*) FROM memory_entries e WHERE NOT EXISTS "
                "(SELECT 1 FROM memory_versions v WHERE v.memory_id = e.id AND v.version = e.version)"
            ),
            "active memories missing from the keyword index": (
                "SELECT count(*) FROM memory_entries e WHERE e.is_active = 1 AND NOT EXISTS "
                "(SELECT 1 FROM memory_keyword_docs d WHERE d.memory_id = e.id)"
            ),
            "keyword entries of inactive memories": (
                "SELECT count(*) FROM memory_keyword_docs d JOIN memory_entries e ON e.id = d.memory_id "
                "WHERE e.is_active = 0"
            ),
        }
        conn = self.reader()
        for what, sql in queries.items():
            row = conn.execute(sql).fetchone()
            n = int(row[0]) if row else 0
            if n:
                problems.append(f"{n} {what}")
        return "; ".join(problems) or "ok"

    # ------------------------------------------------------------------ portability
    def backup_to(self, target: Path) -> None:
        """Copy every row, from one consistent snapshot, into a new SQLite file at ``target`` with the bundle
        schema (the SQLite migrations). Its keyword index is left empty and marked for a rebuild, which the store
        that opens or restores it does under its own key."""
        dest = sqlite3.connect(str(target), isolation_level=None)
        try:
            sqlite_migrations.apply_pending(dest)
            dest.execute("BEGIN IMMEDIATE")
            dest.execute("DELETE FROM memory_meta")  # the new file's own housekeeping rows; ours replace them
            with self.connection() as raw, raw.transaction():
                raw.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                for table in ROW_TABLES:
                    columns = _columns(dest, table)
                    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
                    with raw.cursor(name=f"export_{table}") as cur:
                        cur.itersize = 2000
                        cur.execute(f"SELECT {', '.join(columns)} FROM {table}")
                        while rows := cur.fetchmany(2000):
                            dest.executemany(insert, rows)
            dest.execute(
                "INSERT INTO memory_meta (key, value) VALUES ('keyword_index_rebuild', '1') "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            )
            dest.execute("COMMIT")
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()

    def load_bundle(self, path: Path) -> None:
        """Replace every row of this store by the rows of a bundle's SQLite file, in one transaction.

        The keyword index is left empty: rebuild it with :meth:`repair_keyword_index` once the key is loaded.
        """
        src = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        try:
            with self.atomic() as conn:
                raw = conn.raw
                raw.execute(_TRUNCATE_ALL)
                for table in ROW_TABLES:
                    columns = _columns(src, table)
                    with raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                        for row in src.execute(f"SELECT {', '.join(columns)} FROM {table}"):
                            copy.write_row(row)
                for table in postgres_migrations.IDENTITY_TABLES:
                    raw.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                        f"coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
                    )
        finally:
            src.close()

    def clear(self) -> None:
        """Delete every row (undo of a failed restore)."""
        with self.atomic() as conn:
            conn.execute(_TRUNCATE_ALL)


def _columns(conn: Any, table: str) -> list[str]:
    """Column names of one of our tables in a SQLite database, in order."""
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})").fetchall()]


_SNAPSHOTS_HELD = ("transactions older than the erasure ({who}) still saw the deleted rows after "
                   f"{BUSY_WAIT_S:g} s; the rewrite is left for reconcile() or the next open")


def _older_snapshots(raw: Any, horizon: int) -> tuple[list[int], bool]:
    """Server sessions of this database whose snapshot or transaction id is older than ``horizon`` (a transaction
    id): rows deleted before it stay readable to them, so VACUUM keeps them. And whether some session's snapshot is
    hidden from us (another role's, without ``pg_read_all_stats``): then VACUUM's own count of what it kept decides.
    """
    rows = raw.execute(
        "SELECT pid, GREATEST(age(backend_xmin), age(backend_xid)) > age((%s::bigint %% 4294967296)::text::xid), "
        "query IS NOT DISTINCT FROM '<insufficient privilege>' FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY pid",
        (horizon,),
    ).fetchall()
    return [int(r[0]) for r in rows if r[1]], any(r[2] for r in rows)
