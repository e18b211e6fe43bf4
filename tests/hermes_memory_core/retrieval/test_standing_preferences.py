"""The user's standing preferences about replies come with every recall, fillers included (both backends)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from tests.conftest import BACKENDS, make_config


@pytest.fixture(params=BACKENDS)
def mem(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    with MemoryProvider(make_config(tmp_path / "s", request.param), embedder=embedder) as provider:
        yield provider


def test_a_reply_preference_comes_with_every_turn_and_its_current_version_only(mem: MemoryProvider) -> None:
    mem.remember("I am allergic to peanuts.", user_id="ann")
    assert mem.recall("thanks!", user_id="ann") == []
    said = mem.remember("Please always reply in Chinese.", user_id="ann")
    assert said.content == "The user prefers replies in Chinese."
    for question in ("thanks!", "What am I allergic to?", "How should you reply to me?", "好的"):
        hits = mem.recall(question, user_id="ann", top_k=1)
        assert hits[0].content == "The user prefers replies in Chinese.", question
    assert [h.content for h in mem.recall("What am I allergic to?", user_id="ann", top_k=1)][1:] == [
        "The user is allergic to peanuts."]  # beside top_k, not in its place
    mem.remember("以后请用英文回答我", user_id="ann")  # a change: the new version replaces the old one
    assert [h.content for h in mem.recall("ok", user_id="ann")] == ["用户希望用英文回复。"]


def test_another_users_preference_and_filtered_recalls_stay_out(mem: MemoryProvider) -> None:
    mem.remember("Always answer briefly.", user_id="ann")
    assert mem.recall("thanks!", user_id="bob") == []
    assert [h.content for h in mem.recall("thanks!", user_id="ann")] == ["The user prefers short replies."]
    assert mem.recall("thanks!", user_id="ann", session_id="other") == []  # a recall of one session is that only
