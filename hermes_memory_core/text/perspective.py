"""First person to third person, in English and Chinese: how a user's words become words about the user.

The lifecycle stores statements about the user in the third person ("我平时写 Python" → "用户平时写 Python",
"I mostly write Python" → "The user mostly writes Python"), and questions a user asks about themselves ("What am I
allergic to?") match those memories far better in the same form ("What is the user allergic to?"). Verbs agree
with their new subject (am → is, have → has, write → writes, do I → does the user, live and work → lives and
works); e-mail addresses, URLs, paths and file or domain names are left exactly as they were.
"""

from __future__ import annotations

import re

__all__ = ["embedding_text", "has_first_person", "household_to_third", "is_request", "to_first_person", "to_third_person"]

# a whitespace-delimited chunk that is not prose: an e-mail address, a URL, a path, a file or domain name, a query
# string ("me@example.com", "https://me.example.org/my", "/home/me/notes", "my.config", "a=b&c=d")
_NOT_PROSE = re.compile(r"@|://|^www\.|[/\\=&~]|\w\.\w", re.IGNORECASE)
_CHUNK = re.compile(r"\S+")


def _protected(text: str) -> list[tuple[int, int]]:
    """Spans of the chunks of ``text`` that are not prose (linear in the length of ``text``)."""
    return [(m.start(), m.end()) for m in _CHUNK.finditer(text) if _NOT_PROSE.search(m.group())]


_FIRST_PERSON_EN = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.IGNORECASE)
_FIRST_PERSON_ZH = re.compile(r"我(?!们)")

_MODALS = "can|could|will|would|should|shall|may|might|must|did|was|had"
_ADVERBS = (
    "usually|often|always|never|mostly|really|also|sometimes|rarely|still|just|only|already|normally|generally|"
    "typically|mainly|frequently|occasionally|seldom|hardly|barely|even|actually|definitely|probably|currently|"
    "now|recently|regularly|constantly|no longer|no more"
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
# "I" + optional adverbs + a verb (the verb is conjugated for the third person), and a second verb joined to it
# directly ("I live and work in ...")
_SUBJECT_VERB = re.compile(
    rf"\b(I)((?:\s+(?:{_ADVERBS}))*)\s+([a-z']+)\b(?:(\s+(?:and|or)\s+)(?!I\b)([a-z]+)\b)?|\b(I)('m|'ve|'d|'ll)\b",
    re.IGNORECASE,
)
_ADVERB_WORDS = frozenset(_ADVERBS.split("|"))
#: first verbs after which a joined verb stays bare ("can swim and dive", "doesn't eat meat and drink")
_BARE_BEFORE = frozenset("can could will would should shall may might must did didn't doesn't don't won't "
                         "can't couldn't shouldn't wouldn't".split())
# verbs rarely used as nouns, which agree when joined to an agreed verb later in the same clause ("the user mostly
# writes Python and avoids Java"); words like "work", "live" or "drink" are left alone ("likes jazz and live music")
_JOINED_VERBS = (
    "avoid|prefer|enjoy|hate|dislike|write|speak|eat|go|take|want|need|know|think|try|keep|get|make|like|have|do|"
    "own|run|swim|teach|learn|buy|spend|miss|use|bring|send|call|ask|help|pay|lead|manage|build|share"
)
_JOINED = re.compile(
    rf"\b(the user(?:\s+(?:{_ADVERBS}))*\s+)([a-z']+)([^,;:.!?()]{{1,60}}?\s(?:and|but|or)\s+(?:(?:{_ADVERBS})\s+)*)"
    rf"({_JOINED_VERBS})\b",
    re.IGNORECASE,
)
# verbs that are also nouns or adjectives agree when joined as a verb: followed by what only a verb takes ("and live
# in Hangzhou", "and work remotely"), never "and live music"
_JOINED_AMBIGUOUS = re.compile(
    rf"\b(the user(?:\s+(?:{_ADVERBS}))*\s+)([a-z']+)([^,;:.!?()]{{1,60}}?\s(?:and|but|or)\s+(?:(?:{_ADVERBS})\s+)*)"
    r"(live|work|study|stay|travel|walk|play|cook|drink|read|sing|paint|volunteer|commute|exercise|sleep|drive|"
    r"wear|smoke|dance|plan|hope|sell|coach|visit|watch|fish|cycle|train|shop|sail|ski|garden|code|blog|film)"
    r"(?=\s+(?:in|at|for|as|with|near|from|remotely|abroad|alone|full-time|part-time|on|every|each|daily|weekly|to|"
    r"there|here|the|a|an|my|the user's|it|them|him|her|before|after|no|green|black|coffee|tea|wine|beer|twice|"
    r"once|late|early|online|outside|together)\b)",
    re.IGNORECASE,
)
#: "My wife and " / "Tom and " before an "I" that shares the verb: a subject of two, whose verb stays plural ("My wife
#: and I live in Lyon" → "The user's wife and the user live in Lyon"); a clause of its own before "and" is not one
#: ("I swim and I run", "My dog barks and I …" keep their agreement)
_COMPOUND_SUBJECT = re.compile(
    r"(?:^|[,;:.!?]\s*|\b(?:that|because|when|since|so|but|while)\s+)"
    r"(?:(?:my|our|the|his|her|their)\s+(?:[a-z'-]+|[a-z'-]+\s+[a-z'-]*[a-rt-z'])|(?!I\b)[A-Za-z][\w'-]*)\s+and\s+$",
    re.IGNORECASE,
)
#: "… and now work at SAP": a verb joined after "now" is in the present whatever the first one was ("left Bosch")
_NOW_JOINED = re.compile(r"\b(?:now|currently|nowadays)\s+$", re.IGNORECASE)
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
    pieces, last = [], 0
    for start, end in _protected(text):
        pieces.append(text[last:start])
        last = end
    unprotected = " ".join([*pieces, text[last:]])
    return bool(_FIRST_PERSON_EN.search(unprotected) or _FIRST_PERSON_ZH.search(unprotected))


#: verbs whose base form ends in "ed" (not past forms)
_BASE_ED = frozenset("need feed bleed breed speed seed heed proceed succeed exceed shed wed embed".split())


def _third_person_verb(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low in _NO_AGREEMENT or (low.endswith("ed") and low not in _BASE_ED) or low.endswith("n't") or not low.isalpha():
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
        if m.group(6):  # I'm, I've, I'd, I'll
            return {"'m": "the user is", "'ve": "the user has", "'d": "the user would", "'ll": "the user will"}[
                m.group(7).lower()
            ]
        if _COMPOUND_SUBJECT.search(m.string, 0, m.start()):  # "My wife and I live…": the verb is already plural
            return f"the user{m.group(2)} {m.group(3)}" + (m.group(4) + m.group(5) if m.group(5) else "")
        verb = _third_person_verb(m.group(3))
        out = f"the user{m.group(2)} {verb}"
        if m.group(5):  # a joined verb agrees when the first one did ("live and work"; not "can swim and dive")
            second = m.group(5)
            agrees = verb != m.group(3) and second.lower() not in _ADVERB_WORDS
            out += m.group(4) + (_third_person_verb(second) if agrees else second)
        return out

    def joined(m: re.Match[str]) -> str:
        verb = m.group(2)
        agreed = (verb.lower() not in _NO_AGREEMENT and verb.lower().endswith("s")) or (
            verb.lower() not in _BARE_BEFORE and bool(_NOW_JOINED.search(m.group(3))))
        return m.group(1) + verb + m.group(3) + (_third_person_verb(m.group(4)) if agreed else m.group(4))

    def joined_verb(m: re.Match[str]) -> str:  # agrees unless the first verb takes a bare infinitive ("can … and live")
        # a first verb left bare ("can … and live", "My wife and the user live … and work") keeps the second bare
        first = m.group(2).lower()
        bare = first in _BARE_BEFORE or not (first.endswith(("s", "ed")) or first in _NO_AGREEMENT
                                             or _NOW_JOINED.search(m.group(3)))
        verb = m.group(4)  # a base form here ("read" is not its past)
        agreed = verb + ("s" if not verb.lower().endswith(("sh", "ch")) else "es")
        return m.group(1) + m.group(2) + m.group(3) + (verb if bare else agreed)

    out = _INVERSION.sub(inversion, text)
    out = _SUBJECT_VERB.sub(subject_verb, out)
    out = _JOINED.sub(joined, out)
    out = _JOINED_AMBIGUOUS.sub(joined_verb, out)
    for pattern, repl in _OBJECT:
        out = pattern.sub(repl, out)
    return _their(out)


_THE_USER = re.compile(r"\bthe user\b", re.IGNORECASE)
_THE_USERS = re.compile(r"\bthe user's\b")


def _their(text: str) -> str:
    """After the first "the user" of a sentence, "the user's" reads "their" ("The user drinks their coffee")."""
    first = _THE_USER.search(text)
    if first is None:
        return text
    head, tail = text[: first.end()], text[first.end():]
    return head + _THE_USERS.sub("their", tail)


def _chinese(text: str) -> str:
    return text.replace("我们", "\x00").replace("我的", "用户的").replace("我", "用户").replace("\x00", "我们")


def to_third_person(text: str, *, keep_requests: bool = False) -> str:
    """``text`` with the speaker ("I", "我") turned into "the user" / "用户", verbs agreeing; the rest unchanged.

    A sentence that starts with the new subject starts with a capital ("The user ..."). E-mail addresses, URLs,
    paths and file or domain names are never rewritten.

    Args:
        keep_requests: Leave a request to the assistant ("How do I boil an egg?", "帮我写一首诗") as it is: its
            speaker is not its topic.
    """
    if not has_first_person(text) or (keep_requests and is_request(text)):
        return text
    pieces: list[str] = []
    last = 0
    for start, end in _protected(text):
        pieces.append(_chinese(_english(text[last:start])))
        pieces.append(text[start:end])
        last = end
    pieces.append(_chinese(_english(text[last:])))
    out = "".join(pieces)
    return re.sub(r"(^|[.!?]\s+)the user", lambda m: m.group(1) + "The user", out)


_WE = [
    (re.compile(r"\bwe've\b", re.IGNORECASE), "the user and their household have"),
    (re.compile(r"\bwe're\b", re.IGNORECASE), "the user and their household are"),
    (re.compile(r"\bwe\b", re.IGNORECASE), "the user and their household"),
    (re.compile(r"\bour\b", re.IGNORECASE), "their"),
    (re.compile(r"\bus\b"), "them"),
]


def household_to_third(text: str) -> str:
    """A statement the user made for their household ("We live in Leeds", "我们搬到上海了") about the user: "The user and
    their household live in Leeds", "用户一家搬到上海了" (the verb stays plural); the user's own "I" as
    :func:`to_third_person` turns it."""
    out = to_third_person(text).replace("我们", "用户一家")
    for pattern, repl in _WE:
        out = pattern.sub(repl, out)
    return re.sub(r"(^|[.!?:]\s+)the user", lambda m: m.group(1) + "The user", out)


def embedding_text(content: str, role: str | None) -> str:
    """The text a memory's vector is made from: its ``content``; a user's own line of a conversation (``role``
    ``"user"``) in the third person, as the facts it is searched beside are written and as questions are matched
    ("我下周要去成都" → "用户下周要去成都"). The stored content keeps the user's words."""
    return to_third_person(content) if role == "user" else content



#: "the user" and its verb, the way stored statements about the user are worded (the inverse of :func:`to_third_person`).
_THE_USER_VERB = re.compile(r"\b(?:the user|the user has|the user is|the user was|the user does)\b(?:\s+(\w+))?",
                            re.IGNORECASE)
_FIRST = {"is": "am", "has": "have", "does": "do", "was": "was"}


def _base_verb(word: str) -> str:
    low = word.lower()
    if low in _FIRST:
        return _FIRST[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")) and len(low) > 2:
        return low[:-1]
    return low


def to_first_person(text: str) -> str:
    """A statement about "the user" / "用户" as the user would say it ("The user lives in Hangzhou" → "i live in
    hangzhou", "用户住在北京" → "我住在北京"), lower-cased: the form the first-person patterns of the fact topics
    read. Other text comes back lower-cased."""
    out = text.lower().replace("the user's", "my").replace("用户的", "我的").replace("用户", "我")
    return _THE_USER_VERB.sub(lambda m: "i" + (f" {_base_verb(m.group(1))}" if m.group(1) else ""), out)
