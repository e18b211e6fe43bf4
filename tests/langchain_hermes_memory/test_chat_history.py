"""HermesChatMessageHistory in real LangChain chains (RunnableWithMessageHistory) for 30+ turns."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import ConfigurableFieldSpec
from langchain_core.runnables.history import RunnableWithMessageHistory

from hermes_memory_core import MemoryConfig, MemoryProvider
from langchain_hermes_memory import HermesChatMessageHistory
from langchain_hermes_memory.chat_history import SUMMARY_PREFIX

PROMPT = ChatPromptTemplate.from_messages(
    [("system", "You are a helpful assistant."), MessagesPlaceholder("history"), ("human", "{question}")]
)


def _chain(mem: MemoryProvider, summarizer, chat=None):  # type: ignore[no-untyped-def]
    chat = chat or FakeListChatModel(responses=[f"reply {i}" for i in range(100)])

    def history(user_id: str, session_id: str) -> HermesChatMessageHistory:
        return HermesChatMessageHistory(session_id=session_id, user_id=user_id, memory=mem, llm=summarizer)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # RunnableWithMessageHistory itself is deprecated
        return RunnableWithMessageHistory(
            PROMPT | chat,
            history,
            input_messages_key="question",
            history_messages_key="history",
            history_factory_config=[
                ConfigurableFieldSpec(id="user_id", annotation=str, name="User ID", default="", is_shared=True),
                ConfigurableFieldSpec(id="session_id", annotation=str, name="Session ID", default="", is_shared=True),
            ],
        )


def _cfg(user: str, session: str) -> dict:
    return {"configurable": {"user_id": user, "session_id": session}}


def test_thirty_turns_summary_from_host_model(mem: MemoryProvider) -> None:
    summarizer = FakeListChatModel(responses=["HOST-SUMMARY: user is migrating ETL jobs; 3 left to move."])
    chain = _chain(mem, summarizer)
    for i in range(32):
        out = chain.invoke({"question": f"question {i} about the migration"}, _cfg("u1", "s1"))
        assert out.content.startswith("reply")
    mem.flush()
    msgs = HermesChatMessageHistory(session_id="s1", user_id="u1", memory=mem).messages
    assert isinstance(msgs[0], SystemMessage) and msgs[0].content.startswith(SUMMARY_PREFIX + "HOST-SUMMARY")
    rest = msgs[1:]
    assert len(rest) <= 24 and len(rest) % 2 == 0
    assert [type(m) for m in rest[:2]] == [HumanMessage, AIMessage]
    assert rest[-2].content == "question 31 about the migration"
    assert sum(isinstance(m, SystemMessage) for m in msgs) == 1


def test_text_llm_as_summarizer(mem: MemoryProvider) -> None:
    chain = _chain(mem, FakeListLLM(responses=["TEXT-LLM-SUMMARY of the first turns"]))
    for i in range(14):
        chain.invoke({"question": f"q{i}"}, _cfg("u1", "text"))
    mem.flush()
    msgs = HermesChatMessageHistory(session_id="text", user_id="u1", memory=mem).messages
    assert "TEXT-LLM-SUMMARY" in msgs[0].content


async def test_async_chain_path(mem: MemoryProvider) -> None:
    chain = _chain(mem, FakeListChatModel(responses=["ASYNC-SUMMARY"]))
    for i in range(14):
        await chain.ainvoke({"question": f"async q{i}"}, _cfg("u1", "async"))
    await mem.aflush()
    history = HermesChatMessageHistory(session_id="async", user_id="u1", memory=mem)
    msgs = await history.aget_messages()
    assert msgs[0].content == SUMMARY_PREFIX + "ASYNC-SUMMARY"
    assert msgs[-2].content == "async q13"
    await history.aclear()
    assert await history.aget_messages() == []


def test_sessions_and_users_never_mix(mem: MemoryProvider) -> None:
    chain = _chain(mem, None)
    chain.invoke({"question": "alpha in s1"}, _cfg("u1", "s1"))
    chain.invoke({"question": "beta in s2"}, _cfg("u1", "s2"))
    chain.invoke({"question": "gamma of u2"}, _cfg("u2", "s1"))
    get = lambda u, s: [m.content for m in HermesChatMessageHistory(session_id=s, user_id=u, memory=mem).messages]  # noqa: E731
    assert get("u1", "s1")[0] == "alpha in s1" and len(get("u1", "s1")) == 2
    assert get("u1", "s2")[0] == "beta in s2" and len(get("u1", "s2")) == 2
    assert get("u2", "s1")[0] == "gamma of u2" and len(get("u2", "s1")) == 2


def test_view_is_stable_between_read_and_write(mem: MemoryProvider) -> None:
    h = HermesChatMessageHistory(session_id="snap", user_id="u", memory=mem)
    first = h.messages
    other = HermesChatMessageHistory(session_id="snap", user_id="u", memory=mem)
    other.add_messages([HumanMessage("written elsewhere")])
    assert h.messages == first  # the snapshot holds until this object writes
    h.add_messages([HumanMessage("mine")])
    assert [m.content for m in h.messages] == ["written elsewhere", "mine"]


def test_without_history_key_no_duplicates(mem: MemoryProvider) -> None:
    """The path where RunnableWithMessageHistory re-reads messages to slice off the history it prepended."""
    chat = GenericFakeChatModel(messages=iter([AIMessage(f"r{i}") for i in range(20)]))

    def history(session_id: str) -> HermesChatMessageHistory:
        return HermesChatMessageHistory(session_id=session_id, user_id="u", memory=mem)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        chain = RunnableWithMessageHistory(chat, history)
    for i in range(5):
        chain.invoke([HumanMessage(f"m{i}")], {"configurable": {"session_id": "nokey"}})
    contents = [m.content for m in history("nokey").messages]
    assert contents == [x for i in range(5) for x in (f"m{i}", f"r{i}")]


def test_message_types_round_trip(mem: MemoryProvider) -> None:
    h = HermesChatMessageHistory(session_id="types", user_id="u", memory=mem)
    sent = [
        HumanMessage("what's the weather?", id="h1"),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "call1"}]),
        ToolMessage("18°C", tool_call_id="call1"),
        AIMessage([{"type": "text", "text": "It is 18°C."}]),
    ]
    h.add_messages(sent)
    got = HermesChatMessageHistory(session_id="types", user_id="u", memory=mem).messages
    assert got == sent
    assert len(mem.session("u", "types").view().turns) == 1  # tool results belong to the turn


CHILD = """
import json, sys
from hermes_memory_core import MemoryConfig, MemoryProvider
from langchain_hermes_memory import HermesChatMessageHistory
with MemoryProvider(MemoryConfig(data_dir=sys.argv[1])) as mem:
    msgs = HermesChatMessageHistory(session_id="s1", user_id="u1", memory=mem).messages
    print(json.dumps([[type(m).__name__, m.content] for m in msgs]))
"""


def test_new_process_sees_same_history(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "d"
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=real_embedder) as mem:
        chain = _chain(mem, FakeListChatModel(responses=["PERSISTED-SUMMARY"]))
        for i in range(15):
            chain.invoke({"question": f"q{i}"}, _cfg("u1", "s1"))
        mem.flush()
        here = [[type(m).__name__, m.content] for m in HermesChatMessageHistory("s1", "u1", mem).messages]
    res = subprocess.run([sys.executable, "-c", CHILD, str(data)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == here
    assert here[0][0] == "SystemMessage" and "PERSISTED-SUMMARY" in here[0][1]


def test_structured_output_is_used_when_the_model_has_it(mem: MemoryProvider) -> None:
    from langchain_hermes_memory import LangChainLLM

    class StructuredFake(FakeListChatModel):
        def with_structured_output(self, schema, **kwargs):  # type: ignore[no-untyped-def, override]
            from langchain_core.runnables import RunnableLambda

            return RunnableLambda(lambda _p: {"type": "permanent", "reason": "structured", "key": "allergy"})

    llm = LangChainLLM(StructuredFake(responses=["用户对花生过敏"]))
    res = mem.remember("我对花生过敏", user_id="u", llm=llm)
    assert res.memory_type.value == "permanent" and res.reason == "structured"
    assert mem.get(res.id).content == "用户对花生过敏"


def test_pickling_is_refused(mem: MemoryProvider) -> None:
    import pickle

    with pytest.raises(TypeError):
        pickle.dumps(HermesChatMessageHistory("s", "u", mem))
