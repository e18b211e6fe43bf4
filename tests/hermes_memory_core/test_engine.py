"""The engine on its own, below the facade: its write path, reads, erasure and close, with no provider built."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core.embedding import Embedder
from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.errors import ConsistencyError, NotFoundError, StoreClosedError
from hermes_memory_core.storage.metadata import Erasure
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import ErasureKind, MemoryItem, MemoryType
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


def _add(engine: MemoryEngine, content: str, tier: MemoryType = MemoryType.LONG_TERM, user: str = "u1") -> str:
    return engine.add_items([MemoryItem(content=content, user_id=user, memory_type=tier)], ADMIN)[0]


def test_a_write_reaches_both_halves_and_reads_back(engine: MemoryEngine) -> None:
    mid = _add(engine, "The user keeps bees on the roof")
    rec = engine.owned(mid, "u1", ADMIN)
    assert rec.content == "The user keeps bees on the roof"
    assert engine.vector_count() == 1
    rows = engine.rank_rows([mid], "u1")
    assert rows[mid].memory_type is MemoryType.LONG_TERM  # the row's tier is the enum, not its string


def test_a_vector_store_that_refuses_the_write_leaves_no_row(engine: MemoryEngine, monkeypatch: Any) -> None:
    def refuse(points: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(engine.vectors, "upsert", refuse)
    with pytest.raises(ConsistencyError):
        _add(engine, "The user owns a red kayak")
    assert engine.counts()["by_user"].get("u1", 0) == 0


def test_a_new_version_replaces_the_cached_copy_and_the_vector(engine: MemoryEngine) -> None:
    mid = _add(engine, "The user lives in Lyon")
    rec = engine.owned(mid, "u1", ADMIN, write=True)
    assert engine.update(rec, "The user lives in Porto", "moved") == 2
    assert engine.owned(mid, "u1", ADMIN).content == "The user lives in Porto"
    assert [v.version for v in engine.versions(mid)] == [1, 2]


def test_erasing_a_user_empties_every_part(engine: MemoryEngine) -> None:
    mid = _add(engine, "The user collects stamps")
    _add(engine, "Another user's fact", user="u2")
    erasure = Erasure(ErasureKind.USER, "u1")
    with engine.write_lock:
        engine.record_erasure(erasure)
        assert engine.erase(erasure) == 1
    engine.rewrite_erased(erasure)
    engine.clear_erasure(erasure)
    assert engine.pending_erasures() == []
    with pytest.raises(NotFoundError):
        engine.owned(mid, "u1", ADMIN, include_inactive=True)
    assert engine.vector_count() == 1  # u2's point stays


def test_a_closed_engine_refuses_work_and_closes_once(engine: MemoryEngine) -> None:
    engine.close()
    engine.close()
    with pytest.raises(StoreClosedError):
        _add(engine, "too late")
