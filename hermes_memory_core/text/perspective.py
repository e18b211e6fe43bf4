"""First person to third person, in English and Chinese: how a user's words become words about the user.

The lifecycle stores statements about the user in the third person ("我平时写 Python" → "用户平时写 Python",
"I mostly write Python" → "The user mostly writes Python"), and questions a user asks about themselves ("What am I
allergic to?") match those memories far better in the same form ("What is the user allergic to?"). Verbs agree
with their new subject (am → is, have → has, write → writes, do I → does the user); e-mail addresses and URLs are
left exactly as they were.
"""

from __future__ import annotations

import re

__all__ = ["has_first_person", "is_request", "to_third_person"]

_PROTECTED = re.compile(r"\S+@\S+|\b(?:https?|ftp)://\S+|\bwww\.\S+", re.IGNORECASE)
_FIRST_PERSON_EN = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.IGNORECASE)
_FIRST_PERSON_ZH = re.compile(r"我(?!们)")

_MODALS = "can|could|will|would|should|shall|may|might|must|did|was|had"
_ADVERBS = (
    "usually|often|always|never|mostly|really|also|sometimes|rarely|still|just|only|already|normally|generally|"
    "typically|mainly|frequently|occasionally|seldom|hardly|barely|even|actually|definitely|probably|currently|"
    "now|recently|regularly|constantly"
)
_IRREGULAR = {
    "am": "is", "are": "is", "have": "has", "do": "does", "go": "goes", "don't": "doesn't", "haven't": "hasn't",
    "aren't": "isn't",
}
# past forms that look like the present ("I quit coffee"), and auxiliaries that never agree
_NO_AGREEMENT = frozenset(
    f"{_MODALS}|would|didn't|can't|won't|wouldn't|couldn't|shouldn't|wasn't|hadn't|quit|put|cut|set|hit|let|"
    "read|hurt|spent|left|met|lost|made|got|took|went|came|saw|ate|bought|sold|moved|began|became|broke|"
    "chose|drove|forgot|found|gave|grew|heard|kept|knew|paid|ran|said|sent|sat|slept|spoke|stood|swam|"
    "taught|thought|told|understood|won|wrote|used".split("|")
)
# "I" + optional adverbs + a verb (the verb is conjugated for the third person)
_SUBJECT_VERB = re.compile(
    rf"\b(I)((?:\s+(?:{_ADVERBS}))*)\s+([a-z']+)\b|\b(I)('m|'ve|'d|'ll)\b", re.IGNORECASE
)
_INVERSION = re.compile(rf"\b(am|are|do|have|{_MODALS})\s+I\b", re.IGNORECASE)
_OBJECT = [
    (re.compile(r"\bmyself\b", re.IGNORECASE), "themselves"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "the user's"),
    (re.compile(r"\bme\b", re.IGNORECASE), "the user"),
    (re.compile(r"\bI\b"), "the user"),
]


# asking the assistant to do something ("how do I …", "help me …", "帮我…"): the speaker is not the topic
_REQUEST = re.compile(
    r"\bhow (?:do|can|could|should|would|to) i\b|\b(?:help|tell|show|give|teach|let|get|find|make|send|book|write|"
    r"explain|translate) me\b|\bcan you\b|\bcould you\b|\bplease\b|帮我|给我|告诉我|教我|替我|为我|让我|请",
    re.IGNORECASE,
)


def is_request(text: str) -> bool:
    """Whether ``text`` asks the assistant to do something (then its "I"/"me" is not what it is about)."""
    return bool(_REQUEST.search(text))


def has_first_person(text: str) -> bool:
    """Whether ``text`` speaks in the first person singular (I, me, my, 我 — not 我们)."""
    unprotected = _PROTECTED.sub(" ", text)
    return bool(_FIRST_PERSON_EN.search(unprotected) or _FIRST_PERSON_ZH.search(unprotected))


def _third_person_verb(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _NO_AGREEMENT or low.endswith(("ed", "n't")) or not low.isalpha():
        return verb
    if low.endswith(("s", "x", "z", "ch", "sh", "o")):
        return verb + "es"
    if len(low) > 1 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _english(text: str) -> str:
    def inversion(m: re.Match[str]) -> str:
        aux = m.group(1)
        low = aux.lower()
        new = {"am": "is", "are": "is", "do": "does", "have": "has"}.get(low, low)
        return (new.capitalize() if aux[0].isupper() else new) + " the user"

    def subject_verb(m: re.Match[str]) -> str:
        if m.group(4):  # I'm, I've, I'd, I'll
            return {"'m": "the user is", "'ve": "the user has", "'d": "the user would", "'ll": "the user will"}[
                m.group(5).lower()
            ]
        return f"the user{m.group(2)} {_third_person_verb(m.group(3))}"

    out = _INVERSION.sub(inversion, text)
    out = _SUBJECT_VERB.sub(subject_verb, out)
    for pattern, repl in _OBJECT:
        out = pattern.sub(repl, out)
    return out


def _chinese(text: str) -> str:
    return text.replace("我们", "\x00").replace("我的", "用户的").replace("我", "用户").replace("\x00", "我们")


def to_third_person(text: str, *, keep_requests: bool = False) -> str:
    """``text`` with the speaker ("I", "我") turned into "the user" / "用户", verbs agreeing; the rest unchanged.

    A sentence that starts with the new subject starts with a capital ("The user ..."). E-mail addresses and
    URLs are never rewritten.

    Args:
        keep_requests: Leave a request to the assistant ("How do I boil an egg?", "帮我写一首诗") as it is: its
            speaker is not its topic.
    """
    if not has_first_person(text) or (keep_requests and is_request(text)):
        return text
    pieces: list[str] = []
    last = 0
    for m in _PROTECTED.finditer(text):
        pieces.append(_chinese(_english(text[last : m.start()])))
        pieces.append(m.group())
        last = m.end()
    pieces.append(_chinese(_english(text[last:])))
    out = "".join(pieces)
    return re.sub(r"(^|[.!?]\s+)the user", lambda m: m.group(1) + "The user", out)
