"""Classifier answers that are not clean JSON: what is read, what stays short-term, and that a model
whose answers are mostly unusable is reported in ``stats().warnings`` and by one log warning."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from hermes_memory_core import MemoryProvider, MemoryType
from hermes_memory_core.lifecycle.classifier import RuleClassifier, parse_classification
from hermes_memory_core.lifecycle.health import ClassifierHealth
from tests.hermes_memory_core.fake_llms import FixedLLM, ScriptedLLM


@pytest.mark.parametrize(
    ("answer", "tier"),
    [
        ('Sure! Here you go: {"type": "long_term", "reason": "a habit"} Hope that helps.', MemoryType.LONG_TERM),
        ('{"tier": "Long-Term", "reason": "x"}', MemoryType.LONG_TERM),
        ('{"memory_type": "PERMANENT", "reason": "identity", "key": "name"}', MemoryType.PERMANENT),
        ('{"note": "first"} {"type": "permanent", "reason": "x"}', MemoryType.PERMANENT),
        ("long_term", MemoryType.LONG_TERM),
        ("Long-term.", MemoryType.LONG_TERM),
        ("PERMANENT", MemoryType.PERMANENT),
        ("short term", MemoryType.SHORT_TERM),
        ("I would classify this as long-term: the user states a habit.", MemoryType.LONG_TERM),
        ("长期", MemoryType.LONG_TERM),
    ],
)
def test_usable_answers_are_read(answer: str, tier: MemoryType) -> None:
    decision = parse_classification(answer)
    assert decision.usable and decision.memory_type is tier


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "Noted.",
        "You live in Hangzhou.",
        "This is not permanent.",  # a negated label is no label
        "Either short_term or long_term.",  # two tiers: ambiguous
        '```json\n{"type": "permanent"\n```',  # broken JSON is never read as a bare label
        '{"type": "forever", "reason": "?"}',
        '{"reason": "no tier here"}',
        "[1, 2, 3]",
        '{"a": ' * 5000,  # nested beyond reason
        "{" * 100_000,
    ],
    ids=lambda a: a[:24],
)
def test_unusable_answers_mean_short_term(answer: str) -> None:
    decision = parse_classification(answer)
    assert not decision.usable and decision.memory_type is MemoryType.SHORT_TERM and decision.reason


def test_a_bare_label_from_the_model_reaches_long_term(mem: MemoryProvider) -> None:
    llm = ScriptedLLM(classify=lambda c: "long_term", normalize=lambda c: "The user drinks green tea every morning")
    res = mem.remember("I drink green tea every morning", user_id="u", session_id="s", llm=llm)
    assert res.memory_type is MemoryType.LONG_TERM and res.action == "added"
    assert mem.get(res.id).memory_type is MemoryType.LONG_TERM  # type: ignore[arg-type]
    assert mem.stats().warnings == []


def test_mostly_unusable_answers_warn_once(mem: MemoryProvider, caplog: pytest.LogCaptureFixture) -> None:
    chatty = FixedLLM("Noted! Anything else?")  # a chat model answering the classification prompt
    with caplog.at_level(logging.WARNING, logger="hermes_memory"):
        for text in ("I usually run in the morning", "I love jazz", "I prefer tea", "I hate long meetings"):
            res = mem.remember(text, user_id="u", session_id="s1", llm=chatty)
            # the model could not answer: the rules decide what it could not, as they would with no model
            assert res.memory_type is RuleClassifier().classify(text).memory_type is MemoryType.LONG_TERM
            assert res.reason.startswith("rules:") and "the model's answer: classifier answer was" in res.reason
    warned = [r.getMessage() for r in caplog.records if "classifier answers" in r.getMessage()]
    assert len(warned) == 1 and "session 's1' of user 'u'" in warned[0]
    (line,) = mem.stats().warnings
    assert "4 of 4" in line and "neither JSON nor one tier label" in line
    assert mem.stats().as_dict()["warnings"] == [line]


def test_evicted_turns_count_too(mem: MemoryProvider, caplog: pytest.LogCaptureFixture) -> None:
    s = mem.session("u", "chat", llm=FixedLLM("Sure, I can help with that."))
    with caplog.at_level(logging.WARNING, logger="hermes_memory"):
        for i in range(16):
            s.add_messages([("user", f"I like topic number {i}"), ("assistant", "ok")])
        s.flush()
    kept = mem.list_memories(user_id="u", memory_types=["long_term"], limit=100)
    assert kept and all("the model's answer: classifier answer was" in str(r.metadata["reason"]) for r in kept)
    assert any("session 'chat'" in w for w in mem.stats().warnings)
    assert sum("classifier answers" in r.getMessage() for r in caplog.records) == 1


def test_a_few_failures_among_good_answers_do_not_warn(mem: MemoryProvider) -> None:
    answers = iter(['{"type": "long_term", "reason": "r"}', "garbage", '{"type": "long_term", "reason": "r"}'])

    class Mixed(FixedLLM):
        def complete(self, prompt: str) -> str:
            return next(answers) if "memory classifier" in prompt else "The user likes it"

    llm = Mixed("")
    for text in ("I like tea", "I like jazz", "I like chess"):
        mem.remember(text, user_id="u", session_id="s", llm=llm)
    assert mem.stats().warnings == []


def test_rule_classifier_is_not_counted(mem: MemoryProvider) -> None:
    for text in ("ok", "the build failed", "继续"):
        mem.remember(text, user_id="u", session_id="s")  # no model: the rules decide, always usable
    assert mem.stats().warnings == []


def test_health_thresholds() -> None:
    health = ClassifierHealth(min_classifications=3)
    health.record("u", "s", usable=False, reason="x")
    health.record("u", "s", usable=False, reason="x")
    assert health.warnings() == []  # too few to judge
    health.record("u", "s", usable=True)
    assert len(health.warnings()) == 1 and health.counts("u", "s") == (3, 2)
    health.record("u", "s", usable=True)
    assert health.warnings() == []  # 2 of 4: not most


def test_structured_output_is_used_and_a_bad_one_falls_back_to_text(mem: MemoryProvider) -> None:
    class Structured(ScriptedLLM):
        def __init__(self, structured: dict[str, Any] | None) -> None:
            super().__init__(classify=lambda c: "long_term", normalize=lambda c: "The user likes jazz")
            self.structured = structured

        def complete_json(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any] | None:
            return self.structured

    good = Structured({"type": "long_term", "reason": "structured", "key": "music"})
    assert mem.remember("I like jazz", user_id="u", llm=good).reason == "structured"
    assert not any("memory classifier" in p for p in good.calls)  # no text call was needed
    odd = Structured({"answer": 42})
    res = mem.remember("I like jazz a lot", user_id="u", llm=odd)
    assert res.memory_type is MemoryType.LONG_TERM and any("memory classifier" in p for p in odd.calls)


def test_a_rewrite_that_kept_the_users_wording_is_put_in_the_third_person(mem: MemoryProvider) -> None:
    """A model that echoes the statement ("我搬到深圳了。") gives a fact in the user's own first person; it is said of the
    user, as the prompt asked, so the fact reads as one with the line it was made of (trial six: both were shown)."""
    import json

    echo = ScriptedLLM(classify=lambda c: json.dumps({"type": "long_term", "reason": "scripted", "key": "residence"}),
                       normalize=lambda c: c)
    kept = mem.remember("我搬到深圳了。", user_id="u", llm=echo)
    assert kept.content == "用户搬到深圳了。"
    assert mem.remember("I moved to Lyon.", user_id="v", llm=echo).content == "The user moved to Lyon."
