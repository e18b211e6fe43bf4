"""One memory per fact: is a statement already held by one of the user's memories?

Two statements are the same fact when, in the same language, they say the same thing with the same words up to
what carries no fact: case, width, punctuation, spacing, articles, the subject ("the user", "用户", "我"),
intensifiers and hedges ("really", "very", "很", "非常", "都", "也"), sentence-final particles ("了", "呢"),
contractions and English inflection ("doesn't" = "does not", "peanuts" = "peanut"). Everything else is a fact word:
a different noun, number, negation, tense marker or frequency makes a different fact, so "用户对花生过敏" and
"用户对青霉素过敏", "The user's son is 7" and "The user's daughter is 7", "The user was a teacher" and "The user is a
teacher" are never merged. The guards on numbers and negation run first and separately, so a number written in
another form ("seven", "七") or a negation the filler list could touch never slips through.

This is a lexical rule on purpose: it is deterministic, needs no model and costs microseconds per pair, and a
wrong merge loses a fact while a missed duplicate only costs a row. Paraphrases with other words ("has a peanut
allergy" for "is allergic to peanuts") are not caught. Measured on a bilingual set of near misses, duplicates
and paraphrases in ``tests/hermes_memory_core/lifecycle/test_dedupe.py``.

Candidates are found with one keyword query (the user's best BM25 matches among the tiers the caller may read):
a duplicate shares every fact word, so it ranks near the top.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.text.tokenizer import tokenize_query
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = ["CANDIDATES", "fact_signature", "find_duplicate", "language", "same_fact"]

#: Keyword matches checked per statement.
CANDIDATES = 12

_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)

# ------------------------------------------------------------------------------------------------ English
def _words(text: str) -> list[str]:
    return text.split()


_CONTRACTIONS = [
    (re.compile(r"\bcan't\b"), "can not"), (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"\bwon't\b"), "will not"), (re.compile(r"\bshan't\b"), "shall not"),
    (re.compile(r"\bain't\b"), "is not"), (re.compile(r"n't\b"), " not"),
    (re.compile(r"\b(i|you|we|they)'re\b"), r"\1 are"), (re.compile(r"\b(he|she|it|that)'s (been)\b"), r"\1 has \2"),
    (re.compile(r"'ve\b"), " have"), (re.compile(r"'ll\b"), " will"), (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"'d\b"), " would"),
]
#: Words that carry no fact: articles, the subject, copula and do-support, intensifiers, hedges, fillers.
_EN_FILLER = frozenset(_words(
    "a an the user users i me my mine myself "
    "is are am be do does really very quite so just also too actually basically definitely truly absolutely "
    "pretty certainly indeed totally genuinely especially particularly still currently"
))
_EN_PHRASES = [(re.compile(r"\ba lot\b|\bvery much\b|\bso much\b|\bby the way\b|\bbtw\b|\bjust so you know\b|\bfyi\b"), " "), (re.compile(r"\bfavourite\b"), "favorite"),
               (re.compile(r"\bcolour"), "color"), (re.compile(r"\be-mail\b"), "email")]
_EN_NEGATIONS = frozenset(_words("not no never none nobody nothing neither nor without nowhere cannot"))
_EN_NUMBERS: dict[str, float] = {
    w: n for n, w in enumerate(_words(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty"))
}
_EN_NUMBERS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
                    "hundred": 100, "thousand": 1000, "million": 1_000_000, "dozen": 12, "once": 1, "twice": 2,
                    "first": 1, "second": 2, "third": 3, "half": 0.5, "both": 2, "single": 1, "double": 2})
_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*|'s\b|[$€£¥₩₹%°+#@&]")


def _stem(word: str) -> str:
    """English inflection off, conservatively (the same on both sides of a comparison)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x"), ("oes", "o")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + repl
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")):
        return word[:-1]
    return word


# ------------------------------------------------------------------------------------------------ Chinese
#: Removed before comparing: the subject, particles, intensifiers, "all/also/still" adverbs.
_ZH_FILLER = re.compile(
    "用户的|用户|我的|我(?!们)|非常|特别|十分|相当|比较|真的|确实|其实|挺|蛮|超级|很|真|都|也|还是|还|"
    "就是|就|的话|的|了|呢|啊|呀|吧|哦|嘛|啦|喔|哈|着|过(?=[。，！？,.!?\\s]|$)"
)
_ZH_NEGATIONS = re.compile("不|没|沒|无|無|非|未|别|別|莫|勿|否|戒")
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "萬": 10_000, "亿": 100_000_000}
#: "一" inside these words is no number.
_ZH_NOT_NUMBER = re.compile("一直|一起|一般|一定|一样|一下|一些|一点|一切|一向|一旦|一致|统一|唯一|万一|一边|一会|"
                            "一律|一同|一贯|一再|一概|一番|一时|十分|万分|千万")
_ZH_NOT_NEGATION = re.compile("非常|无论|不错|不仅|不但|不管|特别|分别|区别|告别|别人")
_ZH_NUMERAL = re.compile("[零〇一二两兩三四五六七八九十百千万萬亿]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
#: Punctuation and spacing; symbols that carry a fact (currency, percent, "C++", "C#") are kept.
_PUNCT = re.compile(r"[^\w$€£¥₩₹%°+#@&]+|_+", re.UNICODE)


def language(text: str) -> str:
    """``"zh"`` when CJK characters outnumber Latin letters, else ``"en"``."""
    return "zh" if len(_CJK.findall(text)) >= len(_LATIN.findall(text)) and _CJK.search(text) else "en"


def _zh_number(run: str) -> float:
    total, section, digit = 0, 0, 0
    for ch in run:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in ("万", "萬", "亿"):
            total += (section + digit) * _ZH_UNITS[ch]
            section, digit = 0, 0
        else:
            section += (digit or 1) * _ZH_UNITS[ch]
            digit = 0
    return float(total + section + digit)


def _number(digits: str) -> str:
    """A written number in one canonical form ("1,000" = "1000", "3,5" = "3.5"; "1.2.3" stays as it is)."""
    if "," in digits and "." in digits:
        digits = digits.replace(",", "")
    elif digits.count(",") == 1 and len(digits.split(",")[1]) != 3:
        digits = digits.replace(",", ".")
    else:
        digits = digits.replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return digits
    return f"{value:g}"


def _clean(text: str) -> str:
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()


@lru_cache(maxsize=4096)
def fact_signature(text: str) -> tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """``(language, numbers, negations, fact words)`` of a statement: two statements with equal signatures are
    the same fact (see the module docstring)."""
    norm = _clean(text)
    lang = language(norm)
    numbers = [_number(d) for d in _DIGITS.findall(norm)]
    if lang == "zh":
        body = _ZH_NOT_NUMBER.sub(lambda m: "\u0001" * len(m.group()), norm)
        numbers += [f"{_zh_number(m.group()):g}" for m in _ZH_NUMERAL.finditer(body)]
        negations = tuple(sorted(_ZH_NEGATIONS.findall(_ZH_NOT_NEGATION.sub("", norm))))
        words = tuple(_PUNCT.sub("", _ZH_FILLER.sub("", norm)))
    else:
        for pattern, repl in _CONTRACTIONS + _EN_PHRASES:
            norm = pattern.sub(repl, norm)
        tokens = [t for t in _WORD.findall(norm) if t != "'s"]
        numbers += [f"{_EN_NUMBERS[t]:g}" for t in tokens if t in _EN_NUMBERS]
        negations = tuple(sorted(t for t in tokens if t in _EN_NEGATIONS))
        words = tuple(_stem(t) for t in tokens if t not in _EN_FILLER)
    return lang, tuple(sorted(numbers)), negations, words


def same_fact(a: str, b: str) -> bool:
    """Whether two statements hold the same fact (same language; see the module docstring)."""
    sa, sb = fact_signature(a), fact_signature(b)
    if sa[:3] != sb[:3]:  # language, numbers and negations must agree whatever the words
        return False
    plain = _PUNCT.sub("", _clean(a))
    return bool(plain) and (plain == _PUNCT.sub("", _clean(b)) or (bool(sa[3]) and sa[3] == sb[3]))


def _search_terms(text: str) -> list[str]:
    """The keyword-index tokens of a statement's fact words (fillers such as "user" or "用户" match most of a
    user's memories and would only slow the query down); all tokens when nothing else is left."""
    tokens = tokenize_query(text)
    kept = [t for t in tokens if t not in _EN_FILLER and t not in ("用户", "用", "户", "我")]
    return kept or tokens


def find_duplicate(
    lookups: Lookups, user_id: str, text: str, tiers: tuple[MemoryType, ...], session_id: str | None
) -> MemoryRecord | None:
    """The user's active memory (of ``tiers``; short-term ones only of ``session_id``) that already holds the
    fact ``text`` states, if any — the most recently updated when several do."""
    if not tiers:
        return None
    terms = lookups.codec.query_terms(_search_terms(text))
    now = lookups.now()
    lasting = tuple(t.value for t in tiers if t is not MemoryType.SHORT_TERM)
    if MemoryType.SHORT_TERM in tiers and session_id is not None:
        # the session's short-term memories and the lasting ones, each ranked apart (the keyword index keeps each
        # search to those memories' matches): one search of every tier ranked all of a chat user's lines, of every
        # session, to keep this session's (a cost that grew with every line kept)
        session = lookups.codec.seal_filter(  # (the session id as the rows hold it)
            MemoryFilter(user_id, (MemoryType.SHORT_TERM.value,), session_id=session_id, now=now))
        found = lookups.keyword_candidates(user_id, terms, CANDIDATES, session, context_weight=0.0)
        if lasting:
            found += lookups.keyword_candidates(user_id, terms, CANDIDATES, MemoryFilter(user_id, lasting, now=now),
                                                context_weight=0.0)
    else:
        flt = MemoryFilter(user_id, tuple(t.value for t in tiers), now=now)
        found = lookups.keyword_candidates(user_id, terms, CANDIDATES, flt, context_weight=0.0)
    records = lookups.active_records([mid for mid, _ in found], user_id, now=now)
    same = [
        r for r in records.values()
        if (r.memory_type is not MemoryType.SHORT_TERM or r.session_id == session_id) and same_fact(text, r.content)
    ]
    return max(same, key=lambda r: (r.updated_at, r.id)) if same else None
