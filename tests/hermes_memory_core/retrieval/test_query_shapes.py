"""A long query is matched on the question it ends with: a dialogue history, a chat engine's condensed question with
its context, a retriever handed the whole conversation find what the question alone finds (the real model, both
backends). The history's small talk shares words with memories that do not answer it."""

from __future__ import annotations

import pytest

from hermes_memory_core import MemoryProvider

pytestmark = pytest.mark.real_model

FACTS = ["The user is allergic to penicillin.", "The user's manager, Priya, works from the Berlin office.",
         "用户的护照明年三月到期。", "The user writes the team's quarterly newsletter in plain words, no jargon.",
         "The user gives a ten-minute talk with slides at every team offsite.", "用户喜欢在雨天的下午看书。"]
HISTORY = ("User: Can you help me tidy up the wording of this paragraph for the quarterly newsletter?\n"
           "Assistant: Sure. Paste it and tell me who reads the newsletter.\n"
           "User: People in other departments, so no jargon please.\n"
           "Assistant: Got it: plain words and short sentences.\n"
           "User: And how many slides should a ten-minute talk have?\n"
           "Assistant: Eight to twelve, about one a minute.\n"
           "User: {question}")
ASKED = [("Which medicine am I allergic to?", FACTS[0]), ("Where does my manager work?", FACTS[1]),
         ("我的护照什么时候到期？", FACTS[2])]


@pytest.mark.parametrize(("question", "fact"), ASKED)
def test_a_question_after_a_dialogue_history_finds_what_it_finds_alone(
        real_mem: MemoryProvider, question: str, fact: str) -> None:
    real_mem.add_many([{"content": f, "user_id": "lin", "memory_type": "long_term"} for f in FACTS])
    alone = [h.content for h in real_mem.search(question, user_id="lin", top_k=3)]
    assert alone[0] == fact
    for query in (HISTORY.format(question=question),
                  f"We're putting together the plan for next week and the newsletter, so quick question: {question}"):
        assert [h.content for h in real_mem.search(query, user_id="lin", top_k=3)] == alone, query
        assert [h.content for h in real_mem.recall(query, user_id="lin")][:1] == [fact], query


MIXED = ["用户每周六早上去游泳", "用户养了一只叫豆豆的柯基", "The user is allergic to penicillin", "用户住在北京朝阳区",
         "用户在一家医院做麻醉师", "The user's office is in Beijing's Haidian district"]


@pytest.mark.parametrize("question", ["What medicine must I avoid?", "What medicine must the user avoid?",
                                      "用户不能吃什么药？"])
def test_in_a_mixed_language_store_the_answer_comes_first(real_mem: MemoryProvider, question: str) -> None:
    """Calibration across languages lifts a Chinese line about a hospital above the English allergy in search; what a
    turn is given puts the answer first (the question's topic is the allergy), whichever language asks."""
    real_mem.add_many([{"content": f, "user_id": "lin", "memory_type": "long_term"} for f in MIXED])
    recalled = [h.content for h in real_mem.recall(question, user_id="lin", top_k=3)]
    assert recalled[:1] == ["The user is allergic to penicillin"], recalled
