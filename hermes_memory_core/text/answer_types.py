"""The kind of value a question asks for, and whether a line holds one: a line that holds none cannot answer it.

Some questions name the kind of their answer — a colour, a star sign, a blood type, a clothing size, a height, a
weight, a number that identifies something, a password. A store full of the user's other facts always holds lines
that *sound* like such a question ("What is my favourite colour?" and "My favourite dish is my grandmother's braised
pork"; "我穿多大码的鞋？" and "我的手机是华为Mate 60"): the dense and keyword scores cannot tell the attribute asked
from its neighbour, but the value's form can. Recall is silent on such a question when no line it would show holds a
value of the kind (or names the attribute itself: "My favourite colour is…" answers whatever colour it names).

The table is deliberately small: a kind is listed only where a question's words fix it and a line's value has a form
a pattern can see in English and Chinese. Open questions ("What is my job?", "How many kids do I have?") are not
typed here. A birth date counts as the answer to a star sign or zodiac question (the sign follows from it).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["VALUE_KINDS", "ValueKind", "expected_value", "holds_value"]

_NUM = r"[0-9一二两三四五六七八九十百]"


@dataclass(frozen=True)
class ValueKind:
    """A kind of value a question may ask for.

    Attributes:
        key: Its name ("colour", "blood_type", …).
        question: Matches a question (lower-cased, NFKC-normalised) that asks for a value of this kind.
        value: Matches a line (lower-cased, NFKC-normalised) that holds one, or names the attribute itself.
    """

    key: str
    question: re.Pattern[str]
    value: re.Pattern[str]


#: Every kind, in the order a question is matched against them (the first that matches is its kind).
VALUE_KINDS: tuple[ValueKind, ...] = tuple(
    ValueKind(key, re.compile(question), re.compile(value))
    for key, (question, value) in {
        "colour": (
            r"\bcolou?rs?\b|颜色|什么色|哪种色",
            (r"\b(?:colou?rs?|red|blue|green|yellow|black|white|gr[ae]y|pink|purple|violet|orange|brown|silver|gold(?:en)?"
             r"|navy|beige|teal|turquoise|cream|maroon|lilac|crimson|scarlet)\b"
             r"|颜色|[红橙黄绿青蓝紫黑白灰粉棕褐银金米]色|彩色"),
        ),
        "star_sign": (
            r"\bstar signs?\b|\bzodiac\b|\bhoroscope\b|\bastrological\b|星座|属相|生肖|属什么",
            (r"\b(?:star sign|zodiac|horoscope|aries|taurus|gemini|cancer|leo|virgo|libra|scorpio|sagittarius|capricorn"
             r"|aquarius|pisces|year of the (?:rat|ox|tiger|rabbit|dragon|snake|horse|goat|sheep|monkey|rooster|dog|pig)"
             r"|born|birthday)\b"
             r"|星座|属相|生肖|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]|(?:白羊|金牛|双子|巨蟹|狮子|处女|天秤|天蝎|射手|摩羯|水瓶|双鱼)座|生日|出生"),
        ),
        "blood_type": (
            r"\bblood (?:type|group)s?\b|血型",
            r"\bblood (?:type|group)\b|血型|(?<![\w'’])(?:ab|a|b|o)(?:[+-]|\s?(?:positive|negative|rh))|\btype (?:ab|a|b|o)\b",
        ),
        "size": (
            (r"\b(?:shoe|clothes|clothing|shirt|dress|trouser|pants|jeans|ring|bra|jacket|coat|hat|glove)s? sizes?\b"
            r"|\bsizes? (?:of )?(?:shoes?|clothes|shirts?|dress|trousers|pants|jeans)\b|\bwhat size\b"
            r"|尺码|鞋码|多大码|多大号|几码|穿几号"),
            (r"\bsizes?\b|(?<![\w'’])(?:xx?s|xx?l|s|m|l)(?![\w'’])|\b(?:eu|uk|us) ?\d"
             r"|尺码|鞋码|" + _NUM + r"+(?:码|号(?=的?(?:鞋|衣|裤|裙)))|[大中小]号|加大"),
        ),
        "height": (
            r"\bhow tall\b|\bheight\b|身高|多高|个子",
            (r"\btall\b|\bheight\b|\d+(?:\.\d+)?\s*(?:cm|centimet(?:er|re)s?|m|met(?:er|re)s?|feet|foot|ft|inch(?:es)?)\b"
             r"|\d+\s*['’]\s*\d+|身高|个子|" + _NUM + r"+(?:厘米|公分)|[一两]米" + _NUM),
        ),
        "weight": (
            r"\bhow (?:much|heavy) (?:do|am|does|is) (?:i|the user|my)\b.{0,12}\bweigh|\bhow heavy am i\b|\bweight\b|体重|多重",
            (r"\bweigh(?:s|t|ed)?\b|\d+(?:\.\d+)?\s*(?:kg|kilos?|kilograms?|pounds?|lbs?|stone)\b"
             r"|体重|" + _NUM + r"+(?:斤|公斤|千克)"),
        ),
        "identifier": (
            (r"\b(?:phone|mobile|telephone|cell|passport|id|licen[cs]e|plate|registration|account|card|membership|"
            r"social security|tax) numbers?\b|电话号码?|手机号|护照号|身份证号|车牌号?|卡号|账号|号码"),
            (r"\d[\d\s-]{2,}\d|[a-z]{1,3}[\s-]?\d{3,}|\b(?:phone|mobile|passport|id|licen[cs]e|plate|account|card) numbers? "
             r"(?:is|was|ends)\b|号码|电话是|手机号|护照号|身份证号|车牌|尾号|卡号|账号"),
        ),
        "password": (
            r"\bpass(?:word|code|phrase)s?\b|\bpin(?: code)?\b|密码",
            r"\bpass(?:word|code|phrase)s?\b|\bpin\b|密码",
        ),
    }.items()
)


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def expected_value(question: str) -> ValueKind | None:
    """The kind of value ``question`` asks for (see :data:`VALUE_KINDS`), or None when its words fix none."""
    q = _norm(question)
    return next((kind for kind in VALUE_KINDS if kind.question.search(q)), None)


def holds_value(kind: ValueKind, text: str) -> bool:
    """Whether ``text`` holds a value of ``kind`` or names the attribute itself (so it may answer a question of it)."""
    return bool(kind.value.search(_norm(text)))
