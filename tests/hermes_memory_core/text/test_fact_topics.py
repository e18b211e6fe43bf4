"""One table of fact topics: the rule classifier keys a statement and search reads a question by the same topics."""

from __future__ import annotations

import pytest

from hermes_memory_core.lifecycle.classifier import RuleClassifier
from hermes_memory_core.retrieval.gate import FACT_TOPICS, question_topics
from hermes_memory_core.text.fact_topics import TOPICS
from hermes_memory_core.types import MemoryType

#: topic -> (a statement of the fact, a question about it), one English and one Chinese pair each
SAMPLES = {
    "name": [("My name is Dana", "What is my name?"), ("我叫林华", "我叫什么名字？")],
    "allergy": [("I am allergic to peanuts", "What am I allergic to?"), ("我对花生过敏", "我对什么过敏？"),
                ("I'm allergic to shellfish", "Is there any food I can't eat?")],
    "birth": [("I was born in 1990", "When was I born?"), ("我的生日是五月三日", "我的生日是哪天？")],
    "occupation": [("I work as a nurse", "What is my job?"), ("我在银行做会计", "我做什么工作？")],
    "employer": [("I work for Siemens", "Where do I work?"), ("我在银行工作", "我在哪家公司上班？")],
    "residence": [("I live in Lisbon", "Where do I live?"), ("我住在上海", "我住在哪个城市？")],
    "pet": [("My cat is called Miso", "What is my cat called?"), ("我养了一只狗", "我的宠物叫什么？")],
    "family": [("My daughter is six", "How old is my daughter?"), ("我的妻子是老师", "我妻子做什么？")],
    "boss": [("My boss is called Zhang Wei", "What's my manager's name?"), ("我老板叫王强", "我老板叫什么？")],
    "diet": [("I am vegetarian", "What food do I eat?"), ("我吃素", "我的饮食有什么要求？"),
             ("I went pescatarian", "Do I eat meat?")],
    "vehicle": [("I drive a Honda Civic", "What car do I drive?"), ("我开的是一辆特斯拉", "我开什么车？")],
}


def test_every_topic_is_in_one_table() -> None:
    assert [t.key for t in TOPICS] == list(SAMPLES)
    assert {t.key: t.question for t in TOPICS} == FACT_TOPICS


@pytest.mark.parametrize("topic", list(SAMPLES))
def test_statement_and_question_meet_on_the_topic(topic: str) -> None:
    rules = RuleClassifier()
    for statement, question in SAMPLES[topic]:
        decision = rules.classify(statement)
        assert decision.memory_type is MemoryType.PERMANENT, statement
        assert (decision.key or "").split("_", 1)[0] == topic, (statement, decision.key)
        assert topic in question_topics(question), question


@pytest.mark.parametrize(("question", "topics"), [
    ("Which podcast do I listen to on the way to work?", set()),  # a commute, not the job
    ("What do I do after work?", set()),
    ("What do we use at work to keep track of tasks?", {"occupation", "employer"}),
    ("我平时坐哪家航空公司的飞机？", set()),  # an airline, not the user's employer
    ("我在哪家公司工作？", {"occupation", "employer"}),
    ("What language did my grandmother speak at home?", set()),  # "at home" is not an address
    ("What is my home Wi-Fi password?", set()),
    ("Where is my home?", {"residence"}),
    ("我穿多大号的衣服？", set()),  # a size, not an age
    ("我今年多大？", {"birth"}),
])
def test_a_word_the_topic_shares_is_not_enough(question: str, topics: set[str]) -> None:
    assert question_topics(question) == topics
