"""Recall for a question about the conversation itself ("What did I say about the weather?", "What did we talk about
last time?"): the lines said come back, the one about the question's word first, although the dense floor rates
such a question weakly against every line (both metadata backends, the real model, a day later)."""

from __future__ import annotations

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.retrieval.ordering import asks_about_talk
from tests.fakes import Clock
from tests.hermes_memory_core.retrieval.test_recall_speakers import talk_then_wait

pytestmark = pytest.mark.real_model

TALK = [("Hi there!", "Hi! How are you today?"), ("I'm allergic to peanuts.", "Noted."),
        ("The weather was rainy this morning and the traffic was awful.", "Sorry to hear that."),
        ("Who won the football game last night?", "I don't have live scores.")]
WEATHER = "The weather was rainy this morning and the traffic was awful."


def test_what_was_said_is_recalled_for_a_question_about_the_talk(clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    mem, clock = clocked_real_store
    talk_then_wait(mem, clock, TALK, later=86_400)
    assert mem.recall("What did I say about the weather?", user_id="ann")[0].content == WEATHER
    assert mem.recall("What did I tell you about the traffic?", user_id="ann")[0].content == WEATHER
    for question in ("What did we talk about last time?", "我们上次聊了什么？"):
        assert WEATHER in [h.content for h in mem.recall(question, user_id="ann", top_k=8)], question
    assert mem.recall("What is my blood type?", user_id="ann") == []  # never said: still nothing


@pytest.mark.parametrize(("question", "about_talk"), [
    ("What did I say about the weather?", True), ("What did we talk about last time?", True),
    ("Did I mention my sister?", True), ("我们上次聊了什么？", True), ("我之前说过天气怎么样？", True),
    ("What did I ask you about the trip?", True), ("我之前问过你什么？", True), ("Can I ask you something?", False),
    ("What did you suggest?", False), ("Which city do I live in?", False), ("今天早上天气怎么样？", False),
    ("What is the user's shoe size?", False), ("我住在哪里？", False)])
def test_questions_about_the_talk_are_told_apart(question: str, about_talk: bool) -> None:
    assert asks_about_talk(question) is about_talk
