"""The embedded store's database: one SQLite file in WAL mode, one writer at a time, readers in parallel,
thread-safe (the :class:`~hermes_memory_core.storage.sql.parts.SQLDatabase` part of
:class:`~hermes_memory_core.storage.sqlite.store.SQLiteMetadataStore`).

Pragmas follow docs/design.md#storage: ``journal_mode=WAL``, ``synchronous=NORMAL``, ``busy_timeout=5000``,
``foreign_keys=ON``, and ``journal_size_limit`` (:data:`WAL_KEEP_BYTES`): a log a checkpoint emptied is cut back to
that size instead of keeping its high-water mark (13.6 MB at 16k conversation memories: 0.85 KiB each) while open. Writes go through one connection guarded by a lock (``atomic()`` nests with
SAVEPOINTs); each thread reads through its own connection, so searches never wait for a writer.
A committed transaction survives a killed process (WAL + NORMAL loses at most the last commits on power loss).

**Read-only** (``read_only=True``): every connection is opened ``mode=ro`` and ``query_only``, no migration or
checkpoint runs, and nothing in the folder is written. A WAL database needs its ``-shm`` index to be read: with
no ``-wal`` (a cleanly closed store) on read-only media, or with no writer possible (``alone``), the file is opened
``immutable=1`` (nothing to lock, nothing in a log); with a ``-wal`` and its ``-shm`` on read-only media it is read
through them (nothing there can change); when writers share the file it is read as they read it (SQLite keeps its
``-shm`` index); otherwise (a ``-wal`` left by a killed writer: a reader would rebuild its index; or a ``-wal``
without its ``-shm`` on read-only media) the database and its log are copied into a private temporary folder and
read there (``immutable`` would skip the log's commits). Beside a live process that holds the store (a running
app, :func:`~hermes_memory_core.storage.lock.held_by_writer`) it is read through that process's log and index, as
its own readers read it: every snapshot consistent, nothing in the store's files changed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from hermes_memory_core.busy import BUSY_WAIT_S, retry_while_busy
from hermes_memory_core.errors import ConsistencyError, StorageFullError, StoreBusyError, StoreClosedError
from hermes_memory_core.storage.private_files import tighten
from hermes_memory_core.storage.read_only import PrivateCopy
from hermes_memory_core.storage.sqlite import migrations
from hermes_memory_core.storage.sqlite.schema import schema_problems

__all__ = ["CHECKPOINT_WAIT_S", "WAL_KEEP_BYTES", "SQLiteDatabase", "truncate_wal_once"]

log = logging.getLogger("hermes_memory.storage")

#: Longest a :meth:`SQLiteDatabase.checkpoint` waits for readers, in all (the write lock is free meanwhile).
CHECKPOINT_WAIT_S = BUSY_WAIT_S

_BUSY_MS = 5000
#: The most an emptied write-ahead log keeps of its file (SQLite's ``journal_size_limit``).
WAL_KEEP_BYTES = 4 * 2**20
_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA secure_delete=ON",
    "PRAGMA synchronous=NORMAL",
    f"PRAGMA busy_timeout={_BUSY_MS}",
    "PRAGMA foreign_keys=ON",
    f"PRAGMA journal_size_limit={WAL_KEEP_BYTES}",
)


def truncate_wal_once(conn: sqlite3.Connection) -> bool:
    """One ``wal_checkpoint(TRUNCATE)`` that never waits for a reader (the busy timeout is off meanwhile). Returns
    whether a reader kept the log busy; a caller that must wait retries it (:func:`retry_while_busy`)."""
    conn.execute("PRAGMA busy_timeout=0")
    try:
        return bool(conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0])
    finally:
        conn.execute(f"PRAGMA busy_timeout={_BUSY_MS}")


def _disk_full(exc: BaseException, path: Path) -> StorageFullError | None:
    """The typed error of SQLite's "database or disk is full" (SQLITE_FULL), or of an I/O error on a disk with
    (almost) no room left (SQLite reports a ``-shm`` index it cannot map on a full tmpfs so), else None."""
    if isinstance(exc, sqlite3.OperationalError) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)
        or ("disk I/O error" in str(exc) and _nearly_full(path))
    ):
        return StorageFullError(f"the disk holding {path} is full ({exc}); free some space and try again "
                                "(nothing of this write was stored)")
    return StorageFullError.from_os_error(exc, path)


def _nearly_full(path: Path) -> bool:
    """Whether the filesystem of ``path`` has less than 1 MiB free."""
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 2**20


class SQLiteDatabase:
    """One SQLite file: its connections, transactions, migrations, checkpoints and backups.

    Args:
        path: Database file (``":memory:"`` is not supported: readers need a shared file).
        read_only: Open it read-only (module docstring).
        alone: No other process can write the file meanwhile (the caller holds the data directory's lock in a
            way that excludes writers): a read-only open may then read a cleanly closed file ``immutable``.
    """

    greatest = "max"
    for_update = ""

    def __init__(self, path: str | Path, *, read_only: bool = False, alone: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._alone = alone
        self._uri: str | None = None  # the read-only URI every connection opens
        self._copy = PrivateCopy()  # a WAL database read from read-only media is read from a private copy
        self._write_lock = threading.RLock()
        self._writer: sqlite3.Connection | None = None
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._depth = 0
        self._closed = False
        self.location = str(self.path)
        #: Called after each outermost commit (the keyword index merges the segments it wrote).
        self.after_commit: Callable[[], None] = lambda: None
        #: Longest :meth:`checkpoint` waits for readers, in seconds.
        self.checkpoint_wait = CHECKPOINT_WAIT_S

    # ------------------------------------------------------------------ connections
    def _connect(self) -> sqlite3.Connection:
        if self._uri is not None:
            conn = sqlite3.connect(self._uri, uri=True, isolation_level=None, check_same_thread=False, timeout=5.0)
            conn.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
            conn.execute("PRAGMA query_only=ON")
            return conn
        conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False, timeout=5.0)
        for pragma in _PRAGMAS:
            conn.execute(pragma)
        return conn

    def _read_only_uri(self) -> str:
        """How to open the file without writing to it (module docstring)."""
        from hermes_memory_core.storage.lock import held_by_writer
        from hermes_memory_core.storage.read_only import folder_writable, read_only_error

        if not self.path.is_file():
            raise read_only_error(self.path.parent, "create a store", "there is no store to read here")
        wal, shm = (self.path.with_name(self.path.name + suffix) for suffix in ("-wal", "-shm"))
        writable = folder_writable(self.path.parent)
        path, extra = self.path, ""
        if writable and held_by_writer(self.path.parent):
            pass  # beside a running app that holds the store: read as its own readers do, through its log
        elif not wal.exists():
            if not writable or self._alone:
                extra = "&immutable=1"
        elif (shm.exists() and not writable) or (writable and not self._alone):
            pass  # read through the log and its index (media that cannot change, or writers sharing the file)
        else:  # a log alone on read-only media, or one whose index a reader would rewrite: read a private copy
            path = self._copy.make() / self.path.name
            shutil.copyfile(self.path, path)
            shutil.copyfile(wal, path.with_name(path.name + "-wal"))
        return f"file:{path.resolve().as_posix()}?mode=ro{extra}"

    def open(self) -> None:
        """Connect, apply pending migrations and check the file holds exactly our schema.

        Raises:
            ConsistencyError: The file holds a trigger, a view or another object our migrations did not create.
        """
        if self.read_only:
            self._open_read_only()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._writer = self._connect()
            with self._write_lock:
                migrations.apply_pending(self._writer)
                problems = schema_problems(self._writer)
        except sqlite3.OperationalError as exc:
            full = _disk_full(exc, self.path)
            if full is None:
                raise
            self.close()
            raise full from exc
        tighten(self.path.parent)  # the new file and its log: 0600 whatever the umask
        if problems:
            self.close()
            raise ConsistencyError(
                f"the store at {self.path} holds schema objects Hermes Memory did not create ({'; '.join(problems[:5])});"
                " refusing to open it: remove them, or restore the store from a bundle"
            )

    def _open_read_only(self) -> None:
        from hermes_memory_core.storage.read_only import read_only_error

        self._uri = self._read_only_uri()
        try:
            self._writer = self._connect()
            with self._write_lock:
                pending = [m.__name__ for m in migrations.MIGRATIONS
                           if m.__name__ not in set(migrations.applied(self._writer))]
                problems = schema_problems(self._writer) if not pending else []
        except sqlite3.Error as exc:
            self.close()
            raise ConsistencyError(f"cannot read the store at {self.path} read-only: {exc}") from exc
        if pending:
            self.close()
            raise read_only_error(self.path, "upgrade the store's schema",
                                  f"it lacks {', '.join(pending)}: open it writable once with this version")
        if problems:
            self.close()
            raise ConsistencyError(f"the store at {self.path} holds schema objects Hermes Memory did not create "
                                   f"({'; '.join(problems[:5])})")

    def reader(self) -> sqlite3.Connection:
        """This thread's read-only connection (readers never wait for the writer in WAL mode)."""
        if self._closed:
            raise StoreClosedError("the metadata store is closed")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            conn.execute("PRAGMA query_only=ON")
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def close(self) -> None:
        with self._write_lock:
            self._closed = True
            if self._writer is not None:
                if not self.read_only:
                    with contextlib.suppress(sqlite3.Error):  # a reader holding the log: left for the next open
                        self._writer.execute("PRAGMA busy_timeout=0")  # (a close never waits on one)
                        self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._writer.close()
                self._writer = None
        with self._readers_lock:
            for conn in self._readers:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._readers.clear()
        self._copy.discard()

    @contextlib.contextmanager
    def atomic(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the single writer connection; nested calls become SAVEPOINTs."""
        with self._write_lock:
            conn = self._writer
            if conn is None:
                raise StoreClosedError("the metadata store is closed")
            if self._depth == 0:
                conn.execute("BEGIN IMMEDIATE")
                commit, rollback = "COMMIT", "ROLLBACK"
            else:
                name = f"sp{self._depth}"
                conn.execute(f"SAVEPOINT {name}")
                commit, rollback = f"RELEASE {name}", f"ROLLBACK TO {name}; RELEASE {name}"
            self._depth += 1
            try:
                yield conn
            except BaseException as exc:
                self._depth -= 1
                full = None if isinstance(exc, StorageFullError) else _disk_full(exc, self.path)
                quiet = full is not None or isinstance(exc, StorageFullError)
                with contextlib.suppress(sqlite3.Error) if quiet else contextlib.nullcontext():
                    for stmt in rollback.split("; "):  # SQLite may have rolled back a full disk's write itself
                        conn.execute(stmt)
                if full is not None:
                    raise full from exc
                raise
            else:
                self._depth -= 1
                try:
                    conn.execute(commit)
                except sqlite3.OperationalError as exc:
                    full = _disk_full(exc, self.path)
                    if full is None:
                        raise
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK" if self._depth == 0 else rollback.split("; ")[0])
                    raise full from exc
        if self._depth == 0:
            self.after_commit()

    def applied_migrations(self) -> list[str]:
        return migrations.applied(self.reader())

    def json_text(self, column: str, key: str) -> str:
        return f"json_extract({column}, '$.{key}')"

    def integrity_check(self) -> str:
        return str(self.reader().execute("PRAGMA integrity_check").fetchone()[0])

    def truncate_wal(self) -> None:
        """Checkpoint the write-ahead log into the file and truncate it (readers permitting)."""
        with self._write_lock:
            if self._writer is not None:
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def rewrite(self) -> None:
        """Checkpoint the WAL into the database and truncate it (at once, or not at all while a reader holds it:
        then the caller's :meth:`checkpoint` waits for it), then rebuild the file. With ``secure_delete`` on, every
        page those steps free is zeroed, so no file keeps a deleted word."""
        with contextlib.suppress(StoreBusyError):  # a reader holds the WAL: the erasure's last checkpoint waits
            self._checkpoint(wait=0.0)
        self._rewrite_file()

    def _rewrite_file(self) -> None:
        """Rebuild the database file page by page (``VACUUM``): a page that held only deleted rows goes to the
        freelist, and a later write that takes it back fills only part of it, so the rest of it could show a
        deleted row again; a rebuilt file has no free page. Skipped (the caller's checkpoint still runs) while a
        reader holds the file; the cost is one copy of the file."""
        with self._write_lock:
            conn = self._writer
            if conn is None:
                raise StoreClosedError("the metadata store is closed")
            try:
                conn.execute("VACUUM")
            except sqlite3.OperationalError as exc:
                log.warning("hermes_memory: could not rebuild %s after an erasure (%s); its free pages are kept "
                            "until the next erasure", self.path, exc)

    def checkpoint(self) -> None:
        """Copy the WAL into the database file and truncate it to zero bytes.

        A reader's open transaction (another process's backup, a ``sqlite3`` shell) keeps the WAL from being
        truncated: each try then returns at once, the write lock is free between tries (other writes go on), and
        after :attr:`checkpoint_wait` seconds in all :class:`StoreBusyError` says the checkpoint is left to do.

        Raises:
            StoreBusyError: Readers held the WAL for longer than :attr:`checkpoint_wait`.
        """
        self._checkpoint(self.checkpoint_wait)

    def _checkpoint(self, wait: float) -> None:
        def once() -> None:
            with self._write_lock:
                conn = self._writer
                if conn is None:
                    raise StoreClosedError("the metadata store is closed")
                busy = truncate_wal_once(conn)
            if busy:
                raise StoreBusyError(f"a reader of {self.path} kept its write-ahead log busy for {wait:g} s; "
                                     "the checkpoint is left for reconcile() or the next open")

        retry_while_busy(once, wait)

    # ------------------------------------------------------------------ portability
    def backup_to(self, target: Path) -> None:
        """A consistent copy through SQLite's online backup API (never a torn file copy)."""
        with self._write_lock:
            if self._writer is None:
                raise StoreClosedError("the metadata store is closed")
            dest = sqlite3.connect(str(target))
            try:
                self._writer.backup(dest)
                dest.execute("PRAGMA journal_mode=DELETE")
            finally:
                dest.close()
