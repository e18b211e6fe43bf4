"""When an independent fact was written never changes what a question finds; turns of a dialogue, written as
such, still lend each other their words."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.text import tokenize_query
from tests.conftest import ADMIN, BACKENDS, make_config

FACTS = [
    "用户对花生过敏", "The user works as a nurse at a children's hospital", "用户每周六去爬山",
    "The user drinks two espressos every morning", "用户的女儿今年七岁", "The user is learning Japanese for a trip",
    "用户主用 Python，避免 Java", "The user lives in Hangzhou and works remotely", "用户养了一只橘猫",
    "The user is training for the Berlin marathon",
]
QUESTIONS = [
    "What is the user allergic to?", "用户做什么工作？", "What does the user do on weekends?", "用户早上喝什么？",
    "How old is the user's daughter?", "用户在学什么语言？", "Which programming language does the user prefer?",
    "用户住在哪里？", "Does the user have pets?", "用户在准备什么比赛？", "coffee", "猫",
]
T0 = 1_750_000_000


def _clock(times: Iterator[float]) -> Callable[[], float]:
    return lambda: next(times)


def _rankings(path: Path, embedder: Embedder, backend: str, gaps: list[float], session: str | None) -> list[list[int]]:
    times = [T0 + sum(gaps[: i + 1]) for i in range(len(FACTS))]
    clock_values = iter([*times, *([T0 + 10_000.0] * 10_000)])
    with MemoryProvider(make_config(path, backend), embedder=embedder, caller=ADMIN, clock=_clock(clock_values)) as mem:
        ids = [mem.add(f, user_id="u", session_id=session) for f in FACTS]
        index = {mid: i for i, mid in enumerate(ids)}
        return [[index[h.id] for h in mem.search(q, user_id="u", top_k=5, now=T0 + 20_000)] for q in QUESTIONS]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("session", [None, "chat-1"])
def test_write_timing_never_changes_the_ranking_of_facts(
    tmp_path: Path, real_embedder: Embedder, backend: str, session: str | None
) -> None:
    rng = random.Random(7)
    no_pause = _rankings(tmp_path / "a", real_embedder, backend, [0.0] * len(FACTS), session)
    pauses = _rankings(tmp_path / "b", real_embedder, backend, [1.1] * len(FACTS), session)
    jitter = _rankings(tmp_path / "c", real_embedder, backend, [rng.uniform(0, 90) for _ in FACTS], session)
    assert no_pause == pauses == jitter


def test_dialogue_turns_still_lend_each_other_their_words(mem: MemoryProvider) -> None:
    turns = [("Do you go running?", 100), ("Yes, every Sunday morning!", 130), ("Nice, me too", 160)]
    items = [{"content": t, "user_id": "u", "session_id": "s", "created_at": T0 + dt} for t, dt in turns]
    ask, answer, _later = mem.add_many(items, dialogue=True)
    hits = mem.engine.metadata.keywords.keyword_search("u", tokenize_query("running"), 10)
    assert [mid for mid, _ in hits][:2] == [ask, answer]  # the answer is found by its question's words
    facts = [{"content": t, "user_id": "u", "session_id": "f", "created_at": T0 + dt} for t, dt in turns]
    fact_ids = mem.add_many(facts)
    hits = mem.engine.metadata.keywords.keyword_search("u", tokenize_query("running"), 10)
    assert fact_ids[0] in [mid for mid, _ in hits] and fact_ids[1] not in [mid for mid, _ in hits]
