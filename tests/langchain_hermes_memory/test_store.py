"""HermesStore: LangGraph's store semantics over Hermes, user isolation, search in Chinese and English,
persistence and portability. (The random differential test against InMemoryStore is test_store_differential.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp

from hermes_memory_core import (
    ConfigError,
    InvalidInputError,
    MemoryConfig,
    MemoryProvider,
    MemoryRecord,
    MemoryType,
    reserved_user_ids,
)
from hermes_memory_core.embedding import Embedder
from langchain_hermes_memory import HermesRetriever, HermesStore
from langchain_hermes_memory.namespaces import SHARED_USER_ID, HermesNamespaceError
from tests.conftest import ADMIN, make_config


def _shared(mem: MemoryProvider) -> list[MemoryRecord]:
    """The store's shared items as the provider holds them (a reserved user id: only inside the store's scope)."""
    with reserved_user_ids():
        return mem.list_memories(user_id=SHARED_USER_ID)

ZH = {"coffee": "用户每天早上喝一杯美式咖啡", "city": "用户住在杭州，远程工作", "allergy": "用户对花生过敏",
      "hike": "用户周末喜欢去爬山", "japanese": "用户在学习日语，准备明年去东京", "cat": "用户养了一只叫豆豆的猫",
      "go": "用户主要用 Python 写后端服务", "kid": "用户的女儿今年上小学一年级"}
EN = {"coffee": "The user drinks an americano every morning", "city": "The user lives in Lisbon and works remotely",
      "allergy": "The user is allergic to shellfish", "hike": "On weekends the user goes hiking in the mountains",
      "japanese": "The user is learning Japanese for a trip to Tokyo", "cat": "The user has a cat named Miso",
      "go": "The user writes backend services mostly in Go", "kid": "The user's son just started primary school"}
# paraphrases: few or no words shared with the memory they should find
ZH_QUESTIONS = {"coffee": "他早上一般喝什么？", "city": "他住哪儿？", "allergy": "他对什么食物过敏？",
                "cat": "他有宠物吗？", "japanese": "他在学哪门外语？", "go": "他用什么编程语言？",
                "kid": "他的孩子多大了？", "hike": "他周末做什么运动？"}
EN_QUESTIONS = {"coffee": "What does the user have for a morning drink?", "city": "Which city is the user based in?",
                "allergy": "Which foods should the user avoid?", "cat": "Does the user own any pets?",
                "japanese": "Which foreign language is the user studying?",
                "go": "What programming language does the user use?", "kid": "How old are the user's children?",
                "hike": "What sport does the user do on Saturdays?"}


def await_(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


@pytest.fixture
def store(mem: MemoryProvider) -> HermesStore:
    return HermesStore(mem)


@pytest.mark.parametrize(("memories", "questions"), [(ZH, ZH_QUESTIONS), (EN, EN_QUESTIONS)], ids=["zh", "en"])
def test_semantic_search_in_each_language(real_mem: MemoryProvider, memories: dict, questions: dict) -> None:
    store = HermesStore(real_mem)
    store.batch([PutOp(("memories", "u"), k, {"content": v}) for k, v in memories.items()])
    store.put(("memories", "u", "archive"), "old", {"content": memories["coffee"]}, index=False)
    first = 0
    for key, question in questions.items():
        results = store.search(("memories", "u"), query=question, limit=3)
        assert key in [r.key for r in results], (question, [r.key for r in results])
        scores = [r.score for r in results]
        assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
        first += results[0].key == key
    assert first >= 6, f"only {first} of 8 paraphrases ranked their memory first"
    ranked = store.search(("memories", "u"), query=questions["coffee"], limit=20)
    assert ranked[-1].key == "old" and ranked[-1].score is None  # unindexed items come last, unscored


def test_put_get_update_delete_keep_versions(mem: MemoryProvider, store: HermesStore) -> None:
    ns = ("memories", "alice")
    store.put(ns, "editor", {"content": "Alice edits code in Helix", "since": 2021})
    first = store.get(ns, "editor")
    assert first is not None and first.value == {"content": "Alice edits code in Helix", "since": 2021}
    store.put(ns, "editor", {"content": "Alice switched to Zed", "since": 2024})
    second = store.get(ns, "editor")
    assert second is not None and second.value["content"] == "Alice switched to Zed"
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    (record,) = mem.list_memories(user_id="alice")
    assert record.memory_type is MemoryType.LONG_TERM and record.content == "Alice switched to Zed"  # its strings
    assert [v.content for v in mem.history(record.id)] == ["Alice edits code in Helix", "Alice switched to Zed"]
    store.delete(ns, "editor")
    assert store.get(ns, "editor") is None and mem.list_memories(user_id="alice") == []
    assert store.list_namespaces() == []
    store.delete(ns, "editor")  # deleting what is not there is a no-op, as in LangGraph


def test_items_are_their_owners_memories_and_never_anyone_elses(mem: MemoryProvider, store: HermesStore) -> None:
    store.put(("memories", "alice"), "k", {"content": "Alice is allergic to peanuts"})
    store.put(("memories", "bob", "profile"), "k", {"content": "Bob is allergic to cats"})
    store.put(("users",), "alice", {"content": "Alice is allergic to penicillin (app profile)"})
    # the core sees each item as its owner's long-term memory: recall and the retriever find it
    assert [h.content for h in mem.recall("What is Alice allergic to?", user_id="alice")] == ["Alice is allergic to peanuts"]
    docs = HermesRetriever(memory=mem, user_id="bob").invoke("allergy")
    assert [d.page_content for d in docs] == ["Bob is allergic to cats"]
    # the shared scope is nobody's: it never comes back for a person
    assert all("penicillin" not in h.content for u in ("alice", "bob") for h in mem.search("penicillin", user_id=u))
    assert _shared(mem)[0].content.startswith("Alice is allergic to penicillin")
    # a store search stays inside its owner's namespaces
    assert [i.key for i in store.search(("memories", "bob"), query="peanuts")] == ["k"]
    assert store.search(("memories", "bob"), query="peanuts")[0].namespace == ("memories", "bob", "profile")
    assert store.get(("memories", "bob"), "k") is None
    # a prefix that would span users is refused, as a LangGraph InvalidNamespaceError and a Hermes input error
    for prefix in [(), ("memories",)]:
        with pytest.raises(HermesNamespaceError, match="spans"):
            store.search(prefix, query="allergic")
    assert issubclass(HermesNamespaceError, InvalidNamespaceError) and issubclass(HermesNamespaceError, InvalidInputError)


def test_namespace_templates(mem: MemoryProvider) -> None:
    store = HermesStore(mem, user_namespaces=[("{user_id}", "memories"), ("org", "*", "{langgraph_user_id}")])
    store.put(("alice", "memories", "food"), "a", {"text": "Alice likes ramen"})
    store.put(("org", "acme", "bob"), "b", {"text": "Bob likes curry"})
    store.put(("alice",), "c", {"text": "shared: not Alice's"})  # too short for the template: shared scope
    assert [r.content for r in mem.list_memories(user_id="alice")] == ["Alice likes ramen"]
    assert [r.content for r in mem.list_memories(user_id="bob")] == ["Bob likes curry"]
    assert [r.content for r in _shared(mem)] == ["shared: not Alice's"]
    with pytest.raises(HermesNamespaceError, match="spans"):  # ("alice",) covers the shared item and Alice's
        store.search(("alice",))
    assert [i.key for i in store.search(("org", "acme", "bob"))] == ["b"]
    strict = HermesStore(mem, shared_namespaces=False)
    with pytest.raises(HermesNamespaceError, match="names no user"):
        strict.put(("users",), "x", {"a": 1})
    for bad in ([("memories",)], [("memories", "{a}", "{b}")], [("memories", "{user_id}")][0]):
        with pytest.raises(HermesNamespaceError):
            HermesStore(mem, user_namespaces=bad)  # type: ignore[arg-type]


def test_index_fields_and_index_false(mem: MemoryProvider) -> None:
    store = HermesStore(mem, index_fields=["title", "tags[*]"])
    store.put(("docs",), "a", {"title": "Trip to Kyoto", "body": "temples and tea", "tags": ["travel", "japan"]})
    store.put(("docs",), "b", {"title": "Tax return", "body": "receipts"}, index=["body"])
    store.put(("docs",), "c", {"title": "Kyoto again", "body": "more temples"}, index=False)
    store.put(("docs",), "d", {"body": "no title here"})  # nothing at the index fields: not indexed
    contents = {r.metadata["langgraph"]["key"]: r.content for r in _shared(mem)
                if "langgraph" in r.metadata}
    assert contents["a"] == "Trip to Kyoto\ntravel\njapan" and contents["b"] == "receipts"
    results = store.search(("docs",), query="Kyoto temples", limit=10)
    assert [r.key for r in results[:2]] == ["a", "b"] and [r.score is None for r in results] == [False, False, True, True]
    assert {r.key for r in results[2:]} == {"c", "d"}


def test_filters_limits_and_order(store: HermesStore) -> None:
    ns = ("memories", "alice", "tasks")
    for i in range(6):
        store.put(ns, f"t{i}", {"content": f"task {i}", "prio": i % 3, "state": "open" if i < 4 else "done"})
    store.put(ns, "t1", {"content": "task 1 again", "prio": 1, "state": "open"})  # rewritten: now the newest
    newest_first = [i.key for i in store.search(("memories", "alice"), limit=10)]
    assert newest_first == ["t1", "t5", "t4", "t3", "t2", "t0"]
    assert [i.key for i in store.search(ns, filter={"state": "open", "prio": {"$gte": 1}})] == ["t1", "t2"]
    assert [i.key for i in store.search(ns, filter={"prio": {"$ne": 0, "$lt": 2}})] == ["t1", "t4"]
    assert [i.key for i in store.search(ns, limit=2, offset=1)] == ["t5", "t4"]
    assert [i.key for i in store.search(ns, query="task", filter={"state": "done"}, limit=10)] in (["t4", "t5"], ["t5", "t4"])
    with pytest.raises(InvalidInputError, match="unsupported filter operator"):
        store.search(ns, filter={"prio": {"$in": [1, 2]}})
    store.put(ns, "note", {"content": "no priority", "state": "open"})  # a range never matches a missing field
    assert "note" not in [i.key for i in store.search(ns, filter={"prio": {"$gte": 0}})]
    assert "note" in [i.key for i in store.search(ns, filter={"prio": {"$ne": 1}})]  # $ne does, as in LangGraph


def test_list_namespaces(store: HermesStore) -> None:
    for ns in [("memories", "alice"), ("memories", "alice", "profile"), ("memories", "bob", "profile"),
               ("docs", "v1"), ("docs", "v2", "draft")]:
        store.put(ns, "k", {"x": 1})
    assert store.list_namespaces(prefix=("memories",), max_depth=2) == [("memories", "alice"), ("memories", "bob")]
    assert store.list_namespaces(suffix=("profile",)) == [("memories", "alice", "profile"), ("memories", "bob", "profile")]
    assert store.list_namespaces(prefix=("*", "*", "draft")) == [("docs", "v2", "draft")]
    assert store.list_namespaces(prefix=("docs",), limit=1, offset=1) == [("docs", "v2", "draft")]
    store.delete(("docs", "v1"), "k")
    assert store.list_namespaces(prefix=("docs",)) == [("docs", "v2", "draft")]


def test_a_bad_batch_changes_nothing(store: HermesStore) -> None:
    store.put(("memories", "alice"), "k", {"content": "kept"})
    bad_batches = [
        [PutOp(("memories", "alice"), "k", {"content": "new"}), PutOp(("memories", "alice"), "x", {"v": float("nan")})],
        [PutOp(("memories", "alice"), "k", {"content": "new"}), PutOp(("a.b",), "x", {"v": 1})],
        [PutOp(("memories", "alice"), "k", {"content": "new"}), PutOp(("langgraph",), "x", {"v": 1})],
        [PutOp(("memories", "alice"), "k", {"content": "new"}), SearchOp(("memories",), None, 10, 0, None)],
        [PutOp(("memories", "alice"), "k", {"content": "new"}), PutOp(("memories", "alice"), "x", ["not", "a", "dict"])],  # type: ignore[arg-type]
        [PutOp(("memories", "alice"), "k", {"content": "new"}), SearchOp(("memories", "alice"), None, -1, 0, None)],
    ]
    for ops in bad_batches:
        with pytest.raises(InvalidInputError):
            store.batch(ops)
    assert store.batch([GetOp(("memories", "alice"), "k")])[0].value == {"content": "kept"}
    with pytest.raises(NotImplementedError):
        store.put(("memories", "alice"), "t", {"v": 1}, ttl=5)


def test_pii_in_values_follows_the_cores_policy(mem: MemoryProvider) -> None:
    value = {"content": "Call me on 13800138000 or mail alice@example.com", "n": 1}
    HermesStore(mem).put(("users",), "alice", value)
    stored = HermesStore(mem).get(("users",), "alice")
    assert stored is not None and "13800138000" not in str(stored.value) and "alice@example.com" not in str(stored.value)
    raw = HermesStore(mem, redact_values=False)
    raw.put(("users",), "bob", value)
    assert raw.get(("users",), "bob").value == value  # type: ignore[union-attr]


def test_limits_are_clear_errors(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "a", max_metadata_bytes=600), embedder=embedder) as small:
        store = HermesStore(small)
        with pytest.raises(InvalidInputError, match="max_metadata_bytes"):
            store.put(("docs",), "big", {"text": "x" * 1000})
    with MemoryProvider(make_config(tmp_path / "b", max_tags=4), embedder=embedder) as few, \
            pytest.raises(ConfigError, match="max_tags"):
        HermesStore(few)
    with MemoryProvider(make_config(tmp_path / "c", max_tags=6), embedder=embedder) as shallow:
        store = HermesStore(shallow)
        with pytest.raises(HermesNamespaceError, match="max_tags"):
            store.put(("a", "b"), "k", {"v": 1})


async def test_async_api(store: HermesStore) -> None:
    await store.aput(("memories", "alice"), "tz", {"content": "Alice lives in UTC+8"})
    assert (await store.aget(("memories", "alice"), "tz")).value == {"content": "Alice lives in UTC+8"}  # type: ignore[union-attr]
    assert [i.key for i in await store.asearch(("memories", "alice"), query="time zone")] == ["tz"]
    assert await store.alist_namespaces() == [("memories", "alice")]
    await store.adelete(("memories", "alice"), "tz")
    assert await store.aget(("memories", "alice"), "tz") is None


def test_items_survive_restart_and_travel_in_the_export_bundle(tmp_path: Path, embedder: Embedder) -> None:
    config = make_config(tmp_path / "store")
    with MemoryProvider(config, embedder=embedder, caller=ADMIN) as mem:
        store = HermesStore(mem)
        store.put(("memories", "alice"), "city", {"content": "爱丽丝住在杭州"})
        store.put(("users",), "alice", {"plan": "pro"})
        mem.export(tmp_path / "bundle")
    with MemoryProvider(config, embedder=embedder, caller=ADMIN) as mem:
        assert HermesStore(mem).get(("memories", "alice"), "city").value == {"content": "爱丽丝住在杭州"}  # type: ignore[union-attr]
    restored = MemoryProvider.restore(tmp_path / "bundle", make_config(tmp_path / "elsewhere"), embedder=embedder,
                                      caller=ADMIN)
    with restored:
        store = HermesStore(restored)
        assert store.list_namespaces() == [("memories", "alice"), ("users",)]
        assert store.search(("memories", "alice"), query="她住在哪个城市？")[0].key == "city"
        assert store.get(("users",), "alice").value == {"plan": "pro"}  # type: ignore[union-attr]


def test_forget_never_touches_store_items(mem: MemoryProvider, store: HermesStore) -> None:
    store.put(("memories", "alice"), "k", {"content": "Alice collects stamps"})
    report = mem.forget(dry_run=True, now=mem.list_memories(user_id="alice")[0].created_at + 400 * 86_400)
    assert report.downgraded == [] and report.expired_long_term == []


def test_other_configs(tmp_path: Path, embedder: Embedder) -> None:
    config = MemoryConfig(data_dir=tmp_path / "s", redact_pii=False)
    with MemoryProvider(config, embedder=embedder) as mem:
        assert HermesStore(mem).redact_values is False


def test_a_per_user_bundle_lists_its_namespaces_after_reindexing(tmp_path: Path, embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "store"), embedder=embedder, caller=ADMIN) as mem:
        store = HermesStore(mem)
        store.put(("memories", "alice"), "a", {"content": "Alice plays the cello"})
        store.put(("memories", "alice", "work"), "b", {"content": "Alice reviews PRs on Mondays"})
        store.put(("memories", "bob"), "c", {"content": "Bob plays chess"})
        mem.export(tmp_path / "alice", user_id="alice")
    with MemoryProvider.restore(tmp_path / "alice", make_config(tmp_path / "new"), embedder=embedder,
                                caller=ADMIN) as restored:
        store = HermesStore(restored)
        assert store.get(("memories", "alice", "work"), "b") is not None  # items are there at once
        assert store.list_namespaces() == []  # the registry stayed behind
        assert store.reindex_namespaces() == 2 and await_(store.areindex_namespaces()) == 0
        assert store.list_namespaces() == [("memories", "alice"), ("memories", "alice", "work")]
