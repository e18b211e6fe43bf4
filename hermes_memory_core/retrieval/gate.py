"""The recall gate (docs/core.md#short-term-memory-and-the-tier-lifecycle): greetings and fillers do not trigger long-term recall; questions,
instructions and topic words do. Deterministic, microseconds per call."""

from __future__ import annotations

import re
import unicodedata

from hermes_memory_core.text.fact_topics import TOPICS, about_someone_else
from hermes_memory_core.text.tokenizer import tokenize

__all__ = ["FACT_TOPICS", "leading_topic", "needs_permanent", "question_topics", "should_recall"]

_FILLERS = {
    # English
    "hi", "hello", "hey", "yo", "ok", "okay", "k", "kk", "thanks", "thank", "thx", "ty", "cool", "nice", "great",
    "good", "fine", "sure", "yes", "yeah", "yep", "yup", "no", "nope", "nah", "bye", "goodbye", "continue", "go", "on",
    "lol", "haha", "hmm", "hm", "uh", "um", "wow", "alright", "right", "got", "it", "see", "you", "later", "morning",
    "evening", "night", "afternoon", "welcome", "np", "awesome", "perfect", "please", "much", "a", "lot", "again", "there",
    "the", "and", "so", "well", "done", "ahead", "next", "more", "sounds", "cheers", "oh", "noted", "understood",
    "that's", "thats", "all", "will", "do", "for", "now", "is", "that", "i",
}
_ZH_FILLERS = [
    "你好", "您好", "嗨", "哈喽", "早上好", "晚上好", "下午好", "晚安", "谢谢", "多谢", "感谢", "好的", "好", "嗯", "嗯嗯",
    "哦", "噢", "啊", "哈哈", "呵呵", "继续", "接着说", "然后呢", "再见", "拜拜", "行", "可以", "没问题", "收到", "明白",
    "知道了", "了解", "对", "记下了", "记住了", "明白了", "好嘞", "是的", "不用了", "不客气", "辛苦了", "在吗", "好吧", "ok", "谢啦", "太好了", "棒",
    "你", "您", "了", "啦", "呀", "吧", "呢", "的", "哈", "呵", "嘿", "哇",
]
#: Whole sentences of small talk that ask and say nothing ("I'm new here.", "Nice to meet you!", "How are you?").
_SMALL_TALK = re.compile(
    r"(?:i'?m|i am) new (?:here|to this)|(?:it'?s )?(?:my )?first time (?:here|using (?:this|you)(?: \w+)?)"
    r"|i(?:'ve| have)? (?:just |only )?(?:started|began|begun) (?:using|trying|talking to) (?:this|you|the) ?"
    r"(?:assistant|app|bot|chatbot|service|tool|thing)?(?: today)?|(?:it'?s )?"
    r"(?:nice|glad|pleased|good|great) to (?:meet|see|talk to) you(?: too| again)?|long time no see|how are you(?: doing)?(?: today)?"
    r"|how(?:'s| is) it going|what'?s up|(?:i'?m|i am) (?:good|fine|great|well|ok|okay)(?:,? thanks?(?: you)?)?(?:,? and you)?"
    r"|我是新来的|我(?:刚|刚刚)?(?:开始)?(?:用|使用)(?:你|这个(?:助手|应用|软件|工具)?)|初次见面|很高兴(?:认识|见到)(?:你|您)|好久不见|你好吗|最近(?:好|怎么样)吗?|我(?:很)?好(?:，|,)?谢谢"
)
#: What ends a sentence (with the spaces around it), stripped before a sentence is read as small talk.
_ENDS = " .!~。！～?？"
_ZH_FILLER_RE = re.compile("|".join(sorted(map(re.escape, _ZH_FILLERS), key=len, reverse=True)))
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
_QUESTION = re.compile(
    r"[?？]|\b(?:what|when|where|who|whom|whose|why|how|which|do you|did i|can you|could you|remember|recall)\b"
    r"|什么|怎么|怎样|哪|谁|为什么|多少|几|吗|呢|是否|有没有|记得"
)
_INSTRUCTION = re.compile(
    r"\b(?:recommend|suggest|tell|show|find|help|write|explain|give|list|book|plan|remind|search|look up|compare)\b"
    r"|推荐|建议|告诉|帮我|帮忙|写|解释|给我|列出|查|找|安排|提醒|比较|介绍"
)


def should_recall(text: str) -> bool:
    """Whether a user input should trigger long-term / permanent recall.

    Returns False for greetings, thanks, acknowledgements and "continue"-style fillers in Chinese or English;
    True for questions, instructions, or any remaining topic word.
    """
    norm = unicodedata.normalize("NFKC", text).strip().lower()
    if not norm:
        return False
    pieces = [p for p in re.split(r"(?<=[.!?。！？~～])\s*", norm) if p.strip(_ENDS)]
    if len(pieces) > 1:  # "Hi! I'm new here.": every sentence small talk or a filler
        return any(_asks_or_says(p) for p in pieces)
    return _asks_or_says(norm)


def _asks_or_says(norm: str) -> bool:
    """:func:`should_recall` of one normalised sentence."""
    if _SMALL_TALK.fullmatch(norm.strip().rstrip(_ENDS)):
        return False
    if _QUESTION.search(norm) or _INSTRUCTION.search(norm):
        return True
    words = re.findall(r"[a-z0-9']+", norm)
    if any(w not in _FILLERS for w in words):
        return True
    rest = _ZH_FILLER_RE.sub("", norm)
    return any(tokenize(ch) for ch in _CJK_CHAR.findall(rest))


_FACT_ROUTE = re.compile(
    r"\b(?:who am i|my name|name|identity|age|born|birthday|job|work|occupation|profession|employer|live|address|"
    r"family|wife|husband|daughter|son|kids?|allerg\w*|diet|vegetarian|vegan|health|medical|medic\w*|drugs?|"
    r"avoid|"
    r"config\w*|setting\w*|preference\w*|account|plan|subscription|version|api|"
    r"complian\w*|policy|policies|gdpr|consent|privacy|regulat\w*|legal|contract|coffee|drink\w*|"
    r"cat|dog|pets?|puppy|kitten|city|town|country|moved|home|lives?|living|called|named|"
    r"wife|partner|mother|father|mom|dad|parents?|children|eat|food|blood)\b"
    r"|我是谁|名字|叫什么|身份|年龄|生日|出生|工作|职业|公司|住|地址|家人|妻子|丈夫|女儿|儿子|孩子|过敏|饮食|素|健康|"
    r"猫|狗|宠物|城市|搬|家|父母|爸爸|妈妈|吃|"
    r"配置|设置|账号|账户|套餐|订阅|版本|合规|政策|隐私|同意|协议|合同|法律|咖啡|喝"
)


def needs_permanent(text: str) -> bool:
    """The fact router (docs/permissions.md): does this question touch identity, configuration or compliance?

    Permanent facts are loaded only then, so they do not crowd every prompt. A question about any topic of the
    fact-topic table (:func:`question_topics`: "Who's my manager?", "我的上司是谁？") touches the facts kept on it.
    """
    return bool(_FACT_ROUTE.search(unicodedata.normalize("NFKC", text).lower())) or bool(question_topics(text))


#: The question words of each topic of keyed facts (:data:`~hermes_memory_core.text.fact_topics.TOPICS`, the one
#: table the classifier keys statements with): a question about where the user lives ranks the user's residence
#: fact first, whatever its current version says ("用户从北京搬到上海了" answers "用户住在哪里？").
FACT_TOPICS: dict[str, re.Pattern[str]] = {topic.key: topic.question for topic in TOPICS}


#: A question about where the user works rather than what they do ("Where do I work?", "我在哪家公司上班？").
_WHERE_WORK = re.compile(r"\bwhere\b|\bwhich (?:company|firm|employer)\b|\bwho\b.{0,20}\bfor\b|\bemployer\b|\bcompany\b"
                         r"|哪(?:里|儿|家)|公司|单位")


def leading_topic(text: str, topics: frozenset[str]) -> str | None:
    """Of a question's ``topics`` (:func:`question_topics`), the one it asks most directly, where two share its words:
    the employer for "Where do I work?", the occupation for "What is my job?" / "我做什么工作？"; else None."""
    if {"occupation", "employer"} <= topics:
        return "employer" if _WHERE_WORK.search(unicodedata.normalize("NFKC", text).lower()) else "occupation"
    return None


def question_topics(text: str) -> frozenset[str]:
    """The fact topics of the user's that a question asks about (see :data:`FACT_TOPICS`). A question about someone
    of theirs ("What does my neighbour do?", "用户的外公以前是做什么的？") asks about the user's family at most: the
    user's own job, home or diet is not its answer."""
    norm = unicodedata.normalize("NFKC", text).lower()
    topics = frozenset(topic for topic, pattern in FACT_TOPICS.items() if pattern.search(norm))
    return topics & {"family"} if topics and about_someone_else(norm) else topics
