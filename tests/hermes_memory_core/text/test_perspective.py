"""First person to third person: verbs agree with "the user", and what is not prose is left alone."""

from __future__ import annotations

import pytest

from hermes_memory_core import MemoryProvider, MemoryType
from hermes_memory_core.lifecycle.classifier import rule_normalize
from hermes_memory_core.text.perspective import embedding_text, to_third_person


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("I mostly write Python", "The user mostly writes Python"),
        ("I live in Hangzhou", "The user lives in Hangzhou"),
        ("I live and work in Hangzhou", "The user lives and works in Hangzhou"),
        ("I prefer tea and my cat hates me", "The user prefers tea and their cat hates the user"),
        ("I usually go to the gym", "The user usually goes to the gym"),
        ("I mostly write Python and avoid Java", "The user mostly writes Python and avoids Java"),
        ("I like tea but hate coffee", "The user likes tea but hates coffee"),
        ("I like jazz and live music", "The user likes jazz and live music"),  # "live" here is no verb
        ("I don't like Java", "The user doesn't like Java"),
        ("I'm allergic to peanuts", "The user is allergic to peanuts"),
        ("I've got two kids", "The user has got two kids"),
        ("I have two kids", "The user has two kids"),
        ("I can swim and dive", "The user can swim and dive"),
        ("I was born in 1990", "The user was born in 1990"),
        ("I am and always will be a fan", "The user is and always will be a fan"),
        ("My name is Dana", "The user's name is Dana"),
        ("i like tea", "The user likes tea"),
        # a subject of two keeps its plural verb; a clause of its own before "and" keeps its agreement
        ("My wife and I live in Lyon", "The user's wife and the user live in Lyon"),
        ("Tom and I are married", "Tom and the user are married"),
        ("My best friend and I usually live and work in Lyon",
         "The user's best friend and the user usually live and work in Lyon"),
        ("My kids and I bake on Sundays", "The user's kids and the user bake on Sundays"),
        ("My dog barks and I wake up", "The user's dog barks and the user wakes up"),
        ("I swim and I run", "The user swims and the user runs"),
        ("I read and I write", "The user read and the user writes"),
        ("I moved to Lyon and work there", "The user moved to Lyon and works there"),
        ("I left Bosch and now work at SAP", "The user left Bosch and now works at SAP"),  # "now": the present
        ("I sold my car and now take the bus", "The user sold their car and now takes the bus"),
        ("Sam and I split up", "Sam and the user split up"),
        ("我平时写 Python 比较多，不太想用 Java", "用户平时写 Python 比较多，不太想用 Java"),
        ("我的猫叫咪咪", "用户的猫叫咪咪"),
    ],
)
def test_rule_normaliser_writes_agreeing_third_person(said: str, stored: str) -> None:
    assert rule_normalize(said) == stored


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Mail me at me@example.com", "me@example.com"),
        ("My blog is https://me.example.org/my/page", "https://me.example.org/my/page"),
        ("My notes are in /home/me/my-notes", "/home/me/my-notes"),
        ("I keep my.config in git", "my.config"),
        ("See C:\\Users\\me\\my.txt for me", "C:\\Users\\me\\my.txt"),
    ],
)
def test_what_is_not_prose_is_left_alone(said: str, kept: str) -> None:
    out = to_third_person(said)
    assert kept in out and out != said


def test_remember_without_a_model_stores_grammatical_english(mem: MemoryProvider) -> None:
    res = mem.remember("I mostly write Python and avoid Java", user_id="u")
    assert res.memory_type is MemoryType.LONG_TERM
    assert mem.get(res.id).content == "The user mostly writes Python and avoids Java"  # type: ignore[arg-type]


@pytest.mark.parametrize(("content", "role", "embedded"), [
    ("我下周要去成都看大熊猫。", "user", "用户下周要去成都看大熊猫。"),
    ("I'm going to Chengdu next week.", "user", "The user is going to Chengdu next week."),
    ("I'd suggest booking the train early.", "assistant", "I'd suggest booking the train early."),
    ("The user lives in Hangzhou", None, "The user lives in Hangzhou"),
])
def test_a_users_line_is_embedded_as_said_about_the_user(content: str, role: str | None, embedded: str) -> None:
    """Only the user's own lines change (the stored content never does): the assistant speaks of itself."""
    assert embedding_text(content, role) == embedded
