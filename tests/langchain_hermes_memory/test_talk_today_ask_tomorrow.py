"""Talk today, ask tomorrow through the LangChain surfaces, with the default setup (no caller, no LLM): what was
said in one thread — and the facts the user stated — reach the model in a new thread a week later."""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from hermes_memory_core import MemoryProvider
from langchain_hermes_memory import HermesChatMessageHistory, HermesMemoryMiddleware, HermesRetriever
from tests.fakes import Clock
from tests.langchain_hermes_memory.scripted import ScriptedChatModel

WEEK = 7 * 86_400



def test_middleware_brings_last_weeks_thread_into_a_new_one(clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    mem, clock = clocked_real_store
    model = ScriptedChatModel()
    agent = create_agent(model, tools=[], middleware=[HermesMemoryMiddleware(memory=mem)],
                         checkpointer=InMemorySaver())
    monday = {"configurable": {"thread_id": "monday", "user_id": "alice"}}
    for text, answer in [("I am allergic to peanuts.", "Noted, no peanuts."),
                         ("For the cache penetration problem my plan is a bloom filter in front of Redis.",
                          "A bloom filter plus caching empty results with a short TTL works.")]:
        clock.now += 60
        model.say(answer)
        agent.invoke({"messages": [HumanMessage(text)]}, monday)
    clock.now += WEEK
    model.say("You planned a bloom filter.")
    agent.invoke({"messages": [HumanMessage("What was the cache plan we discussed last time?")]},
                 {"configurable": {"thread_id": "next-week", "user_id": "alice"}})
    system = ScriptedChatModel.system_text(model.requests[-1])
    assert "the user said] For the cache penetration problem my plan is a bloom filter" in system
    model.say("No peanuts for you.")
    agent.invoke({"messages": [HumanMessage("What am I allergic to?")]},
                 {"configurable": {"thread_id": "next-week", "user_id": "alice"}})
    system = ScriptedChatModel.system_text(model.requests[-1])
    assert "[fact · " in system and "allergic to peanuts" in system
    assert not isinstance(model.requests[-1][-1], AIMessage)


def test_chat_history_threads_are_remembered_by_the_retriever(clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    mem, clock = clocked_real_store
    history = HermesChatMessageHistory("chat-1", "bob", mem)
    for text, answer in [("My daughter is called Mia.", "Lovely name."),
                         ("I want blue-green deployment with two Kubernetes clusters.", "Rollback gets instant.")]:
        clock.now += 60
        history.add_messages([HumanMessage(text), AIMessage(answer)])
    clock.now += WEEK
    HermesChatMessageHistory("chat-2", "bob", mem).add_messages([HumanMessage("Morning!")])
    mem.flush()
    retriever = HermesRetriever(memory=mem, user_id="bob", gate=True, k=5)
    docs = retriever.invoke("What deployment did we discuss with Kubernetes clusters?")
    assert any("blue-green deployment" in d.page_content for d in docs)
    docs = retriever.invoke("What is my daughter called?")
    assert any("Mia" in d.page_content for d in docs)


async def test_a_new_threads_history_read_first_lets_the_retriever_find_the_last_threads_facts(
        clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    # RunnableWithMessageHistory reads the history, runs the chain (and its retriever), and only then writes
    mem, clock = clocked_real_store
    HermesChatMessageHistory("morning", "bob", mem).add_messages([HumanMessage("My daughter is called Mia."),
                                                                  AIMessage("Lovely name.")])
    clock.now += 300  # minutes later, not idle: only the new thread says bob left the first one
    assert HermesChatMessageHistory("afternoon", "bob", mem).messages == []
    retriever = HermesRetriever(memory=mem, user_id="bob", gate=True, k=5)
    docs = retriever.invoke("What is my daughter called?")
    assert any("Mia" in d.page_content and d.metadata["memory_type"] == "permanent" for d in docs)
    HermesChatMessageHistory("evening", "bob", mem).add_messages([HumanMessage("I am allergic to peanuts.")])
    clock.now += 300
    assert await HermesChatMessageHistory("night", "bob", mem).aget_messages() == []
    docs = await retriever.ainvoke("What am I allergic to?")
    assert any("peanuts" in d.page_content and d.metadata["memory_type"] == "permanent" for d in docs)
