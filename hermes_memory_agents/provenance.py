"""Whether a text is "the user's own words": a statement the user made about themselves in this conversation.

A tool call is the model's text. Before it may become a permanent fact on the strength of the user having said it,
:func:`own_statement` checks that the user really stated it about themselves:

1. **One clause the user wrote.** The content (normalised: NFKC, case-folded, spaces collapsed, outer quotes and
   closing punctuation dropped) lies inside one sentence of one user message and covers at least
   :data:`MIN_COVERAGE` of its clause (clauses end at ``, ; :`` and their full-width forms, and before "and /
   but / so / 但是 / 而且"; a lead-in such as "by the way," or "顺便说一下，" is not counted). A fragment cut out
   of a longer clause ("I am allergic" from "I am allergic to nothing") is not the user's statement.
2. **About themselves.** The clause starts (after such a lead-in) with a first-person subject: I, I'm, my, we,
   our, 我, 我们, 本人.
3. **Not a quotation.** The clause is not inside quotation marks, not a ``>`` quoted line, not in a fenced block,
   and nothing before it in its sentence reports someone else's words ("my landlord said", "she told me",
   "according to", "the form says", "他说", "写道", "据说" …).
4. **Not negated or hypothetical.** Nothing before it in its sentence denies, doubts or supposes it ("it is not
   true that", "I never said", "if", "imagine", "不是", "假如" …), and nothing after it takes it back ("— not",
   "just kidding", "is false", "开玩笑的", "是假的").
5. **Not in a message that holds someone else's words**: a message that
   :func:`hermes_memory_core.trust.authority.others_words` reads as a log with other speakers ("[10:02] bob: …"), a
   pasted e-mail or document, a tool's or another agent's output, or words handed on ("my colleague wrote: …") is
   not searched at all.
6. **Not part of a pasted document.** Its paragraph is at most :data:`MAX_PARAGRAPH` characters, and a message
   of more than :data:`MAX_MESSAGE` characters counts only in its first paragraph (the user's own note before a
   paste).

:func:`without_fragment` is what session-end extraction does with a message a tool already quoted: the quoted
clause is taken out and the *rest* is still extracted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from hermes_memory_core import others_words

__all__ = ["MAX_MESSAGE", "MAX_PARAGRAPH", "MIN_COVERAGE", "Statement", "own_statement", "without_fragment"]

MIN_COVERAGE = 0.6
MAX_PARAGRAPH = 400
MAX_MESSAGE = 1200

_QUOTES = " \"'`“”‘’「」『』«»"


def _norm(text: str) -> str:
    norm = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return norm.strip(_QUOTES).rstrip(".。!！;；,，").strip(_QUOTES).strip()


_SENTENCE = re.compile(r"(?<=[.!?。！？;；])\s*|\n+")
_CLAUSE = re.compile(r"\s*[,，;；:：、]\s*|\s+(?=(?:and|but|so|yet|while|whereas)\s)|(?=(?:但是|而且|不过|所以))")
_LEAD_IN = re.compile(
    r"^(?:(?:by the way|btw|well|also|actually|so|and|oh|ok|okay|anyway|honestly|fyi|just so you know|for the record|"
    r"remember(?: that)?|note(?: that)?|please note(?: that)?|fun fact|顺便说一下|顺便|对了|另外|其实|还有|记住|记一下|说实话|老实说)"
    r"[\s,，:：!！-]*)+"
)
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|i'll|im|my|mine|we|we're|our|me and my|我们|我|本人|咱)(?:\b|(?<=[我们人咱]))")
_REPORTING = re.compile(
    r"\b(?:said|says|say|told|tells|tell me|wrote|writes|write|quoted?|quoting|asked|asks|claims?|claimed|states?|"
    r"stated|according to|reads|read|posted|tweeted|replied|replies|answered|texted|emailed|mentions?|mentioned|"
    r"insists?|insisted|thinks|believes|the (?:form|page|site|article|document|email|letter|message|text) )"
    r"|(?<!顺便)(?<!老实)说(?!一下|实话|真的|句)|讲过|写道|写着|声称|表示|告诉我|据说|听说|转述|引用|原话|问我"
)
_NEGATED_BEFORE = re.compile(
    r"\b(?:not|n't|never|no longer|false|untrue|wrong|lie|lies|lying|doubt|if|whether|suppose|supposing|imagine|"
    r"pretend|pretending|hypothetically|what if|unless|deny|denies|denied|fake|joke|joking|kidding|rumou?r|unlike)\b"
    r"|不是|并非|并不|不|没有|没|假如|如果|假设|要是|万一|否认|谣言|并没有|不对|才不"
)
_TAKEN_BACK = re.compile(
    r"^\W*(?:not|nope|lol no|just kidding|jk|kidding|is (?:not|false|untrue|wrong|a lie)|isn't true|was a joke|"
    r"not really|haha no|开玩笑|是假的|不是真的|骗你的|才怪|假的)"
)


@dataclass(frozen=True, slots=True)
class Statement:
    """Where the user said it: the whole message (as written) and the clause (normalised) the content covers."""

    message: str
    clause: str


def _paragraphs(message: str) -> list[tuple[str, bool]]:
    """The message's paragraphs with whether each may hold the user's own statement (see rule 3 and 5)."""
    out: list[tuple[str, bool]] = []
    fenced = False
    long_message = len(message) > MAX_MESSAGE
    for i, para in enumerate(re.split(r"\n\s*\n", message)):
        lines = para.splitlines() or [""]
        own = len(para) <= MAX_PARAGRAPH and not (long_message and i > 0)
        kept = []
        for line in lines:
            if line.strip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced and not line.lstrip().startswith(">"):
                kept.append(line)
        out.append(("\n".join(kept), own and not fenced))
    return out


def _quoted_spans(sentence: str) -> list[tuple[int, int]]:
    quoted = r"\"[^\"]+\"|“[^”]+”|「[^」]+」|『[^』]+』|«[^»]+»|(?<!\w)'[^']{6,}'(?!\w)|‘[^’]+’"
    return [(m.start(), m.end()) for m in re.finditer(quoted, sentence)]


def _clauses(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of a normalised sentence."""
    out, start = [], 0
    for m in _CLAUSE.finditer(sentence):
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < len(sentence):
        out.append((start, len(sentence)))
    return out


_DENIAL = re.compile(
    r"\b(?:not true|untrue|false|a lie|lies|a joke|kidding|never said|didn't say|did not say|made up|fake|if|"
    r"suppose|supposing|imagine|hypothetically|what if|unless|pretend|pretending|as if|even if)\b"
    r"|不是真的|假的|谣言|瞎说|胡说|没说过|假如|如果|假设|要是|万一|倘若"
)


def _judge(needle: str, sentence: str) -> str | None:
    """The clause of ``sentence`` (normalised) that ``needle`` states as the user's own words, or None."""
    at = sentence.find(needle)
    if at < 0:
        return None
    end = at + len(needle)
    if any(s <= at and end <= e for s, e in _quoted_spans(sentence)):
        return None  # inside quotation marks
    holder = next(((s, e) for s, e in _clauses(sentence) if s <= at < e), None)
    if holder is None:
        return None
    c_start, c_end = holder
    lead = _LEAD_IN.match(sentence[c_start:c_end])
    own_start = min(at, c_start + (lead.end() if lead else 0))
    clause = sentence[own_start : max(end, c_end)]
    core_lead = _LEAD_IN.match(needle)
    core = needle[core_lead.end() :] if core_lead else needle
    if len(needle) / max(len(clause), 1) < MIN_COVERAGE or not _FIRST_PERSON.match(core):
        return None
    before = sentence[:at]
    if _REPORTING.search(before) or _DENIAL.search(before) or _NEGATED_BEFORE.search(sentence[c_start:at]):
        return None
    if _TAKEN_BACK.match(sentence[end:]):
        return None
    return clause


def own_statement(content: str, messages: Iterable[str]) -> Statement | None:
    """Where the user stated ``content`` about themselves (see the module docstring), or None.

    Args:
        content: The text a tool call wants to store as the user's words.
        messages: What the user said in this conversation, newest first or last (each message as written).
    """
    needle = _norm(content)
    if len(needle) < 6 and len(re.findall(r"[\u4e00-\u9fff]", needle)) < 4:
        return None
    for message in messages:
        if not isinstance(message, str) or others_words(message) is not None:
            continue  # a log with other speakers, a pasted e-mail, a tool's output: none of it is the user's word
        for para, own in _paragraphs(message):
            if not own:
                continue
            for raw in _SENTENCE.split(para):
                sentence = " ".join(unicodedata.normalize("NFKC", raw).casefold().split())
                clause = _judge(needle, sentence)
                if clause is not None:
                    return Statement(message, clause)
    return None


def without_fragment(message: str, fragments: Iterable[str]) -> str:
    """``message`` with each already-stored fragment (a clause a tool quoted) taken out; "" when what is left is
    too little to be a statement (fewer than 3 words, or 6 characters of Chinese)."""
    text = unicodedata.normalize("NFKC", message)
    for fragment in fragments:
        words = _norm(fragment).split()
        if not words:
            continue
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
        text = pattern.sub(" ", text, count=1)
    text = re.sub(r"\s*([,，;；:：])\s*(?=[,，;；:：.。!！?？]|$)", "", text)
    text = " ".join(text.split()).strip(" ,，;；:：-")
    text = re.sub(r"^(?:and|but|so|also|然后|而且|但是)\s*", "", text, flags=re.IGNORECASE)
    letters = re.findall(r"[A-Za-z]+|[\u4e00-\u9fff]", text)
    cjk = sum(1 for t in letters if len(t) == 1 and "\u4e00" <= t <= "\u9fff")
    words = [t for t in letters if t.isascii()]
    lead = _LEAD_IN.match(text.casefold())
    if lead and lead.end() >= len(text.casefold().rstrip(" .。!！")):
        return ""
    return text if len(words) >= 3 or cjk >= 6 else ""
