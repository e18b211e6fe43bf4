"""Partial export folders a killed export left behind, found and removed.

An export writes its bundle into a hidden sibling of the target (``.<name>.partial-XXXX``) and renames it into place
once complete. Before it writes a byte there, the folder is recorded in the store's meta (:data:`PARTIALS_META`:
its path, process id and host); the record goes once the folder was renamed or removed. A process killed in
between leaves the folder — possibly holding the rows it was exporting — and its record: the next export, open or
``purge_user`` removes every recorded folder whose process is gone (:func:`remove_partial_exports`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path
from typing import Protocol

from hermes_memory_core.engine.faces import WithParts, WithUpkeep

__all__ = ["PARTIALS_META", "PARTIAL_MARK", "forget_partial", "note_partial", "remove_partial_exports"]


class LeftoverStore(WithParts, WithUpkeep, Protocol):
    """What the record of partial exports uses of the engine: its state and key/value meta."""


#: Meta key of the partial export folders in progress (a JSON list of ``{"path", "pid", "host"}``).
PARTIALS_META = "export_partials"
#: What the name of every partial export folder holds.
PARTIAL_MARK = ".partial-"


def _recorded(engine: LeftoverStore) -> list[dict[str, object]]:
    try:
        found = json.loads(engine.upkeep.get_meta(PARTIALS_META) or "[]")
    except ValueError:
        return []
    if not isinstance(found, list):
        return []
    return [e for e in found if isinstance(e, dict) and isinstance(e.get("path"), str)]


def _save(engine: LeftoverStore, entries: list[dict[str, object]]) -> None:
    if engine.parts.read_only:  # nothing can be recorded in a read-only store
        return
    engine.upkeep.set_meta(PARTIALS_META, json.dumps(entries, ensure_ascii=False))


def note_partial(engine: LeftoverStore, folder: Path) -> None:
    """Record a partial export folder (this process writes it) before anything is written into it."""
    _LIVE.add(str(folder))
    with engine.parts.write_lock:
        entry: dict[str, object] = {"path": str(folder), "pid": os.getpid(), "host": socket.gethostname()}
        _save(engine, [*_recorded(engine), entry])


def forget_partial(engine: LeftoverStore, folder: Path) -> None:
    """Drop the record of a partial export folder that was renamed into place or removed."""
    _LIVE.discard(str(folder))
    with engine.parts.write_lock:
        entries = _recorded(engine)
        kept = [e for e in entries if e["path"] != str(folder)]
        if kept != entries:
            _save(engine, kept)


#: Partial folders this process is writing now.
_LIVE: set[str] = set()


def _alive(entry: dict[str, object]) -> bool:
    """Whether the export that recorded the folder may still be writing it (its process runs, or another host's)."""
    pid = entry.get("pid")
    if entry.get("host") != socket.gethostname():
        return True
    if pid == os.getpid():
        return str(entry["path"]) in _LIVE
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it runs, under another user
        return True
    return True


def remove_partial_exports(engine: LeftoverStore) -> list[str]:
    """Remove every recorded partial export folder whose export is gone (killed); returns the folders removed.

    Only folders whose name carries :data:`PARTIAL_MARK` are removed, never a symbolic link; a record whose folder
    is already gone is dropped."""
    removed: list[str] = []
    if engine.parts.read_only:
        return removed
    with engine.parts.write_lock:
        entries = _recorded(engine)
        kept: list[dict[str, object]] = []
        for entry in entries:
            folder = Path(str(entry["path"]))
            if _alive(entry):
                kept.append(entry)
            elif PARTIAL_MARK in folder.name and folder.is_dir() and not folder.is_symlink():
                shutil.rmtree(folder, ignore_errors=True)
                if folder.exists():
                    kept.append(entry)  # could not be removed (yet): tried again next time
                else:
                    removed.append(str(folder))
        if kept != entries:
            _save(engine, kept)
    return removed
