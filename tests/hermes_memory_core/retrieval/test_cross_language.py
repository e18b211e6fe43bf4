"""Recall a user can trust in either language: the right fact first when asked in the other language, at every
write timing, on both metadata backends; nothing at all when nothing is relevant."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from benchmarks.bilingual_facts import evaluate
from hermes_memory_core import InvalidInputError, MemoryProvider
from hermes_memory_core.embedding import Embedder
from tests.conftest import ADMIN, BACKENDS, make_config

#: 16 independent facts (not from the benchmark's fact set), each with a question in the other language.
FACTS = [
    ("用户对海鲜过敏，吃虾会起疹子", "What food allergy does the user have?"),
    ("用户每天骑自行车上班", "How does the user commute to work?"),
    ("用户的妹妹在深圳当律师", "What does the user's sister do for a living?"),
    ("用户最喜欢的电影是《霸王别姬》", "What is the user's favourite film?"),
    ("用户正在装修新房子，预算三十万", "What is the user's renovation budget?"),
    ("用户每周二晚上上钢琴课", "When does the user have piano lessons?"),
    ("用户用的手机是小米14", "Which phone does the user have?"),
    ("用户不喝酒，也不抽烟", "Does the user drink alcohol?"),
    ("The user has two cats named Miso and Tofu", "用户养了几只猫？"),
    ("The user runs a small bakery in Melbourne", "用户在墨尔本做什么生意？"),
    ("The user is vegetarian and never eats meat", "用户吃肉吗？"),
    ("The user's wedding anniversary is on June 12", "用户的结婚纪念日是哪天？"),
    ("The user plays tennis every Saturday morning", "用户周六早上做什么运动？"),
    ("The user is afraid of flying and prefers trains", "用户出行喜欢坐什么？"),
    ("The user's favourite author is Haruki Murakami", "用户最喜欢哪位作家？"),
    ("The user wears glasses for reading", "用户戴眼镜吗？"),
]
T0 = 1_750_000_000.0


def _ask_across_languages(path: Path, embedder: Embedder, backend: str, gaps: list[float]) -> list[bool]:
    times: Iterator[float] = iter([T0 + sum(gaps[: i + 1]) for i in range(len(FACTS))] + [T0 + 9e5] * 1000)
    clock: Callable[[], float] = lambda: next(times)  # noqa: E731
    with MemoryProvider(make_config(path, backend), embedder=embedder, caller=ADMIN, clock=clock) as mem:
        ids = [mem.add(fact, user_id="u", session_id="chat") for fact, _ in FACTS]
        return [mem.search(q, user_id="u", top_k=3)[0].id == mid for (_, q), mid in zip(FACTS, ids, strict=True)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_facts_asked_in_the_other_language_come_first_at_every_timing(
    tmp_path: Path, real_embedder: Embedder, backend: str
) -> None:
    rng = random.Random(3)
    timings = {"no pause": [0.0] * 16, "1.1 s pauses": [1.1] * 16, "random pauses": [rng.uniform(0, 90) for _ in FACTS]}
    results = {name: _ask_across_languages(tmp_path / str(i), real_embedder, backend, gaps)
               for i, (name, gaps) in enumerate(timings.items())}
    for name, right in results.items():
        assert sum(right) >= 13, (name, sum(right))  # measured: 14 of 16
    assert len({tuple(r) for r in results.values()}) == 1  # the same answers whatever the timing


@pytest.mark.slow
def test_bilingual_fact_set(real_embedder: Embedder) -> None:
    """The shipped fact set (benchmarks/data/bilingual_facts.json) through search and recall."""
    result = evaluate(cache_dir=None, first_80=True)  # the set's version 1 (the figures below)
    summary = result["summary"]
    print({k: (round(v["top1"], 3), round(v["r5"], 3)) for k, v in summary.items()}, result["unrelated_recall_nothing"])
    assert summary["cross"]["top1"] >= 0.75 and summary["cross"]["r5"] >= 0.95  # measured 0.787 / 0.963
    assert summary["same"]["top1"] >= 0.95 and summary["same"]["r5"] >= 0.975  # measured 0.950 / 0.975
    related = (summary["cross"]["recall_keeps_fact"] + summary["same"]["recall_keeps_fact"]) / 2
    # recall() still brings the right fact (measured 0.969 before the focus-word judgement, 0.944 with it: a weak
    # cross-language match that shares no word with its question is now sometimes left out; 0.9375 with the offline
    # relevance model, which silences one more cross-language fact) ...
    assert related >= 0.93
    # ... and in exchange questions about the user never stored get silence more often (0.083 before, 0.292 with the
    # focus-word judgement, 0.333 with the relevance model)
    assert result["unrelated_recall_nothing"]["unstored"] >= 0.30
    assert result["unrelated_recall_nothing"]["off_topic"] >= 0.9  # measured 1.000


def test_a_question_in_the_first_person_finds_the_fact_about_the_user(real_mem: MemoryProvider) -> None:
    real_mem.add("The user is allergic to peanuts", user_id="u", memory_type="permanent")
    real_mem.add("用户每周六去爬山", user_id="u")
    assert [h.content for h in real_mem.recall("What am I allergic to?", user_id="u")][:1] == [
        "The user is allergic to peanuts"
    ]
    assert real_mem.recall("我周末一般做什么？", user_id="u")[0].content == "用户每周六去爬山"


def test_the_floor(real_mem: MemoryProvider) -> None:
    real_mem.add("The user is allergic to peanuts", user_id="u")
    real_mem.add("用户主用 Python，避免 Java", user_id="u")
    assert real_mem.recall("What is the capital of Peru?", user_id="u") == []
    assert real_mem.recall("帮我写一首关于春天的诗。", user_id="u") == []
    assert len(real_mem.search("What is the capital of Peru?", user_id="u")) == 2  # search's default: top_k
    assert real_mem.search("What is the capital of Peru?", user_id="u", min_score=3.7) == []
    hits = real_mem.search("Is the user allergic to anything?", user_id="u", min_score=3.7)
    assert hits[0].content == "The user is allergic to peanuts" and hits[0].confidence is not None
    assert real_mem.recall("What is the capital of Peru?", user_id="u", min_score=-100)  # the floor is a parameter
    with pytest.raises(InvalidInputError):
        real_mem.search("peanuts", user_id="u", min_score="high")  # type: ignore[arg-type]


def test_the_floor_keeps_facts_that_have_no_vector(tmp_path: Path, real_embedder: Embedder) -> None:
    cfg = make_config(tmp_path / "s", permanent_vectors=False)
    with MemoryProvider(cfg, embedder=real_embedder, caller=ADMIN) as mem:
        mem.add("Account tier: VIP (billing API)", user_id="u", memory_type="permanent")
        mem.add("The user likes green tea", user_id="u")
        assert [h.content for h in mem.recall("What is my account tier?", user_id="u")] == [
            "Account tier: VIP (billing API)"
        ]
        assert mem.recall("What is the capital of Peru?", user_id="u") == []
