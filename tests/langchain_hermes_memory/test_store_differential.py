"""HermesStore against LangGraph's InMemoryStore on seeded random batches of get/put/delete/search/list ops.

The reference decides which items exist, which pass a filter, which namespaces are listed and what a get returns.
Two documented differences are normalised, not hidden:

- order without a query: HermesStore returns the most recently written first (the test keeps the write order);
  InMemoryStore returns dict insertion order;
- InMemoryStore keeps a namespace in ``list_namespaces`` after its last item is deleted (and after a ``get`` on
  it); HermesStore lists only namespaces holding items, so the reference's empty namespaces are dropped.

With a query, InMemoryStore (no embedding index) ignores it; HermesStore ranks the indexed matches first (with a
score) and then the unindexed ones, so the test compares sets and that split.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from langchain_hermes_memory import HermesStore
from langchain_hermes_memory.namespaces import HermesNamespaceError
from tests.conftest import ADMIN, BACKENDS, make_config

USERS = ["alice", "bob", "carol"]
NAMESPACES = [
    *[("memories", u) for u in USERS],
    *[("memories", u, "profile") for u in USERS],
    ("memories", "alice", "notes", "work"),
    ("users",),
    ("docs",),
    ("docs", "a"),
    ("docs", "b", "drafts"),
]
PREFIXES = [("memories", "alice"), ("memories", "bob"), ("memories", "carol", "profile"),
            ("memories", "alice", "notes"), ("users",), ("docs",), ("docs", "a"), ("docs", "b")]
SPANNING = [(), ("memories",)]  # reach several users: HermesStore refuses them
KEYS = [f"k{i}" for i in range(5)]
WORDS = ["coffee", "python", "hiking", "berlin", "咖啡", "杭州", "跑步", "编辑器", "rust", "garden"]


def _value(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {"n": rng.randint(0, 4)}
    if rng.random() < 0.8:
        value["text"] = " ".join(rng.sample(WORDS, rng.randint(1, 3)))
    if rng.random() < 0.6:
        value["tag"] = rng.choice(["red", "blue"])
    if rng.random() < 0.4:
        value["meta"] = {"lvl": rng.randint(0, 3), "ok": rng.random() < 0.5}
    if rng.random() < 0.3:
        value["list"] = rng.sample(["a", "b", "c"], 2)
    return value


def _filter(rng: random.Random) -> dict[str, Any] | None:
    return rng.choice([
        None, None,
        {"tag": "red"},
        {"tag": {"$ne": "red"}},
        {"n": {"$gte": rng.randint(0, 4)}},
        {"n": {"$gt": rng.randint(0, 2), "$lte": rng.randint(2, 4)}},
        {"n": {"$lt": rng.randint(1, 4)}, "tag": "blue"},
        {"n": {"$eq": rng.randint(0, 4)}},
        {"meta": {"lvl": rng.randint(0, 3)}},
        {"list": ["a", "b"]},
    ])


def _op(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.4:
        index = rng.choice([None, None, False, ["text"]])
        return PutOp(rng.choice(NAMESPACES), rng.choice(KEYS), _value(rng), index=index)
    if roll < 0.5:
        return PutOp(rng.choice(NAMESPACES), rng.choice(KEYS), None)
    if roll < 0.65:
        return GetOp(rng.choice(NAMESPACES), rng.choice(KEYS))
    if roll < 0.9:
        prefix = rng.choice(PREFIXES)
        query = rng.choice([None, None, rng.choice(WORDS)])
        return SearchOp(prefix, _filter(rng), rng.choice([1, 2, 3, 10, 50]), rng.choice([0, 0, 1, 2]), query)
    conditions = []
    if rng.random() < 0.6:
        conditions.append(MatchCondition("prefix", rng.choice([("memories",), ("memories", "*"), ("docs",),
                                                                ("memories", "alice"), ("*", "*", "profile")])))
    if rng.random() < 0.4:
        conditions.append(MatchCondition("suffix", rng.choice([("profile",), ("*",), ("a",), ("alice",)])))
    return ListNamespacesOp(tuple(conditions) or None, rng.choice([None, None, 1, 2, 3]),
                            rng.choice([2, 5, 100]), rng.choice([0, 0, 1]))


def _purge(ref: InMemoryStore) -> None:
    """Drop the reference's empty namespaces (see the module docstring)."""
    for ns in [ns for ns, items in ref._data.items() if not items]:
        del ref._data[ns]


def _indexed(op: PutOp) -> bool:
    assert op.value is not None
    if op.index is False:
        return False
    return op.index is None or bool(str(op.value.get("text", "")).strip())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_batches_agree_with_in_memory_store(tmp_path: Path, embedder: Embedder, backend: str, seed: int) -> None:
    with MemoryProvider(make_config(tmp_path / "store", backend), embedder=embedder, caller=ADMIN) as mem:
        _run(HermesStore(mem), random.Random(seed))


def _run(store: HermesStore, rng: random.Random) -> None:
    ref = InMemoryStore()
    written: dict[tuple[tuple[str, ...], str], int] = {}  # (namespace, key) -> write order
    indexed: dict[tuple[tuple[str, ...], str], bool] = {}
    clock = 0
    checked = {"get": 0, "search": 0, "query": 0, "list": 0, "refused": 0}
    for step in range(60):
        ops = [_op(rng) for _ in range(rng.randint(1, 4))]
        puts = [o for o in ops if isinstance(o, PutOp) and o.value is not None]
        if puts and rng.random() < 0.5:  # a key put twice around another put: the last put wins and is newest
            again = rng.choice(puts)
            other = rng.choice([k for k in KEYS if k != again.key])
            ops += [PutOp(again.namespace, other, _value(rng)), PutOp(again.namespace, again.key, _value(rng))]
        if step % 12 == 11:  # a batch that would read several users' memories is refused as a whole
            ops.insert(rng.randrange(len(ops) + 1), SearchOp(rng.choice(SPANNING), None, 10, 0, rng.choice([None, "x"])))
        if any(isinstance(o, SearchOp) and o.namespace_prefix in SPANNING for o in ops):
            before = store.list_namespaces(limit=1000)
            with pytest.raises(HermesNamespaceError):
                store.batch(ops)
            assert store.list_namespaces(limit=1000) == before  # nothing written by the refused batch
            checked["refused"] += 1
            continue
        _purge(ref)
        expected: list[Any] = []
        for o in ops:  # reads see the state before the batch's writes, in both stores
            if isinstance(o, GetOp):
                expected.append(ref.get(o.namespace, o.key))
            elif isinstance(o, SearchOp):
                expected.append(ref.search(o.namespace_prefix, filter=o.filter, limit=10**6))
            elif isinstance(o, ListNamespacesOp):
                expected.append(ref.batch([o])[0])
            else:
                expected.append(None)
            _purge(ref)
        got = store.batch(ops)
        ref.batch(ops)
        for o, exp, res in zip(ops, expected, got, strict=True):
            if isinstance(o, GetOp):
                assert (res is None) == (exp is None), (o, exp, res)
                if res is not None:
                    assert (res.namespace, res.key, res.value) == (exp.namespace, exp.key, exp.value)
                    assert res.created_at <= res.updated_at
                checked["get"] += 1
            elif isinstance(o, SearchOp):
                everything = [(i.namespace, i.key) for i in exp]
                values = {(i.namespace, i.key): i.value for i in exp}
                got_keys = [(i.namespace, i.key) for i in res]
                assert all(i.value == values[(i.namespace, i.key)] for i in res)
                assert len(got_keys) == len(set(got_keys)) == min(o.limit, max(0, len(everything) - o.offset))
                if not o.query:
                    newest_first = sorted(everything, key=lambda k: -written[k])
                    assert got_keys == newest_first[o.offset : o.offset + o.limit], o
                    assert all(i.score is None for i in res)
                else:
                    assert set(got_keys) <= set(everything)
                    if o.offset == 0 and o.limit >= len(everything):
                        assert set(got_keys) == set(everything)
                    scores = [i.score for i in res]
                    ranked = [s for s in scores if s is not None]
                    assert scores[: len(ranked)] == ranked, "scored items come before unscored ones"
                    assert ranked == sorted(ranked, reverse=True)
                    assert all(indexed[k] == (s is not None) for k, s in zip(got_keys, scores, strict=True))
                    checked["query"] += 1
                checked["search"] += 1
            elif isinstance(o, ListNamespacesOp):
                assert res == exp, o
                checked["list"] += 1
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for o in ops:
            if isinstance(o, PutOp):
                puts.pop((o.namespace, o.key), None)
                puts[(o.namespace, o.key)] = o
        for k, o in puts.items():
            clock += 1
            if o.value is None:
                written.pop(k, None)
            else:
                written[k], indexed[k] = clock, _indexed(o)
    # the final state: every item and every namespace
    _purge(ref)
    for ns in NAMESPACES:
        for key in KEYS:
            mine, theirs = store.get(ns, key), ref.get(ns, key)
            assert (None if mine is None else mine.value) == (None if theirs is None else theirs.value)
        _purge(ref)
    assert store.list_namespaces(limit=1000) == ref.list_namespaces(limit=1000)
    assert min(checked.values()) > 0, checked  # every kind of op was exercised
