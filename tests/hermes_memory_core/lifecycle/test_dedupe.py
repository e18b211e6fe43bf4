"""One memory per fact: the detector's precision and recall on a labelled bilingual set, and ``remember`` /
promotion storing nothing new for a statement the user's memories already hold (both metadata backends)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryProvider, MemoryType
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.lifecycle.dedupe import fact_signature, same_fact
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.hermes_memory_core.lifecycle.dedupe_pairs import DUPLICATES, NEAR_MISSES, PARAPHRASES

_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_set_is_large_and_bilingual() -> None:
    zh = [p for p in NEAR_MISSES if _CJK.search(p[0])]
    assert len(NEAR_MISSES) >= 100 and len(zh) >= 50 and len(NEAR_MISSES) - len(zh) >= 50
    assert len(DUPLICATES) >= 50 and len(PARAPHRASES) >= 20
    assert len(set(NEAR_MISSES)) == len(NEAR_MISSES)


def test_precision_and_recall(capsys: pytest.CaptureFixture[str]) -> None:
    false_merges = [p for p in NEAR_MISSES if same_fact(*p)]
    found_dup = sum(same_fact(*p) for p in DUPLICATES)
    found_para = sum(same_fact(*p) for p in PARAPHRASES)
    true_pos = found_dup + found_para
    precision = true_pos / max(true_pos + len(false_merges), 1)
    recall_dup = found_dup / len(DUPLICATES)
    recall_all = true_pos / (len(DUPLICATES) + len(PARAPHRASES))
    with capsys.disabled():
        print(f"\none memory per fact: {len(NEAR_MISSES)} near misses, {len(DUPLICATES)} duplicates, "
              f"{len(PARAPHRASES)} paraphrases -> precision {precision:.3f} ({len(false_merges)} wrong merges), "
              f"recall {recall_dup:.3f} on duplicates, {found_para}/{len(PARAPHRASES)} paraphrases "
              f"({recall_all:.3f} overall)")
    assert precision >= 0.99, false_merges
    assert recall_dup >= 0.95


def test_symmetric_and_order_free_on_the_set() -> None:
    for a, b in NEAR_MISSES + DUPLICATES:
        assert same_fact(a, b) == same_fact(b, a), (a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The user is 3.5 years into a PhD", "The user is 35 years into a PhD"),  # punctuation that is a number
        ("用户主用 C++", "用户主用 C"),  # symbols that are names
        ("The user uses C#", "The user uses C"),
        ("用户对花生过敏", "The user is allergic to peanuts"),  # another language is never "the same sentence"
        ("用户十分喜欢猫", "用户喜欢十只猫"),
        ("", ""),
    ],
)
def test_guards(a: str, b: str) -> None:
    assert not same_fact(a, b)


def test_signature_reads_numbers_in_every_form() -> None:
    assert fact_signature("用户有两个孩子")[1] == fact_signature("用户有2个孩子")[1] == ("2",)
    assert fact_signature("The user has two kids")[1] == ("2",)
    assert fact_signature("用户的预算是一万五千元")[1] == ("15000",)
    assert fact_signature("The budget is $5,000")[1] == fact_signature("The budget is $5000")[1]
    assert fact_signature("用户一直喜欢猫")[1] == ()  # "一直" is no number


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    clock = [1_700_000_000.0]
    provider = MemoryProvider(make_config(tmp_path / "s", request.param), embedder=embedder, caller=ADMIN,
                              clock=lambda: clock[0])
    provider.clock = clock  # type: ignore[attr-defined]
    yield provider
    provider.close()


def test_remember_twice_stores_one_memory_and_counts_the_repetition(store: MemoryProvider) -> None:
    first = store.remember("I usually drink green tea in the afternoon", user_id="u")
    assert first.action == "added" and first.memory_type is MemoryType.LONG_TERM
    before = store.get(first.id)  # type: ignore[arg-type]
    store.clock[0] += 3600  # type: ignore[attr-defined]
    again = store.remember("I usually drink green tea in the afternoon!", user_id="u")
    assert again.action == "duplicate" and again.id == first.id and again.memory_type is MemoryType.LONG_TERM
    assert again.content == before.content
    after = store.get(first.id)  # type: ignore[arg-type]
    assert after.access_count == before.access_count + 1 and after.updated_at == before.updated_at + 3600
    assert after.version == 1 and store.stats().by_type["long_term"] == 1
    assert ("repeat", after.updated_at, "") in store.engine.metadata.access.access_log(first.id)  # type: ignore[arg-type]
    # a near miss is another fact: stored beside it
    other = store.remember("I usually drink black tea in the afternoon", user_id="u")
    assert other.action == "added" and other.id != first.id
    # another user's identical statement is theirs
    assert store.remember("I usually drink green tea in the afternoon", user_id="v").action == "added"


def test_duplicates_in_chinese_and_of_permanent_facts(store: MemoryProvider) -> None:
    fact = store.remember("我对花生过敏", user_id="u")
    assert fact.memory_type is MemoryType.PERMANENT and fact.action == "added"
    again = store.remember("我对花生过敏。", user_id="u")
    assert again.action == "duplicate" and again.id == fact.id and again.content == "用户对花生过敏"
    assert store.remember("我对青霉素过敏", user_id="u").action == "added"
    assert store.stats().by_type["permanent"] == 2


def test_a_duplicate_never_reveals_a_fact_the_caller_may_not_read(store: MemoryProvider) -> None:
    fact = store.remember("我对花生过敏", user_id="u")
    anon = Caller("anonymous")
    res = store.remember("我对花生过敏", user_id="u", session_id="s", caller=anon)
    # kept as the user's profile statement, a memory of its own: the sealed fact is neither named nor counted
    assert res.action == "added" and res.id != fact.id and res.memory_type is MemoryType.LONG_TERM


def test_promotion_of_a_repeated_statement_stores_nothing_new(store: MemoryProvider) -> None:
    kept = store.remember("I always take the train to work", user_id="u")
    s = store.session("u", "s")
    s.add_messages([("user", "I always take the train to work."), ("assistant", "noted")])
    s.add_messages([("user", "I always take the train to work"), ("assistant", "you said")])
    for i in range(12):
        s.add_messages([("user", f"step {i}"), ("assistant", "ok")])
    s.flush()
    assert store.stats().by_type["long_term"] == 1
    assert store.get(kept.id).access_count == 2  # type: ignore[arg-type]


def test_add_is_the_raw_api_and_never_merges(store: MemoryProvider) -> None:
    a = store.add("The user likes cats", user_id="u")
    b = store.add("The user likes cats", user_id="u")
    assert a != b and store.stats().by_type["long_term"] == 2
