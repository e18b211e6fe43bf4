"""A middleware turn holds back its user message's background work (archiving, summarising) until its memory block
is made: the recall does not share the interpreter with it, and it runs while the model answers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from hermes_memory_core import MemoryProvider
from hermes_memory_core.lifecycle.background import BackgroundLifecycle
from hermes_memory_core.retrieval.recall import Recaller
from langchain_hermes_memory import HermesChatMessageHistory, HermesMemoryMiddleware
from tests.langchain_hermes_memory.scripted import ScriptedChatModel


def test_the_turns_background_work_starts_after_its_recall(mem: MemoryProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []
    written, recall = BackgroundLifecycle.written, Recaller.recall

    def told(self: BackgroundLifecycle, *args: Any, **kwargs: Any) -> None:
        order.append("written")
        written(self, *args, **kwargs)

    def recalled(self: Recaller, *args: Any, **kwargs: Any) -> Any:
        order.append("recall")
        return recall(self, *args, **kwargs)

    monkeypatch.setattr(BackgroundLifecycle, "written", told)
    monkeypatch.setattr(Recaller, "recall", recalled)
    model = ScriptedChatModel()
    model.say("Noted.", "Nice.")
    agent = create_agent(model, middleware=[HermesMemoryMiddleware(memory=mem)], checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1", "user_id": "gus"}}
    agent.invoke({"messages": [HumanMessage("What do I like to drink?", id="u1")]}, config)
    assert order == ["recall", "written", "written"]  # before: written (the user's message), recall, written
    order.clear()
    asyncio.run(agent.ainvoke({"messages": [HumanMessage("What city do I live in?", id="u2")]}, config))
    assert order == ["recall", "written", "written"]
    mem.flush()
    history = HermesChatMessageHistory(session_id="t1", user_id="gus", memory=mem).messages
    assert [m.content for m in history] == ["What do I like to drink?", "Noted.", "What city do I live in?", "Nice."]
    assert int(mem.stats().by_type.get("short_term", 0)) >= 2  # the first turn kept (the user's line and the reply)
