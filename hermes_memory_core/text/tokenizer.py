"""A keyword tokenizer for Chinese, English and mixed text.

Chinese has no spaces, so a run of CJK characters becomes its single characters plus every adjacent pair
(bigrams): "我喜欢喝美式咖啡" yields "咖啡" among others, so the query "咖啡" finds it. Latin text is
lower-cased, split on non-word characters, stripped of common stop words and lightly stemmed
("coffees" → "coffee", "running" → "runn"), the same way on both sides of the index.

The tokenizer is deterministic and has no model or dictionary to load: it runs in microseconds per sentence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["ENGLISH_STOPWORDS", "MAX_TOKEN_CHARS", "tokenize", "tokenize_query"]

#: Longer words are cut to this many characters (an index key must stay small in every backend).
MAX_TOKEN_CHARS = 64

_CJK = (
    "\u3040-\u30ff"  # kana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified
    "\uac00-\ud7af"  # hangul
    "\uf900-\ufaff"  # CJK compatibility
)
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RE = re.compile(rf"^[{_CJK}]+$")

ENGLISH_STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "don", "ll", "ve", "re", "m", "d", "also", "yeah", "oh", "hey", "hi", "really", "so", "just", "got", "get"]
)

# Single CJK characters that carry no topic (particles, pronouns, copulas).
_CJK_STOP_CHARS = frozenset("的了是在我你他她它们吗呢吧啊呀么和与及就都也还很又这那个有不")


def _stem(word: str) -> str:
    """A light, conservative English suffix stripper (the same on documents and queries)."""
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("ing") and len(word) > 5:
        return word[:-3]
    if word.endswith("ed") and len(word) > 4 and not word.endswith("eed"):
        return word[:-2]
    if word.endswith("es") and len(word) > 4 and word[-3] in "sxz":
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=65_536)
def _word_tokens(word: str) -> tuple[str, ...]:
    if _CJK_RE.match(word):
        grams = [c for c in word if c not in _CJK_STOP_CHARS]
        grams.extend(word[i : i + 2] for i in range(len(word) - 1))
        return tuple(grams)
    if word in ENGLISH_STOPWORDS:
        return ()
    return (_stem(word)[:MAX_TOKEN_CHARS],)


def tokenize(text: str) -> list[str]:
    """Split text into keyword tokens for indexing.

    Args:
        text: Any Unicode text.

    Returns:
        Tokens in order of appearance (duplicates kept, so term frequency counts).
    """
    norm = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for match in _TOKEN_RE.finditer(norm):
        out.extend(_word_tokens(match.group()))
    return out


def tokenize_query(text: str) -> list[str]:
    """Tokens of a query, de-duplicated in order (a query term counts once)."""
    return list(dict.fromkeys(tokenize(text)))
