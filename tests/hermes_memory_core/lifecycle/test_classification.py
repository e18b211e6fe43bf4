"""remember(): classification on the host LLM, every failure path → short_term, normalisation, versioned facts."""

from __future__ import annotations

import json

import pytest

from hermes_memory_core import MemoryProvider, MemoryType
from hermes_memory_core.lifecycle.classifier import RuleClassifier, parse_classification, rule_normalize
from tests.hermes_memory_core.fake_llms import FixedLLM, RaisingLLM, ScriptedLLM, SlowLLM


def _answer(tier: str, key: str | None = None) -> str:
    return json.dumps({"type": tier, "reason": f"scripted {tier}", "key": key})


def test_long_term_is_normalised_in_the_users_language(mem: MemoryProvider) -> None:
    llm = ScriptedLLM(classify=lambda c: _answer("long_term", "programming_language"),
                      normalize=lambda c: "用户主用 Python，避免 Java")
    res = mem.remember("我平时写 Python 比较多，不太想用 Java", user_id="u", llm=llm)
    assert res.memory_type is MemoryType.LONG_TERM and res.action == "added" and res.id
    assert mem.get(res.id).content == "用户主用 Python，避免 Java"
    assert mem.get(res.id).metadata["reason"] == "scripted long_term"
    assert mem.search("Which language does the user use?", user_id="u")[0].id == res.id


def test_permanent_fact_is_versioned(mem: MemoryProvider) -> None:
    llm = ScriptedLLM(classify=lambda c: _answer("permanent", "coffee"), normalize=lambda c: rule_normalize(c))
    first = mem.remember("我喜欢喝美式", user_id="u", llm=llm)
    second = mem.remember("我最近戒咖啡了", user_id="u", llm=llm)
    assert first.action == "added" and second.action == "versioned" and second.id == first.id
    history = mem.history(first.id)
    assert [h.content for h in history] == ["用户喜欢喝美式", "用户最近戒咖啡了"]
    assert history[0].created_at <= history[1].created_at
    hits = mem.recall("用户现在还喝咖啡吗？", user_id="u")
    assert hits[0].content == "用户最近戒咖啡了" and len([h for h in hits if h.id == first.id]) == 1
    other = mem.remember("I'm allergic to peanuts", user_id="someone-else", llm=llm)  # same key, other user
    assert other.action == "added"


@pytest.mark.parametrize(
    "llm",
    [
        FixedLLM("this is not json at all"),
        FixedLLM(""),
        FixedLLM('{"type": "forever", "reason": "?"}'),
        FixedLLM("[1, 2, 3]"),
        FixedLLM('```json\n{"type": "permanent"\n```'),
        RaisingLLM(),
        SlowLLM(5.0),
    ],
    ids=["garbage", "empty", "unknown-label", "not-object", "truncated-json", "exception", "slow"],
)
def test_every_classifier_failure_is_decided_by_the_rules(mem: MemoryProvider, llm) -> None:  # type: ignore[no-untyped-def]
    """A model that cannot answer (junk, nothing, an exception, a timeout) never leaves the user with less memory than
    no model: the rules classify what it could not, and the reason says the model's answer was not used."""
    mem.config.llm_timeout_seconds = 0.3
    res = mem.remember("I work as a nurse in Lyon", user_id="u", session_id="s", llm=llm)
    assert res.memory_type is MemoryType.PERMANENT and res.reason.startswith("rules: a lasting fact")
    assert "the model's answer:" in res.reason
    assert mem.get(res.id, user_id="u").content == "The user works as a nurse in Lyon"
    assert mem.stats().by_type["permanent"] == 1 and mem.stats().by_type["long_term"] == 0


def test_parse_accepts_fenced_json_and_cleans_keys() -> None:
    c = parse_classification('```json\n{"type": "Permanent", "reason": "name", "key": "User Name!"}\n```')
    assert c.memory_type is MemoryType.PERMANENT and c.key == "user_name"
    assert parse_classification('Sure! {"type": "long_term", "reason": "x"} hope that helps').memory_type is MemoryType.LONG_TERM


@pytest.mark.parametrize(
    ("text", "tier"),
    [
        ("我叫王小明", MemoryType.PERMANENT),
        ("My name is Dana", MemoryType.PERMANENT),
        ("I'm allergic to shellfish", MemoryType.PERMANENT),
        ("我对花生过敏", MemoryType.PERMANENT),
        ("I work as a data engineer at Acme", MemoryType.PERMANENT),
        ("我最近戒咖啡了", MemoryType.LONG_TERM),  # a changed habit, not a hard fact (it versions the habit)
        ("我平时写 Python 比较多，不太想用 Java", MemoryType.LONG_TERM),
        ("I prefer short answers with code", MemoryType.LONG_TERM),
        ("我喜欢喝美式", MemoryType.LONG_TERM),
        ("I usually run in the morning", MemoryType.LONG_TERM),
        ("the build failed again", MemoryType.SHORT_TERM),
        ("ok thanks", MemoryType.SHORT_TERM),
        ("继续", MemoryType.SHORT_TERM),
    ],
)
def test_rule_classifier_without_llm(text: str, tier: MemoryType) -> None:
    assert RuleClassifier().classify(text).memory_type is tier


def test_without_llm_rules_and_normaliser_run(mem: MemoryProvider) -> None:
    res = mem.remember("我平时写 Python 比较多，不太想用 Java", user_id="u")
    assert res.memory_type is MemoryType.LONG_TERM and res.content == "用户平时写 Python 比较多，不太想用 Java"
    assert rule_normalize("I prefer tea and my cat hates me") == "The user prefers tea and their cat hates the user"


def test_evicted_turns_are_promoted_on_the_sessions_llm(mem: MemoryProvider) -> None:
    llm = ScriptedLLM(
        classify=lambda c: _answer("long_term" if "Python" in c else "short_term"),
        normalize=lambda c: "用户主用 Python",
    )
    s = mem.session("u", "s", llm=llm)
    s.add_messages([("user", "我平时写 Python 比较多"), ("assistant", "好的")])
    for i in range(12):
        s.add_messages([("user", f"step {i}"), ("assistant", "ok")])
    s.flush()
    longs = mem.search("Python", user_id="u", memory_types=["long_term"])
    assert [h.content for h in longs] == ["用户主用 Python"]
    assert longs[0].metadata["source"] == "evicted_turn"
    assert any("memory classifier" in p for p in llm.calls)


async def test_async_remember_and_recall(mem: MemoryProvider) -> None:
    res = await mem.aremember("I usually drink green tea", user_id="u")
    assert res.memory_type is MemoryType.LONG_TERM
    assert (await mem.arecall("what does the user drink?", user_id="u"))[0].id == res.id
    assert (await mem.arecall("thanks!", user_id="u")) == []


def test_promotion_embeds_a_batch_together(config, embedder) -> None:  # type: ignore[no-untyped-def]
    """Evicted turns are classified one by one but embedded together (one call for the batch)."""

    class CountingEmbedder:  # wraps the real model, records each call's texts
        def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
            self.inner, self.model_id, self.dim, self.calls = inner, inner.model_id, inner.dim, []

        def embed_documents(self, texts):  # type: ignore[no-untyped-def]
            self.calls.append(list(texts))
            return self.inner.embed_documents(texts)

        def embed_query(self, text):  # type: ignore[no-untyped-def]
            return self.inner.embed_query(text)

    counting = CountingEmbedder(embedder)
    # without conversation memories every embedding call comes from promotion: a user's line is embedded as said
    # about the user, so an archive that kept jazz, tea and meetings together (a busy machine answers three turns
    # before the worker runs) would be a call of the same texts
    with MemoryProvider(config.model_copy(update={"conversation_memories": False}), embedder=counting) as mem:
        s = mem.session("u", "s")
        prefs = ["I usually run in the morning", "I love jazz records", "I prefer tea", "I hate long meetings"]
        for text in prefs:
            s.add_messages([("user", text), ("assistant", "noted")])
        for i in range(9):
            s.add_messages([("user", f"step {i}"), ("assistant", "ok")])
        s.flush()
        # the four promoted preferences are embedded in one call
        facts = {"The user usually runs in the morning", "The user loves jazz records", "The user prefers tea",
                 "The user hates long meetings"}
        promoted = [call for call in counting.calls if call and set(call) <= facts]
        assert len(promoted) == 1 and len(promoted[0]) == 4
        assert mem.stats().by_type["long_term"] == 4
