"""HermesMemory reads permanent facts only for a caller allowed to, and a function-calling LlamaIndex
model classifies through structured output (17.4)."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM, MockLLM

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider, MemoryType
from hermes_memory_core.embedding import Embedder
from llama_index_hermes_memory import HermesMemory, LlamaIndexLLM


def test_permanent_facts_need_a_caller_that_may_read_them(config: MemoryConfig, real_embedder: Embedder) -> None:
    with MemoryProvider(config, embedder=real_embedder) as mem:  # no caller of its own
        mem.add("The user's name is Lin Wei", user_id="u", memory_type="permanent", caller=Caller.admin("setup"))
        plain = HermesMemory.from_defaults(user_id="u", session_id="s", memory=mem)  # serves u: reads u's facts
        other = HermesMemory.from_defaults(user_id="v", session_id="s", memory=mem)
        third = HermesMemory.from_defaults(user_id="u", session_id="s", memory=mem, caller=Caller("assistant"))
        reader = HermesMemory.from_defaults(user_id="u", session_id="s", memory=mem,
                                            caller=Caller("assistant", read_permanent=True))
        assert "Lin Wei" in " ".join(m.content or "" for m in plain.get("What is my name?"))
        assert "Lin Wei" not in " ".join(m.content or "" for m in other.get("What is my name?"))
        assert "Lin Wei" not in " ".join(m.content or "" for m in third.get("What is my name?"))
        assert "Lin Wei" in " ".join(m.content or "" for m in reader.get("What is my name?"))
        assert "caller" not in reader.to_dict()


def _classifying_model(calls: list[Any]) -> MockFunctionCallingLLM:
    def answer(messages: Any, **kwargs: Any) -> ChatMessage:
        calls.append([t.metadata.name for t in kwargs.get("tools") or []])
        if kwargs.get("tools"):
            return ChatMessage(role="assistant", blocks=[ToolCallBlock(
                tool_call_id="c1", tool_name="MemoryClassification",
                tool_kwargs={"type": "long_term", "reason": "a habit", "key": "tea"})])
        return ChatMessage(role="assistant", content="The user drinks green tea every morning")

    return MockFunctionCallingLLM(response_generator=answer, is_chat_model=True)


def test_a_function_calling_model_answers_with_structured_output(mem: MemoryProvider) -> None:
    calls: list[Any] = []
    llm = LlamaIndexLLM(_classifying_model(calls))
    assert llm.complete_json("classify this", {"type": "object"}) is None  # a schema it cannot turn into a tool
    res = mem.remember("I drink green tea every morning", user_id="u", llm=llm)
    assert res.memory_type is MemoryType.LONG_TERM and res.reason == "a habit"
    assert calls[0] == ["MemoryClassification"]  # the schema became the model's one tool
    assert mem.get(res.id).metadata["fact_key"] == "tea"  # type: ignore[arg-type]


def test_other_models_keep_the_text_path(mem: MemoryProvider) -> None:
    assert LlamaIndexLLM(MockLLM(max_tokens=5)).complete_json("x", {"properties": {"a": {"type": "string"}}}) is None
