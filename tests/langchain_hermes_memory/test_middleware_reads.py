"""A middleware turn reads its session twice, not three times: the view its memory block is made with also tells
which of the run's answers is unwritten (the run's own answer cannot have been written since)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from hermes_memory_core import MemoryProvider
from hermes_memory_core.short_term.session import SessionMemory
from langchain_hermes_memory import HermesChatMessageHistory, HermesMemoryMiddleware
from tests.langchain_hermes_memory.scripted import ScriptedChatModel


def test_a_turn_reads_its_session_twice_and_writes_each_message_once(mem: MemoryProvider,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    views: list[bool] = []
    real = SessionMemory.view

    def counted(self: SessionMemory, all_turns: bool = False, *, summary: bool = True) -> Any:
        views.append(summary)
        return real(self, all_turns, summary=summary)

    monkeypatch.setattr(SessionMemory, "view", counted)
    model = ScriptedChatModel()
    model.say("Noted.", "Nice.")
    agent = create_agent(model, middleware=[HermesMemoryMiddleware(memory=mem)], checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t1", "user_id": "gus"}}
    agent.invoke({"messages": [HumanMessage("I live in Lyon", id="u1")]}, config)
    assert len(views) == 2  # the run's new messages checked, then the memory block's view
    asyncio.run(agent.ainvoke({"messages": [HumanMessage("I like cider", id="u2")]}, config))
    assert len(views) == 4
    history = HermesChatMessageHistory(session_id="t1", user_id="gus", memory=mem).messages
    assert [(m.type, m.content) for m in history] == [("human", "I live in Lyon"), ("ai", "Noted."),
                                                      ("human", "I like cider"), ("ai", "Nice.")]
