"""Ctrl-C and exit pass through the library: a write interrupted between its two stores is
compensated, and the KeyboardInterrupt or SystemExit reaches the caller as it is, not as ConsistencyError."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.storage.edge_store import EdgeVectorStore
from hermes_memory_core.storage.vectors import VectorPoint
from tests.conftest import ADMIN


class InterruptedVectorStore(EdgeVectorStore):
    """A real Edge store whose next write is interrupted (as if Ctrl-C arrived inside it)."""

    interrupt: BaseException | None = None

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if self.interrupt is not None:
            raise self.interrupt
        super().upsert(points)


@pytest.fixture
def interrupted(config, embedder):  # type: ignore[no-untyped-def]
    store = InterruptedVectorStore(config.data_dir / "vectors" / config.collection, config.vector_dim)
    with MemoryProvider(config, embedder=embedder, vector_store=store, caller=ADMIN) as mem:
        yield mem, store


@pytest.mark.parametrize("signal", [KeyboardInterrupt(), SystemExit(130)], ids=["ctrl-c", "exit"])
def test_an_interrupted_add_passes_through_and_stores_nothing(interrupted, signal: BaseException) -> None:  # type: ignore[no-untyped-def]
    mem, store = interrupted
    keep = mem.add("kept memory", user_id="u")
    store.interrupt = signal
    with pytest.raises(type(signal)):
        mem.add_many([{"content": f"interrupted memory {i}", "user_id": "u"} for i in range(3)])
    store.interrupt = None
    stats = mem.stats()
    assert stats.total_active == 1 and stats.vector_points == 1  # compensated: the metadata rows went again
    assert [h.id for h in mem.search("memory", user_id="u")] == [keep]


def test_an_interrupted_update_passes_through_and_is_rolled_back(interrupted) -> None:  # type: ignore[no-untyped-def]
    mem, store = interrupted
    mid = mem.add("version one", user_id="u")
    store.interrupt = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        mem.update(mid, "version two")
    store.interrupt = None
    assert mem.get(mid).content == "version one" and len(mem.history(mid)) == 1
