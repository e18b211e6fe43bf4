"""A per-user bundle holds no byte of any other user, and no bundle holds a deleted memory.

Each user's words are unique marker strings placed everywhere a store keeps text — content, versions and their
notes, tags, metadata, session messages and their data, running summaries, the promotion queue, delete reasons —
and the whole bundle (every file) is searched for the other user's markers, user id included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.hermes_memory_core.trust.snapshots import all_bytes


def _fill(mem: MemoryProvider, user: str, word: str) -> dict[str, str]:
    """Memories of one user with ``word`` markers everywhere; returns the markers of what gets deleted."""
    mid = mem.add(f"{word} likes kayaking on the lake", user_id=user, tags=[f"{word}-tag"],
                  metadata={"note": f"{word}-metadata"}, session_id=f"{word}-session")
    mem.update(mid, f"{word} likes kayaking and sailing", version_note=f"{word}-version-note")
    fact = mem.add(f"{word} passport number is E-{word}", user_id=user, memory_type="permanent",
                   tags=[f"{word}-fact-tag"], metadata={"fact_key": f"{word}-key"})
    mem.update(fact, f"{word} passport number is F-{word}", version_note=f"{word}-renewed")
    gone = mem.add(f"{word} old door code is 4471-{word}-deleted", user_id=user, tags=[f"{word}-gone-tag"])
    mem.update(gone, f"{word} newer door code 5582-{word}-deleted", version_note=f"{word}-gone-note")
    mem.delete(gone, reason=f"{word}-delete-reason")
    gone_fact = mem.add(f"{word} blood type record {word}-deleted-fact", user_id=user, memory_type="permanent")
    mem.delete(gone_fact, reason=f"{word}-fact-delete-reason")
    session = mem.session(user, f"{word}-chat")
    for i in range(8):  # more turns than ring_size: a summary and queued promotions
        session.add_messages([{"role": "user", "content": f"{word} turn {i} I usually drink {word}-tea",
                               "data": {"raw": f"{word}-data-{i}"}}, ("assistant", f"noted {word} {i}")])
    mem.search(f"{word} kayaking", user_id=user)  # access-log rows
    mem.get(fact)
    mem.flush()
    return {"deleted": f"{word}-deleted", "gone_tag": f"{word}-gone-tag", "reason": f"{word}-delete-reason",
            "note": f"{word}-gone-note", "fact_reason": f"{word}-fact-delete-reason"}


@pytest.fixture(params=BACKENDS)
def two_users(request: pytest.FixtureRequest, tmp_path: Path, embedder: Any) -> Any:
    cfg = make_config(tmp_path / "store", request.param, ring_size=4, summarize_turns=2)
    mem = MemoryProvider(cfg, embedder=embedder, caller=ADMIN)
    deleted = {user: _fill(mem, user, word) for user, word in (("user-alpha-91", "ALPHAWORD"),
                                                               ("user-bravo-37", "BRAVOWORD"))}
    assert mem.session("user-bravo-37", "BRAVOWORD-chat").view().summary  # summaries exist to be leaked
    yield mem, deleted
    mem.close()


def test_per_user_bundle_holds_no_byte_of_another_user(two_users: Any, tmp_path: Path) -> None:
    mem, _deleted = two_users
    manifest = mem.export(tmp_path / "alpha", user_id="user-alpha-91")
    blob = all_bytes(tmp_path / "alpha")
    for marker in ("BRAVOWORD", "user-bravo-37", "bravo"):
        assert marker.encode() not in blob, marker
    assert b"ALPHAWORD" in blob  # the scan sees plaintext where there is some (alpha's long-term content)
    assert manifest["counts"]["memories_active"] >= 2  # and what promotion made of the evicted turns
    with MemoryProvider.restore(tmp_path / "alpha", make_config(tmp_path / "r"), embedder=mem.embedder,
                                caller=ADMIN) as other:
        assert set(other.stats().by_user) == {"user-alpha-91"}
        assert other.search("kayaking sailing", user_id="user-alpha-91")[0].content.endswith("kayaking and sailing")
        assert other.session("user-alpha-91", "ALPHAWORD-chat").view().summary


def test_no_bundle_carries_a_deleted_memory(two_users: Any, tmp_path: Path) -> None:
    mem, deleted = two_users
    for user, target in ((None, "all"), ("user-alpha-91", "alpha")):
        manifest = mem.export(tmp_path / target, user_id=user)
        blob = all_bytes(tmp_path / target)
        for markers in deleted.values() if user is None else [deleted[user]]:
            for marker in markers.values():
                assert marker.encode() not in blob, (target, marker)
        assert manifest["counts"]["memories_deleted"] == 0
        assert manifest["counts"]["deleted_left_out"] == (4 if user is None else 2)


def test_deleted_history_stays_in_the_store_until_erased(two_users: Any, tmp_path: Path) -> None:
    """Soft delete keeps history in the store (hard erasure is another item); only bundles leave it out."""
    mem, _deleted = two_users
    assert mem.stats().deleted == 4
