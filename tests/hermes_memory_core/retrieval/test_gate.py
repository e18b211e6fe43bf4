"""The recall gate, measured on real-looking inputs in both languages, and the permanent-fact router."""

from __future__ import annotations

import pytest

from hermes_memory_core.retrieval.gate import needs_permanent, should_recall

NO_RECALL = [
    "你好", "您好！", "嗨", "早上好", "晚安", "谢谢", "谢谢！", "多谢啦", "好的", "好", "嗯", "嗯嗯", "哦", "哈哈哈",
    "继续", "接着说", "好吧", "收到", "明白了", "没问题", "再见", "拜拜", "辛苦了", "ok", "OK!", "okay", "thanks",
    "thank you!", "thx", "hi", "hello", "hey there", "good morning", "bye", "see you later", "cool", "great, thanks",
    "sure", "yes", "yep", "no", "continue", "go on", "lol", "nice", "perfect", "got it", "sounds good", "👍", "...",
    # small talk: asks and says nothing
    "I'm new here.", "Nice to meet you!", "How are you doing today?", "I'm good, thanks", "初次见面", "我是新来的",
    "Hi! I'm new here.", "Hey! Nice to meet you. Thanks!", "你好！初次见面。",
]
RECALL = [
    "我喜欢喝什么咖啡？", "推荐一本书", "帮我写一封邮件", "上次说的那个路由器是什么型号", "我的过敏原有哪些",
    "明天的会议几点", "用 Python 写个爬虫", "Java 还是 Go 更适合我", "给我订一张去上海的票", "我女儿几岁了",
    "上次那个音箱音质怎么样", "提醒我下午开会", "介绍一下我的项目进度", "咖啡", "预算",
    "What's my favourite coffee?", "Recommend a laptop for me", "Write a SQL query for last month's sales",
    "when is my dentist appointment", "Which language do I prefer?", "Help me plan the trip to Berlin",
    "remind me what we decided about the database", "my daughter's birthday", "Python or Go?",
    "book a table for two", "what did I say about my budget", "show my open tasks", "marathon training plan",
    "the router model", "tell me a joke about cats", "explain my last invoice", "hiking boots",
    "continue with the Airflow migration", "ok, now summarise the meeting notes", "thanks — and what about the budget?",
    "I'm new here, where do I start?", "I'm new to Python", "How are you going to store my data?",
]


def test_gate_precision_and_recall_on_labelled_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(NO_RECALL) + len(RECALL) >= 50
    tp = sum(should_recall(t) for t in RECALL)
    fp = sum(should_recall(t) for t in NO_RECALL)
    fn = len(RECALL) - tp
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    with capsys.disabled():
        print(f"\nrecall gate on {len(RECALL) + len(NO_RECALL)} inputs: precision {precision:.3f}, recall {recall:.3f}")
    assert precision >= 0.95 and recall >= 0.95
    assert [t for t in NO_RECALL if should_recall(t)] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("我叫什么名字？", True), ("Which coffee do I drink?", True), ("我的配置是什么", True),
     ("what is our GDPR policy", True), ("write a haiku about rain", False), ("推荐一本书", False),
     # every topic of the fact-topic table reaches the facts kept on it
     ("Who's my manager?", True), ("我的上司是谁？", True), ("Who do I report to?", True), ("我向谁汇报工作？", True)],
)
def test_fact_router(text: str, expected: bool) -> None:
    assert needs_permanent(text) is expected


@pytest.mark.parametrize(("text", "recalls"), [
    ("Hi! I just started using this assistant.", False),  # a greeting, not news about the user (trial six)
    ("It's my first time using this app.", False),
    ("我刚开始用这个助手", False),
    ("I started using Notion for my notes.", True),
    ("I just started a new job.", True),
    ("我刚开始用Notion记笔记", True),
])
def test_starting_to_use_the_assistant_is_small_talk(text: str, recalls: bool) -> None:
    assert should_recall(text) is recalls
