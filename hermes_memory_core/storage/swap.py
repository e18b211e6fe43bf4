"""Replacing the files of an embedded store in one recoverable step: the last move of a restore.

A restore builds the new store in a staging folder inside the data directory, then :func:`swap_in` moves the
current files aside and the staged ones into place. A journal (``restore-swap.json``, written and fsynced before
the first rename) lists what moves where; :func:`recover_swap`, run by every store that opens the directory,
finishes a swap whose journal says it completed and undoes one that did not, so a crash at any point leaves either
the old store or the new one, never a mixture (a SQLite file beside another store's write-ahead log would be one).
Staging folders a crashed restore left behind are removed at the same time.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path

__all__ = ["JOURNAL", "STAGING_PREFIX", "new_staging", "recover_swap", "swap_in"]

JOURNAL = "restore-swap.json"
#: Folders a restore creates inside the data directory (staged store, replaced files).
STAGING_PREFIX = ".restore-"


def new_staging(data_dir: Path) -> Path:
    """A fresh, private staging folder inside ``data_dir``."""
    path = Path(data_dir) / f"{STAGING_PREFIX}stage-{secrets.token_hex(6)}"
    path.mkdir(mode=0o700)
    return path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_journal(data_dir: Path, body: dict[str, object]) -> None:
    tmp = data_dir / (JOURNAL + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(body, fh)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(data_dir / JOURNAL)
    _fsync_dir(data_dir)


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def swap_in(data_dir: Path, staged: Path, names: Sequence[str]) -> None:
    """Replace ``names`` in ``data_dir`` by those in ``staged`` (absent ones are removed), recoverably.

    When it returns, the staged store is in place and the replaced files are gone; if it raises, the old files are
    back (the journal makes the same true after a crash).
    """
    data_dir = Path(data_dir)
    old = data_dir / f"{STAGING_PREFIX}old-{secrets.token_hex(6)}"
    old.mkdir(mode=0o700)
    incoming = [n for n in names if _exists(staged / n)]
    _write_journal(data_dir, {"staged": staged.name, "old": old.name, "names": list(names), "incoming": incoming,
                              "committed": False})
    try:
        for name in names:
            if _exists(data_dir / name):
                (data_dir / name).rename(old / name)
        for name in incoming:
            (staged / name).rename(data_dir / name)
        _fsync_dir(data_dir)
        _write_journal(data_dir, {"staged": staged.name, "old": old.name, "names": list(names),
                                  "incoming": incoming, "committed": True})
    except BaseException:
        recover_swap(data_dir)
        raise
    recover_swap(data_dir)  # committed: removes the replaced files, the staging folder and the journal


def recover_swap(data_dir: Path) -> str | None:
    """Finish or undo a swap a crash interrupted; remove stray staging folders. Call it holding the data
    directory's lock. Returns ``"finished"``, ``"undone"`` or None (nothing to do)."""
    data_dir = Path(data_dir)
    journal = data_dir / JOURNAL
    outcome: str | None = None
    if journal.exists():
        try:
            body = json.loads(journal.read_text(encoding="utf-8"))
        except ValueError:
            body = None  # torn before its first rename: nothing moved yet
        if isinstance(body, dict):
            staged, old = data_dir / str(body["staged"]), data_dir / str(body["old"])
            if body.get("committed"):
                outcome = "finished"
            else:
                outcome = "undone"
                for name in body.get("incoming", []):
                    if not _exists(staged / name) and _exists(data_dir / name):
                        (data_dir / name).rename(staged / name)  # a new file already moved in goes back
                for name in body.get("names", []):
                    if _exists(old / name):
                        (old / name).rename(data_dir / name)
            _fsync_dir(data_dir)
        journal.unlink()
        _fsync_dir(data_dir)
    if data_dir.is_dir():
        for path in data_dir.iterdir():
            if path.name.startswith(STAGING_PREFIX) and path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        (data_dir / (JOURNAL + ".tmp")).unlink()
    return outcome
