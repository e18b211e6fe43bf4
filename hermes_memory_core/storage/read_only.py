"""Read-only stores: how to tell one, and the pieces that keep every byte of it as it was.

Contract:

* :func:`folder_writable` says whether a store's folder can be written (a read-only filesystem, or a folder this
  account may not write, cannot); the engine opens such a store read-only by itself.
* :class:`ReadOnlyMetadata` wraps any metadata store, and each role object it holds (``records``, ``history``,
  ...): reads pass through; every write method raises :class:`~hermes_memory_core.errors.ReadOnlyStoreError`
  before a statement is issued, except the audit records a read would leave (access counts, permanent-tier read
  log), which are dropped: a read-only store cannot record them.
* :func:`sparse_copy` copies a folder keeping holes as holes (``SEEK_DATA``/``SEEK_HOLE``): the vector engine's
  preallocated files cost their data, not their apparent size, in the private copy a read-only shard is searched
  from (see :mod:`~hermes_memory_core.storage.edge_store`).
* :class:`PrivateCopy` is the private temporary folder a store reads such a copy from, removed when it closes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hermes_memory_core.errors import ReadOnlyStoreError
from hermes_memory_core.storage.metadata import ROLE_ATTRIBUTES

__all__ = ["WRITE_METHODS", "PrivateCopy", "ReadOnlyMetadata", "folder_writable", "read_only_error", "sparse_copy"]

#: Metadata-store methods that write, the store's own and its roles' (any of them raises on a read-only store).
WRITE_METHODS = frozenset({
    "atomic", "set_meta", "insert", "add_version", "revert_version", "soft_delete", "purge", "set_tier", "recode",
    "repair_keyword_index", "set_xlang_terms", "set_languages", "record_erasure", "clear_erasure",
    "erase_user_rows", "erase_residue", "checkpoint", "optimize_keyword_index", "merge_keyword_segments",
})
#: Writes a read leaves behind (audit and access counts): dropped on a read-only store.
_READ_TRACES = frozenset({"log", "record_access", "note_repeat"})


def read_only_error(where: object, what: str, why: str = "") -> ReadOnlyStoreError:
    """The one-line error of a write refused by a read-only store."""
    because = f" ({why})" if why else ""
    return ReadOnlyStoreError(f"cannot {what}: the store at {where} is open read-only{because}; nothing was changed. "
                              "Open it without read_only (on writable media) to change it")


def folder_writable(folder: Path) -> bool:
    """Whether ``folder`` (or, when it does not exist yet, its nearest existing parent) can be written: not on a
    read-only filesystem and writable by this account."""
    for path in (folder, *folder.parents):
        if path.exists():
            try:
                if os.statvfs(path).f_flag & os.ST_RDONLY:
                    return False
            except OSError:
                return False
            return os.access(path, os.W_OK | os.X_OK)
    return False


class _ReadOnlyPart:
    """A store or one of its role objects, refusing writes: reads pass through, read traces are dropped."""

    def __init__(self, inner: Any, location: str, why: str) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_location", location)
        object.__setattr__(self, "_why", why)

    def __getattr__(self, name: str) -> Any:
        if name in WRITE_METHODS:
            raise read_only_error(self._location, "write" if name == "atomic" else name.replace("_", " "), self._why)
        if name in _READ_TRACES:
            return _ignore
        return getattr(self._inner, name)


class ReadOnlyMetadata(_ReadOnlyPart):
    """A metadata store that refuses writes (see the module docstring); everything else is the wrapped store's.
    Its role objects (:data:`~hermes_memory_core.storage.metadata.ROLE_ATTRIBUTES`) are wrapped the same way.

    Args:
        inner: The metadata store (already built, opened by :meth:`open`).
        why: Why the store is read-only, for the error message.
    """

    def __init__(self, inner: Any, why: str) -> None:
        super().__init__(inner, inner.location, why)
        for role in ROLE_ATTRIBUTES.values():
            object.__setattr__(self, role, _ReadOnlyPart(getattr(inner, role), inner.location, why))

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)


def _ignore(*_args: Any, **_kwargs: Any) -> None:
    return None


def sparse_copy(source: Path, target: Path) -> int:
    """Copy the folder ``source`` to ``target`` (which must not exist), keeping files' holes; returns the bytes of
    data copied. Links are copied as links."""
    copied = 0
    target.mkdir(mode=0o700)
    for entry in os.scandir(source):
        dest = target / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), dest)
        elif entry.is_dir():
            copied += sparse_copy(Path(entry.path), dest)
        else:
            copied += _copy_file(Path(entry.path), dest)
    return copied


def _copy_file(source: Path, dest: Path) -> int:
    size = source.stat().st_size
    copied = 0
    with open(source, "rb") as src, open(dest, "wb") as dst:
        fd = src.fileno()
        offset = 0
        while offset < size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # only a hole is left
                    break
                shutil.copyfileobj(src, dst)  # the filesystem cannot tell holes: a plain copy
                return size
            end = os.lseek(fd, start, os.SEEK_HOLE)
            src.seek(start)
            dst.seek(start)
            left = end - start
            while left:
                chunk = src.read(min(left, 1 << 20))
                if not chunk:
                    break
                dst.write(chunk)
                left -= len(chunk)
                copied += len(chunk)
            offset = end
        dst.truncate(size)
    with contextlib.suppress(OSError):
        shutil.copystat(source, dest)
    return copied


class PrivateCopy:
    """The private folder a read-only store reads its files from when it cannot read them where they are (a log a
    reader would rewrite, a vector engine that writes to what it loads): made when opened, removed when closed."""

    def __init__(self) -> None:
        #: The folder, while there is one.
        self.folder: Path | None = None

    def make(self) -> Path:
        """A new folder only this account can read (under the system's temporary folder)."""
        self.folder = Path(tempfile.mkdtemp(prefix="hermes-read-only-"))
        return self.folder

    def discard(self) -> None:
        """Remove the folder and everything in it (nothing when there is none)."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
