"""Replacing the files of an embedded store in one recoverable step: the last move of a restore.

A restore builds the new store in a staging folder inside the data directory, then :func:`swap_in` moves the
current files aside and the staged ones into place, and :func:`finish_swap` makes it final once the new store has
opened. A journal (``restore-swap.json``, written and fsynced before the first rename) lists what moves where;
:func:`recover_swap` — run by whoever takes the directory's lock first after a crash, and by a failed restore —
finishes a swap whose journal says it is final and undoes one that is not, so a crash at any point leaves either
the old store or the new one, never a mixture (a SQLite file beside another store's write-ahead log would be one).
Scratch folders a crashed restore or export left behind (``.hermes-scratch-*``) are removed at the same time.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path

__all__ = ["JOURNAL", "STAGING_PREFIX", "finish_swap", "new_scratch", "recover_swap", "swap_in"]

JOURNAL = "restore-swap.json"
#: Folders a restore or an export creates inside the data directory (staged store, replaced files, a copy).
STAGING_PREFIX = ".hermes-scratch-"


def new_scratch(data_dir: Path, kind: str = "stage") -> Path:
    """A fresh, private scratch folder inside ``data_dir`` (removed at the next open if a crash leaves it)."""
    path = Path(data_dir) / f"{STAGING_PREFIX}{kind}-{secrets.token_hex(6)}"
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
    """Move ``names`` from ``staged`` into ``data_dir``, the files they replace aside (absent staged names leave
    the place empty). Not final until :func:`finish_swap`; :func:`recover_swap` (or a crash and the next open)
    undoes it until then. If it raises, the old files are back.
    """
    data_dir = Path(data_dir)
    old = new_scratch(data_dir, "old")
    incoming = [n for n in names if _exists(staged / n)]
    journal = {"staged": staged.name, "old": old.name, "names": list(names), "incoming": incoming, "committed": False}
    _write_journal(data_dir, journal)
    try:
        for name in names:
            if _exists(data_dir / name):
                (data_dir / name).rename(old / name)
        for name in incoming:
            (staged / name).rename(data_dir / name)
        _fsync_dir(data_dir)
    except BaseException:
        recover_swap(data_dir)
        raise


def finish_swap(data_dir: Path) -> None:
    """Make a :func:`swap_in` final: the replaced files, the staging folder and the journal go."""
    data_dir = Path(data_dir)
    body = json.loads((data_dir / JOURNAL).read_text(encoding="utf-8"))
    _write_journal(data_dir, {**body, "committed": True})
    recover_swap(data_dir)


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
