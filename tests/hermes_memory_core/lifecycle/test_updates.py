"""Changes become versions, for long-term memories too; authority decides who may supersede a fact; one fact per
topic. Storage-touching tests run on both metadata backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryProvider, MemoryType
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.lifecycle.classifier import RuleClassifier, rule_normalize, split_facts
from hermes_memory_core.lifecycle.updates import is_change, subject_words, topic
from tests.conftest import ADMIN, BACKENDS, make_config
from tests.hermes_memory_core.fake_llms import ScriptedLLM


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    clock = [1_700_000_000.0]

    def tick() -> float:
        clock[0] += 1
        return clock[0]

    provider = MemoryProvider(make_config(tmp_path / "s", request.param), embedder=embedder, caller=ADMIN, clock=tick)
    yield provider
    provider.close()


def _keyed(tier: str, key: str) -> ScriptedLLM:
    return ScriptedLLM(classify=lambda c: json.dumps({"type": tier, "reason": f"scripted {key}", "key": key}),
                       normalize=rule_normalize)


# ------------------------------------------------------------------------------------------ change rules (text)
@pytest.mark.parametrize(
    "text",
    ["我最近把咖啡戒了", "我不再用 Java 了", "我改用 Vim 了", "我现在换成燕麦奶了", "我搬到上海了", "我已经不跑步了",
     "I no longer drink coffee", "I stopped eating meat", "I switched to Go", "I quit smoking last month",
     "I moved to Lisbon", "I don't use Windows anymore", "I gave up sugar"],
)
def test_change_statements_are_recognised(text: str) -> None:
    assert is_change(text)


@pytest.mark.parametrize("text", ["我每天早上都喝一杯美式咖啡", "我喜欢猫", "I usually drink tea", "I love jazz records"])
def test_plain_statements_are_not_changes(text: str) -> None:
    assert not is_change(text)


def test_subjects() -> None:
    assert topic("用户最近把咖啡戒了") == topic("The user drinks an americano every morning") == "coffee"
    assert topic("I switched to Go") == topic("The user mainly uses Python") == "programming_language"
    assert topic("I go running") == "exercise"
    assert "咖啡" in subject_words("用户最近把咖啡戒了") and "用户" not in subject_words("用户最近把咖啡戒了")


def test_rules_classify_habits_and_changes_as_long_term() -> None:
    rules = RuleClassifier()
    for text in ["我每天早上都喝一杯美式咖啡", "我最近把咖啡戒了", "I drink a latte every morning", "I no longer drink coffee"]:
        assert rules.classify(text).memory_type is MemoryType.LONG_TERM, text


# ------------------------------------------------------------------------------------------ versions
def test_the_seed_example_becomes_one_memory_with_two_versions(store: MemoryProvider) -> None:
    store.remember("我喜欢看科幻小说", user_id="u")
    first = store.remember("我每天早上都喝一杯美式咖啡", user_id="u")
    assert first.action == "added" and first.memory_type is MemoryType.LONG_TERM
    second = store.remember("我最近把咖啡戒了", user_id="u")
    assert second.action == "versioned" and second.id == first.id and second.memory_type is MemoryType.LONG_TERM
    history = store.history(first.id)  # type: ignore[arg-type]
    assert [v.content for v in history] == ["用户每天早上都喝一杯美式咖啡", "用户最近把咖啡戒了"]
    assert history[0].current_to == history[1].current_from and history[1].current_to is None
    assert history[1].note.startswith("changed: ")
    hits = store.search("咖啡", user_id="u")
    assert [h.content for h in hits if h.id == first.id] == ["用户最近把咖啡戒了"]
    assert sum(h.id == first.id for h in hits) == 1 and store.stats().by_type["long_term"] == 2


@pytest.mark.real_model
def test_does_the_user_still_drink_coffee(tmp_path: Path, real_embedder: Embedder) -> None:
    with MemoryProvider(make_config(tmp_path / "s"), embedder=real_embedder, caller=ADMIN) as mem:
        for text in ["我喜欢看科幻小说", "我每天早上都喝一杯美式咖啡", "I work remotely on Fridays", "我养了一只猫"]:
            mem.remember(text, user_id="u")
        changed = mem.remember("我最近把咖啡戒了", user_id="u")
        assert changed.action == "versioned"
        hits = mem.search("Does the user still drink coffee?", user_id="u", top_k=3)
        assert hits[0].id == changed.id and hits[0].content == "用户最近把咖啡戒了"
        assert all(h.content != "用户每天早上都喝一杯美式咖啡" for h in hits)


def test_english_changes_version_the_memory_on_the_same_subject(store: MemoryProvider) -> None:
    py = store.remember("I mostly use Python", user_id="u")
    tea = store.remember("I usually drink green tea", user_id="u")
    store.remember("I love jazz records", user_id="u")
    switched = store.remember("I switched to Go", user_id="u")
    assert switched.action == "versioned" and switched.id == py.id
    stopped = store.remember("I no longer drink green tea", user_id="u")
    assert stopped.action == "versioned" and stopped.id == tea.id
    assert store.get(tea.id).content == "The user no longer drinks green tea"  # type: ignore[arg-type]
    nothing_to_change = store.remember("I quit my chess club", user_id="u")
    assert nothing_to_change.action == "added"


def test_different_facts_on_one_subject_stay_apart(store: MemoryProvider) -> None:
    a = store.remember("I like green tea", user_id="u")
    b = store.remember("I also like coffee", user_id="u")
    c = store.remember("我喜欢猫", user_id="u")
    d = store.remember("我喜欢狗", user_id="u")
    assert {a.action, b.action, c.action, d.action} == {"added"} and len({a.id, b.id, c.id, d.id}) == 4


def test_a_topic_key_versions_a_long_term_memory(store: MemoryProvider) -> None:
    llm = _keyed("long_term", "programming_language")
    first = store.remember("我平时写 Python 比较多", user_id="u", llm=llm)
    second = store.remember("I write Go these days", user_id="u", llm=llm)
    assert first.action == "added" and second.action == "versioned" and second.id == first.id
    assert [v.version for v in store.history(first.id)] == [1, 2]  # type: ignore[arg-type]
    assert [h.content for h in store.search("Go", user_id="u")] == ["The user writes Go these days"]
    other_user = store.remember("I write Rust", user_id="v", llm=llm)
    assert other_user.action == "added"


def test_favourites_are_keyed_without_a_model(store: MemoryProvider) -> None:
    first = store.remember("My favorite editor is Vim", user_id="u")
    second = store.remember("My favourite editor is Helix", user_id="u")
    assert second.action == "versioned" and second.id == first.id


def test_a_batch_of_promoted_turns_versions_within_itself(store: MemoryProvider) -> None:
    s = store.session("u", "s")
    s.add_messages([("user", "我每天早上都喝一杯美式咖啡"), ("assistant", "好的")])
    s.add_messages([("user", "我最近把咖啡戒了"), ("assistant", "明白")])
    for i in range(12):
        s.add_messages([("user", f"step {i}"), ("assistant", "ok")])
    s.flush()
    longs = store.list_memories(user_id="u", memory_types=["long_term"])
    assert [m.content for m in longs] == ["用户最近把咖啡戒了"] and longs[0].version == 2


# ------------------------------------------------------------------------------------------ authority
def test_a_tool_fact_is_superseded_only_with_its_authority(store: MemoryProvider) -> None:
    llm = _keyed("permanent", "account_tier")
    billing = Caller.admin("billing")
    fact = store.remember("Account tier: VIP (billing API)", user_id="u", source="tool", caller=billing, llm=llm)
    assert fact.action == "added" and fact.memory_type is MemoryType.PERMANENT
    claim = store.remember("My account tier is Basic now", user_id="u", caller=billing, llm=llm)
    assert claim.action == "kept_apart" and claim.memory_type is MemoryType.LONG_TERM and claim.id != fact.id
    assert store.get(claim.id).content.startswith("The user says: ")  # type: ignore[arg-type]
    assert store.get(claim.id).metadata["disputes"] == fact.id  # type: ignore[arg-type]
    assert [v.content for v in store.history(fact.id)] == ["Account tier: VIP (billing API)"]  # type: ignore[arg-type]
    again = store.remember("My account tier is Basic now", user_id="u", caller=billing, llm=llm)
    assert again.action == "duplicate" and again.id == claim.id  # the claim is one memory too
    tool = store.remember("Account tier: Basic (billing API)", user_id="u", source="tool", caller=billing, llm=llm)
    assert tool.action == "versioned" and tool.id == fact.id
    assert store.get(fact.id).content == "Account tier: Basic (billing API)"  # type: ignore[arg-type]


def test_a_change_statement_never_rewrites_a_fact_above_its_authority(store: MemoryProvider) -> None:
    store.remember("Home office: Lisbon (HR system)", user_id="u", source="tool", caller=Caller.admin("hr"),
                   llm=_keyed("permanent", "office"))
    res = store.remember("I moved out of the Lisbon office", user_id="u")
    assert res.action in ("added", "kept_apart") and res.memory_type is MemoryType.LONG_TERM
    assert store.stats().by_type["permanent"] == 1
    fact = store.list_memories(user_id="u", memory_types=["permanent"])[0]
    assert fact.version == 1


def test_user_facts_still_supersede_each_other(store: MemoryProvider) -> None:
    first = store.remember("I live in Lyon", user_id="u")
    second = store.remember("I moved to Lisbon", user_id="u")
    assert first.memory_type is MemoryType.PERMANENT and second.action == "versioned" and second.id == first.id


# ------------------------------------------------------------------------------------------ one fact per topic
def test_split_multi_fact_statements() -> None:
    assert split_facts("My name is Dana and I am allergic to penicillin") == [
        "My name is Dana", "I am allergic to penicillin"]
    assert split_facts("我叫王小明，对青霉素过敏") == ["我叫王小明", "我对青霉素过敏"]
    assert split_facts("I am allergic to peanuts and shellfish") == ["I am allergic to peanuts and shellfish"]
    assert split_facts("I live in Lyon") == ["I live in Lyon"]
    # a clause that shares the first one's subject is a fact of its own, and is given its subject back
    assert split_facts("I live in Boston and work as a software engineer at Google.") == [
        "I live in Boston", "I work as a software engineer at Google."]
    assert split_facts("我住在成都，是一名护士。") == ["我住在成都", "我是一名护士。"]
    assert split_facts("I love rock and roll") == ["I love rock and roll"]
    assert split_facts("I like tea but hate coffee") == ["I like tea but hate coffee"]
    # a subject alone is no statement: "My wife" joins the clause it starts
    assert split_facts("My wife and I live in Rome.") == ["My wife and I live in Rome."]
    assert split_facts("My dog is named Rex and my birthday is March 3rd.") == [
        "My dog is named Rex", "my birthday is March 3rd."]


def test_a_passing_remark_about_a_fact_is_no_new_version_of_it(store: MemoryProvider) -> None:
    """"My cat Mochi is sick today" is about the cat, not a new value of the fact that the user has one: neither said
    in chat nor asked to be remembered does it replace "The user has a cat named Mochi." (a change said today
    still is one)."""
    cat = store.remember("I have a cat named Mochi.", user_id="u")
    assert store.remember("My cat Mochi is sick today, I'm worried about him.", user_id="u").action == "added"
    chat = store.session("u", "s")
    chat.add_messages([("user", "我的猫今天生病了。"), ("assistant", "Oh no.")])
    chat.close()
    store.flush()
    assert [v.content for v in store.history(cat.id, user_id="u")] == ["The user has a cat named Mochi."]
    home = store.remember("I live in Lyon", user_id="u")
    assert store.remember("I moved to Berlin today.", user_id="u").id == home.id


def test_a_move_said_later_in_chat_keeps_the_job_said_with_the_old_home(store: MemoryProvider) -> None:
    """One chat line that gave home and job, then a move in the other language: the home is versioned, the job
    stays the user's current fact (it was one fact, and the move replaced it)."""
    for i, said in enumerate(["I live in Boston and work as a software engineer at Google.", "我搬到深圳了"]):
        chat = store.session("u", f"s{i}")
        chat.add_messages([("user", said), ("assistant", "OK.")])
        chat.close()
        store.flush()
    facts = sorted(r.content for r in store.list_memories(user_id="u", memory_types=["permanent", "long_term"]))
    assert facts == ["The user works as a software engineer at Google.", "用户搬到深圳了"]


def test_a_name_change_never_erases_an_allergy(store: MemoryProvider) -> None:
    both = store.remember("My name is Dana and I am allergic to penicillin", user_id="u")
    assert len(both.parts) == 2 and {p.action for p in both.parts} == {"added"}
    assert both.id == both.parts[0].id
    renamed = store.remember("My name is Robin", user_id="u")
    assert renamed.action == "versioned" and renamed.id == both.parts[0].id
    allergy = store.get(both.parts[1].id)  # type: ignore[arg-type]
    assert allergy.content == "The user is allergic to penicillin" and allergy.version == 1
    assert store.remember("我叫王小明，我对青霉素过敏", user_id="w").parts[1].memory_type is MemoryType.PERMANENT


def test_allergies_and_relatives_are_facts_of_their_own(store: MemoryProvider) -> None:
    peanuts = store.remember("我对花生过敏", user_id="u")
    penicillin = store.remember("我对青霉素过敏", user_id="u")
    son = store.remember("My son is 7", user_id="u")
    daughter = store.remember("My daughter is 9", user_id="u")
    assert {peanuts.action, penicillin.action, son.action, daughter.action} == {"added"}
    older = store.remember("My son is 8", user_id="u")
    assert older.action == "versioned" and older.id == son.id
    assert store.stats().by_type["permanent"] == 4


async def test_async_remember_versions(store: MemoryProvider) -> None:
    first = await store.aremember("I usually drink green tea", user_id="u")
    second = await store.aremember("I no longer drink green tea", user_id="u")
    assert second.action == "versioned" and second.id == first.id


def test_a_fact_said_again_keeps_the_time_it_was_said(tmp_path: Path, embedder: Embedder) -> None:
    """A statement said twice in a session is one fact; the repeat counts at the time it was said, not at the time
    the session ended a week later (the block dates a fact by it)."""
    now = [1_700_000_000.0]
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN, clock=lambda: now[0]) as mem:
        chat = mem.session("u", "a")
        chat.add_messages([("user", "My cat is called Miso."), ("assistant", "Nice.")])
        now[0] += 60
        chat.add_messages([("user", "My cat is called Miso."), ("assistant", "OK.")])
        now[0] += 7 * 86_400
        chat.close()
        mem.flush()
        (fact,) = mem.list_memories(user_id="u", memory_types=["permanent"])
        assert fact.created_at == 1_700_000_000 and fact.updated_at == 1_700_000_060
