"""Questions, told apart from statements, in Chinese and English: what the user asks is chat, never knowledge.

A user's question ("Which code editor do I like?", "你知道我住在哪里吗", "I wonder whether I told you my blood type")
holds no fact about them, so promotion never stores it as a profile entry, a fact or a version of one, and recall
never lets an earlier question take the place of the lines that answer it. Deterministic and cheap (a few regular
expressions a sentence).

- :func:`is_question` — the whole text asks: every sentence of it is a question.
- :func:`without_questions` — a message with its question sentences dropped ("I moved to Munich. Do you know any
  good bakeries there?" → "I moved to Munich.").
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["NEWS_ASKED", "asking_part", "asks_to_remember", "is_question", "question_key", "question_sentences", "sentences", "without_questions"]

#: Sentence ends: the mark stays with its sentence.
#: A sentence ends after a Chinese end mark or a line break, and after an ASCII one only where a space, the end or a
#: Chinese character follows ("lin.wei@example.com", "v2.0" and "3.5" are one word, not three sentences).
_SENTENCE_END = re.compile(r"(?<=[。！？；\n])\s*|(?<=[.!?;])(?:\s+|(?=[\u3400-\u9fff])|$)|(?<=[…])\s+")
#: An English sentence that opens as a question: a question word before an auxiliary verb ("Which code editor do I
#: like", "How old am I"; not "When I was young, …" or "What I like is tea"), or an auxiliary before its subject.
_AUX = r"(?:do|does|did|is|are|was|were|am|can|could|would|will|should|shall|have|has|had|may|might|must)(?:n't)?"
_EN_OPENING = re.compile(
    r"^(?:(?:so|and|but|also|oh|hey|ok|okay|well|btw|by the way|then|now|quick question|one more thing)[,\s]+)*"
    r"(?:(?:what|which|who|whom|whose|where|when|why|how)(?:'s|s)?\s+(?:" + _AUX + r"\b|"
    r"(?!(?:i|we|you|he|she|they|it|my|our|your|his|her|their)\b)(?:[\w'-]+\s+){0,3}?" + _AUX + r"\b)"
    r"|(?:what|where|who|how)(?:'s|s)\b"
    r"|" + _AUX + r"\s+(?:i|you|we|they|he|she|it|my|your|the|there|this|that|these|those|anyone|anybody|someone|"
    r"somebody|a|an|any)\b)",
    re.IGNORECASE,
)
#: An English sentence that asks without opening as a question ("I wonder whether…", "tell me what…", "tell me my
#: favourite editor", "do you know").
_EN_ASKING = re.compile(
    r"\bi (?:wonder|was wondering|am wondering|'m wondering|want to know|would like to know|'d like to know|"
    r"need to know|can't remember|cannot remember|don't remember|forgot|forget)\s+(?:if|whether|what|which|who|"
    r"where|when|why|how)\b|^(?:please\s+)?(?:tell|remind|show) me (?:if|whether|what|which|who|where|when|why|how)\b"
    r"|^(?:please\s+)?(?:tell|remind|show) me (?:again |once more )?(?:my|about|of)\b"
    r"|^(?:any idea|no idea|guess|curious|wondering) (?:if|whether|what|which|who|where|when|why|how)\b"
    r"|\bdo you (?:know|remember|recall)\b|\bcan you (?:tell|remind) me\b",
    re.IGNORECASE,
)
#: A Chinese sentence that asks: a question particle at its end, an opening that asks, or a question word at its end.
_ZH_PARTICLE_END = re.compile(r"(?:吗|嘛|么|呢|不)[呀啊哦吧]?\s*[。.!！~～]*$")
_ZH_OPENING = re.compile(r"^(?:请问|你知道|您知道|你还记得|你记得|您记得|我想知道|我想问|想问一下|问一下|我想请教|"
                         r"(?:请|麻烦你?)?(?:告诉我|提醒我一下|跟我说说|给我说说|给我讲讲)|"
                         r"不知道|我在想|我好奇|好奇|你说|你觉得|您觉得|是不是|有没有|能不能|可不可以|会不会|要不要)")
_ZH_ASKS_FOR = re.compile(r"(?:叫|是|在|有|做|干|去|用|喝|吃|练|学|住|养)(?:什么|啥|哪|谁|几|多少)(?![\u4e00-\u9fff]*[都也])"
                          r"[\u4e00-\u9fff]{0,4}\s*[。.!！~～]*$")
_ZH_ASKING = re.compile(r"(?:什么|啥|哪[里儿个些家位种天年]?|谁|几[个点岁号次天年月]?|多少|多大|多久|多长|怎么|怎样|怎么样|"
                        r"为什么|为啥|如何|是否|是不是|有没有|能不能|会不会|可不可以|要不要)"
                        r"(?:了|的|来着|呢|啊|呀|吧)*\s*[。.!！~～]*$")
#: A-not-A questions anywhere in the sentence ("我是不是说过…", "你有没有…").
_ZH_A_NOT_A = re.compile(r"是不是|有没有|能不能|会不会|要不要|可不可以|对不对|好不好")
_ASKS_AT_END = re.compile(r"[?？]\s*[\"'”’)）]*\s*$")
_CJK = re.compile(r"[\u3400-\u9fff]")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (the end mark stays with its sentence); blank pieces dropped. A question that
    opens with a statement of the user's before a comma is two sentences ("我搬到里昂了，你知道那边有什么好吃的面包店吗？",
    "I moved to Lyon, do you know any good bakeries?"): the statement, ended, and the question."""
    return [piece for s in _SENTENCE_END.split(text) if s and s.strip() for piece in _told_then_asked(s.strip())]


#: A clause the user opens by telling something of their own ("I moved to Lyon", "Since I'm vegan", "我搬到里昂了").
_TOLD_EN = re.compile(r"^(?:(?:so|and|but|also|oh|well|btw|by the way|since|as|because|now that|given that)[,\s]+)*"
                      r"(?:i|i'm|i've|i'd|my|we)\b", re.IGNORECASE)
#: A clause that only leads into a question ("I wonder, …", "我想知道，…"): the whole sentence asks.
_ASK_LEAD = re.compile(r"\bi (?:wonder|was wondering|want to know|would like to know|'d like to know|have a question)"
                       r"\b|\bquick question\b|我想知道|我想问|问一下|请问|我好奇|不知道", re.IGNORECASE)
#: Where a statement may end and its question begin inside one sentence: a comma or a dash.
_CLAUSE_END = re.compile(r"\s*[,，]\s*|\s+[—–-]{1,2}\s+|\s*——\s*|\s*—\s*")


def _told_then_asked(sentence: str) -> list[str]:
    """``sentence`` as a statement of the user's before a comma or dash and the question after it, where it is one
    (see :func:`sentences`); else ``[sentence]``."""
    for cut in _CLAUSE_END.finditer(sentence):
        head, rest = sentence[:cut.start()].strip(), sentence[cut.end():].strip()
        if not rest:
            break
        zh = bool(_CJK.search(head))
        told = ("我" in head and len(head) >= 4) if zh else bool(_TOLD_EN.search(head)) and len(head.split()) >= 3
        if _ASK_LEAD.search(head) or _sentence_asks(head):
            break  # the sentence asks from its start
        if told and _sentence_asks(rest):
            return [head + ("。" if zh else "."), rest]
    return [sentence]


#: News told as a question: the opening before it ("Did you know I moved to Lyon?", "你知道吗，我搬到里昂了。").
NEWS_ASKED = re.compile(r"^(?:did you know|you know)(?: that)?\s+(?=(?:i|i'm|i've|my|we)\b)|^你知道吗[？?]?[，,]\s*(?=\S)",
                        re.IGNORECASE)
#: An opening that announces news rather than asking ("Guess what, …", "You know what? …", and :data:`NEWS_ASKED`).
_NEWS_OPENING = re.compile(r"^(?:guess what|you know what)\s*[,!:—-]\s*(?=\S)|" + NEWS_ASKED.pattern, re.IGNORECASE)


#: A polite request to remember what follows ("Could you remember that my daughter's name is Mia?",
#: "你能记住我女儿叫米娅吗？"): it tells, as "Remember that …" does.
_REMEMBER_THAT = re.compile(
    r"^(?:(?:hey|ok|okay|so)[,\s]+)?(?:can|could|would|will) you (?:please )?(?:remember|note|keep in mind|make a note)"
    r"(?: of)?(?: that)?\s+(?!(?:what|which|who|whom|whose|where|when|whether|if|how|why)\b|(?:that|this|it)\W*$)\S"
    r"|^(?:你|您)?(?:能|能不能|可以|可不可以)?(?:帮我)?(?:记住|记一下|记下)(?!什么|哪|谁|了?(?:[这那它]个?)?(?:吗|呢|好吗|没有?)?\W*$)\S",
    re.IGNORECASE)


#: A question after a request's comma ("Could you remember that for me, what's my cat called?"): it asks.
_ASKS_AFTER = re.compile(r"[,，]\s*(?:what|which|who|where|when|why|how|do|does|did|is|are|can|could)\b|[,，].*[吗呢][?？]?$",
                         re.IGNORECASE)


def asks_to_remember(text: str) -> bool:
    """Whether ``text`` is a polite request to remember a statement ("Could you remember that my daughter's name is
    Mia?", "你能记住我女儿叫米娅吗？"): it tells what follows, though it ends as a question."""
    return bool(_REMEMBER_THAT.search(unicodedata.normalize("NFKC", text).strip()))


def _sentence_asks(sentence: str) -> bool:
    s = unicodedata.normalize("NFKC", sentence).strip().strip("\"'“”‘’").strip()
    news = _NEWS_OPENING.sub("", s)  # "Guess what, I became a pharmacist!" tells
    if news != s:  # ("Did you know I moved to Lyon?": its question mark only announces the news)
        s = news.rstrip(" ?？")
    if not s or (_REMEMBER_THAT.search(s) and not _ASKS_AFTER.search(s)):
        return False
    if _ASKS_AT_END.search(s):
        return True
    if _CJK.search(s):
        return bool(_ZH_PARTICLE_END.search(s) or _ZH_OPENING.search(s) or _ZH_ASKING.search(s)
                    or _ZH_ASKS_FOR.search(s) or _ZH_A_NOT_A.search(s))
    return bool(_EN_OPENING.search(s) or _EN_ASKING.search(s))


def question_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that ask something."""
    return [s for s in sentences(text) if _sentence_asks(s)]


def is_question(text: str) -> bool:
    """Whether ``text`` asks and states nothing: it has a sentence and every sentence of it is a question (in
    either language, any form: "Which editor do I like?", "I wonder whether I told you…", "你知道我住在哪里吗",
    "用户每天早上练习什么")."""
    parts = sentences(text)
    return bool(parts) and all(_sentence_asks(s) for s in parts)


def without_questions(text: str) -> str:
    """``text`` with its question sentences dropped (a statement followed by a question keeps the statement); ""
    when it only asks."""
    parts = sentences(text)
    kept = [s for s in parts if not _sentence_asks(s)]
    if len(kept) == len(parts):
        return text
    joiner = "" if kept and all(_CJK.search(s) for s in kept) else " "
    return joiner.join(kept)


def question_key(text: str) -> str:
    """A short key of a question's words (case, punctuation and spacing aside): two askings of the same question
    have the same key ("What instrument should I learn?" / "what instrument should I learn")."""
    words = " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))
    return hashlib.sha256(words.encode()).hexdigest()[:16]


#: A speaker's label at the start of a line of a pasted dialogue ("User: ", "Assistant: ", "Caroline: ", "用户：").
_LABEL = re.compile(r"^\s*(?:\[[^\]\n]{0,40}\]\s*)?[^\W\d][\w .'-]{0,30}[:：]\s+|^\s*[\u4e00-\u9fff]{1,6}[:：]\s*")
#: A lead-in before the question of a sentence ("…, so quick question: When is…", "顺便问一下：…").
_LEAD_IN = re.compile(r"^.*[:：]\s*(?=\S)")
#: A query shorter than this (a Chinese character counted twice) is its own question.
_SHORT_QUERY = 48


def asking_part(text: str) -> str | None:
    """The question a long query ends with — the last question of its last line, without a speaker's label or a
    lead-in before a colon — when the query holds more than that question: a dialogue history that ends with the
    user's question, a chat engine's condensed question with its context ("We're planning next week, so quick
    question: When is my dentist appointment?"); in a dialogue (lines with a speaker's label), its last message
    whatever it says ("User: Write a haiku about autumn."). None for a short query, one that is all question, or a
    text whose last line asks nothing (a pasted text: all of it is what is asked about)."""
    if len(text) + len(_CJK.findall(text)) < _SHORT_QUERY:
        return None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return None
    last = _LABEL.sub("", lines[-1], count=1).strip()
    asks = [s for s in sentences(last) if _sentence_asks(s)]
    if not asks:
        # a dialogue (two or more lines with a speaker's label): its last line is the message being answered
        labelled = len(lines) >= 2 and sum(1 for ln in lines if _LABEL.match(ln)) >= 2
        return last if labelled and last and len(last) <= 0.7 * len(text.strip()) else None
    question = asks[-1]
    lead = _LEAD_IN.match(question)
    if lead is not None and _sentence_asks(question[lead.end():]):
        question = question[lead.end():]
    question = question.strip()
    return question if question and len(question) <= 0.7 * len(text.strip()) else None
