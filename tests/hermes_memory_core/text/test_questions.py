"""Questions told apart from statements (both languages, any form), and a message's statements kept without them."""

from __future__ import annotations

import pytest

from hermes_memory_core.text.questions import is_question, question_sentences, without_questions

QUESTIONS = [
    "Which code editor do I like?", "Which code editor does the user like", "What is my job", "whats my name",
    "How old am I", "Where does my sister live", "Do you remember where I live", "I wonder whether I told you my blood type",
    "Tell me what I said about the trip", "Is it going to rain tomorrow", "Can you remind me of my dentist's name",
    "用户每天早上练习什么？", "用户每天早上练习什么", "你知道我住在哪里吗", "我老板叫什么名字", "我住在哪里", "告诉我我的工作是什么",
    "请问我的血型是什么", "我是不是说过我对花生过敏", "我上次说的那家餐厅在哪儿",
]
STATEMENTS = [
    "I like Neovim.", "I moved from Beijing to Shanghai last month.", "When I was young, I lived in Paris.",
    "What I like is tea.", "Who I am matters.", "How I met my wife is a long story", "What a great day it is",
    "I wonder about life a lot.", "Do remember that I am vegetarian", "我喜欢用 Neovim 写代码。", "我在一家医院做麻醉师",
    "我不知道什么时候去", "我什么都吃", "我想去哪里都行", "我是做什么都认真的人",
]


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_question_is_a_question(text: str) -> None:
    assert is_question(text)
    assert without_questions(text) == ""


@pytest.mark.parametrize("text", STATEMENTS)
def test_a_statement_is_not(text: str) -> None:
    assert not is_question(text)
    assert without_questions(text) == text


def test_a_statement_followed_by_a_question_keeps_the_statement() -> None:
    assert without_questions("I moved to Munich. Do you know any good bakeries there?") == "I moved to Munich."
    assert without_questions("我搬到慕尼黑了。你知道那里有什么好吃的吗？") == "我搬到慕尼黑了。"
    assert question_sentences("I like tea. Do you?") == ["Do you?"]
    assert not is_question("") and without_questions("") == ""
