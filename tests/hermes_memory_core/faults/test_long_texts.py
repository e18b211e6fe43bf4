"""Long texts are bounded: a query is embedded on its beginning, a recall of any length answers, the
adapters never fail a turn on a long user message, and ``max_content_chars`` has an upper bound."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from hermes_memory_core import ConfigError, InvalidInputError, MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.embedding.window import QUERY_WINDOW_TOKENS, ask_window, head_window, tail_window

_WORDS = "the quick brown fox jumps over a lazy dog while the agent writes notes about coffee and deadlines".split()


def _long_text(chars: int, seed: int = 1) -> str:
    rnd = random.Random(seed)
    return " ".join(rnd.choice(_WORDS) for _ in range(chars // 3))[:chars]


def _words(text: str) -> int:
    return len(text.split())


def test_head_window_keeps_a_short_text_and_cuts_a_long_one_to_its_beginning() -> None:
    assert head_window("a short question", _words, 8) == "a short question"
    assert head_window("", _words, 8) == ""
    text = _long_text(100_000)
    head = head_window(text, _words, 8)
    assert text.startswith(head) and 0 < _words(head) <= 8


def test_head_window_reads_a_bounded_part_of_a_huge_text() -> None:
    seen: list[int] = []

    def count(text: str) -> int:
        seen.append(len(text))
        return _words(text)

    head_window(_long_text(400_000), count, 16)
    assert max(seen) <= 16 * 24 and len(seen) <= 12


def test_tail_window_keeps_the_end_and_reads_a_bounded_part() -> None:
    seen: list[int] = []

    def count(text: str) -> int:
        seen.append(len(text))
        return _words(text)

    text = _long_text(400_000)
    tail = tail_window(text, count, 16)
    assert text.endswith(tail) and 0 < _words(tail) <= 16
    assert max(seen) <= 16 * 24 and len(seen) <= 12


def test_ask_window_keeps_a_short_query_and_the_question_at_the_end_of_a_long_one() -> None:
    assert ask_window("Where do I live now?", _words, 16) == "Where do I live now?"
    dialogue = "We talked about trips. " + _long_text(50_000) + " So, which city did I move to last month?"
    window = ask_window(dialogue, _words, 32, head=8)
    assert window.startswith("We talked about trips.") and window.endswith("which city did I move to last month?")
    assert _words(window) <= 32


def test_the_real_model_embeds_a_query_on_its_first_window(real_embedder: Embedder) -> None:
    model: Any = real_embedder._model  # type: ignore[attr-defined]
    fed: list[str] = []
    real_query = model.query
    text = _long_text(100_000)
    try:
        model.query = lambda t: fed.append(t) or real_query(t)
        long_vec = real_embedder.embed_query(text)
    finally:
        del model.query
    head, _, tail = fed[0].partition(" … ")
    assert len(fed) == 1 and text.startswith(head) and text.endswith(tail)
    assert model.token_count(fed[0], True) <= QUERY_WINDOW_TOKENS
    assert np.allclose(long_vec, real_embedder.embed_query(fed[0]), atol=1e-6)
    assert np.allclose(real_embedder.embed_query("a short question"), real_query("a short question"), atol=1e-6)


def test_an_over_long_recall_answers_on_its_beginning(mem: MemoryProvider) -> None:
    mid = mem.add("The user's favourite editor is Helix", user_id="u")
    question = "Which editor is my favourite? " + _long_text(3 * mem.config.max_content_chars)
    hits = mem.recall(question, user_id="u", min_score=0.0)
    assert [h.id for h in hits] == [mid]
    with pytest.raises(InvalidInputError, match="max_content_chars"):  # search keeps its documented limit
        mem.search(question, user_id="u")


def test_max_content_chars_has_an_upper_bound(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert MemoryConfig(data_dir=tmp_path, max_content_chars=100_000).max_content_chars == 100_000
    with pytest.raises(ConfigError, match="max_content_chars"):
        MemoryConfig(data_dir=tmp_path, max_content_chars=10_000_000)


@dataclass
class _Context:
    user_id: str


def test_a_long_message_does_not_fail_a_langchain_turn(mem: MemoryProvider) -> None:
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_hermes_memory import HermesMemoryMiddleware
    from tests.langchain_hermes_memory.scripted import ScriptedChatModel

    mem.add("The user's favourite editor is Helix", user_id="alice")
    model = ScriptedChatModel()
    model.say("Helix, as you told me.")
    agent = create_agent(model, tools=[], middleware=[HermesMemoryMiddleware(memory=mem)], context_schema=_Context,
                         checkpointer=InMemorySaver())
    message = "Which editor is my favourite? " + _long_text(20_000)
    out = agent.invoke({"messages": [HumanMessage(message)]}, {"configurable": {"thread_id": "t"}},
                       context=_Context(user_id="alice"))
    assert out["messages"][-1].content == "Helix, as you told me."  # the turn ran (it raised InvalidInputError)


def test_a_long_message_does_not_fail_a_llama_index_get(mem: MemoryProvider) -> None:
    from llama_index.core.base.llms.types import ChatMessage

    from llama_index_hermes_memory import HermesMemory

    mem.add("The user's favourite editor is Helix", user_id="u")
    memory = HermesMemory.from_defaults(user_id="u", session_id="s", memory=mem)
    memory.put(ChatMessage(role="user", content="Which editor is my favourite? " + _long_text(20_000)))
    messages = memory.get("Which editor is my favourite? " + _long_text(20_000))  # it raised InvalidInputError
    assert messages and messages[-1].role == "user"
