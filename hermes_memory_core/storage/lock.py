"""An exclusive, process-level lock on an embedded data directory.

The embedded vector engine serves one process. A second process that opens the same directory gets a
:class:`StoreLockedError` naming the holder (pid, host, command) and pointing to server mode, instead of the
engine's "Can't init WAL". The lock is an ``flock`` on ``hermes.lock``: the OS drops it when the holder
dies, even on SIGKILL, so a crash never leaves a stale lock.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import IO, Any

from hermes_memory_core.errors import StoreLockedError

__all__ = ["DataDirLock"]

LOCK_NAME = "hermes.lock"


class DataDirLock:
    """Hold ``<data_dir>/hermes.lock`` exclusively for the life of a provider."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / LOCK_NAME
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held open for the life of the lock
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            holder = _describe(fh.read())
            fh.close()
            raise StoreLockedError(
                f"the data directory {self.path.parent} is in use by {holder}. An embedded store serves one "
                "process at a time; to share memory between processes run in server mode "
                "(vector_backend='qdrant' with qdrant_url=...), or close the other process."
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(
            json.dumps(
                {"pid": os.getpid(), "host": socket.gethostname(), "since": int(time.time()), "argv": sys.argv[:4]}
            )
        )
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            import fcntl

            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def _describe(raw: str) -> str:
    try:
        info: dict[str, Any] = json.loads(raw)
    except ValueError:
        return "another process"
    cmd = " ".join(str(a) for a in info.get("argv", []))
    return f"process {info.get('pid')} on {info.get('host')} ({cmd})".strip()
