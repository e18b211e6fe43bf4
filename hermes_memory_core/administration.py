"""The facade's administration half: forgetting, erasure, repair, statistics, key rotation and export.

:class:`StoreAdministration` is a part of :class:`~hermes_memory_core.provider.MemoryProvider` (which inherits it);
it uses what the provider wires (``engine``, ``caller``, the background lifecycle) and holds no state of its own.
Every operation has an ``a``-prefixed async twin with the same signature.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hermes_memory_core import validation as v
from hermes_memory_core.async_twins import async_twin
from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.errors import ConsistencyError, InvalidInputError, PermissionDeniedError, StorageFullError
from hermes_memory_core.lifecycle import maintenance
from hermes_memory_core.lifecycle.background import BackgroundLifecycle
from hermes_memory_core.lifecycle.erasure import ErasureReport, add_purge_hook, finish_erasures, purge_user
from hermes_memory_core.lifecycle.forgetting import ForgetReport, forget
from hermes_memory_core.portability import export_bundle
from hermes_memory_core.storage.read_only import read_only_error
from hermes_memory_core.trust.keys import KeyManager
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import ErasureKind, MemoryType, ReconcileReport, StoreStats

if TYPE_CHECKING:
    from hermes_memory_console import ConsoleServer

__all__ = ["StoreAdministration"]


@v.typed_arguments
class StoreAdministration:
    """Operations on the store as a whole (see the module docstring)."""

    engine: MemoryEngine
    _background: BackgroundLifecycle

    _caller_given: bool

    def _who(self, caller: Caller | None) -> Caller:
        raise NotImplementedError  # the provider's

    def caller_for(self, user_id: str, caller: Caller | None = None, *, source: str = "user") -> Caller:
        raise NotImplementedError  # the provider's

    def _need_writable(self, what: str) -> None:
        """Refuse a write on a read-only store at once (:class:`ReadOnlyStoreError`, nothing touched)."""
        self.engine.need_open()
        if self.engine.read_only:
            raise read_only_error(self.engine.location, what, self.engine.parts.read_only_reason)

    def purge_user(self, user_id: str, *, caller: Caller | None = None) -> ErasureReport:
        """Erase everything of one user (every tier and version, sessions, logs, indexes, vectors, caches) so that
        no file of the store keeps a byte of it; needs ``write_permanent``. A killed purge is finished by the next
        ``purge_user``, ``reconcile()`` or open (see :mod:`~hermes_memory_core.lifecycle.erasure`)."""
        self._need_writable("purge a user")
        uid, who = v.check_user_id(user_id), self._who(caller)
        if not who.write_permanent:
            raise PermissionDeniedError(f"caller {who.name!r} may not purge a user (needs write_permanent)")
        try:
            return purge_user(self.engine, uid, drain=self._background.drain)
        except StorageFullError as exc:  # say whether the next open finishes it, or nothing was erased yet
            recorded = any(e.kind is ErasureKind.USER and e.user_id == uid for e in self.engine.eraser.pending())
            then = ("the erasure is recorded: the next open or reconcile() finishes it once space is freed" if recorded
                    else "nothing of the user was erased yet: call purge_user again once space is freed")
            raise StorageFullError(f"purge_user({uid!r}): {exc}; {then}") from exc
        except sqlite3.DatabaseError as exc:  # a damaged file: say so in one typed line
            raise ConsistencyError(f"purge_user({uid!r}) could not finish: the store's metadata file is damaged "
                                   f"({exc}); an erasure already recorded resumes at the next open; otherwise restore "
                                   "the store from a bundle and purge again") from exc

    def on_purge(self, callback: Callable[[str], None]) -> None:
        """Have ``purge_user`` call ``callback(user_id)`` first, for what an adapter keeps about a user under
        another user id (the LangGraph store's namespace registry); a bound method is held weakly."""
        if not callable(callback):
            raise InvalidInputError(f"on_purge takes a callable, got {type(callback).__name__}")
        add_purge_hook(self.engine, callback)

    def forget(self, *, dry_run: bool = False, now: float | None = None) -> ForgetReport:
        """Expire short-term memories of closed sessions and conversation memories unused for
        ``conversation_retention_days``, downgrade or expire stale unimportant long-term ones; never touch permanent
        or important memories. Sessions that ended by ``now`` first have their turns archived as conversation
        memories (and promoted). With ``dry_run`` only report."""
        self.engine.need_open()
        if not dry_run:
            self._need_writable("forget")
        at = v.check_timestamp(now, "now")
        if not dry_run:
            self._background.end_idle_sessions(at)
            self._background.drain()
        return forget(self.engine, dry_run=dry_run, now=at)

    # ------------------------------------------------------------------ maintenance
    def reconcile(self) -> ReconcileReport:
        """Repair both stores: finish erasures a killed process left half done, re-index active rows missing (or
        stale) in the vector engine, drop vector points with no active row, rebuild missing keyword rows, and take
        expired memories out of the vector index. ``erasures_left`` counts erasures a reader still keeps from
        finishing (each is retried by the next ``reconcile()`` or open)."""
        if not self.engine.closed:
            self._need_writable("reconcile")
        finished = finish_erasures(self.engine) if not self.engine.closed else 0
        left = len(self.engine.eraser.pending()) if not self.engine.closed else 0
        return replace(maintenance.reconcile(self.engine), erasures_finished=finished, erasures_left=left)

    def optimize(self) -> None:
        """Merge the keyword index into one segment and build the vector engine's HNSW index.

        Call it after a bulk import (tens of thousands of memories): searches on a large store get 2-4x faster.
        It takes time proportional to the store (about 90 s at 100k memories on 2 cores) and holds the writer
        lock meanwhile, so it never runs by itself; everyday writes need no rebuild (SQLite FTS5 merges its
        segments incrementally, and the vector engine searches new points at once).
        """
        self._need_writable("optimize")
        maintenance.optimize(self.engine)

    def stats(self) -> StoreStats:
        """Counts per tier and user, versions, deletions, vector points and bytes on disk; ``warnings`` adds users
        past ``warn_user_memories`` and sessions whose model's classifications were mostly unusable (this process)."""
        stats = maintenance.store_stats(self.engine)
        stats.warnings.extend(self._background.health.warnings())
        return stats

    def serve_console(self, *, port: int = 0, read_only: bool = False) -> ConsoleServer:
        """Serve the web console (docs/console.md) for this store from this process, on 127.0.0.1, from a daemon
        thread, so a running agent's memory is visible live; returns the running server: give its ``url`` (one-time
        token included) to the operator, ``close()`` it when done. It acts as this provider's caller (open the
        provider with ``Caller.admin(...)`` to see and erase permanent facts); ``read_only`` offers no control that
        writes. Nothing beyond the base install is needed (Python's own HTTP server; the page is package data)."""
        from hermes_memory_console import ConsoleServer  # the console builds on the core, never the other way

        return ConsoleServer(cast(Any, self), port=port, read_only=read_only).start()

    def rotate_key(self, new_key: bytes | None = None, *, save_to: str | os.PathLike[str] | None = None,
                   caller: Caller | None = None) -> bytes:
        """Re-encrypt everything sealed under a new key (one transaction) and return the new key. It is handed over
        durably before the commit, or nothing changes: written beside the key file (the default), or — with the key
        in config or env — to ``save_to``, a new file written, fsynced and read back first."""
        self._need_writable("rotate the key")
        who = self._who(caller)
        if not who.write_permanent:
            raise PermissionDeniedError(f"caller {who.name!r} may not rotate the encryption key")
        key = KeyManager.new_key() if new_key is None else v.check_key_bytes(new_key)
        self.engine.sealing.rotate_key(key, None if save_to is None else Path(v.check_path(save_to, "save_to")))
        return key

    # ------------------------------------------------------------------ portability
    def export(
        self, path: str | os.PathLike[str], *, user_id: str | None = None, caller: Caller | None = None
    ) -> dict[str, Any]:
        """Write a self-contained bundle (SQLite copy, vectors, manifest with checksums) to a new folder.

        With ``user_id`` only that user's memories, versions, sessions and access log go into the bundle.

        Permanent memories go into a bundle only for a caller that may read every one of them. With no caller (on a
        provider given none) an export acts for the user whose data it is: ``user_id``'s own export holds their
        facts; a whole-store export whose facts all belong to one user acts as that user; a whole-store export
        holding several users' facts needs a caller with ``read_permanent`` (export each user with ``user_id``).

        Returns:
            The manifest.

        Raises:
            PermissionDeniedError: The bundle would hold permanent memories the caller may not read (nothing is
                written).
        """
        self.engine.need_open()
        uid = None if user_id is None else v.check_user_id(user_id)
        owners = {row.user_id for row in self.engine.reads.lifecycle_rows([MemoryType.PERMANENT.value])}
        if uid is not None:
            owners &= {uid}
        who = self._exporter(uid, owners, caller)
        denied = sum(1 for owner in owners if not who.may(owner, write=False))
        if denied:
            hint = ("; export one user's memories with user_id=..., or pass a caller with read_permanent"
                    if len(owners) > 1 and caller is None and not self._caller_given else "")
            raise PermissionDeniedError(f"caller {who.name!r} may not export the permanent memories of {denied} "
                                        f"user(s) this bundle would hold{hint}")
        with self.engine.parts.write_lock:
            self.engine.upkeep.flush()
            return export_bundle(self.engine, Path(v.check_path(path, "path")), uid)

    def _exporter(self, user_id: str | None, owners: set[str], caller: Caller | None) -> Caller:
        """Who an export runs as (see :meth:`export`): the caller given, else the provider's, else the user whose
        data it is — ``user_id``, or the one user holding facts in the store."""
        if caller is not None or self._caller_given:
            return self._who(caller)
        if user_id is not None:
            return self.caller_for(user_id)
        return self.caller_for(next(iter(owners))) if len(owners) == 1 else self._who(None)

    # ------------------------------------------------------------------ async twins
    apurge_user = async_twin(purge_user)
    aforget = async_twin(forget)
    areconcile = async_twin(reconcile)
    aoptimize = async_twin(optimize)
    astats = async_twin(stats)
    arotate_key = async_twin(rotate_key)
    aexport = async_twin(export)
    aserve_console = async_twin(serve_console)
