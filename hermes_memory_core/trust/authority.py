"""Who is speaking: only the user's own words carry the user's authority.

A text handed to a write path "as the user" may hold someone else's words: a pasted e-mail, a chat log with other
speakers, a quoted message, a tool's output, another agent's reply. :func:`others_words` reads the text as a whole
and says whose words it holds when they are not the user's own; the write paths then keep such content below what
the user said (a short-term note with its provenance, never the user's profile, facts or reply preferences).

Contract of :func:`others_words` (a one-line reason, or None for the user's own words). The text is someone
else's when any line of it:

1. **is labelled with another speaker**: ``[10:02] bob: …``, ``bob: …``, ``<Alice> …``, ``Tom (10:02): …``,
   ``张伟：…`` — a name (not "me", "I", "我", nor a heading such as "Note:", "PS:", "Update:", "备注：") before a
   colon at the start of a line, with or without a time stamp;
2. **carries the marks of a message or document**: e-mail headers (``From:``, ``To:``, ``Subject:``, ``Sent:``,
   ``发件人：``, ``主题：``), ``-----Original Message-----``, ``Forwarded message``, ``转发的邮件``, a ``>`` quoted line,
   a fenced block;
3. **is a tool's or an agent's output**: ``Tool result:``, ``Function output``, ``[tool]``, ``Observation:``, ``Agent
   B replied``, ``<tool_output>``, ``工具返回``;
4. **is introduced as someone else's**: a lead-in that hands the words to another ("my colleague wrote:", "here is
   Tom's email", "pasting her message:", "she texted me this:", "他发来的消息：", "转发一下同事的话：");
5. **is a quotation as a whole**: the text (after its lead-in) is wrapped in quotation marks.

Ordinary first-person talk ("I moved to Berlin", "Note: I'm allergic to nuts", "我搬到柏林了") is the user's own.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hermes_memory_core.lru import BoundedLRU

if TYPE_CHECKING:
    from hermes_memory_core.types import MemoryHit

__all__ = ["QUOTED", "USER_ORIGINS", "fact_subject", "others_words", "outranked_claims_below", "passed_on_text"]

#: The ``source`` a write path gives content that is not the user's own words (kept with that provenance).
QUOTED = "quoted"
#: The ``source`` of memories the write paths made from the user's own words on the user's own authority:
#: ``remember`` (``explicit``) and a session turn promoted at its end (``evicted_turn``). A tool result is
#: ``tool``, someone else's words ``quoted``; what an application adds directly carries whatever it says.
USER_ORIGINS = frozenset({"explicit", "evicted_turn"})

_HEADINGS = (
    r"note|notes|ps|p\.s|pps|fyi|btw|update|updates|edit|reminder|todo|to do|tl;?dr|summary|context|question|"
    r"answer|q|a|re|me|i|myself|plan|goal|idea|tip|warning|important|step \d+|day \d+|example|result|results|"
    r"status|remember|correction|also|and|but|so|well|ok|okay|yes|no|hi|hello|hey|dear|thanks|time|date|place|"
    r"location|address|phone|email|name|age|weight|height|birthday|fun fact|breakfast|lunch|dinner|today|tomorrow|"
    r"yesterday|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|evening|night|week|weekend|please|"
    r"ingredients|tip|tips|warning|problem|issue|fix|done|next|then|first|second|finally|why|how|what|when|where|"
    r"pros|cons|reason|because|ps|news|fact|facts|quote|source|topic|agenda|menu|list|steps|recap|background"
)
_CN_HEADINGS = r"备注|注意|提醒|更新|补充|总结|问题|答案|我|本人|自己|今天|明天|昨天|早上|晚上|计划|目标|想法|地址|电话|名字|时间|地点|对了|另外"
_STAMP = r"(?:\[[^\]\n]{1,30}\]|\(\d{1,2}[:.]\d{2}(?:[:.]\d{2})?\s*(?:am|pm)?\)|\d{1,2}[:.]\d{2}(?:[:.]\d{2})?\s*(?:am|pm)?)"
_SPEAKER = re.compile(
    rf"^\s*(?:{_STAMP}\s*[-–]?\s*)?(?P<name>[^\W\d][\w.'-]{{0,20}}(?:\s+[^\W\d][\w.'-]{{0,20}}){{0,2}})\s*"
    rf"(?:{_STAMP}\s*)?[:：]\s*\S"
    rf"|^\s*<(?P<nick>[^\W\d][\w.'-]{{0,20}})>\s*\S"
    rf"|^\s*{_STAMP}\s*(?P<stamped>[^\W\d][\w.'-]{{0,20}})\s*[:：>-]",
    re.IGNORECASE | re.MULTILINE,
)
_DESCRIBED = re.compile(r"^(?:my|our|the|this|that|these|a|an|your|his|her|its|their|shopping|grocery|to-do)\s", re.I)
_NOT_A_SPEAKER = re.compile(rf"^(?:{_HEADINGS}|{_CN_HEADINGS})$", re.IGNORECASE)
_DOCUMENT = re.compile(
    r"^\s*(?:from|to|cc|bcc|sent|date|subject|reply-to|发件人|收件人|抄送|主题|发送时间|日期)\s*[:：]\s*\S"
    r"|-{2,}\s*(?:original message|forwarded message|begin forwarded message)\s*-*|^\s*(?:fwd?|转发)\s*[:：]"
    r"|转发的(?:邮件|消息)|原始邮件|^\s*>|^\s*```",
    re.IGNORECASE | re.MULTILINE,
)
_TOOL = re.compile(
    r"\b(?:tool|function|api|search|plugin)\s+(?:result|output|response|returned|call)s?\b|^\s*observation\s*[:：]"
    r"|\[(?:tool|function|system|agent)[^\]]{0,20}\]|<\s*/?\s*(?:tool|function)_?\w*\s*>"
    r"|\b(?:another|the other|an?)\s+(?:agent|assistant|bot)\s+(?:said|says|replied|wrote|answered|reported)"
    r"|\bagent\s+\w{1,12}\s+(?:said|says|replied|wrote|answered|reported)\b|工具(?:返回|结果|输出)|(?:另一个|其他)(?:智能体|助手|代理)(?:说|回复)",
    re.IGNORECASE | re.MULTILINE,
)
_OTHER = (
    r"(?i:my|our|his|her|their|a|the)\s+(?:\w+\s+){0,2}?(?:colleague|coworker|co-worker|boss|manager|friend|wife|"
    r"husband|partner|brother|sister|mom|mum|mother|dad|father|son|daughter|neighbou?r|landlord|client|customer|"
    r"teacher|doctor|roommate|flatmate|housemate|classmate|mate|cousin|aunt|uncle|team|colleague's|friend's|"
    r"assistant|bot|chatbot|ai)|(?!(?:Quick|Side|Short|Small|Little|Big|Important|Final|Last|First|Personal|Random|Fun|"
    r"Just|Another|One|Brief|Self|Mental|Private|Sticky|Love|Thank|Thanks)\b)[A-Z][a-z]{1,15}(?:'s)?"
    r"|(?i:he|she|they|someone|somebody)"
)
#: Who else a Chinese line passes words on from (a colleague, a friend, "他"…).
_OTHER_ZH = r"同事|朋友|老板|领导|经理|客户|邻居|房东|老师|医生|妈妈|爸爸|老婆|老公|他|她|别人|对方"
_HANDED = re.compile(
    rf"(?:^|[.!?]\s+)(?i:here(?:'s| is| are)\s+|this is\s+|pasting\s+|pasted\s+|forwarding\s+|below is\s+|as\s+)?(?:{_OTHER})(?:\s+[A-Z][a-z]{{1,15}})?\s*"
    r"(?:'s)?\s*(?:wrote|writes|texted|emailed|messaged|sent(?: me)?(?: this)?|posted|said|says|replied|told me|"
    r"e-?mail|message|text|note|letter|post|reply|words)\b[^.!?\n]{0,30}(?:[:：\n]|[\"“「『])"
    r"|(?:^|\s)(?i:pasting|pasted|forwarding|forwarded|quoting|copying|copied)\b[^.!?\n]{0,40}[:：\n]"
    rf"|(?:{_OTHER_ZH})(?:的)?(?:发来|写|说|转发|发|回复|留言)"
    r"(?:的|了|给我)?(?:消息|邮件|话|内容|短信|留言)?\s*[:：\"“「『]"
    rf"|(?:{_OTHER_ZH}|助手)\w{{0,6}}?(?:跟|对|告诉)我说\s*[:：\"“「『]",
    re.MULTILINE,
)

def others_words(text: str) -> str | None:
    """Why ``text`` is not the user's own words (one line), or None when it is (see the module docstring)."""
    norm = unicodedata.normalize("NFKC", text)
    for m in _SPEAKER.finditer(norm):
        name = (m.group("name") or m.group("nick") or m.group("stamped") or "").strip()
        stamped = bool(m.group("stamped") or re.match(rf"\s*{_STAMP}", m.group()))
        words = name.split()
        if len(words) > 1 and not stamped and not all(w[:1].isupper() for w in words):
            continue  # "Please remember: …", "My plan for today: …" are a lead-in, not a name ("Anna Lee: …" is)
        if name and not _NOT_A_SPEAKER.match(name) and not _DESCRIBED.match(name):
            return f"another speaker's words ({name!r} in a log or transcript), not the user's own"
    if _DOCUMENT.search(norm):
        return "a pasted message or document (headers, a quoted line or a fenced block), not the user's own words"
    if _TOOL.search(norm):
        return "a tool's or another agent's output, not the user's own words"
    if _HANDED.search(norm):
        return "words the user passes on from someone else, not the user's own"
    return None


#: Whether a line's text is someone else's words, per text: recall orders and the renderer labels the same lines
#: turn after turn.
_PASSED_ON: BoundedLRU[str, bool] = BoundedLRU(4096)


def passed_on_text(text: str) -> bool:
    """Whether ``text`` is someone else's words the user passed on (:func:`others_words` says why), kept per text
    for the read path (a write asks :func:`others_words` itself)."""
    return _PASSED_ON.get_or_compute(text, lambda: others_words(text) is not None)


# ---------------------------------------------------------------------------------------------- what a fact is about
_SUBJECT_EN = re.compile(
    r"^\s*(?:(?P<label>[a-z][a-z0-9 '/&-]{1,40}?)\s*[:=]\s*\S"
    r"|(?:my|the user's|user's|the user’s|my current)\s+(?P<owned>[a-z][a-z0-9 '/&-]{1,40}?)\s+"
    r"(?:is|are|was|has been|has changed to|changed to|is now|are now)\s+\S"
    r"|(?:i|the user)\s+(?:have|has)\s+(?:a|an)\s+(?P<had>[a-z][a-z0-9 '/&-]{1,40}?)\s+of\s+\S)",
    re.IGNORECASE,
)
_SUBJECT_ZH = re.compile(r"^\s*(?:我的|我们的|用户的|用户)?(?P<label>[\u4e00-\u9fff]{2,8}?)(?:是|为|：|:|现在是|变成了?)\S")
_CLAIMED = re.compile(r"^(?:the user says|用户自称)\s*[:：]\s*", re.IGNORECASE)  # a claim kept apart says whose it is
_AGE = re.compile(r"^\s*(?:i am|i'm|the user is)\s+\d{1,3}\s*(?:years?|yrs?)(?:\s+old)?\b", re.IGNORECASE)
#: Lead-ins that head a line without naming what a value is of ("Note: …", "Plan: …", "备注：…").
_NOT_A_SUBJECT = re.compile(
    r"^(?:note|notes|ps|p\.s|fyi|btw|update|updates|edit|reminder|todo|to do|tl;?dr|summary|context|question|answer|"
    r"q|a|re|me|i|myself|plan|goal|idea|tip|tips|warning|important|step \d+|day \d+|example|result|results|remember|"
    r"correction|also|and|but|so|well|ok|okay|yes|no|hi|hello|hey|dear|thanks|today|tomorrow|yesterday|morning|"
    r"evening|night|please|problem|issue|fix|done|next|then|first|second|finally|why|how|what|when|where|pros|cons|"
    r"reason|because|news|fact|facts|quote|source|topic|agenda|menu|list|steps|recap|background|user says|"
    r"备注|注意|提醒|更新|补充|总结|问题|答案|今天|明天|昨天|计划|目标|想法|对了|另外|自称)$",
    re.IGNORECASE,
)
_SUBJECT_FILLER = frozenset({"current", "verified", "official", "actual", "registered", "the", "a", "an", "real"})


def fact_subject(text: str) -> str | None:
    """What a statement of one value is about, normalised ("account tier" for "Account tier: Professional (billing
    API)", "My account tier is Enterprise." and "The user's account tier is Enterprise."; "会员等级" for
    "会员等级：普通会员" and "我的会员等级是钻石会员"), or None when the text is not such a statement. A tool-written
    fact and a claim in chat with the same subject speak about one value (see :func:`outranked_claims_below`)."""
    if not isinstance(text, str) or len(text) > 400:
        return None
    norm = _CLAIMED.sub("", unicodedata.normalize("NFKC", text).strip())
    if _AGE.match(norm):
        return "age"
    m = _SUBJECT_EN.match(norm)
    if m is not None:
        subject = m.group("label") or m.group("owned") or m.group("had") or ""
        words = [w for w in re.split(r"[\s/&-]+", subject.lower().replace("'s", "")) if w and w not in _SUBJECT_FILLER]
        if not words or len(words) > 4 or _NOT_A_SUBJECT.match(" ".join(words)):
            return None
        return " ".join(words)
    zh = _SUBJECT_ZH.match(norm)
    if zh is not None and not _NOT_A_SUBJECT.match(zh.group("label")):
        return zh.group("label")
    return None


def outranked_claims_below(hits: Sequence[MemoryHit], facts: Sequence[MemoryHit]) -> list[MemoryHit]:
    """``hits`` with each fact written with a tool's authority (``source="tool"``; ``facts`` are such facts that
    ``hits`` may lack) placed just above the first hit that is a weaker claim about it: one that disputes it
    (``metadata["disputes"]``), or a line or memory not written by a tool that states a value for the fact's subject
    (:func:`fact_subject`), scored as that claim at least (what keeps the claim keeps the fact). The tool's value
    is the current one; the claim stays, below it. Other hits keep their order; a fact no hit is about is not
    added."""
    pool = {h.id: h for h in [*hits, *facts] if h.metadata.get("source") == "tool"}
    subject = {fid: fact_subject(h.content) for fid, h in pool.items()}
    out: list[MemoryHit] = []
    placed: set[str] = set()
    for hit in hits:
        if hit.id in placed:
            continue
        if hit.metadata.get("source") != "tool":
            said = fact_subject(hit.content) if hit.role in (None, "user") else None
            for fid, fact in pool.items():
                if fid not in placed and (hit.metadata.get("disputes") == fid
                                          or (said is not None and said == subject[fid])):
                    out.append(dataclasses.replace(fact, score=max(fact.score, hit.score), confidence=max(
                        fact.confidence or 0.0, hit.confidence or 0.0) if hit.confidence is not None else fact.confidence))
                    placed.add(fid)
        out.append(hit)
        placed.add(hit.id)
    return out
