"""Permanent facts do not leak around their encryption; ``encrypt_at_rest="all"`` and ``permanent_vectors=False``
do what they say.

Every byte a store keeps (data directory or server rows, vector payloads, the bundle) is searched for each secret a
permanent fact carries: its content, tags, metadata, version notes, delete reason, and the classifier's reason and
topic key when ``remember`` files it. The lock file records no command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from tests.conftest import ADMIN, BACKENDS, TEST_KEY, make_config
from tests.hermes_memory_core.trust.snapshots import all_bytes, stored_text


def _assert_absent(blob: bytes, secrets: list[str], where: str) -> None:
    for secret in secrets:
        assert secret.encode("utf-8") not in blob, f"{secret!r} found in {where}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_nothing_of_a_permanent_fact_is_stored_in_the_clear(tmp_path: Path, embedder: Any, backend: str) -> None:
    with MemoryProvider(make_config(tmp_path / "d", backend), embedder=embedder, caller=ADMIN) as mem:
        mid = mem.add("The user's passport number is E7731", user_id="u", memory_type="permanent",
                      tags=["travel-papers"], metadata={"scanned_from": "consulate-letter"})
        mem.update(mid, "The user's passport number is E8842", version_note="renewed-at-consulate",
                   tags=["travel-papers", "identity-docs"])
        # the rule classifier files this under the topic "name", with a reason that names it
        first = mem.remember("My name is Zhang Xiaomei", user_id="u")
        second = mem.remember("My name is Zhang Xiaohong", user_id="u")  # same topic: a new version
        assert first.memory_type.value == "permanent" and second.action == "versioned" and second.id == first.id
        gone = mem.add("The user's bank PIN hint is Heliotrope", user_id="u", memory_type="permanent",
                       tags=["pin-hint"])
        mem.delete(gone, reason="user-revoked-consent")
        mem.flush()
        # still usable: content, tags, metadata, notes, tag filters, topic lookup
        rec = mem.get(mid)
        assert rec.tags == ("identity-docs", "travel-papers") and rec.metadata == {"scanned_from": "consulate-letter"}
        assert [v.note for v in mem.history(mid)] == ["", "renewed-at-consulate"]
        assert mem.search("passport", user_id="u", tags=["identity-docs"])[0].id == mid
        assert mem.get(first.id).metadata["fact_key"] == "name"
        assert [v.content for v in mem.history(first.id)][-1].endswith("Zhang Xiaohong")
        secrets = ["E7731", "E8842", "travel-papers", "identity-docs", "consulate", "Xiaomei", "Xiaohong",
                   "Heliotrope", "pin-hint", "revoked-consent", "lasting fact", "(name)", '"fact_key": "name"']
        _assert_absent(stored_text(mem), secrets, "the store")
        mem.export(tmp_path / "bundle")
        _assert_absent(all_bytes(tmp_path / "bundle"), secrets, "the bundle")
        mem.add("The user likes jazz records", user_id="u", tags=["music-taste"])
        assert b"music-taste" in stored_text(mem)  # the scan sees plaintext where there is some


def test_the_lock_file_records_no_command_line(tmp_path: Path, real_embedder: Any) -> None:
    data = tmp_path / "d"
    with MemoryProvider(MemoryConfig(data_dir=data, encryption_key=TEST_KEY), embedder=real_embedder) as mem:
        assert set(json.loads((data / "hermes.lock").read_text())) == {"pid", "host", "since"}
        mem.add("opened once", user_id="u")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HERMES_MEMORY_ENCRYPTION_KEY": TEST_KEY}
    res = subprocess.run([sys.executable, "-m", "hermes_memory_core.cli", "add", "My PIN is 9931 Heliotrope",
                          "--user", "u", "--type", "permanent", "--data-dir", str(data)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    lock = (data / "hermes.lock").read_text()
    assert "Heliotrope" not in lock and "9931" not in lock and "add" not in lock


# ---------------------------------------------------------------------- permanent_vectors=False
def test_embeddings_let_a_guesser_identify_a_permanent_fact(tmp_path: Path, real_embedder: Any) -> None:
    """The warning of docs/reliability-and-security.md, shown: from a bundle alone (no key), the vector of a sealed fact is nearest to the
    right guess among a short list; with ``permanent_vectors=False`` the bundle holds no such vector."""
    fact = "The user is allergic to penicillin"
    guesses = ["The user is allergic to penicillin", "The user is allergic to peanuts", "The user is allergic to cats",
               "The user is diabetic", "The user is vegetarian", "The user has asthma"]
    for keep in (True, False):
        cfg = make_config(tmp_path / f"d{keep}", permanent_vectors=keep)
        with MemoryProvider(cfg, embedder=real_embedder, caller=ADMIN) as mem:
            mem.add(fact, user_id="u", memory_type="permanent")
            mem.export(tmp_path / f"b{keep}")
        vectors = np.load(tmp_path / f"b{keep}" / "vectors.npy")
        if keep:
            scores = real_embedder.embed_documents(guesses) @ vectors[0]
            assert guesses[int(np.argmax(scores))] == fact
        else:
            assert vectors.shape[0] == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_permanent_facts_without_vectors(tmp_path: Path, embedder: Any, backend: str) -> None:
    cfg = make_config(tmp_path / "d", backend)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        before = mem.add("The user is allergic to penicillin", user_id="u", memory_type="permanent")
        mem.add("The user likes jazz", user_id="u")
    cfg = cfg.model_copy(update={"permanent_vectors": False})
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        report = mem.reconcile()  # the existing permanent vector goes (qdrant-client's :memory: lost both)
        assert report.vector_orphans_removed == (1 if backend == "embedded" else 0)
        assert mem.stats().vector_points == 1
        after = mem.add("The user's blood type is AB negative", user_id="u", memory_type="permanent")
        mem.update(after, "The user's blood type is AB negative (confirmed)")
        assert mem.remember("My name is Lin Wei", user_id="u").memory_type.value == "permanent"
        assert mem.remember("My name is Lin Hua", user_id="u").action == "versioned"
        points = {p.id for b in mem.engine.vectors.iter_points(with_vectors=False) for p in b}
        assert before not in points and after not in points and len(points) == 1
        assert mem.reconcile().metadata_orphans_reindexed == 0  # reconcile does not put them back
        assert mem.search("penicillin", user_id="u")[0].id == before  # found by keyed-hash keywords
        assert mem.search("blood type", user_id="u", memory_types=["permanent"])[0].id == after


# ---------------------------------------------------------------------- encrypt_at_rest="all"
@pytest.mark.parametrize("backend", BACKENDS)
def test_encrypt_everything(tmp_path: Path, embedder: Any, backend: str) -> None:
    cfg = make_config(tmp_path / "d", backend, ring_size=3, summarize_turns=1)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        old = mem.add("The user collects Marimbas", user_id="u", tags=["hobby-marimba"], session_id="s",
                      created_at=1_700_000_000)
        mem.add("The reply about Xylophones", user_id="u", session_id="s", created_at=1_700_000_030)
    every = cfg.model_copy(update={"encrypt_at_rest": "all"})
    with MemoryProvider(every, embedder=embedder, caller=ADMIN) as mem:  # an existing store is re-sealed at open
        mem.reconcile()  # (qdrant-client's :memory: mode lost the vectors with the last process)
        mid = mem.add("The user prefers Oolong tea", user_id="u", tags=["drink-oolong"],
                      metadata={"said": "Tieguanyin"})
        session = mem.session("u", "chat")
        for i in range(6):
            session.add_messages([{"role": "user", "content": f"I usually drink Pu-erh number {i}",
                                   "data": {"raw": f"Dahongpao-{i}"}}, ("assistant", "Noted Lapsang")])
        mem.flush()
        view = session.view()
        assert view.summary and "Pu-erh" in " ".join(m.content for m in view.messages)
        assert view.messages[0].data.get("raw", "").startswith("Dahongpao")
        assert mem.get(mid).metadata == {"said": "Tieguanyin"}
        assert mem.search("Oolong", user_id="u", tags=["drink-oolong"])[0].id == mid
        assert mem.search("Marimbas", user_id="u")[0].id == old
        hits = mem.search("Xylophones", user_id="u", now=1_700_000_100)  # context still lent, as keyed hashes
        assert {h.id for h in hits} >= {old}
        _assert_absent(stored_text(mem), ["Marimbas", "Xylophones", "hobby-marimba", "Oolong", "drink-oolong",
                                          "Tieguanyin", "Pu-erh", "Dahongpao", "Lapsang"], "the store")
        mem.export(tmp_path / "bundle")
        _assert_absent(all_bytes(tmp_path / "bundle"), ["Marimbas", "Oolong", "Pu-erh", "Dahongpao"], "the bundle")
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:  # and back: opened again in the clear
        assert mem.get(mid).content == "The user prefers Oolong tea"
        assert mem.session("u", "chat").view().messages
        assert b"Oolong" in stored_text(mem)
    with MemoryProvider.restore(tmp_path / "bundle", make_config(tmp_path / "r", "embedded", encrypt_at_rest="all"),
                                embedder=embedder, caller=ADMIN) as mem:
        assert mem.get(mid).tags == ("drink-oolong",)
        _assert_absent(stored_text(mem), ["Oolong", "drink-oolong", "Pu-erh"], "the restored store")


def test_all_mode_creates_its_key_with_the_store(tmp_path: Path, embedder: Any) -> None:
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "d", encrypt_at_rest="all"), embedder=embedder) as mem:
        mem.session("u", "s").add_messages([("user", "Sencha in the morning")])
        assert (tmp_path / "d" / "hermes.key").exists()
        mem.flush()
    assert b"Sencha" not in all_bytes(tmp_path / "d")


REWRITE = """
import os, sys
from pathlib import Path
import numpy as np
from hermes_memory_core.storage.edge_store import EdgeVectorStore
store = EdgeVectorStore(Path(sys.argv[1]), 8, "c", small_max=0)
store.open()
kill_at, calls, real = int(sys.argv[2]), [0], Path.rename
def rename(self, target):
    calls[0] += 1
    if calls[0] == kill_at:
        os.kill(os.getpid(), 9)
    return real(self, target)
Path.rename = rename
store.rewrite(lambda p: {**p.payload, "tags": ["new"]})
store.close()
"""


@pytest.mark.parametrize("kill_at", [1, 2, 0])
def test_an_interrupted_shard_rewrite_is_finished_or_undone(tmp_path: Path, kill_at: int) -> None:
    """The embedded vector shard is rebuilt to drop old payloads; a kill at either rename leaves one whole shard."""
    from hermes_memory_core.storage.edge_store import EdgeVectorStore
    from hermes_memory_core.storage.vectors import VectorPoint

    path = tmp_path / "shard"
    store = EdgeVectorStore(path, 8, "c", small_max=0)  # a shard from the first point (small stores have none)
    store.open()
    store.upsert([VectorPoint(f"00000000-0000-4000-8000-{i:012d}", np.eye(8, dtype=np.float32)[i], {
        "user_id": "u", "tags": ["old"]}) for i in range(8)])
    store.close()
    res = subprocess.run([sys.executable, "-c", REWRITE, str(path), str(kill_at)], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == (0 if kill_at == 0 else -9), res.stderr[-2000:]
    store = EdgeVectorStore(path, 8, "c", small_max=0)
    store.open()
    try:
        points = [p for b in store.iter_points(with_vectors=True) for p in b]
        assert len(points) == 8 and {tuple(p.payload["tags"]) for p in points} == {("old",) if kill_at == 1 else ("new",)}
    finally:
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard"]
