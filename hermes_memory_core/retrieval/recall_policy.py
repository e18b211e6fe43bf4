"""Recall policy: which recalled lines may answer a question at all.

Asking never makes memory worse. A user asks about themselves, in chat, the way they ask anything — and what they
asked is kept, as a line of the conversation. That line holds no answer, yet it shares the next question's words
and form, so it would outrank the lines that do answer. Likewise the assistant's reply that it did not know ("I
don't have that information") shares the question's words and says nothing. Both leave a turn's recall:

- :func:`only_asks` — a line the user said that only asks (every sentence a question; see
  :mod:`~hermes_memory_core.text.questions`); a question about the conversation itself ("what did I ask you about
  the trip?") keeps them;
- :func:`says_unknown` — a short reply of the assistant that says it does not know or cannot find it.

What the assistant answered to an earlier question may help: the reply of its turn stays, found by its own words
and by its question's (the keyword leg's conversational context); only the question leaves (:func:`asked`, before
fusion, so it never sets the scale the other candidates are measured on).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import replace

from hermes_memory_core.lru import BoundedLRU
from hermes_memory_core.retrieval.gate import should_recall
from hermes_memory_core.text.bilingual import ZH_STOPWORDS, default_dictionary
from hermes_memory_core.text.language import language_of
from hermes_memory_core.text.perspective import to_first_person, to_third_person
from hermes_memory_core.text.questions import is_question, sentences
from hermes_memory_core.text.terms import document_terms, query_terms
from hermes_memory_core.text.tokenizer import tokenize
from hermes_memory_core.types import MemoryHit, MemoryRecord

__all__ = ["GENERIC_TERMS", "GENERIC_ZH", "RESTATED_SHARE", "answers_a_question", "asked", "covers_focus", "distinct", "focus_covered", "focus_terms", "holds_no_answer", "only_asks", "only_pleasantries", "says_unknown", "without_restated_lines", "without_unanswering", "without_weak_lines"]

#: A reply that says the assistant does not know, does not remember or has nothing on it.
_UNKNOWN = re.compile(
    r"\bi (?:do not|don't|dont|can't|cannot|can not|couldn't|could not) (?:know|remember|recall|find|see|tell|say)\b"
    r"|\bi(?:'m| am) not (?:sure|certain|aware)\b|\bno idea\b|\bi have no (?:idea|information|info|record|memory)\b"
    r"|\bi (?:do not|don't|dont) have (?:any |that |this |the |enough )?(?:information|info|details|record|data|memory)\b"
    r"|\byou (?:haven't|have not|never|didn't|did not) (?:told|tell|mentioned|mention|said|say|shared|share)\b"
    r"|\bnothing (?:about|on) (?:that|this|it)\b"
    r"|我不知道|不清楚|我不记得|我记不清|不太确定|我不确定|没有(?:相关|这方面的)?(?:信息|记录|资料|印象)|你(?:没|还没|从没)(?:有)?(?:告诉|说|提)",
    re.IGNORECASE,
)
#: Longer replies may say they are unsure of one thing and still hold others.
_SHORT_REPLY = 240


def only_asks(hit: MemoryHit) -> bool:
    """Whether ``hit`` is a line the user said that only asks (it holds no answer)."""
    return asked(hit.record)


def says_unknown(hit: MemoryHit) -> bool:
    """Whether ``hit`` is a short reply of the assistant saying it does not know or cannot find the answer."""
    return hit.role == "assistant" and len(hit.content) <= _SHORT_REPLY and bool(_UNKNOWN.search(hit.content))


def only_pleasantries(hit: MemoryHit) -> bool:
    """Whether ``hit`` is a line of the conversation with nothing in it but greetings, thanks and acknowledgements
    ("Hi!", "Noted.", "不客气") — and, said by the assistant, its own questions ("Welcome! How can I help?"): it
    fills a block and answers nothing."""
    if not hit.is_conversation:
        return False
    return all(not should_recall(piece) or (hit.role == "assistant" and is_question(piece))
               for piece in sentences(hit.content))


#: Per (text, speaker, whether a line of a conversation): whether it says it does not know, holds only pleasantries,
#: only asks. Recall judges the same candidates turn after turn (each judgment splits and matches the text again).
_NO_ANSWER: BoundedLRU[tuple[str, str | None, bool], tuple[bool, bool, bool]] = BoundedLRU(4096)


def holds_no_answer(hit: MemoryHit, about_talk: bool = False) -> bool:
    """Whether a recalled line can answer nothing: a line that only asks (unless the question is about what was
    said), a reply that said it did not know, or a line of pleasantries (judged once per text, speaker and kind)."""
    unknown, pleasantries, asks = _NO_ANSWER.get_or_compute(
        (hit.content, hit.role, hit.is_conversation), lambda: (says_unknown(hit), only_pleasantries(hit), only_asks(hit)))
    return unknown or pleasantries or (not about_talk and asks)


def without_unanswering(hits: list[MemoryHit], about_talk: bool = False) -> list[MemoryHit]:
    """``hits`` without the lines that hold no answer (:func:`holds_no_answer`), in their order."""
    return [h for h in hits if not holds_no_answer(h, about_talk)]


def asked(record: MemoryRecord) -> bool:
    """Whether ``record`` is a line the user said that only asked (every sentence a question): it holds no answer,
    and, as questions look alike, it would be the best match of the next question and set the scale every other
    candidate is measured on. Recall leaves such lines out before fusion (unless the question is about what was
    said); the reply of their turn stays and is found by its own words and its question's."""
    return record.is_conversation and record.role != "assistant" and is_question(record.content)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


#: A reply restates a line when it holds at least this share of the line's words.
RESTATED_SHARE = 0.8


def _restates(reply: AbstractSet[str], line: AbstractSet[str]) -> bool:
    return len(line) >= 3 and len(reply & line) >= RESTATED_SHARE * len(line)


#: Per text (a memory version's content): its words as :func:`distinct` compares them, and its tokens. Recall
#: judges the same candidates turn after turn; tokenizing them was most of ``distinct``'s time.
_DISTINCT_WORDS: BoundedLRU[str, tuple[str, frozenset[str]]] = BoundedLRU(4096)


def _distinct_words(text: str) -> tuple[str, frozenset[str]]:
    return _DISTINCT_WORDS.get_or_compute(text, lambda: (_words(text), frozenset(tokenize(text))))


def distinct(hits: list[MemoryHit]) -> list[MemoryHit]:
    """``hits`` without a line whose words (case and punctuation aside) an earlier hit already holds (a remark said
    twice in two sessions: the first of each stays), and without a reply of the assistant that restates another
    line recalled with it ("From what I remember: …"): it adds nothing to its source, and, being newer and found by
    the words of the question it answered, would take the place of lines that answer the question asked now. The
    line it restated takes its place (and its score and confidence, where higher): the reply vouched for it as the
    answer to its question, and the reply's rank was earned by that (asked again, the same question finds the reply
    first, and its source must not stay where its own words alone ranked it)."""
    seen: set[str] = set()
    out: list[MemoryHit] = []
    for hit in hits:
        key = _distinct_words(hit.content)[0]
        if key not in seen:
            seen.add(key)
            out.append(hit)
    words = {h.id: _distinct_words(h.content)[1] for h in out}
    source_of: dict[str, MemoryHit] = {}
    for h in out:
        if h.role == "assistant" and h.is_conversation:
            source = next((s for s in out if s.id != h.id and s.record.created_at < h.record.created_at
                           and _restates(words[h.id], words[s.id])), None)
            if source is not None:
                source_of[h.id] = source
    return _stood_in(out, source_of)


def _stood_in(hits: list[MemoryHit], source_of: dict[str, MemoryHit]) -> list[MemoryHit]:
    """``hits`` with each hit of ``source_of`` replaced by the line that stands for it (followed to the first: a reply
    restating a reply), placed once, where the first of them stood, with the better score and confidence."""
    if not source_of:
        return hits
    placed: set[str] = set()
    result: list[MemoryHit] = []
    for h in hits:
        if h.id in source_of:  # the restating line: its source goes here, once, unless it already stood higher
            source = source_of[h.id]
            while source.id in source_of:
                source = source_of[source.id]
            if source.id not in placed:
                placed.add(source.id)
                result.append(_lifted(source, h))
        elif h.id not in placed:
            placed.add(h.id)
            result.append(h)
    return result


#: The assistant's words for the user, as the user would say them ("your boss" → "my boss", "你对花生过敏" → "我对…").
_TO_USER = (
    (re.compile(r"\byou(?:'re| are)\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byours\b", re.IGNORECASE), "mine"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\byou\b", re.IGNORECASE), "I"),
    (re.compile(r"你们|您|你"), "我"),
)


def _as_the_user_says(reply: str) -> str:
    """An assistant's reply with the user it speaks to as the speaker ("Got it, Daniel Wu is your boss." → "Got it,
    Daniel Wu is my boss."): the words a fact about the user has in the first person."""
    for pattern, word in _TO_USER:
        reply = pattern.sub(word, reply)
    return reply


#: Per kind and text: the words :func:`without_restated_lines` compares (the same candidates come back every turn).
_RESTATING_WORDS: BoundedLRU[tuple[str, str], frozenset[str]] = BoundedLRU(4096)


def _restating_words(kind: str, text: str) -> frozenset[str]:
    """A text's words as :func:`without_restated_lines` compares them: a ``fact``'s own, a ``fact as said`` by the
    user (first person, without the words that name no subject), a ``reply`` as the user would say it, a user's
    ``line`` in the third person."""

    def words() -> frozenset[str]:
        if kind == "fact":
            return frozenset(tokenize(text))
        if kind == "fact as said":
            return frozenset(tokenize(to_first_person(text))) - GENERIC_TERMS - GENERIC_ZH
        return frozenset(tokenize(_as_the_user_says(text) if kind == "reply" else to_third_person(text)))

    return _RESTATING_WORDS.get_or_compute((kind, text), words)


def without_restated_lines(hits: list[MemoryHit]) -> list[MemoryHit]:
    """``hits`` without the lines of the conversation that a fact among them restates — what the user said ("My boss
    is called Zhang Wei." and "The user's boss is called Zhang Wei.") and the assistant's acknowledgement of it
    ("Got it, Zhang Wei is your boss.", "好的，我会记住你对花生过敏。"): the fact says it once, in the best of their
    places. Run on what recall keeps, after its cut (a fact may be cut where a line of the conversation is not)."""
    third = {h.id: _restating_words("fact", h.content) for h in hits if not h.is_conversation}
    # a fact's words as the user would say them, without the words that name no subject ("called", "叫")
    first = {h.id: _restating_words("fact as said", h.content) for h in hits if h.id in third}
    source_of: dict[str, MemoryHit] = {}
    for h in hits:
        if not h.is_conversation or not third:
            continue
        if h.role == "assistant":  # the acknowledgement holds the fact's words (and its own "Got it", "好的")
            said = _restating_words("reply", h.content)
            fact = next((f for f in hits if f.id in first and _restates(said, first[f.id])), None)
        else:  # the fact holds the words the user said
            said = _restating_words("line", h.content)
            fact = next((f for f in hits if f.id in third and _restates(third[f.id], said)), None)
        if fact is not None:
            source_of[h.id] = fact
    return _stood_in(hits, source_of)


def _lifted(source: MemoryHit, reply: MemoryHit) -> MemoryHit:
    """``source`` with the better of its own and ``reply``'s score and confidence."""
    confidence = max((c for c in (source.confidence, reply.confidence) if c is not None), default=None)
    return replace(source, score=max(source.score, reply.score), confidence=confidence)


#: Question words that name no subject of their own: a line sharing only these with a question does not answer it
#: ("What is my dentist's name?" is not answered by a line that mentions a name).
GENERIC_TERMS = frozenset(tokenize(
    "name names number numbers type types kind kinds sort size sizes thing things stuff way ways use uses used using "
    "keep keeps kept get gets got have has had make makes made do does did go goes going went come came "
    "like likes want wants need needs know knows think say said tell told time times day days year years "
    "today now current currently usual usually often ever always never one ones lot lots much many good "
    "favorite favourite prefer preferred best old new big small call called information info detail details"
))


#: Chinese words that name no subject of their own (beside the dictionary's function and question words).
GENERIC_ZH = frozenset("用户 喜欢 最喜欢 知道 记得 告诉 说过 名字 类型 东西 现在 以前 平时 一般 经常 通常 多大 多长 多高 多重 "
                       "最 做 用 户 吃 穿 叫 姓 号 码 大 小 事".split())


def focus_terms(query: str) -> frozenset[str]:
    """The words a line must share with ``query`` to be about what it asks: its English keyword terms other than
    :data:`GENERIC_TERMS` and the subject, and their Chinese headwords; for a Chinese question, its dictionary words other than function,
    question and generic words (:data:`GENERIC_ZH`), and their English terms."""
    if language_of(query) != "zh":
        english = [t for t in query_terms(query, cross_language=False) if t not in GENERIC_TERMS]
        chinese = [w for w in default_dictionary().chinese_terms(" ".join(english)) if len(w) >= 2]
        return frozenset([*english, *chinese])
    words = [w for w in default_dictionary().segment(query) if w not in GENERIC_ZH and w not in ZH_STOPWORDS]
    glosses = tokenize(" ".join(default_dictionary().english_terms(" ".join(words))))
    return frozenset([*words, *(t for t in glosses if t not in GENERIC_TERMS)])


def covers_focus(hit: MemoryHit, focus: frozenset[str]) -> bool:
    """Whether a recalled line shares a focus word with the question: a word of its own or of its English dictionary
    terms, or, for a Chinese focus word, one of its topical characters (Chinese words that share a character often
    share a topic: 周末 weekend, 每周六 every Saturday)."""
    if not focus:
        return False
    words = _document_words(hit.content)
    return any(_shares(w, words, hit.content) for w in focus)


def focus_covered(hit: MemoryHit, focus: frozenset[str]) -> int:
    """How many of the question's focus words a recalled line shares (as :func:`covers_focus` reads sharing)."""
    words = _document_words(hit.content)
    return sum(1 for w in focus if _shares(w, words, hit.content))


#: Per text: the words a line is indexed under (its own and its dictionary terms), as the focus checks read them.
_DOCUMENT_WORDS: BoundedLRU[str, frozenset[str]] = BoundedLRU(4096)


def _document_words(text: str) -> frozenset[str]:
    return _DOCUMENT_WORDS.get_or_compute(text, lambda: frozenset(document_terms(text)))


def _shares(word: str, words: AbstractSet[str], content: str) -> bool:
    """Whether a line (its ``words`` and ``content``) shares the focus ``word``: as a word, or for a Chinese one by a
    topical character."""
    return word in words or (not word.isascii() and any(ch in content for ch in _topical(word)))


def _topical(word: str) -> str:
    """The characters of a Chinese word that carry its topic (周末 and 每周六 share 周; 的 or 用 share nothing)."""
    return "".join(ch for ch in word if ch not in ZH_STOPWORDS and ch not in GENERIC_ZH)


def answers_a_question(record: MemoryRecord) -> bool:
    """Whether ``record`` is the assistant's answer to a turn in which the user only asked (marked
    ``answers == "question"`` when the turn was kept): drawn from memory, newer than what it was drawn from, and found
    by the words of the question it answered (its keyword context), it would outrank the lines that hold the evidence
    and set the scale they are measured on. Recall of a question about the user or a third party leaves it out before
    fusion; a question to the assistant ("what did you suggest?") keeps it. The reply to the same question asked
    before is brought back after ranking (:meth:`~hermes_memory_core.retrieval.recall.Recaller.recall`), where it cannot set the scale."""
    return record.is_conversation and record.role == "assistant" and record.metadata.get("answers") == "question"


def without_weak_lines(hits: list[MemoryHit], focus: frozenset[str], floor: float,
                       keep: Callable[[MemoryHit], bool] = lambda _h: False) -> list[MemoryHit]:
    """``hits`` without the lines below the first that match the question weakly (a dense confidence under
    ``floor``) and share no focus word with it: they fill a block without answering. Lines the keyword leg alone
    found (no confidence), the first line and those ``keep`` says (the facts on the question's topics) stay."""
    return hits[:1] + [h for h in hits[1:] if h.confidence is None or h.confidence >= floor
                       or covers_focus(h, focus) or keep(h)]
