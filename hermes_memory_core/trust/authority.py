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

import re
import unicodedata

__all__ = ["QUOTED", "USER_ORIGINS", "others_words"]

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
    r"teacher|doctor|roommate|flatmate|housemate|classmate|mate|cousin|aunt|uncle|team|colleague's|friend's)|[A-Z][a-z]{1,15}(?:'s)?|(?i:he|she|they|someone|somebody)"
)
_HANDED = re.compile(
    rf"(?:^|[.!?]\s+)(?i:here(?:'s| is| are)\s+|this is\s+|pasting\s+|pasted\s+|forwarding\s+|below is\s+)?(?:{_OTHER})\s*"
    r"(?:'s)?\s*(?:wrote|writes|texted|emailed|messaged|sent(?: me)?(?: this)?|posted|said|says|replied|told me|"
    r"e-?mail|message|text|note|letter|post|reply|words)\b[^.!?\n]{0,30}[:：\n]"
    r"|(?:^|\s)(?i:pasting|pasted|forwarding|forwarded|quoting|copying|copied)\b[^.!?\n]{0,40}[:：\n]"
    r"|(?:同事|朋友|老板|领导|经理|客户|邻居|房东|老师|医生|妈妈|爸爸|老婆|老公|他|她|别人|对方)(?:的)?(?:发来|写|说|转发|发|回复|留言)"
    r"(?:的|了|给我)?(?:消息|邮件|话|内容|短信|留言)?\s*[:：]",
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
