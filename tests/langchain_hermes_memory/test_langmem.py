"""LangMem's own memory tools, unmodified, on HermesStore: what they write is the user's Hermes memory."""

from __future__ import annotations

import json

import pytest

from hermes_memory_core import MemoryProvider
from langchain_hermes_memory import HermesStore

langmem = pytest.importorskip("langmem")  # installed with the dev extra


def test_langmem_tools_run_on_hermes_store(mem: MemoryProvider) -> None:
    store = HermesStore(mem)
    manage = langmem.create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)
    search = langmem.create_search_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)
    alice = {"configurable": {"langgraph_user_id": "alice"}}
    bob = {"configurable": {"langgraph_user_id": "bob"}}

    created = manage.invoke({"content": "Alice is vegetarian and avoids mushrooms"}, alice)
    memory_id = created.removeprefix("created memory ")
    manage.invoke({"content": "爱丽丝在杭州工作，每周去上海出差一次"}, alice)
    manage.invoke({"content": "Bob eats everything, mushrooms included"}, bob)

    found = json.loads(search.invoke({"query": "What food should I avoid cooking for her?"}, alice))
    assert found[0]["key"] == memory_id and found[0]["namespace"] == ["memories", "alice"]
    assert found[0]["value"] == {"content": "Alice is vegetarian and avoids mushrooms"} and found[0]["score"] > 0
    assert all("Bob" not in str(f["value"]) for f in found)
    zh = json.loads(search.invoke({"query": "她多久出差一次？"}, alice))
    assert "出差" in zh[0]["value"]["content"]

    # written through LangMem, recalled by the core (and so by the middleware) for Alice only
    assert "vegetarian" in mem.recall("Is the user vegetarian?", user_id="alice")[0].content
    assert all("Alice" not in h.content for h in mem.recall("Is the user vegetarian?", user_id="bob"))

    manage.invoke({"action": "update", "id": memory_id, "content": "Alice eats fish now, still no mushrooms"}, alice)
    assert store.get(("memories", "alice"), memory_id).value == {"content": "Alice eats fish now, still no mushrooms"}  # type: ignore[union-attr]
    manage.invoke({"action": "delete", "id": memory_id}, alice)
    assert store.get(("memories", "alice"), memory_id) is None
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "alice"), ("memories", "bob")]


async def test_langmem_async_tools(mem: MemoryProvider) -> None:
    store = HermesStore(mem)
    manage = langmem.create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)
    search = langmem.create_search_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)
    config = {"configurable": {"langgraph_user_id": "carol"}}
    await manage.ainvoke({"content": "Carol's standup is at 9:30 every weekday"}, config)
    found = json.loads(await search.ainvoke({"query": "when is the daily meeting?"}, config))
    assert "standup" in found[0]["value"]["content"]
