"""Talk today, ask tomorrow through LlamaIndex with the default setup: a chat engine's conversation and the facts the
user stated come back in a new session's memory a week later (real model, both metadata backends)."""

from __future__ import annotations

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import ChatMessage, MessageRole, MockLLM

from hermes_memory_core import MemoryProvider
from llama_index_hermes_memory import HermesMemory
from tests.fakes import Clock


def test_a_new_sessions_memory_brings_last_weeks_chat_and_facts(clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    mem, clock = clocked_real_store
    engine = SimpleChatEngine.from_defaults(llm=MockLLM(max_tokens=4),
                                            memory=HermesMemory.from_defaults(user_id="u1", session_id="mon",
                                                                              memory=mem))
    for text in ["I'm vegetarian, by the way.", "My daughter is called Mia.",
                 "For the cache penetration problem my plan is a bloom filter in front of Redis."]:
        clock.now += 60
        engine.chat(text)
    clock.now += 7 * 86_400
    mem.forget()
    later = HermesMemory.from_defaults(user_id="u1", session_id="next-week", memory=mem)
    system = later.get("What was the cache plan we discussed last time?")[0].content or ""
    assert "the user said] For the cache penetration problem my plan is a bloom filter" in system
    system = later.get("What is my daughter called?")[0].content or ""
    assert "Mia" in system and "[fact · " in system


async def test_a_new_session_read_before_its_first_message_brings_the_last_sessions_facts(
        clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    # context chat engines (ContextChatEngine, CondensePlusContextChatEngine) call get(question) before put(...)
    mem, clock = clocked_real_store
    first = HermesMemory.from_defaults(user_id="u1", session_id="morning", memory=mem)
    first.put_messages([ChatMessage(role=MessageRole.USER, content="My daughter is called Mia."),
                        ChatMessage(role=MessageRole.ASSISTANT, content="What a lovely name!")])
    clock.now += 300  # minutes later, not idle: only the new session says the user left the first one
    later = HermesMemory.from_defaults(user_id="u1", session_id="afternoon", memory=mem)
    system = later.get("What is my daughter called?")[0].content or ""
    assert "Mia" in system and "[fact · " in system
    clock.now += 300
    again = HermesMemory.from_defaults(user_id="u1", session_id="evening", memory=mem)
    again.put(ChatMessage(role=MessageRole.USER, content="I am allergic to peanuts."))
    clock.now += 300
    system = (await HermesMemory.from_defaults(user_id="u1", session_id="night", memory=mem)
              .aget("What am I allergic to?"))[0].content or ""
    assert "peanuts" in system and "[fact · " in system
