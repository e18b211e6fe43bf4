"""An embedded store's files are private to the account that runs it, whatever the process's umask.

Contract:

* the data directory is created ``0700`` (and set to ``0700`` even under a umask that would leave it wider or
  narrower); the store's own entries in it — ``metadata.sqlite`` and its ``-wal`` / ``-shm``, the ``vectors``
  folder and everything under it, ``hermes.lock``, ``hermes.key``, restore journals and scratch folders — are
  set to ``0600`` (files) and ``0700`` (folders) when the store takes its lock, after the metadata file is
  created, and when the store lets go of its lock (so files created while it ran are tightened too; meanwhile
  the ``0700`` folder already keeps other accounts out);
* entries that are not the store's (a data directory shared with other files) are never touched;
* a store found *loose* when it is opened (its folder open to group or others, so that its files were
  reachable, e.g. written by an older version under umask 022) is tightened and reported once on the
  ``hermes_memory.files`` logger as a warning naming the folder and the loose entries; loose files inside a
  ``0700`` folder (written while a store ran) are tightened silently;
* links are never followed, files owned by another account are left alone, and a failed ``chmod`` (a read-only
  file system) is not an error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

__all__ = ["is_store_entry", "loose_entries", "make_private", "tighten"]

_LOG = logging.getLogger("hermes_memory.files")

#: Names (or name prefixes) of what a store keeps in its data directory.
_STORE_NAMES = ("metadata.sqlite", "vectors", "hermes.lock", "hermes.key", "restore-swap.json", ".hermes-scratch-")


def is_store_entry(name: str) -> bool:
    """Whether a data-directory entry called ``name`` belongs to the store."""
    return name.startswith(_STORE_NAMES)


def _walk(folder: Path) -> list[tuple[Path, os.stat_result]]:
    """The folder itself and the store's entries in it, recursively inside store folders; links skipped."""
    found: list[tuple[Path, os.stat_result]] = []
    try:
        found.append((folder, folder.lstat()))
        top = [folder / n for n in os.listdir(folder) if is_store_entry(n)]
    except OSError:
        return found
    stack = top
    while stack:
        path = stack.pop()
        try:
            st = path.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            continue
        found.append((path, st))
        if stat.S_ISDIR(st.st_mode):
            with contextlib.suppress(OSError):
                stack.extend(path / n for n in os.listdir(path))
    return found


def _wanted(st: os.stat_result) -> int:
    return 0o700 if stat.S_ISDIR(st.st_mode) else 0o600


def loose_entries(folder: Path) -> list[str]:
    """The store's entries (and the folder) that group or others may read, write or enter, as ``name 0644``."""
    folder = Path(folder)
    return [
        f"{'.' if p == folder else p.relative_to(folder)} {stat.S_IMODE(st.st_mode):04o}"
        for p, st in _walk(folder)
        if st.st_mode & 0o077 and st.st_uid == os.getuid()
    ]


def tighten(folder: Path) -> None:
    """Set the folder and the store's entries to ``0700`` / ``0600`` (those this account owns)."""
    for path, st in _walk(Path(folder)):
        if st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) != _wanted(st):
            with contextlib.suppress(OSError):
                os.chmod(path, _wanted(st), follow_symlinks=False)


def make_private(folder: Path, existed: bool) -> None:
    """Make ``folder`` (which exists now) and the store's entries private; warn once when a store that
    ``existed`` before was loose (see the module docstring)."""
    folder = Path(folder)
    try:
        had_store = existed and any(is_store_entry(n) and n != "hermes.lock" for n in os.listdir(folder))
    except OSError:
        had_store = False
    # inside a 0700 folder nothing is reachable by other accounts: only a loose folder exposed the store
    exposed = had_store and bool(folder.lstat().st_mode & 0o077)
    loose = loose_entries(folder) if exposed else []
    tighten(folder)
    if loose:
        _LOG.warning(
            "hermes_memory: the store in %s was readable by other accounts (%s%s); set to 0700 for folders and "
            "0600 for files", folder, ", ".join(loose[:5]), f" and {len(loose) - 5} more" if len(loose) > 5 else "",
        )
