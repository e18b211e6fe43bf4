"""Trust round 4, class 6: under ``encrypt_at_rest="all"`` two users sharing a thread id hold unrelated sealed
session ids (nothing links them without the key), and a store sealed under the earlier scheme (one sealed id for
every user: ``all/3``) still finds its open sessions, read-only as it is and after its re-seal. Strings written for
this sweep."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryConfig, MemoryProvider
from hermes_memory_core.trust import at_rest
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.hermes_memory_core.trust.snapshots import stored_text

THREAD = "standup-Kestrel-2291"
USERS = ("mara.lindqvist", "tomasz.wrobel")
SAID = {USERS[0]: "Our deploy window moved to Thursday at dawn", USERS[1]: "I still owe the Pelican report to finance"}


def _stored_ids(mem: MemoryProvider) -> dict[str, dict[str, set[str]]]:
    """Per table, the session ids each user's rows hold (as stored), plus the vector payloads'."""
    out: dict[str, dict[str, set[str]]] = {}
    reader = mem.engine.metadata.reader()
    for table in ("sessions", "session_messages", "memory_entries"):
        seen: dict[str, set[str]] = {}
        for user, stored in reader.execute(f"SELECT user_id, session_id FROM {table} WHERE session_id IS NOT NULL"):
            seen.setdefault(user, set()).add(stored)
        out[table] = seen
    payloads: dict[str, set[str]] = {}
    for batch in mem.engine.vectors.iter_points(with_vectors=False):
        for point in batch:
            if point.payload.get("session_id") is not None:
                payloads.setdefault(point.payload["user_id"], set()).add(point.payload["session_id"])
    out["payloads"] = payloads
    return out


def _talk(mem: MemoryProvider) -> dict[str, str]:
    """Each user says a line in the shared thread id (left open) and keeps a note with it."""
    notes = {}
    for user in USERS:
        mem.session(user, THREAD).add_messages([("user", SAID[user]), ("assistant", "Noted.")])
        notes[user] = mem.add(f"Thread note of {user}: agenda item seven", user_id=user, session_id=THREAD,
                              memory_type="short_term")
    mem.flush()
    return notes


def _finds(mem: MemoryProvider, notes: dict[str, str]) -> None:
    for user in USERS:
        view = mem.session(user, THREAD).view()
        assert [m.content for m in view.messages][:1] == [SAID[user]]
        listed = mem.list_memories(user_id=user, session_id=THREAD, memory_types=["short_term"])
        assert notes[user] in [r.id for r in listed] and {r.session_id for r in listed} == {THREAD}
        found = mem.search("agenda item seven", user_id=user, session_id=THREAD, top_k=10)
        assert notes[user] in [h.id for h in found]


def _unlinkable(mem: MemoryProvider) -> None:
    for where, seen in _stored_ids(mem).items():
        assert set(seen) == set(USERS), where
        first, second = (seen[u] for u in USERS)
        assert len(first) == len(second) == 1, where
        assert first.isdisjoint(second), f"{where}: two users' sealed ids of one thread are equal"
        assert not any(THREAD in s for s in first | second), where


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_users_sharing_a_thread_id_hold_unrelated_sealed_ids(tmp_path: Path, embedder: Any,
                                                                  backend: str) -> None:
    cfg = make_config(tmp_path / "d", backend, encrypt_at_rest="all")
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        notes = _talk(mem)
        _unlinkable(mem)
        _finds(mem, notes)
        assert THREAD.encode() not in stored_text(mem)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        mem.reconcile()  # (qdrant-client's :memory: mode lost the vectors with the last process)
        _finds(mem, notes)
        _unlinkable(mem)


def test_one_users_sealed_id_opens_but_does_not_match_anothers(embedder: Any, tmp_path: Path) -> None:
    cfg = make_config(tmp_path / "d", encrypt_at_rest="all")
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        codec = mem.engine.codec
        a, b = (codec.session_key(u, THREAD) for u in USERS)
        assert a is not None and b is not None and a != b
        assert codec.session_of(a) == codec.session_of(b) == THREAD
        assert codec.session_key(USERS[0], THREAD) == a  # deterministic: its own lookup key


@contextmanager
def _earlier_scheme(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The store as the code before per-user ids wrote it: policy ``all/3``, one sealed id for every user."""
    original = at_rest.SealingCodec.__init__

    def shared(self: at_rest.SealingCodec, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if self.seal_sessions:
            self.session_ids = "shared"

    with monkeypatch.context() as patch:
        patch.setattr(at_rest, "_FIELDS_VERSION_ALL", 3)
        patch.setattr(at_rest.SealingCodec, "__init__", shared)
        yield


def _old_store(cfg: MemoryConfig, embedder: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], str]:
    with _earlier_scheme(monkeypatch), MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta("at_rest") == "all/3"
        notes = _talk(mem)
        ids = _stored_ids(mem)["sessions"]
        assert ids[USERS[0]] == ids[USERS[1]]  # the linkable form this round removes
        (shared,) = ids[USERS[0]]
    return notes, shared


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_store_of_the_earlier_scheme_finds_its_open_sessions_and_is_resealed(
        tmp_path: Path, embedder: Any, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = make_config(tmp_path / "d", backend, encrypt_at_rest="all")
    notes, shared = _old_store(cfg, embedder, monkeypatch)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta("at_rest") == "all/4"
        mem.reconcile()
        _finds(mem, notes)
        _unlinkable(mem)
        assert shared.encode() not in stored_text(mem)
        for user in USERS:  # the open session goes on: the next turn follows the old ones in the same buffer
            mem.session(user, THREAD).add_messages([("user", "Adding one more line after the upgrade"),
                                                    ("assistant", "ok")])
            view = mem.session(user, THREAD).view()
            assert [m.content for m in view.messages] == [SAID[user], "Noted.",
                                                           "Adding one more line after the upgrade", "ok"]
            assert view.messages[-1].turn == view.messages[0].turn + 1
        assert {u: len(s) for u, s in _stored_ids(mem)["sessions"].items()} == dict.fromkeys(USERS, 1)


def test_a_read_only_open_of_the_earlier_scheme_finds_its_sessions(tmp_path: Path, embedder: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = make_config(tmp_path / "d", encrypt_at_rest="all")
    notes, _shared = _old_store(cfg, embedder, monkeypatch)
    with MemoryProvider(cfg.model_copy(update={"read_only": True}), embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta("at_rest") == "all/3"  # nothing re-sealed, no byte written
        _finds(mem, notes)
    with MemoryProvider(cfg, embedder=embedder, caller=ADMIN) as mem:  # then upgraded by a writable open
        _finds(mem, notes)
    with MemoryProvider(cfg.model_copy(update={"read_only": True}), embedder=embedder, caller=ADMIN) as mem:
        assert mem.engine.metadata.get_meta("at_rest") == "all/4"
        _finds(mem, notes)
