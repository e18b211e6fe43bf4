"""What frames a statement but is no part of it: "By the way, …", "…, btw", "Remember that …", "…; please remember.",
"Did you know I moved to Lyon?" — taken off before a statement is stored as a fact."""

from __future__ import annotations

import re

from hermes_memory_core.text.questions import NEWS_ASKED

__all__ = ["without_asides"]


def without_asides(plain: str) -> str:
    """``plain`` (one line of a first-person statement) without the request to remember around it, the question it
    is told as, and the asides that frame it ("Could you remember that my daughter's name is Mia?" → "my daughter's
    name is Mia", "Did you know I moved to Lyon?" → "I moved to Lyon.", "I'm vegetarian, btw." → "I'm vegetarian.",
    "我对青霉素过敏，请记住。" → "我对青霉素过敏。"); "" when nothing else is left."""
    text = _ASKED_TO_REMEMBER.sub("", plain) or plain
    if text != plain:  # "Could you remember that my daughter's name is Mia?": the request's question mark goes too
        text = _REQUEST_END.sub("", text) or text
    if NEWS_ASKED.match(text):  # "Did you know I moved to Lyon?": the news, without the question it is told as
        text = (NEWS_ASKED.sub("", text).rstrip(" ?？") or text) + ("" if _CJK_END.search(text) else ".")
    text = _ASIDE_TAIL.sub(lambda m: m.group("end") or "", _ASIDE_HEAD.sub("", text)) or text
    return _REMEMBER_TAIL.sub(lambda m: "。" if m.group("zh") else ".", text) or text


#: Asides that frame a statement but are not part of it ("By the way, I'm vegetarian", "Some news: I'm a paramedic
#: now", "I'm vegetarian, btw.",
#: "对了，我吃素").
_ASIDE_HEAD = re.compile(r"^(?:(?:oh|and|also)[,\s]+)?(?:by the way|btw|fyi|just so you know|for the record)[,:\s]+"
                         r"|^(?:guess what|(?:some |big |good |great |exciting )?news|(?:a )?(?:quick )?update|(?:quick |side )?note"
                         r"|note to self|reminder to self|real talk|long story short|summary)\s*[,:!—-]\s*"
                         r"|^(?:(?:sorry|oops|oh|抱歉|不好意思|对不起)[,，!！\s]*)?(?:one more thing|another thing|one last thing"
                         r"|还有一件事|还有件事|还有个事|还有一点)\s*[,，:：!！—-]\s*"
                         r"|^(?:对了|顺便说一下|顺便说一句|顺便一提|顺带一提)[，,：:\s]*", re.IGNORECASE)
_CJK_END = re.compile(r"[\u3400-\u9fff。！]\W*$")
_ASIDE_TAIL = re.compile(r"[,，]?\s*(?:by the way|btw|fyi|just so you know)(?P<end>[.!。！]?)$", re.IGNORECASE)


#: A request to remember after the statement ("…; please remember.", "…, keep that in mind", "…，请记住。"): not
#: part of the fact.
_REMEMBER_TAIL = re.compile(
    r"\s*[,;.!]\s*(?:(?:so\s+)?(?:please|pls)[,\s]+)?(?:remember|note|keep in mind|make a note of|don't forget|do not forget)"
    r"(?:\s+(?:that|this|it))?(?:\s+(?:please|for me))?(?:,?\s+(?:please|thanks|thank you))?\s*[.!]*\s*$"
    r"|\s*[,;.!]\s*(?:(?:so\s+)?(?:please|pls)[,\s]+)?keep (?:that|this|it) in mind(?:,?\s+please)?\s*[.!]*\s*$"
    r"|(?P<zh>[，,。；;！!]\s*(?:请你?|你要|要)?(?:记住|记得|记一下|记下|别忘了|不要忘了)(?:了|哦|喔|啊|呀|一下|这个|这点)*[。！!.]*\s*$)",
    re.IGNORECASE,
)

#: The end of a request to remember ("…, please?", "…吗？"), left when the request itself is taken off.
_REQUEST_END = re.compile(r"(?:[,，]?\s*please)?\s*(?:吗|好吗|可以吗|行吗)?\s*[?？]\s*$", re.IGNORECASE)

#: "Remember that …" / "请记住…": the request to remember is not part of the fact.
_ASKED_TO_REMEMBER = re.compile(
    r"^(?:(?:please|pls|hey|ok|okay)[,\s]+)?(?:(?:can|could|would|will) you (?:please )?)?(?:remember|note|keep in mind"
    r"|make a note of|don't forget|do not forget|never forget)(?:\s+(?:that|this))?\s*[,:：-]?\s+"
    r"|^(?:请你?|你要|帮我|(?:你|您)?(?:能|能不能|可以|可不可以)?(?:帮我)?)(?:记住|记得|记一下|记下|别忘了|不要忘了)[，,:：]?\s*",
    re.IGNORECASE,
)
