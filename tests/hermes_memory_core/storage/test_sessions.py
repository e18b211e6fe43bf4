"""Session ids sealed under ``encrypt_at_rest="all"``: no session id (a LangGraph thread id, say) in the clear in the
session tables, the memory rows, the vector payloads, the files (main file, WAL, vector shards) or a PostgreSQL
table; every lookup by session still works, after a reopen, after a policy change and after a restore into the
other backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.hermes_memory_core.trust.snapshots import all_bytes, server_rows, stored_text

THREAD = "thread-Zanzibar-4711"
OTHER = "thread-Quetzal-0815"
SECRETS = [THREAD, OTHER, "Zanzibar", "Quetzal"]


def _absent(blob: bytes, where: str) -> None:
    for secret in SECRETS:
        assert secret.encode() not in blob, f"{secret!r} found in {where}"


def _talk(mem: MemoryProvider) -> tuple[str, str]:
    """Two sessions with buffered turns, a summary, queued promotions and memories kept with their session."""
    chat = mem.session("u", THREAD)
    for i in range(6):
        chat.add_messages([("user", f"I usually drink green tea number {i}"), ("assistant", "Noted")])
    mem.session("u", OTHER).add_messages([("user", "Let us plan the garden"), ("assistant", "Sure")])
    kept = mem.add("Scratch note for this thread: the bracket order", user_id="u", session_id=THREAD,
                   memory_type="short_term", tags=["scratch"])
    other = mem.add("A note of the other thread about the garden", user_id="u", session_id=OTHER,
                    memory_type="short_term")
    mem.flush()
    return kept, other


def _works(mem: MemoryProvider, kept: str, other: str) -> None:
    assert mem.get(kept).session_id == THREAD and mem.get(other).session_id == OTHER
    view = mem.session("u", THREAD).view()
    assert view.summary and any("green tea" in m.content for m in view.messages)
    assert mem.session("u", OTHER).view().messages[0].content == "Let us plan the garden"
    found = mem.search("note thread bracket garden", user_id="u", session_id=THREAD, memory_types=["short_term"],
                       top_k=50)  # the note, and the turns kept as conversation memories
    assert kept in [h.id for h in found] and other not in [h.id for h in found]
    assert {h.session_id for h in found} == {THREAD}
    listed = mem.list_memories(user_id="u", session_id=OTHER, memory_types=["short_term"])
    assert other in [r.id for r in listed] and {r.session_id for r in listed} == {OTHER}


@pytest.mark.parametrize("backend", BACKENDS)
def test_session_ids_are_sealed_and_still_found(tmp_path: Path, embedder: Any, backend: str) -> None:
    cfg = make_config(tmp_path / "d", backend, encrypt_at_rest="all", ring_size=3, summarize_turns=1)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        kept, other = _talk(mem)
        _works(mem, kept, other)
        _absent(stored_text(mem), "the store")
    if backend == "embedded":  # the closed store's files: main file, WAL, vector shards
        _absent(all_bytes(Path(cfg.data_dir)), "the files")
    else:
        _absent(repr(server_rows(cfg)).encode(), "the PostgreSQL tables")
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        mem.reconcile()  # (qdrant-client's :memory: mode lost the vectors with the last process)
        _works(mem, kept, other)
        mem.session("u", OTHER).close()
        report = mem.forget(now=mem.engine.now() + 1)  # a closed session's short-term memories expire
        assert report is not None
        assert other not in [r.id for r in mem.list_memories(user_id="u", session_id=OTHER)]
        assert mem.get(kept).session_id == THREAD
        _absent(stored_text(mem), "the store after forgetting")


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_existing_store_is_sealed_at_open_and_unsealed_when_the_policy_goes_back(
        tmp_path: Path, embedder: Any, backend: str) -> None:
    plain = make_config(tmp_path / "d", backend, ring_size=3, summarize_turns=1)
    with MemoryProvider(plain, embedder=embedder, caller=ADMIN) as mem:
        kept, other = _talk(mem)
        assert THREAD.encode() in stored_text(mem)  # the scan sees the ids where they are plain
    every = plain.model_copy(update={"encrypt_at_rest": "all"})
    with MemoryProvider(every, embedder=embedder, caller=ADMIN) as mem:
        mem.reconcile()
        _works(mem, kept, other)
        _absent(stored_text(mem), "the re-sealed store")
        mem.session("u", THREAD).add_messages([("user", "and one more turn"), ("assistant", "ok")])
        mem.flush()
        _absent(stored_text(mem), "the re-sealed store after a new turn")
    with MemoryProvider(plain, embedder=embedder, caller=ADMIN) as mem:
        mem.reconcile()
        _works(mem, kept, other)
        assert any("one more turn" in m.content for m in mem.session("u", THREAD).view().messages)


@pytest.mark.parametrize("target", BACKENDS)
def test_export_and_restore_keep_sealed_sessions(tmp_path: Path, embedder: Any, target: str) -> None:
    cfg = make_config(tmp_path / "d", "embedded", encrypt_at_rest="all", ring_size=3, summarize_turns=1)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        kept, other = _talk(mem)
        mem.export(tmp_path / "bundle")
    _absent(all_bytes(tmp_path / "bundle"), "the bundle")
    restored = make_config(tmp_path / "r", target, encrypt_at_rest="all", ring_size=3, summarize_turns=1)
    with MemoryProvider.restore(tmp_path / "bundle", restored, embedder=embedder, caller=ADMIN) as mem:
        _works(mem, kept, other)
        _absent(stored_text(mem), "the restored store")


def test_a_rotated_key_reseals_the_session_ids(tmp_path: Path, embedder: Any) -> None:
    from hermes_memory_core.trust.encryption import generate_key

    cfg = make_config(tmp_path / "d", encrypt_at_rest="all", ring_size=3, summarize_turns=1,
                      encryption_key=None)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        kept, other = _talk(mem)
        before = stored_text(mem)
        mem.rotate_key(generate_key())
        _works(mem, kept, other)
        _absent(stored_text(mem), "the store after a key rotation")
        assert stored_text(mem) != before


def test_a_store_sealed_before_session_ids_were_is_upgraded_at_open(tmp_path: Path, embedder: Any) -> None:
    """A store written under the previous ``all`` policy (``all/2``: session ids in the clear) gets its ids sealed
    at the next open, under its key."""
    import sqlite3

    cfg = make_config(tmp_path / "d", ring_size=3, summarize_turns=1)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        kept, other = _talk(mem)
    conn = sqlite3.connect(Path(cfg.data_dir) / "metadata.sqlite")
    with conn:
        assert conn.execute("UPDATE memory_meta SET value = 'all/2' WHERE key = 'at_rest'").rowcount == 1
    conn.close()
    assert THREAD.encode() in all_bytes(Path(cfg.data_dir))
    every = cfg.model_copy(update={"encrypt_at_rest": "all"})
    with MemoryProvider(every, embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta("at_rest") == "all/4"
        _works(mem, kept, other)
    _absent(all_bytes(Path(cfg.data_dir)), "the upgraded files")
