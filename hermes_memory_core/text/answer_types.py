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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hermes_memory_core.text.language import language_of
from hermes_memory_core.text.terms import document_terms

__all__ = ["VALUE_KINDS", "ValueKind", "answers_none", "expected_value", "holds_value"]

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


#: Words that name a colour, in English; Chinese colours are a character before 色 or 的 ("咖啡色", "红的").
_COLOURS = (r"colou?rs?|red|blue|green|yellow|black|white|gr[ae]y|pink|purple|violet|orange|brown|silver|gold(?:en)?|navy|"
            r"beige|teal|turquoise|cream|maroon|lilac|crimson|scarlet|burgundy|indigo|khaki|magenta|lavender|olive|sage|"
            r"mint|coral|ivory|emerald|amber|charcoal|mustard|cyan|aqua|tan|rose|peach|plum|ruby|sapphire|bronze|copper")
#: Words that end in 色 without naming a colour ("特色", "角色", "出色").
_NOT_COLOUR = r"特|角|出|景|货|成|夜|女|美|神|气|脸|声|起|失|逊|变|暮|春|秋|音|本|物"

#: Every kind, in the order a question is matched against them (the first that matches is its kind).
VALUE_KINDS: tuple[ValueKind, ...] = tuple(
    ValueKind(key, re.compile(question), re.compile(value))
    for key, (question, value) in {
        "colour": (
            r"\b(?:what|which) colou?rs?\b|\bfavou?rite colou?rs?\b|\bcolou?r is\b|什么颜色|哪种颜色|什么色|哪种色|颜色是",
            (r"\b(?:" + _COLOURS + r")\b|颜色|色彩|彩色|(?<![" + _NOT_COLOUR + r"])色"
             r"|[红橙黄绿青蓝紫黑白灰粉棕褐银金](?:的|调)|[红白]酒|[红绿黑白]茶|[红白]葡萄"),
        ),
        "star_sign": (
            r"\bstar signs?\b|\bzodiac\b|\bhoroscope\b|\bastrological sign\b|星座|属相|生肖|属什么",
            (r"\b(?:star sign|zodiac|horoscope|aries|taurus|gemini|cancer|leo|virgo|libra|scorpio|sagittarius|sag|capricorn"
             r"|cap|aquarius|pisces|year of the (?:rat|ox|tiger|rabbit|dragon|snake|horse|goat|sheep|monkey|rooster|dog|pig)"
             r"|born|birthday)\b"
             r"|星座|属相|生肖|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]|(?:白羊|金牛|双子|巨蟹|狮子|处女|天秤|天蝎|射手|摩羯|水瓶|双鱼)座?|生日|出生"),
        ),
        "blood_type": (
            r"\bblood (?:type|group)s?\b|血型",
            (r"\bblood\b|血型|[abo]型|ab型|(?<![a-z'’])(?:ab|a|b|o)\s?(?:[+-]|pos(?:itive)?|neg(?:ative)?|rh)"
             r"|\btype (?:ab|a|b|o)\b"),
        ),
        "size": (
            (r"\b(?:shoe|clothes|clothing|shirt|dress|trouser|pants|jeans|ring|bra|jacket|coat|glove)s? sizes?\b"
             r"|\bsizes? (?:of )?(?:shoes?|clothes|shirts?|dress|trousers|pants|jeans)\b"
             r"|\bwhat size (?:shoes?|clothes|shirts?|dress|trousers|pants|jeans|jacket|coat)\b"
             r"|尺码|鞋码|多大码|多大号|几码|穿几号"),
            (r"\bsizes?\b|\b(?:small|medium|large|petite|extra large|plus size)\b|(?<![a-z0-9'’])(?:xx?s|xx?l|s|m|l)(?![a-z0-9'’])"
             r"|\b(?:eu|uk|us) ?\d|\d|尺码|鞋码|码|[大中小]号|加大|" + _NUM + r"+号(?=的?(?:鞋|衣|裤|裙))"),
        ),
        "height": (
            r"\bhow tall\b|\bmy height\b|\bheight\b.{0,10}\b(?:i|am|my)\b|身高|(?:我|用户)有?多高|个子",
            (r"\btall\b|\bheight\b|\d+(?:\.\d+)?\s*(?:cm|centimet(?:er|re)s?|m|met(?:er|re)s?|feet|foot|ft|inch(?:es)?)"
             r"|\d+\s*['’]\s*\d+|\b(?:one|two|three|four|five|six|seven)[\s-]*(?:foot|feet|ft)\b|\b1\.\d{1,2}\b"
             r"|身高|个子|" + _NUM + r"+(?:厘米|公分)|" + _NUM + r"米" + _NUM + r"?"),
        ),
        "weight": (
            (r"\bhow (?:much|heavy) (?:do|am|does|is) (?:i|the user|my)\b.{0,12}\bweigh|\bhow heavy am i\b|\bmy weight\b"
            r"|\bthe user's weight\b|体重|(?:我|用户)有?多重"),
            (r"\bweigh(?:s|t|ed)?\b|\d+(?:\.\d+)?\s*(?:kg|kilos?|kilograms?|pounds?|lbs?|stone|st)\b"
             r"|体重|" + _NUM + r"+(?:斤|公斤|千克)"),
        ),
        "identifier": (
            (r"\b(?:phone|mobile|telephone|cell|passport|id|licen[cs]e|plate|registration|membership|"
             r"social security|tax) numbers?\b|电话号码?|手机号|护照号|身份证号|车牌号"),
            (r"\d[\d\s-]{2,}\d|[a-z]{1,3}[\s-]?\d{3,}|\b(?:phone|mobile|passport|id|licen[cs]e|plate|number)\b"
             r"|号码|电话|手机号|护照|身份证|车牌|尾号"),
        ),
        "password": (
            r"\bpass(?:word|code|phrase)s?\b|\bpin code\b|\bmy pin\b|密码|口令",
            r"\bpass(?:word|code|phrase)s?\b|\bpin\b|\bcode\b|密码|口令",
        ),
    }.items()
)


#: Words that name whose value is asked, not the value ("my mother's phone number": a line about the mother need not
#: hold her number): they do not keep a line from the silence.
_PERSON = re.compile(
    r"(?:user|mother|father|mom|mum|dad|parents?|wife|husband|partner|son|daughter|kids?|child|children|sister|brother|"
    r"siblings?|friends?|grand(?:mother|father|ma|pa)|girlfriend|boyfriend|boss|manager|colleague|neighbou?r)$"
    r"|(?:用户|母亲|妈妈|亲妈|父亲|爸爸|女儿|儿子|妻子|老婆|丈夫|老公|孩子|姐姐|妹妹|哥哥|弟弟|朋友|外婆|外公|奶奶|爷爷|老板|同事|邻居)$")


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def expected_value(question: str) -> ValueKind | None:
    """The kind of value ``question`` asks for (see :data:`VALUE_KINDS`), or None when its words fix none."""
    q = _norm(question)
    return next((kind for kind in VALUE_KINDS if kind.question.search(q)), None)


def holds_value(kind: ValueKind, text: str) -> bool:
    """Whether ``text`` holds a value of ``kind`` or names the attribute itself (so it may answer a question of it)."""
    return bool(kind.value.search(_norm(text)))


def answers_none(kind: ValueKind, lines: Sequence[str], focus: Iterable[str], question: str) -> bool:
    """Whether none of ``lines`` can answer a question of ``kind``: none holds a value of it, and none shares a word of
    what the question is about (``focus``, e.g. :func:`~hermes_memory_core.retrieval.recall_policy.focus_terms`: a
    whole word, its dictionary gloss, or for a Chinese word its characters in a row) — a line that does may say the
    value in a form the table does not know ("我的鞋是42号" for "What's my shoe size?"), so it is never silenced. Only the
    focus words in the ``question``'s own script count (a Chinese question's English glosses share too much: 体重 and
    体检 are both "body")."""
    english = language_of(question) != "zh"
    words = [w for w in focus if len(w) > 1 and w.isascii() == english and not _PERSON.match(w)]
    for line in lines:
        if holds_value(kind, line):
            return False
        terms = set(document_terms(line))
        if any(w in terms or (not w.isascii() and w in line) for w in words):
            return False
    return True
