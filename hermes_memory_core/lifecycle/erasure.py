"""Erasure that is complete: a user (``purge_user``) or one memory (``delete(..., hard=True)``) leaves no byte
behind in the store.

Order, and why it survives a killed process:

1. The intent is recorded durably (a ``memory_meta`` row) before anything is erased.
2. The metadata rows go in one transaction: memories with every version and tag, keyword entries and the context
   words they lent their neighbours, access-log rows, and for a user their session buffers, summaries and
   promotion-queue entries.
3. The vector points go (by the user filter, so points no row knows go too), and the hot cache, the cached
   vectors of past versions and buffered access records forget them (steps 2-3 under the engine's write lock).
4. What still holds deleted bytes is rewritten: the vector engine's files (:meth:`VectorStore.compact_deleted`),
   the keyword shard and the SQLite WAL, or PostgreSQL's tables (:meth:`ErasureRows.erase_residue`),
   *without* the write lock,
   since it may wait for a reader (a ``sqlite3`` shell, a backup, or on PostgreSQL a transaction whose snapshot
   is older than the erasure and so still sees the deleted rows).
5. The intent is cleared and that last delete made final (:meth:`ErasureRows.checkpoint`), again without the
   write lock.

Steps 1-5 and their lock choreography are the engine's :class:`~hermes_memory_core.engine.erasure.Eraser`
(``record``, then ``complete``); this room decides what is erased, and when.

A reader in steps 4-5 delays only the erasure, by a bounded wait (:data:`~hermes_memory_core.busy.BUSY_WAIT_S`
per store): if it still holds the files then, the intent stays (or is recorded again) and the report says what is
left (:attr:`ErasureReport.left`).

Every step is idempotent, so :func:`finish_erasures` — run by ``reconcile()``, the next ``purge_user`` and the next
open — simply runs the steps again for each intent it finds.

What an adapter keeps about a user *under another user id* (the LangGraph store's namespace registry) goes too,
whether or not the adapter's object is alive (a CLI purge, a purge after a restart): every memory held under a
reserved user id (:func:`~hermes_memory_core.validation.is_reserved_user_id`) whose ``metadata["owner"]``
(:data:`OWNER_KEY`) is the user is erased like one of the user's own. An adapter may also register a callback with
:func:`add_purge_hook`; ``purge_user`` runs it with the user's id first.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from hermes_memory_core.engine.faces import WithEraser, WithLookups, WithParts, WithReads, WithUpkeep
from hermes_memory_core.portability.leftovers import remove_partial_exports
from hermes_memory_core.storage.metadata import Erasure
from hermes_memory_core.types import ErasureKind, MemoryRecord, MemoryType
from hermes_memory_core.validation import is_reserved_user_id

log = logging.getLogger("hermes_memory.erasure")

__all__ = ["OWNER_KEY", "ErasureReport", "ErasureStore", "add_purge_hook", "erase_memory", "finish_erasures",
           "purge_user"]


class ErasureStore(WithParts, WithEraser, WithLookups, WithReads, WithUpkeep, Protocol):
    """What erasure uses of the engine: the eraser, session rows, lookups of what a user owns elsewhere, record
    reads, counts (and the partial exports' record)."""

_PURGE_HOOKS: weakref.WeakKeyDictionary[ErasureStore, list[Callable[[], Callable[[str], None] | None]]] = (
    weakref.WeakKeyDictionary()
)


#: ``metadata[OWNER_KEY]`` of a memory held under a reserved user id names the user it is about (see the module
#: docstring): ``purge_user`` erases it with the user.
OWNER_KEY = "owner"


def _erase_owned_elsewhere(engine: ErasureStore, user_id: str) -> int:
    """Erase (hard) every memory held under a reserved user id that names ``user_id`` as its owner; how many."""
    holders = [uid for uid in engine.upkeep.counts().get("by_user", {}) if is_reserved_user_id(uid)]
    erased = 0
    for holder in holders:
        while True:
            found = engine.lookups.find_by_metadata(holder, OWNER_KEY, user_id, list(MemoryType))
            rec = None if found is None else engine.reads.record(found, include_inactive=True)
            if rec is None:
                break
            erase_memory(engine, rec)
            erased += 1
    return erased


def _forget_said(engine: ErasureStore, rec: MemoryRecord) -> None:
    """A conversation memory's words leave the session buffer it was kept from (see
    :meth:`~hermes_memory_core.storage.sessions.SessionStore.blank_message`): found by its id, which derives from
    ``(user, session, turn, message, piece)``."""
    from hermes_memory_core.lifecycle.conversation import conversation_id

    turn = rec.metadata.get("turn")
    if not rec.is_conversation or rec.session_id is None or not isinstance(turn, int):
        return
    for said in engine.parts.sessions.turns(rec.user_id, rec.session_id):
        if not said or said[0].turn != turn:
            continue
        for index, message in enumerate(said):
            pieces = range(len(message.content) // 600 + 2)  # a message is kept in pieces of at most 1,200 chars
            if any(conversation_id(rec.user_id, rec.session_id, turn, index, p) == rec.id for p in pieces):
                engine.parts.sessions.blank_message(rec.user_id, rec.session_id, turn, index)
                return


def add_purge_hook(engine: ErasureStore, callback: Callable[[str], None]) -> None:
    """Run ``callback(user_id)`` at the start of every ``purge_user`` on ``engine`` (a bound method is held weakly:
    an adapter that is gone is not called)."""
    ref: Callable[[], Callable[[str], None] | None]
    if hasattr(callback, "__self__"):
        ref = weakref.WeakMethod(callback)
    else:
        def ref(cb: Callable[[str], None] = callback) -> Callable[[str], None]:
            return cb
    _PURGE_HOOKS.setdefault(engine, []).append(ref)


def _run_purge_hooks(engine: ErasureStore, user_id: str) -> None:
    live = []
    for ref in _PURGE_HOOKS.get(engine, []):
        callback = ref()
        if callback is not None:
            live.append(ref)
            callback(user_id)
    if engine in _PURGE_HOOKS:
        _PURGE_HOOKS[engine] = live


@dataclass(frozen=True, slots=True)
class ErasureReport:
    """What an erasure removed.

    Attributes:
        user_id: Whose data.
        memories: Memories erased (active or deleted, each with every version).
        seconds: Wall time of the whole erasure, rewrites included.
        left: What is left to do ("" when the erasure is complete): a reader held the store's files longer than
            the checkpoint waits; ``reconcile()`` or the next open finishes it.
        exports_removed: Partial export folders killed exports had left (they may hold the user's rows), removed.
    """

    user_id: str
    memories: int
    seconds: float
    left: str = ""
    exports_removed: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"user_id": self.user_id, "memories": self.memories, "seconds": round(self.seconds, 3),
                "left": self.left, "exports_removed": list(self.exports_removed)}


def purge_user(engine: ErasureStore, user_id: str, drain: Callable[[], None] | None = None) -> ErasureReport:
    """Erase every trace of one user (the caller checked permission). The intent is recorded first, so a process
    killed at any later point — while ``drain`` waits for background work, in the adapters' purge hooks, midway
    through the rows — leaves an erasure the next open finishes."""
    started = time.perf_counter()
    erasure = Erasure(ErasureKind.USER, user_id)
    eraser = engine.eraser
    eraser.record(erasure)
    if drain is not None:
        drain()  # no queued promotion of this user may land after the purge
    _run_purge_hooks(engine, user_id)
    engine.parts.need_open()
    _erase_owned_elsewhere(engine, user_id)  # with or without the adapter that wrote them alive
    exports = tuple(remove_partial_exports(engine))
    for other in eraser.pending():  # what killed processes left, ours last
        if other != erasure:
            eraser.complete(other)
    removed, left = eraser.complete(erasure)
    return ErasureReport(user_id, removed, time.perf_counter() - started, left, exports)


def erase_memory(engine: ErasureStore, rec: MemoryRecord) -> ErasureReport:
    """Erase one memory completely: its row, every version, tags, keyword entry and the words it lent its
    neighbours' context, its access-log rows, vector point and cache entry (the caller checked permission).
    One ``hard_delete`` access-log row without content records that it happened."""
    started = time.perf_counter()
    erasure = Erasure(ErasureKind.MEMORY, rec.user_id, rec.id)
    # the buffer's words go before the rewrite, so their old bytes go with the row's
    engine.eraser.record(erasure, also=lambda: _forget_said(engine, rec))
    left = engine.eraser.complete(erasure)[1]
    if left:  # delete(hard=True) returns no report: say it where the caller's logs are
        log.warning("hermes_memory: memory %s is gone from every row and index, but the rewrite of the files is "
                    "not yet complete: %s", rec.id, left)
    return ErasureReport(rec.user_id, 1, time.perf_counter() - started, left)


def finish_erasures(engine: ErasureStore) -> int:
    """Finish every erasure a killed process (or a busy reader) left half done, and remove the partial folders of
    killed exports. Returns how many erasures it finished."""
    remove_partial_exports(engine)
    return sum(not engine.eraser.complete(erasure)[1] for erasure in engine.eraser.pending())
