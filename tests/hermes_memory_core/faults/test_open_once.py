"""A new store is opened once: its first open records the sealing policy instead of re-sealing an
empty store and rebuilding its empty vector shard."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.storage.edge_store import EdgeVectorStore
from hermes_memory_core.trust.at_rest import POLICY_META
from tests.conftest import ADMIN, make_config


@pytest.fixture
def rewrites(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every vector-shard rewrite of the test (the work a re-seal does on open)."""
    seen: list[Path] = []
    original = EdgeVectorStore.rewrite

    def spy(self: EdgeVectorStore, payload_for):  # type: ignore[no-untyped-def]
        seen.append(self.path)
        original(self, payload_for)

    monkeypatch.setattr(EdgeVectorStore, "rewrite", spy)
    return seen


@pytest.mark.parametrize("mode", ["permanent", "all"])
def test_a_new_store_is_not_resealed(tmp_path: Path, embedder, rewrites: list[Path], mode: str) -> None:  # type: ignore[no-untyped-def]
    config = make_config(tmp_path / "store", encrypt_at_rest=mode)
    with MemoryProvider(config, embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta(POLICY_META) == f"{mode}/{4 if mode == 'all' else 2}"  # the policy is recorded as current
        mid = mem.add("the first memory of a new store", user_id="u", memory_type="permanent")
    assert rewrites == []
    with MemoryProvider(config, embedder=embedder, caller=ADMIN) as mem:  # reopened: still nothing to re-seal
        assert mem.get(mid).content == "the first memory of a new store"
    assert rewrites == []


def test_a_policy_change_still_reseals(tmp_path: Path, embedder, rewrites: list[Path]) -> None:  # type: ignore[no-untyped-def]
    with MemoryProvider(make_config(tmp_path / "store"), embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add("a long-term memory, plain under the default policy", user_id="u", tags=["t"])
    config = make_config(tmp_path / "store", encrypt_at_rest="all")
    with MemoryProvider(config, embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta(POLICY_META) == "all/4"
        assert mem.get(mid).tags == ("t",)
    assert len(rewrites) == 1  # the payload tags were rewritten as keyed hashes
