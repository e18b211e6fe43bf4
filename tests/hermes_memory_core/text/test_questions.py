"""Questions told apart from statements (both languages, any form), and a message's statements kept without them."""

from __future__ import annotations

import pytest

from hermes_memory_core.text.questions import asking_part, is_question, question_sentences, sentences, without_questions

QUESTIONS = [
    "Which code editor do I like?", "Which code editor does the user like", "What is my job", "whats my name",
    "How old am I", "Where does my sister live", "Do you remember where I live", "I wonder whether I told you my blood type",
    "Tell me what I said about the trip", "Is it going to rain tomorrow", "Can you remind me of my dentist's name",
    "用户每天早上练习什么？", "用户每天早上练习什么", "你知道我住在哪里吗", "我老板叫什么名字", "我住在哪里", "告诉我我的工作是什么",
    "请问我的血型是什么", "我是不是说过我对花生过敏", "我上次说的那家餐厅在哪儿",
    # a request for what the user said is asking too
    "Tell me my favourite editor", "Remind me of my boss's name.", "Please tell me about my trip plan",
    "请告诉我我的血型", "提醒我一下我的护照号码",
]
STATEMENTS = [
    "I like Neovim.", "I moved from Beijing to Shanghai last month.", "When I was young, I lived in Paris.",
    "What I like is tea.", "Who I am matters.", "How I met my wife is a long story", "What a great day it is",
    "I wonder about life a lot.", "Do remember that I am vegetarian", "我喜欢用 Neovim 写代码。", "我在一家医院做麻醉师",
    "我不知道什么时候去", "我什么都吃", "我想去哪里都行", "我是做什么都认真的人", "I told my boss about it.",
    "My sister told me about her trip.", "Guess what, I became a pharmacist!",
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


@pytest.mark.parametrize(("text", "question"), [
    ("User: Can you help me tidy up this paragraph?\nAssistant: Sure, paste it.\nUser: Thanks. Which editor do I use?",
     "Which editor do I use?"),
    ("We're putting together the plan for next week, so quick question: When is my dentist appointment?",
     "When is my dentist appointment?"),
    ("我们在安排下周的计划，顺便问一下：我的护照什么时候过期？", "我的护照什么时候过期？"),
    (("Caroline: I went to the support group yesterday and it was so powerful.\nMelanie: Wow!\n"
      "When did Caroline go to the support group?"), "When did Caroline go to the support group?"),
    ("Given the conversation, rephrase the follow up question.\nStandalone question: Where does Priya work?",
     "Where does Priya work?"),
    ("User: Which editor do I use?\nAssistant: Vim, you told me last week.\nUser: Write a haiku about autumn leaves.",
     "Write a haiku about autumn leaves."),
])
def test_a_long_query_asks_the_question_it_ends_with(text: str, question: str) -> None:
    assert asking_part(text) == question


@pytest.mark.parametrize("text", [
    "What is my blood type?", "用户的护照什么时候过期？", "Which code editor do I like, and which one did I use before?",
    "I planted tomatoes in May on the balcony and the weather was hot all month, so they grew fast.",
    "I asked: which editor do I use, and which did I use before, and why did I switch?",
])
def test_a_short_question_or_a_query_that_ends_without_one_is_asked_whole(text: str) -> None:
    assert asking_part(text) is None


def test_a_period_inside_a_word_ends_no_sentence() -> None:
    """An address, a version or a decimal is one word: a fact made of the sentence keeps it whole."""
    assert sentences("My email is lin.wei@example.com and I use it for work.") == [
        "My email is lin.wei@example.com and I use it for work."]
    assert sentences("I moved to v2.0 of the app. It costs 3.5 euros.") == [
        "I moved to v2.0 of the app.", "It costs 3.5 euros."]
    assert sentences("我住在北京.我是护士。你呢？") == ["我住在北京.", "我是护士。", "你呢？"]


@pytest.mark.parametrize(("message", "statement"), [
    ("By the way, I moved to Lyon, can you recommend a dentist?", "By the way, I moved to Lyon."),
    ("I just moved to Lyon — any tips?", "I just moved to Lyon."),
    ("我搬到里昂了，你知道里昂吗", "我搬到里昂了。"),
    ("Since I'm vegan, what should I cook tonight?", "Since I'm vegan."),
    ("My blood type is O+, can you note that?", "My blood type is O+."),
    ("我是A型血，你能记住这个吗？", "我是A型血。"),
])
def test_a_statement_before_its_question_is_a_statement(message: str, statement: str) -> None:
    """What the user tells before asking stays (trial seven: the whole line was dropped as a question, and a search
    for the answer skipped it)."""
    assert not is_question(message)
    assert without_questions(message) == statement


@pytest.mark.parametrize("message", ["Did you know I moved to Lyon?", "你知道吗，我搬到里昂了。"])
def test_news_told_as_a_question_tells(message: str) -> None:
    assert not is_question(message)


@pytest.mark.parametrize("question", [
    "Could you remember that for me, what's my cat called?", "你能记住吗？", "你记住了吗？", "Can you note that?",
    "Did you know that?", "你知道吗？", "Hey, where do I live?", "What do I do - any idea?",
])
def test_these_still_ask(question: str) -> None:
    assert is_question(question)
