"""A process-level lock on an embedded data directory.

The embedded vector engine serves one process. A second process that opens the same directory gets a
:class:`StoreLockedError` naming the holder (pid, host, since when) and pointing to server mode on both backends
(PostgreSQL metadata, a Qdrant server), instead of the engine's "Can't init WAL"; when the holder is this very
process (a second provider on the same folder), it says so. The lock is an ``flock`` on ``hermes.lock``: the OS drops it when the holder dies, even
on SIGKILL, so a crash never leaves a stale lock. The lock file records who holds it — never the command line,
which may carry the content given to ``add``.

Stores whose files may be shared by several processes (SQLite metadata with a vector server) hold it *shared*;
whatever must be alone with the directory (the embedded vector engine, a restore) holds it *exclusive*, so a
restore never replaces files a live process is using. A *read-only* opener beside an exclusive holder (a running
app's embedded store) does not fail: it reads beside it, holding nothing (:attr:`DataDirLock.beside`), through the
holder's own SQLite log (:func:`held_by_writer`), never writing a byte; only writers are turned away. Whoever takes the lock first after a crash also finishes or
undoes an interrupted restore (``recover``) while it is still alone. Taking and releasing the lock also keep the
directory private (:mod:`hermes_memory_core.storage.private_files`).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from hermes_memory_core.errors import ConfigError, StorageFullError, StoreLockedError
from hermes_memory_core.storage.private_files import make_private, tighten

__all__ = ["LOCK_NAME", "SERVER_MODE_DOCS", "DataDirLock", "held_by_writer"]

LOCK_NAME = "hermes.lock"


class DataDirLock:
    """Hold ``<data_dir>/hermes.lock`` for the life of a store.

    Args:
        data_dir: The store's data directory (created if missing).
        shared: Share the directory with other shared holders (an exclusive holder excludes everyone).
    """

    def __init__(self, data_dir: Path, shared: bool = False) -> None:
        self.path = Path(data_dir) / LOCK_NAME
        self.shared = shared
        self.created = False
        self.read_only = False
        #: Who holds the folder exclusively while this read-only lock reads beside them (None: nobody).
        self.beside: str | None = None
        self._fh: IO[str] | None = None

    def acquire_read_only(self) -> None:
        """Share the lock without writing anything: the lock file is opened for reading (a store on read-only
        media, or opened ``read_only``); no lock file means no process ever held the folder, so there is none to
        share. Nothing is recovered, created or tightened. When another process holds the folder exclusively (an app
        with its embedded store open), nothing is held: :attr:`beside` names the holder and the store is read beside
        it (its files are read through the holder's log, see :func:`held_by_writer`).

        Raises:
            ConfigError: The data directory does not exist or is not a directory.
        """
        import fcntl

        folder = self.path.parent
        if not folder.is_dir():
            blocker = next((p for p in (folder, *folder.parents) if p.exists()), None)
            if blocker is not None and not blocker.is_dir():
                raise ConfigError(f"cannot use data_dir {folder}: {blocker} is not a directory")
            raise ConfigError(f"cannot open {folder} read-only: there is no store there")
        self.read_only = self.shared = True
        try:
            fh = open(self.path, encoding="utf-8")  # noqa: SIM115 - held open for the life of the lock
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ConfigError(f"cannot use data_dir {folder}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            self.beside, _mine = _describe(fh.read())
            fh.close()
            return
        self._fh = fh

    def acquire(self, recover: Callable[[Path], object] | None = None) -> None:
        """Take the lock; ``recover(data_dir)`` runs first if this process is alone with the directory.

        Raises:
            StoreLockedError: Another process holds it (exclusively, or at all when this lock is exclusive).
            ConfigError: The data directory is not a directory (a file, say) or cannot be created.
        """
        import fcntl

        folder = self.path.parent
        try:
            if folder.exists() and not folder.is_dir():
                raise ConfigError(f"data_dir {folder} is not a directory")
            existed = folder.is_dir()
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.created = not self.path.exists()
            fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held open for the life of the lock
        except OSError as exc:
            raise StorageFullError.from_os_error(exc, folder) or ConfigError(
                f"cannot use data_dir {folder}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            alone = True
        except OSError:
            alone = False
            try:
                if not self.shared:
                    raise OSError
                fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                fh.seek(0)
                holder, mine = _describe(fh.read())
                fh.close()
                raise StoreLockedError(_locked_message(folder, holder, mine)) from None
        try:
            make_private(folder, existed)  # 0700 / 0600 whatever the umask; a loose existing store is reported
            if alone and recover is not None:
                recover(folder)
            fh.seek(0)
            fh.truncate()
            if self.shared:
                if alone:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_SH)  # downgrade: others may share it now
            else:
                fh.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": int(time.time())}))
            fh.flush()
        except BaseException:
            fh.close()
            raise
        self._fh = fh

    def share(self) -> None:
        """Turn an exclusive hold into a shared one (a restore hands its lock to a store that shares)."""
        import fcntl

        if self._fh is not None and not self.shared:
            self._fh.seek(0)
            self._fh.truncate()
            self._fh.flush()
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_SH)
            self.shared = True

    def release(self, remove_if_created: bool = False) -> None:
        """Let go of the lock (and, after a failed first use, remove the lock file this lock created)."""
        if self._fh is not None:
            import fcntl

            if remove_if_created and self.created:
                self.path.unlink(missing_ok=True)
            if not self.read_only:
                tighten(self.path.parent)  # what the store created while it ran
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def held_by_writer(folder: Path) -> bool:
    """Whether a live process holds the store folder ``folder`` exclusively right now (an embedded store open for
    writing; this very process counts too). Probes ``hermes.lock`` with a shared, non-blocking ``flock`` on a
    descriptor opened for reading: nothing is written, and the probe is let go at once. A reader that finds a live
    holder reads the SQLite files through the holder's own log and index (consistent snapshots, nothing rebuilt);
    with no holder, a log left behind is one a reader would have to recover, so it reads a private copy instead."""
    import fcntl

    try:
        fh = open(Path(folder) / LOCK_NAME, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError:
        return False
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        fh.close()  # closing drops the probe's own shared lock
    return False


#: Where server mode is explained (the error names it so a reader can act on it).
SERVER_MODE_DOCS = "docs/configuration.md#server-mode-many-processes-one-memory"


def _locked_message(folder: Path, holder: str, mine: bool) -> str:
    """One line: who holds ``folder``, and what to do — close the other store of this very process, or share the
    memory through server mode (metadata in PostgreSQL, vectors in a Qdrant server)."""
    if mine:
        return (f"the data directory {folder} is already open in this process ({holder}): another MemoryProvider "
                "on the same folder holds it; close that one first or reuse it (one open store per folder and "
                "process)")
    return (f"the data directory {folder} is in use by {holder}. An embedded store serves one process at a time; to "
            "share memory between processes use server mode: metadata_url='postgresql://...' for the metadata and "
            f"vector_backend='qdrant' with qdrant_url='http://...' for the vectors ({SERVER_MODE_DOCS}), or close "
            "the other process.")


def _describe(raw: str) -> tuple[str, bool]:
    """``(who holds the lock, whether that is this very process)`` from the lock file's record."""
    try:
        info: dict[str, Any] = json.loads(raw)
    except ValueError:
        return "another process", False
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(info.get("since", 0))))
    mine = info.get("pid") == os.getpid() and info.get("host") == socket.gethostname()
    return f"process {info.get('pid')} on {info.get('host')} (since {since})", mine
