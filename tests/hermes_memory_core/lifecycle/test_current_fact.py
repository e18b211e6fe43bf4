"""The current fact wins: after a change — in either language, either order — questions about that subject in both
languages recall the current version first (40 changes, 160 questions, on the real model, both backends); the
old version stays in history."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryProvider
from hermes_memory_core.embedding import Embedder
from tests.conftest import BACKENDS, make_config

CITIES = [("Beijing", "北京"), ("Shanghai", "上海"), ("Hangzhou", "杭州"), ("Chengdu", "成都"), ("Shenzhen", "深圳"),
          ("Wuhan", "武汉"), ("Nanjing", "南京"), ("Xi'an", "西安"), ("Suzhou", "苏州"), ("Qingdao", "青岛"),
          ("Tianjin", "天津")]
JOBS = [("nurse", "护士"), ("teacher", "老师"), ("lawyer", "律师"), ("doctor", "医生"), ("designer", "设计师"),
        ("engineer", "工程师"), ("student", "学生"), ("manager", "经理"), ("analyst", "分析师"), ("programmer", "程序员"),
        ("nurse", "护士")]


def changes() -> list[tuple[str, str, str, str, str]]:
    out = []
    for i in range(10):
        (a_en, a_zh), (b_en, b_zh) = CITIES[i], CITIES[i + 1]
        out.append(("residence", f"I live in {a_en}.", f"我从{a_zh}搬到{b_zh}了", b_en, b_zh))
        out.append(("residence", f"我住在{a_zh}", f"I moved from {a_en} to {b_en}.", b_en, b_zh))
        (j_en, j_zh), (k_en, k_zh) = JOBS[i], JOBS[i + 1]
        out.append(("occupation", f"I work as a {j_en}.", f"我现在是{k_zh}", k_en, k_zh))
        out.append(("occupation", f"我是一名{j_zh}", f"I work as a {k_en} now.", k_en, k_zh))
    return out


QUESTIONS = {"residence": ["Where does the user live?", "Which city do I live in?", "用户住在哪里？", "我住在哪个城市？"],
             "occupation": ["What does the user do for work?", "What is my job?", "用户做什么工作？", "我的职业是什么？"]}
DISTRACTORS = ["My mother lives in Guangzhou.", "我姐姐住在厦门", "My birthday is on 3 May.", "我喜欢喝美式咖啡",
               "My best friend works as a pilot.", "我爸爸是一名厨师"]


@pytest.fixture(params=BACKENDS)
def plain(request: pytest.FixtureRequest, tmp_path: Path, real_embedder: Embedder) -> Iterator[MemoryProvider]:
    provider = MemoryProvider(make_config(tmp_path / "store", request.param), embedder=real_embedder)
    try:
        yield provider
    finally:
        provider.close()


@pytest.mark.slow
def test_forty_changes_in_both_languages_recall_the_current_version_first(plain: MemoryProvider) -> None:
    cases = changes()
    assert len(cases) >= 40
    misses = []
    for n, (topic, first, change, new_en, new_zh) in enumerate(cases):
        user = f"user{n}"
        for text in DISTRACTORS:
            plain.remember(text, user_id=user)
        old = plain.remember(first, user_id=user)
        new = plain.remember(change, user_id=user)
        assert new.action == "versioned" and new.id == old.id, (first, change, new)
        assert [v.version for v in plain.history(old.id, user_id=user,
                                                                      caller=Caller.for_user(user))] == [1, 2]  # the old one stays
        for question in QUESTIONS[topic]:
            hits = plain.recall(question, user_id=user, top_k=5)
            if not (hits and hits[0].id == new.id and (new_en in hits[0].content or new_zh in hits[0].content)):
                misses.append((question, change, [h.content for h in hits[:2]]))
    assert not misses, misses
