"""With the default setup (no caller) a call about one user reads that user's own facts — search, list, get,
history and that user's export — and nothing of anyone else's; a whole-store export holding several users' facts,
and every explicit third-party caller, keep needing the permission (both metadata backends)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryProvider, MemoryType, NotFoundError, PermissionDeniedError
from hermes_memory_core.embedding import Embedder
from tests.conftest import BACKENDS, make_config

APP = Caller("app")  # a third party: no permanent permission
READER = Caller("support-bot", read_permanent=True)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def plain(backend: str, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    """A provider opened the way a new user opens one: no caller."""
    provider = MemoryProvider(make_config(tmp_path / "store", backend), embedder=embedder)
    try:
        yield provider
    finally:
        provider.close()


def _fact(mem: MemoryProvider, text: str, user_id: str) -> str:
    result = mem.remember(text, user_id=user_id)
    assert result.memory_type is MemoryType.PERMANENT and result.id is not None
    return result.id


def test_reads_about_one_user_see_that_users_own_facts(plain: MemoryProvider) -> None:
    fact = _fact(plain, "I am allergic to peanuts", "u1")
    assert fact in [h.id for h in plain.search("allergic peanuts", user_id="u1")]
    assert fact in [r.id for r in plain.list_memories(user_id="u1")]
    assert [r.id for r in plain.list_memories(user_id="u1", memory_types=["permanent"])] == [fact]
    assert plain.get(fact, user_id="u1").content == "The user is allergic to peanuts"
    assert [v.version for v in plain.history(fact, user_id="u1")] == [1]
    reads = [(a, d) for a, _at, d in plain.engine.metadata.access.access_log(fact)]
    assert ("permanent_read", "user:u1") in reads


def test_no_one_else_reads_them(plain: MemoryProvider) -> None:
    fact = _fact(plain, "I am allergic to peanuts", "u1")
    assert fact not in [h.id for h in plain.search("allergic peanuts", user_id="u2", top_k=10)]
    assert plain.list_memories(user_id="u2") == []
    with pytest.raises(NotFoundError):
        plain.get(fact, user_id="u2")
    with pytest.raises(PermissionDeniedError):
        plain.get(fact)  # bound to no user
    with pytest.raises(PermissionDeniedError):
        plain.get(fact, user_id="u1", caller=Caller.for_user("u2"))
    for _ in range(3):  # u1's own searches warm the hot cache; a third party's search never gets the fact from it
        assert fact in [h.id for h in plain.search("allergic peanuts", user_id="u1")]
    # an explicit third-party caller keeps the limits
    assert fact not in [h.id for h in plain.search("allergic peanuts", user_id="u1", top_k=10, caller=APP)]
    assert fact not in [r.id for r in plain.list_memories(user_id="u1", caller=APP)]
    with pytest.raises(PermissionDeniedError):
        plain.search("peanuts", user_id="u1", memory_types=["permanent"], caller=APP)
    # a caller bound to another user reads none of u1's facts, whatever it asks
    other = Caller.for_user("u2")
    with pytest.raises(PermissionDeniedError):
        plain.list_memories(user_id="u1", memory_types=["permanent"], caller=other)
    assert fact not in [r.id for r in plain.list_memories(user_id="u1", caller=other)]
    assert fact not in [h.id for h in plain.search("allergic peanuts", user_id="u1", top_k=10, caller=other)]
    assert fact not in [h.id for h in plain.recall("What am I allergic to?", user_id="u1", caller=other)]


def test_a_provider_given_its_own_caller_uses_it(backend: str, tmp_path: Path, embedder: Embedder) -> None:
    config = make_config(tmp_path / "store", backend)
    with MemoryProvider(config, embedder=embedder) as mem:
        fact = _fact(mem, "I am allergic to peanuts", "u1")
    with MemoryProvider(config, embedder=embedder, caller=APP) as app:
        assert fact not in [h.id for h in app.search("allergic peanuts", user_id="u1", top_k=10)]
        with pytest.raises(PermissionDeniedError):
            app.get(fact, user_id="u1")
        with pytest.raises(PermissionDeniedError):
            app.export(tmp_path / "bundle", user_id="u1")


def test_the_users_store_exports_with_their_facts(plain: MemoryProvider, backend: str, tmp_path: Path,
                                                 embedder: Embedder) -> None:
    fact = _fact(plain, "I am allergic to peanuts", "u1")
    plain.add("The user likes jazz", user_id="u2")  # another user's profile needs no permission
    whole = plain.export(tmp_path / "whole")
    own = plain.export(tmp_path / "own", user_id="u1")
    assert whole["counts"]["memories_active"] == 2 and own["counts"]["memories_active"] == 1
    with pytest.raises(PermissionDeniedError):
        plain.export(tmp_path / "as-app", caller=APP)
    with MemoryProvider.restore(tmp_path / "own", make_config(tmp_path / "restored", backend),
                                embedder=embedder) as restored:
        assert restored.get(fact, user_id="u1").content == "The user is allergic to peanuts"


def test_other_users_facts_stay_out_of_a_default_export(plain: MemoryProvider, tmp_path: Path) -> None:
    _fact(plain, "I am allergic to peanuts", "u1")
    _fact(plain, "I live in Hangzhou", "u2")
    with pytest.raises(PermissionDeniedError, match="user_id="):
        plain.export(tmp_path / "whole")
    assert not (tmp_path / "whole").exists()
    assert plain.export(tmp_path / "u1", user_id="u1")["counts"]["memories_active"] == 1
    with pytest.raises(PermissionDeniedError):
        plain.export(tmp_path / "whole-as-u1", caller=Caller.for_user("u1"))  # holds u2's facts
    with pytest.raises(PermissionDeniedError):
        plain.export(tmp_path / "u2-as-u1", user_id="u2", caller=Caller.for_user("u1"))
    assert plain.export(tmp_path / "whole-as-reader", caller=READER)["counts"]["memories_active"] == 2
