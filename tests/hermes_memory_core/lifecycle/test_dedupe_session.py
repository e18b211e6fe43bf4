"""The short-term duplicate check looks in the statement's own session, whatever the user said elsewhere: it ranks
that session's lines and the lasting memories apart (each search kept to those memories' matches), where one
search of every tier ranked all of a chat user's lines and could find only other sessions' lines at its top."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider, MemoryType
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.lifecycle.dedupe import CANDIDATES, find_duplicate
from tests.conftest import ADMIN, BACKENDS, make_config


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    provider = MemoryProvider(make_config(tmp_path / "s", request.param), embedder=embedder, caller=ADMIN)
    yield provider
    provider.close()


def test_a_same_session_duplicate_is_found_under_other_sessions_lines(store: MemoryProvider) -> None:
    for i in range(3 * CANDIDATES):  # other sessions' lines that outrank it on every word
        store.add(f"I drink coffee every morning, every morning I drink coffee ({i})", user_id="u",
                  session_id=f"other{i}", memory_type="short_term")
    for i in range(10 * CANDIDATES):  # (so those words are not in half the user's lines: BM25 weighs them)
        store.add(f"The weather was mild on day {i}", user_id="u", session_id=f"weather{i}", memory_type="short_term")
    mine = store.add("I drink coffee every morning", user_id="u", session_id="s", memory_type="short_term")
    lasting = store.add("The user drinks coffee every morning", user_id="u", memory_type="long_term")
    lookups = store.engine.lookups
    found = find_duplicate(lookups, "u", "I drink coffee every morning", (MemoryType.SHORT_TERM,), "s")
    assert found is not None and found.id == mine
    both = find_duplicate(lookups, "u", "I drink coffee every morning", (MemoryType.SHORT_TERM, MemoryType.LONG_TERM),
                          "s")
    assert both is not None and both.id in {mine, lasting}
    assert find_duplicate(lookups, "u", "I drink coffee every morning", (MemoryType.SHORT_TERM,), "another") is None
