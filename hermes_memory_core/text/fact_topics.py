"""The topics of keyed facts, in one table: how a user states each (the rule classifier keys a first-person
statement with it) and the words of a question about it (search ranks the user's fact on that topic first).

A keyed fact's ``fact_key`` starts with its topic (``residence``, ``allergy_peanuts``); a later statement on the
same topic becomes the fact's next version, and a question on the topic finds the current version whatever it says
("用户从北京搬到上海了" answers "用户住在哪里？"). Patterns match lower-cased (and, for questions, NFKC-normalised) text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TOPICS", "FactTopic"]


@dataclass(frozen=True, slots=True)
class FactTopic:
    """One topic of keyed facts.

    Attributes:
        key: The topic (a ``fact_key`` before its ``_``).
        statement: A first-person statement of such a fact, in English or Chinese ("my name is", "我住在").
        question: A question about it ("where do I live", "住在哪里").
    """

    key: str
    statement: re.Pattern[str]
    question: re.Pattern[str]


#: Every topic, in the order the rules try them on a statement (the first that matches keys it): its key, then the
#: patterns of a statement and of a question (a table of patterns, compiled here).
TOPICS: tuple[FactTopic, ...] = tuple(
    FactTopic(key, re.compile(statement), re.compile(question))
    for key, (statement, question) in {
        "name": (
            r"\bmy name is\b|\bcall me\b|我叫|我的名字|我姓",
            (r"\b(?:my name|the user's name|who am i|what am i called|what is the user called)\b"
             r"|我叫什么|名字|用户叫什么"),
        ),
        "allergy": (
            r"\bi(?: am|'m) allergic\b|\ballergic to\b|过敏",
            (r"allerg|\bavoid|medicin|medicat|\bdrugs?\b|\b(?:can't|cannot|can not|shouldn't|should not|mustn't) "
             r"(?:eat|have|take|drink)\b|过敏|忌口|不能吃|不能用|药"),
        ),
        "birth": (
            r"\bi was born\b|\bmy birthday\b|我的生日|我出生",
            r"\b(?:born|birthday|how old|age)\b|生日|出生|几岁|多大",
        ),
        "occupation": (
            (r"\bi work (?:as|at|for)\b|\bmy job\b|\bi(?: am|'m) (?:now |currently )?an? (?:\w+ )?"
             r"(?:engineer|developer|doctor|teacher|nurse|lawyer|analyst|designer|manager|student|scientist|"
             r"programmer|accountant|journalist|chef|driver)\b|\bi (?:now |currently )?work (?:as|at|for)\b"
             r"|我(?:现在|目前)?在.{1,20}(?:工作|上班)|我的工作|我?(?:换|找到)了?(?:一?份|个|新)?(?:新)?工作|跳槽"
             r"|我(?:现在|目前)?在.{1,20}(?:做|当|担任)(?:一名|一个)?.{0,8}(?:师|员|医生|经理|主管|工人|编辑|作家)"
             r"|(?:现在|目前)(?:是|当|做)(?:一名|一个)?.{0,8}(?:工程师|医生|老师|律师|设计师|分析师|经理|程序员|护士|会计|"
             r"记者|厨师|司机|教师|麻醉师)|我(?:现在|目前|已经)?(?:是|当)(?:一名|一个|了)?.{0,6}"
             r"(?:工程师|医生|老师|律师|学生|设计师|分析师|经理|程序员|护士|会计|记者|厨师|司机|销售|教师)|我(?:现在|目前)?是一名"),
            (r"\b(?:work(?:s|ing)?|job|occupation|profession|employer|career|for a living)\b"
             r"|工作|职业|上班|做什么的|公司"),
        ),
        "residence": (
            (r"\bi (?:now |currently |still )?live in\b|\bmy address\b"
             r"|\bi(?: have|'ve)? (?:just )?moved (?:from .{1,40} )?to\b"
             r"|我(?:现在|目前|已经|一直)?(?:住在|家在|搬到|住)|我(?:从.{1,12})?搬(?:家)?到"),
            (r"\b(?:live[sd]?|living|address|city|town|country|home|moved|reside\w*)\b"
             r"|住|地址|城市|搬|家在|哪个城市"),
        ),
        "pet": (
            (r"\bmy (?:cat|dog|pet|puppy|kitten|rabbit|hamster|parrot)\b|\bi have an? (?:cat|dog|pet|puppy|kitten)\b"
             r"|我(?:的|家)?(?:猫|狗|宠物|小猫|小狗|兔子)|我养了"),
            r"\b(?:cat|dog|pets?|puppy|kitten)\b|猫|狗|宠物",
        ),
        "family": (
            (r"\bmy (?:wife|husband|son|daughter|partner|mother|father|kids?|children)\b"
             r"|我(?:的)?(?:妻子|老婆|丈夫|老公|儿子|女儿|孩子|父亲|母亲|爸爸|妈妈)"),
            (r"\b(?:wife|husband|partner|daughter|son|kids?|children|mother|father|mom|dad|parents?|family|relatives?)\b"
             r"|妻子|老婆|丈夫|老公|女儿|儿子|孩子|父母|妈妈|爸爸|母亲|父亲|家人|家庭|家里人|亲人"),
        ),
        "boss": (
            r"\bmy (?:boss|manager|supervisor|line manager)\b|\bi report to\b|我(?:的|们)?(?:老板|领导|上司|顶头上司)",
            r"\b(?:boss|manager|supervisor)\b|\breport(?:s|ing)? to\b|老板|领导|上司|汇报",
        ),
        "diet": (
            r"\bi(?: am|'m) (?:vegetarian|vegan)\b|我(?:吃素|是素食)",
            r"\b(?:vegetarian|vegan|diet|eat|food)\b|素|饮食|吃",
        ),
    }.items()
)
