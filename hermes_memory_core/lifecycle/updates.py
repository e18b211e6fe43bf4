"""Changes become versions: which existing memory a new statement updates, and who may supersede a fact.

- **Topic keys**: a statement whose classifier topic key matches an active memory of the user in the same tier
  (long-term or permanent) becomes that memory's next version.
- **Change statements** (no key match needed, no LLM): rules recognise that a statement reports a change — "no
  longer", "stopped", "quit", "switched to", "moved to", "不再", "戒了", "改用", "换成", "搬到", ... — and find the
  user's most similar active memory on the same subject: the best keyword match among memories that share a
  subject word with it or fall in the same topic (coffee, tea, programming language, editor, ...).
- **One fact, one memory**: a statement of a keyed fact (where the user lives, their job, name, an allergy: the
  topics of :mod:`~hermes_memory_core.text.fact_topics`) versions the user's memory of that same fact, however it
  is worded and in whichever language ("用户住在北京" by "I moved from Beijing to Shanghai"), and never a memory of
  another fact that shares its words or places ("The user's office is in Beijing" stays as it is).
- **Authority**: a permanent fact written by a caller with authority — a tool result (``source="tool"``) stored
  by a caller with ``write_permanent`` — is superseded only by a claim with at least that authority. A lower claim
  is kept apart as a long-term "the user says" memory and never replaces the fact.
"""

from __future__ import annotations

import re

from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.lifecycle.dedupe import language
from hermes_memory_core.storage.filters import MemoryFilter
from hermes_memory_core.text.fact_topics import INSTRUMENTS
from hermes_memory_core.text.tokenizer import tokenize, tokenize_query
from hermes_memory_core.trust.permissions import Caller
from hermes_memory_core.types import MemoryRecord, MemoryType

__all__ = [
    "authority",
    "claim_text",
    "fact_authority",
    "find_change_target",
    "is_change",
    "subject_words",
    "topic",
]

_CHANGE = re.compile(
    r"\bno longer\b|\bnot any ?more\b|\bany ?more\b|\bstopped\b|\bstop (?:drinking|eating|using|smoking|going)\b"
    r"|\bquit\b|\bgave up\b|\bgiven up\b|\bswitched\b|\bchanged (?:to|from|my)\b|\bmoved (?:to|from|out)\b"
    r"|\bnow (?:use|uses|prefer|prefers|drink|drinks|live|lives|work|works|eat|eats|have|has)\b|\binstead of\b"
    r"|\b(?:started|began|took up|picked up)\b|\bthese days\b|\bnowadays\b|\bfrom now on\b"
    r"|不再|戒了|戒掉|戒(?=烟|酒|糖|咖啡|奶茶)|改用|改喝|改吃|改成|改为|改到|换成|换了|换到|转用|转向|搬到|搬去|搬家"
    r"|\b(?:play|plays|speak|speaks)\b[^.!?,;]{1,30}\bnow\b(?! and then)|改(?:弹|拉|学|练|打|开)"
    r"|现在(?:改|开始|不|只)|已经不|不.{0,6}了[。.!！]?$|又开始|重新开始|开始(?:喝|吃|用|学|跑|练|做)|最近(?:不|开始|改)"
)
def _words(text: str) -> list[str]:
    return text.split()


#: Subject families: a change statement and a memory in the same family talk about the same subject.
_TOPICS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"coffee|americano|espresso|latte|cappuccino|caffeine|咖啡|美式|拿铁|浓缩"), "coffee"),
    (re.compile(r"\btea\b|茶"), "tea"),
    (re.compile(r"alcohol|\bbeer|\bwine|\bdrinking\b|酒"), "alcohol"),
    (re.compile(r"smok|cigarette|vap(?:e|ing)|抽烟|吸烟|戒烟|香烟"), "smoking"),
    (re.compile(r"\b(?:python|java|golang|rust|javascript|typescript|ruby|kotlin|swift|php|scala|haskell|c\+\+|c#)\b"
                r"|\b(?:to|in|use|uses|using|write|writes|writing|learn|learning) go\b|programming language|编程语言"),
     "programming_language"),
    (re.compile(r"\b(?:vim|neovim|emacs|vs ?code|intellij|pycharm|sublime)\b|editor|编辑器"), "editor"),
    (re.compile(r"\b(?:linux|windows|macos|ubuntu)\b|operating system|操作系统"), "operating_system"),
    (re.compile(r"vegetarian|vegan|\bmeat\b|吃素|素食|吃肉"), "diet"),
    (re.compile(r"\b(?:run|running|jog|gym|yoga|swim|swimming|cycling)\b|跑步|健身|游泳|瑜伽|骑行"), "exercise"),
    (re.compile(r"\b(?:car|bike|bus|subway|metro|train|drive|drives|commute)\b|开车|地铁|公交|自行车|通勤"), "commute"),
    (re.compile(r"\b(?:iphone|android|phone)\b|手机"), "phone"),
    (re.compile(r"\b(?:" + INSTRUMENTS + r")\b|钢琴|吉他|大提琴|小提琴|鼓|长笛|萨克斯"), "instrument"),
]
#: Words too common to show two statements share a subject.
_GENERIC = frozenset(_words(
    "user users like likes liked love loves use uses used now anymore longer stop stopped quit switch switched "
    "change changed start started began recently day daily every morning evening night week weekly year also "
    "still really go going get got want wants prefer prefers instead moved move back again new old one thing "
    "用户 最近 现在 已经 不再 每天 早上 晚上 喜欢 开始 以前 平时 一直 戒了 改用 换成 一杯 还是 然后 因为 所以 "
    "时候 这个 那个 一个 自己 觉得 可以 没有 不是 就是 我们"
))


def is_change(text: str) -> bool:
    """Whether a statement reports a change of something the user did, had or preferred."""
    return bool(_CHANGE.search(text.lower()))


def topic(text: str) -> str | None:
    """The subject family a statement belongs to (see :data:`_TOPICS`), if any."""
    low = text.lower()
    for pattern, name in _TOPICS:
        if pattern.search(low):
            return name
    return None


def subject_words(text: str) -> set[str]:
    """Words that name what a statement is about: English words and Chinese two-character words, without the
    change markers and the words too common to tell subjects apart."""
    marked = _CHANGE.sub(" ", text.lower()).replace("用户", " ").replace("我", " ")
    return {t for t in tokenize(marked) if t not in _GENERIC and (len(t) > 1 or not ("\u4e00" <= t <= "\u9fff"))}


def _same_subject(text: str, other: str) -> bool:
    mine = topic(text)
    return (mine is not None and mine == topic(other)) or bool(subject_words(text) & subject_words(other))


def find_change_target(
    lookups: Lookups, user_id: str, text: str, tiers: tuple[MemoryType, ...]
) -> MemoryRecord | None:
    """The user's active memory of ``tiers`` that the change ``text`` updates: the best keyword match on its
    subject words among memories on the same subject, or None."""
    words = sorted(subject_words(text)) or tokenize_query(text)
    if not tiers or not words:
        return None
    now = lookups.now()
    flt = MemoryFilter(user_id, tuple(t.value for t in tiers), now=now)
    found = lookups.keyword_candidates(user_id, lookups.codec.query_terms(words), 20, flt, context_weight=0.0)
    mine = topic(text)
    if mine is not None:  # memories of the same family that share no word ("戒了咖啡" / "每天一杯美式")
        extra = [m for m, _ in lookups.keyword_candidates(
            user_id, lookups.codec.query_terms(tokenize_query(" ".join(_topic_words(mine)))), 20, flt, context_weight=0.0
        ) if m not in dict(found)]
        found = found + [(m, 0.0) for m in extra]
    records = lookups.active_records([m for m, _ in found], user_id, now=now)
    for mid, _score in found:
        rec = records.get(mid)
        if rec is not None and _same_subject(text, rec.content):
            return rec
    return None


def _topic_words(name: str) -> list[str]:
    """Words that find memories of a subject family by keyword."""
    return {
        "coffee": ["coffee", "americano", "espresso", "latte", "咖啡", "美式", "拿铁"],
        "tea": ["tea", "茶"],
        "alcohol": ["alcohol", "beer", "wine", "酒"],
        "smoking": ["smoke", "smoking", "cigarette", "抽烟", "吸烟", "烟"],
        "programming_language": ["python", "java", "golang", "go", "rust", "javascript", "typescript", "编程"],
        "editor": ["vim", "emacs", "vscode", "editor", "编辑器"],
        "operating_system": ["linux", "windows", "macos", "ubuntu"],
        "diet": ["vegetarian", "vegan", "meat", "素", "肉"],
        "exercise": ["run", "running", "gym", "yoga", "swim", "跑步", "健身", "游泳"],
        "commute": ["car", "bike", "bus", "subway", "train", "drive", "开车", "地铁", "公交"],
        "phone": ["iphone", "android", "phone", "手机"],
        "instrument": ["piano", "guitar", "cello", "violin", "drums", "flute", "钢琴", "吉他", "提琴"],
    }.get(name, [])


def authority(caller: Caller, source: str) -> int:
    """How much a claim weighs: 0 without ``write_permanent``, 1 for what the user says, 2 for a tool result
    stored by a caller with ``write_permanent``."""
    if not caller.write_permanent:
        return 0
    return 2 if source == "tool" else 1


def fact_authority(rec: MemoryRecord) -> int:
    """The authority a stored fact was written with (see :func:`authority`): 2 for a tool result, else 1."""
    return 2 if rec.metadata.get("source") == "tool" else 1


def claim_text(text: str) -> str:
    """A lower-authority claim, worded as what the user says (kept apart from the fact it contradicts)."""
    return f"用户自称：{text}" if language(text) == "zh" else f"The user says: {text}"
