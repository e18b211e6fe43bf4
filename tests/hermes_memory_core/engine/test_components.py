"""The engine's components on their own, below the facade: each is handed the shared parts of a real open store
and tested through its own small face (no provider is built)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core.embedding import Embedder
from hermes_memory_core.engine import Eraser, Lookups, MemoryEngine, Reads, Upkeep, Writes
from hermes_memory_core.engine.access import AccessBuffer, Languages
from hermes_memory_core.errors import ConsistencyError, NotFoundError, PermissionDeniedError, StoreClosedError
from hermes_memory_core.storage.metadata import Erasure
from hermes_memory_core.storage.vectors import VectorFilter
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import AccessAction, ErasureKind, MemoryItem, MemoryType
from tests.conftest import make_config
from tests.fakes import Clock

ADMIN = Caller.admin("tests")


@pytest.fixture
def engine(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryEngine]:
    eng = MemoryEngine(make_config(tmp_path / "store"), embedder=embedder, clock=Clock())
    try:
        yield eng
    finally:
        eng.close()


def _add(writes: Writes, content: str, tier: MemoryType = MemoryType.LONG_TERM, user: str = "u1") -> str:
    return writes.add_items([MemoryItem(content=content, user_id=user, memory_type=tier)], ADMIN)[0]


def test_writes_reach_both_halves_and_reads_find_them(engine: MemoryEngine) -> None:
    writes, reads, lookups = engine.writes, engine.reads, engine.lookups
    mid = _add(writes, "The user keeps bees on the roof")
    assert reads.owned(mid, "u1", ADMIN).content == "The user keeps bees on the roof"
    assert engine.upkeep.vector_count() == 1
    assert lookups.rank_rows([mid], "u1")[mid].memory_type is MemoryType.LONG_TERM  # the tier as its enum
    vector = engine.parts.embed_documents(["bees on the roof"])[0]
    assert [m for m, _ in lookups.vector_reads.dense_candidates(vector, 5, VectorFilter(user_id="u1"))] == [mid]


def test_a_vector_store_that_refuses_the_write_leaves_no_row(engine: MemoryEngine, monkeypatch: Any) -> None:
    def refuse(points: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(engine.parts.vectors, "upsert", refuse)
    with pytest.raises(ConsistencyError):
        _add(engine.writes, "The user owns a red kayak")
    assert engine.upkeep.counts()["by_user"].get("u1", 0) == 0


def test_a_new_version_replaces_the_cached_copy(engine: MemoryEngine) -> None:
    mid = _add(engine.writes, "The user lives in Lyon")
    rec = engine.reads.owned(mid, "u1", ADMIN, write=True)
    engine.parts.hot.record_use("u1", [rec])
    assert engine.writes.update(rec, "The user lives in Porto", "moved") == 2
    assert engine.reads.owned(mid, "u1", ADMIN).content == "The user lives in Porto"
    assert [v.version for v in engine.reads.versions(mid)] == [1, 2]


def test_reads_check_and_log_the_permanent_tier(engine: MemoryEngine) -> None:
    mid = _add(engine.writes, "The user's blood type is A", MemoryType.PERMANENT)
    with pytest.raises(PermissionDeniedError):
        engine.reads.owned(mid, "u1", Caller.for_user("u2"))
    actions = [row[0] for row in engine.parts.metadata.access.access_log(mid)]
    assert AccessAction.PERMANENT_DENIED.value in actions
    with pytest.raises(NotFoundError):
        engine.reads.owned(mid, "u2", ADMIN)  # not that user's


def test_the_eraser_records_then_completes_and_leaves_others(engine: MemoryEngine) -> None:
    eraser: Eraser = engine.eraser
    mid = _add(engine.writes, "The user collects stamps")
    _add(engine.writes, "Another user's fact", user="u2")
    erasure = Erasure(ErasureKind.USER, "u1")
    eraser.record(erasure)
    assert eraser.pending() == [erasure]
    assert eraser.complete(erasure) == (1, "")
    assert eraser.pending() == []
    with pytest.raises(NotFoundError):
        engine.reads.owned(mid, "u1", ADMIN, include_inactive=True)
    assert engine.upkeep.vector_count() == 1  # u2's point stays


def test_the_eraser_holds_the_write_lock_while_rows_go_and_not_while_files_are_rewritten(
    engine: MemoryEngine, monkeypatch: Any
) -> None:
    lock = engine.parts.write_lock
    held: dict[str, bool] = {}

    def owned_by_other_thread() -> bool:  # an RLock is free for another thread iff no one holds it
        out: list[bool] = []
        t = threading.Thread(target=lambda: out.append(not lock.acquire(blocking=False) or bool(lock.release())))
        t.start()
        t.join()
        return out[0]

    real_purge, real_residue = engine.parts.metadata.records.purge, engine.parts.metadata.erasure.erase_residue
    monkeypatch.setattr(engine.parts.metadata.records, "purge",
                        lambda ids: (held.__setitem__("rows", owned_by_other_thread()), real_purge(ids))[1])
    monkeypatch.setattr(engine.parts.metadata.erasure, "erase_residue",
                        lambda users: (held.__setitem__("files", owned_by_other_thread()), real_residue(users))[1])
    mid = _add(engine.writes, "The user sails a dinghy")
    erasure = Erasure(ErasureKind.MEMORY, "u1", mid)
    engine.eraser.record(erasure)
    engine.eraser.complete(erasure)
    assert held == {"rows": True, "files": False}


def test_the_access_buffer_writes_in_batches_and_forgets_erased_users(engine: MemoryEngine) -> None:
    buffer = AccessBuffer(engine.parts)
    mid = _add(engine.writes, "The user plays the oboe")
    rec = engine.reads.record(mid)
    assert rec is not None
    buffer.note([rec], "u1", ADMIN)
    buffer.discard("u1")
    buffer.flush()
    assert [r[0] for r in engine.parts.metadata.access.access_log(mid)].count(AccessAction.SEARCH.value) == 0
    buffer.note([rec], "u1", ADMIN)
    buffer.flush()
    assert [r[0] for r in engine.parts.metadata.access.access_log(mid)].count(AccessAction.SEARCH.value) == 1


def test_languages_follow_the_writes(engine: MemoryEngine) -> None:
    languages: Languages = engine.languages
    _add(engine.writes, "The user likes jazz")
    assert languages.has("u1", "en") and not languages.has("u1", "zh")
    _add(engine.writes, "用户喜欢爵士乐")
    assert languages.has("u1", "zh")  # learnt from the write, not asked again


def test_upkeep_repairs_a_lost_vector(engine: MemoryEngine) -> None:
    upkeep: Upkeep = engine.upkeep
    mid = _add(engine.writes, "The user bakes sourdough")
    engine.parts.vectors.delete([mid])
    assert upkeep.reconcile().metadata_orphans_reindexed == 1
    assert upkeep.vector_count() == 1


def test_no_component_reads_a_closed_store(engine: MemoryEngine) -> None:
    lookups: Lookups = engine.lookups
    reads: Reads = engine.reads
    engine.close()
    engine.close()  # idempotent
    with pytest.raises(StoreClosedError):
        _add(engine.writes, "too late")
    with pytest.raises(StoreClosedError):
        lookups.need_open()
    assert reads is engine.reads
