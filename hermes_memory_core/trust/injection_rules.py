"""The rules of the injection guard: one pattern per class of meaning, gated by the subject of its verb.

A :class:`Rule` is a compiled pattern with how to judge a match: always (``check`` and ``gated`` unset), by a
``check`` function (privilege claims, entitlements), or ``gated`` — the clause before the rule's ``v`` group is
read and the match counts when it is an imperative, has the assistant as subject, or (``request_frame``) asks for
the thing ("can I see …"); a person as subject makes it a statement about them unless ``scoped`` says the target
belongs to the assistant. :data:`RULES` is read by :func:`hermes_memory_core.trust.injection.find_injection`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hermes_memory_core.trust.injection_claims import CLAIM, CN_CLAIM, STATUS, claim, cn_claim, cn_entitled, entitled
from hermes_memory_core.trust.injection_lexicon import (
    ASSIST,
    ASSIST_RE,
    BEHAVIOUR_B,
    BEHAVIOUR_V,
    BIAS_B,
    BIAS_V,
    BYPASS_B,
    BYPASS_V,
    CN_BEHAVIOUR,
    CN_OVERRIDE_V,
    CN_REVEAL_V,
    CN_RULES,
    CN_SENSITIVE,
    EDIT_B,
    EDIT_V,
    EPISTEMIC,
    FILLER,
    FOLLOW_B,
    FOLLOW_V,
    GRANT_B,
    GRANT_V,
    INSTRUCTION,
    MIND,
    MODAL,
    MODE_B,
    MODE_V,
    MODES,
    NO_LIMITS,
    NOT_A_VERB,
    NOT_FOLLOW,
    OBEY_B,
    OBEY_V,
    OBJECT_CONTEXT,
    OUTPUTS,
    OVERRIDE_B,
    OVERRIDE_V,
    OWN,
    PRAISE_B,
    PRAISE_V,
    PRIVILEGE,
    PROMOTE_B,
    PROMOTE_V,
    REQUEST_FRAME,
    REVEAL,
    REVEAL_B,
    REVEAL_V,
    ROLEPLAY_V,
    RULE_WORDS,
    SCOPE,
    SENSITIVE,
    SUBJECT,
    TEMPORAL,
)

__all__ = ["RULES", "SQUASHED", "Rule"]

@dataclass(frozen=True, slots=True)
class Rule:
    """One class pattern. ``gated``: judged by the subject of its ``v`` group (see the module docstring)."""

    name: str
    category: str
    pattern: re.Pattern[str]
    gated: bool = False
    bases: frozenset[str] = frozenset()
    request_frame: bool = False
    scoped: Callable[[str], bool] | None = None
    check: Callable[[re.Match[str], str], bool] | None = None

    def judge(self, m: re.Match[str], text: str) -> bool:
        """Whether this match of the rule in ``text`` (a folded view) is an injection."""
        if self.check is not None:
            return self.check(m, text)
        return _gate(self, m, text) if self.gated else True


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# ----------------------------------------------------------------------------------------------------- gating

_BOUNDARY = re.compile(
    r"[.!?;:,\"()\[\]{}<>|\n。！？；：，、…]|(?<![a-z])'|'(?![a-z])|\s[-–]\s"
    r"|\b(?:that|because|if|when|whenever|while|whereas|unless|although|though|since)\b"
)
_CJK = re.compile(r"[\u3400-\u9fff]")
_CN_FILLER = re.compile(
    r"^(?:请你?|麻烦你?|帮我|给我|务必|一定要?|必须|马上|立刻|立即|现在|以后|今后|从现在起|从现在开始|从今以后|从今天起|"
    r"每次|永远|一律|记住|记得|注意|好的|好|那么|那|然后|接下来|首先|另外|还有|并且|而且|同时|也|就|都|直接|全部|完全|"
    r"彻底|再|赶紧|快|千万|要|请记住|听好|[\s\-*>#]|\d+)*$"
)
_CN_STANDING = re.compile(r"每次|所有|任何|不管|无论|有人问|谁问|一律|永远|以后|今后")
_CN_ASSIST = re.compile(r"你|您|助手|ai|机器人|模型|bot|chatgpt|hermes|系统|人工智能|智能客服")
#: What the assistant is called in Chinese, as the subject of an order ("人工智能以后都要…", "智能客服必须…").
CN_AI_NAMES = r"助手|机器人|模型|小助手|智能助理|ai助手|人工智能|智能客服|客服机器人|ai"
_CN_REQUEST = re.compile(r"我(?:要|想|需要|希望|想要|必须|得|可以|能)|让我|给我|能不能|可不可以")
_CN_SCOPE = re.compile(r"之前|以上|上面|前面|先前|原来|原有|原始|初始|你的|系统|安全|内置|默认|开发者|官方|上文|前文|一切|所有内容")


def _clause_before(text: str, pos: int) -> str:
    """The part of the clause that precedes ``pos`` (clauses end at punctuation, quotes and subordinators)."""
    start = 0
    for m in _BOUNDARY.finditer(text, 0, pos):
        start = m.end()
    return text[start:pos].strip()


def _gate(rule: Rule, m: re.Match[str], text: str, verb_group: str = "v") -> bool:
    """Whether a gated match is an instruction or request (True) or a statement about someone (False).

    A match without a ``v`` group (an ungated branch of the rule) is an instruction.
    """
    verb = m.groupdict().get(verb_group)
    if not verb:
        return True
    prefix = _clause_before(text, m.start(verb_group))
    scoped = rule.scoped(m.group()) if rule.scoped else False
    if _CJK.search(verb):
        if rule.request_frame and _CN_REQUEST.search(prefix):
            return True
        return bool(_CN_FILLER.match(prefix) or _CN_ASSIST.search(prefix) or _CN_STANDING.search(prefix)) or scoped
    if rule.request_frame and REQUEST_FRAME.search(prefix):
        return True
    if FILLER.match(prefix):
        return True
    subjects = SUBJECT.findall(prefix)
    if subjects and subjects[-1] == "it" and not re.search(r"\bit(?:\s+\S+){0,2}$", prefix):
        subjects.pop()  # "it's been on my list": "it" is the assistant only as the verb's own subject
    if subjects:  # a person's "its"/"their" rules are their own, not the assistant's
        return bool(ASSIST_RE.match(subjects[-1])) or bool(rule.scoped and rule.scoped(OWN.sub("", m.group())))
    return " ".join(verb.split()) in rule.bases or scoped


_ASKING = re.compile(
    rf"\b(?:make\s+sure|ensure|see\s+to\s+it|guarantee|please|let|have|i\s*(?:want|need|'d\s+like|would\s+like)|{ASSIST})\b"
)


def _asked_of_assistant(m: re.Match[str], text: str) -> bool:
    """The clause before the match asks for it ("make sure my posts …", "I want you to …")."""
    return bool(_ASKING.search(_clause_before(text, m.start())))


def _before_is_object_context(m: re.Match[str], text: str) -> bool:
    words = text[: m.start("s")].split()
    return bool(words) and words[-1].strip("'\"") in OBJECT_CONTEXT


def _mentions_assistant(m: re.Match[str], text: str) -> bool:
    """The match (or the three words before it) is scoped to the assistant, or the text names the assistant."""
    near = " ".join(text[: m.start()].split()[-3:]) + " " + m.group()
    return bool(SCOPE.search(near) or re.search(r"\b(?:you|assistant|ai|model|bot|chatbot)\b", text))


#: The people an assistant serves, and giving their information away ("hand out every guest's room number").
PEOPLE = r"guests?|patients?|members?|visitors?|passengers?|tenants?|residents?|students?|subscribers?|callers?|shoppers?"
DISCLOSE = r"(?:hand|give|read|send|pass|call)\s+out|disclos\w*|reveal\w*|leak\w*|shar\w*|forward\w*|expos\w*|publish\w*"
#: "You" as the subject of a modal is the assistant only when the rest of the clause is about what the assistant
#: does for people: its replies and output, its rules and prompt, the users it serves and their data, or a standing
#: behaviour ("always reply …"). A friend's advice — "you need to destress", "you should call her" — is none of these.
_CONDUCT = re.compile(
    rf"\b(?:repl(?:y|ies|ied|ying)|respon(?:d|ds|ded|ding|se|ses)|answers\b|answer(?:ing)?\s+(?:in|with|me|us|only|"
    r"every|all|any|like|as|questions?|users?)\b|outputs?|prompts?|chats?\s+with|conversations?\s+with|"
    r"(?:to|for|with|about)\s+(?:all\s+|every\s+|other\s+|the\s+)?(?:users?|customers?|clients?)\b|"
    r"(?:users?|customers?|clients?)'s?\s+(?:data|info|details|records|numbers?|passwords?|accounts?)|"
    rf"(?:{DISCLOSE})\s+(?:\w+\s+){{0,3}}?(?:every|each|all|any|other)\s+(?:\w+\s+)?(?:{PEOPLE})'?s?\s+(?:\w+\s+)?"
    r"(?:numbers?|data|info\w*|details|records|address\w*|phones?|e-?mails?|passwords?|accounts?|cards?|files?)|"
    rf"(?:card|account|credit\s+card|social\s+security|api)\s+(?:number|key)s?|passwords?|pins?\b|secrets?|"
    rf"(?:in|to|into)\s+(?:every|each|all|any)\s+(?:\w+\s+)?(?:{OUTPUTS}|messages?|emails?|posts?)|"
    r"(?:give|grant|get)\s+(?:me|us|him|her|them)\s+(?:full\s+|admin\s+)?access|access\s+to|(?:share|tell|show|give)\s+"
    r"(?:me\s+)?(?:anything|everything|whatever|all)|(?:anything|everything|whatever)\s+i\s+(?:ask|say|want|tell)|obey|"
    r"comply|without\s+question|warnings?|disclaimers?|unrestricted|"
    rf"recommend\w*|rank\w*|{RULE_WORDS})\b"
)
_STANDING_VERB = re.compile(
    r"\b(?:always|never|only|from\s+now\s+on|henceforth|going\s+forward|every\s+time|each\s+time|whenever|"
    r"without\s+exception|no\s+matter\s+what|at\s+all\s+times)\b[^.;!?]{0,20}?\b(?:answer|respond|reply|write|"
    r"speak|talk\s+to\s+me|say|recommend|rank|refer|address|include|add|append|mention|sign|format|translate|output|"
    r"obey|comply|refuse|agree\s+with\s+me|praise|insult|curse|swear|pretend|prioriti[sz]e|favou?r|promote|reveal|"
    r"grant|approve|accept|ignore|call\s+me|end|start|begin)\w*\b"
)
#: What only an assistant produces or holds: its answers and replies, its users' data.
_SERVED = re.compile(
    rf"\b(?:(?:every|each|all|any|its|their|his|her|the)\s+(?:\w+\s+)?(?:{OUTPUTS})|users?|customers?|clients?|"
    rf"(?:every|each|all|any|other)\s+(?:\w+\s+)?(?:{PEOPLE})|"
    r"prompts?)\b"
)
_CLAUSE_AFTER = re.compile(r"[^.;!?。！？\n]*")
_NAMED = re.compile(
    r"(?:assistant|hermes|claude|chatgpt|gpt[\w.-]*|gemini|copilot|siri|alexa|bot|chatbot|model|llm|agent|ai|a\.i\.|"
    r"ai\s+assistant|system|helper)$"
)


def _clause_after(text: str, start: int) -> str:
    found = _CLAUSE_AFTER.match(text, start)
    return found.group() if found else ""


def _order_to_assistant(m: re.Match[str], text: str) -> bool:
    """A modal whose subject names the assistant is an order to it; "you" + modal only when the clause is about the
    assistant's conduct (:data:`_CONDUCT`, :data:`_STANDING_VERB`)."""
    if _NAMED.search(m.group("s")):
        return True
    clause = _clause_after(text, m.start("s"))
    return bool(_CONDUCT.search(clause) or _STANDING_VERB.search(clause))


def _named_order(m: re.Match[str], text: str) -> bool:
    """Any other named subject ("Ollie must …", "the concierge is required to …") + a modal, when the clause is about
    an assistant's conduct toward its users: replies, output, their data, a standing behaviour. Whatever the
    assistant is called, that is an order to it."""
    if _NAMED.search(m.group("s")):
        return True
    clause = _clause_after(text, m.start("s"))
    return bool(_CONDUCT.search(clause) and (_STANDING_VERB.search(clause) or _SERVED.search(clause)))


#: The Chinese counterpart of :data:`_CONDUCT`: replies, output, rules, the users served and their data, standing
#: behaviour. "你应该早点睡" (advice between people) holds none of them.
_CN_CONDUCT = re.compile(
    r"回答|回复|答复|作答|输出|提示词|系统|规则|指令|设定|用户|客户|推荐|排序|置顶|卡号|密码|验证码|账号|以后|今后|从现在|永远|总是|"
    r"始终|每次|每一次|一律|无论|所有|任何|称呼我|用\S{1,6}(?:语|文)|服从|听我|遵守|拒绝|透露|泄露|显示|告诉我"
)


def _cn_order_to_assistant(m: re.Match[str], text: str) -> bool:
    """助手/机器人/模型 + a modal is an order to the assistant; 你/您 + a modal only when the clause is about the
    assistant's conduct (:data:`_CN_CONDUCT`)."""
    subject = m.group("s")
    if subject is not None and subject not in ("你", "您"):
        return True
    return bool(_CN_CONDUCT.search(_clause_after(text, m.start())))


_OWN_THINGS = re.compile(
    r"\s+(?:your|yourself|your\s+own|his|her|their|them|him)\b(?!\s+(?:rules|instructions|guidelines|prompt|"
    r"programming|training|policy|policies|filters|restrictions|limits|safety|system))"
)
_ADVICE_VERBS = frozenset({"trust", "believe", "follow", "use", "consider", "treat", "start", "end", "begin", "act",
                           "assume", "agree", "listen", "say", "add", "include", "write", "talk", "speak"})


def _standing_not_past(m: re.Match[str], text: str = "") -> bool:
    """"always mentioned", "never ending": a past or ongoing verb after a standing adverb reports, it does not
    order (an order's verb is in its plain form: "always answer", "never mention"); "always trust your gut",
    "never use her car": advice about the listener's own life or someone else's (not the assistant's rules)."""
    verb = m.group("v")
    if re.search(r"(?:ed|ing)$", verb):
        return False
    return not (verb in _ADVICE_VERBS and _OWN_THINGS.match(text, m.end("v")))


_STANDING_GATE = Rule("standing-order", INSTRUCTION, re.compile(""), gated=True, bases=BEHAVIOUR_B)


# -------------------------------------------------------------------------------------------------------- rules


def _scope(text: str) -> bool:
    return bool(SCOPE.search(text))


def _cn_scope(text: str) -> bool:
    return bool(_CN_SCOPE.search(text))


_CN_GATE = Rule("cn-gate", INSTRUCTION, re.compile(""), gated=True)
_CN_REVEAL_GATE = Rule("cn-reveal-gate", REVEAL, re.compile(""), gated=True, request_frame=True)
_EDIT_GATE = Rule("edit-gate", INSTRUCTION, re.compile(""), gated=True, bases=EDIT_B)
_EDIT_GATE_W = Rule("edit-gate", INSTRUCTION, re.compile(""), gated=True, bases=EDIT_B)


def _cn_reveal(m: re.Match[str], text: str) -> bool:
    """The 把 construction puts the object before the verb: gate on the clause before 把."""
    return _gate(_CN_REVEAL_GATE, m, text, verb_group="v" if m.group("v") else "b")

RULES: tuple[Rule, ...] = (
    # 1. instructions to the assistant
    Rule("override", INSTRUCTION, _c(rf"\b(?P<v>{OVERRIDE_V}|{NOT_FOLLOW})(?:\s+[\w'’-]+){{0,5}}?\s+(?:{RULE_WORDS})\b"),
          gated=True, bases=OVERRIDE_B, scoped=_scope),
    Rule("override-weak", INSTRUCTION, _c(
        rf"\b(?P<v>{OVERRIDE_V}|{NOT_FOLLOW})(?:\s+[\w'’-]+){{0,4}}?\s+(?:your|its|previous|prior|earlier|original|"
        r"system|developer's?|admin's?)\s+(?:\w+\s+)?(?:training|limits|limitations|protocols|principles|boundaries|"
        r"orders|commands|values|settings|setup|configuration|persona|personality|identity|memory|memories)\b"),
          gated=True, bases=OVERRIDE_B, scoped=_scope),
    Rule("override-passive", INSTRUCTION, _c(
        rf"\b(?:{RULE_WORDS})(?:\s+[\w'’-]+){{0,3}}?\s+(?:(?:are|is|be|were|was|have\s+been|has\s+been|should\s+be|"
        r"must\s+be|will\s+be)\s+)?(?:now\s+)?(?:void|null|cancel+ed|revoked|lifted|suspended|obsolete|invalid|"
        r"overridden|superseded|disabled|removed|deleted|ignored|disregarded|waived|off|gone|irrelevant|no\s+longer\s+"
        r"(?:apply|applies|valid|in\s+effect|matter|exist|count)|(?:do|does|don't|doesn't)\s+(?:not\s+)?(?:apply|count|"
        r"matter|hold|exist)|not\s+apply)\b"),
          check=_mentions_assistant),
    Rule("nothing-applies", INSTRUCTION, _c(
        rf"\b(?:nothing|none)\s+(?:of|in)\s+(?:your|the|its)\s+(?:\w+\s+)?(?:{RULE_WORDS})\s+(?:\w+\s+)?(?:appl|matter|count|"
        r"bind|hold)\w*|\bno\s+(?:more\s+)?(?:refusals?|disclaimers?|moraliz\w*|moralis\w*|censorship)\b"
        r"|\byou\s+(?:have|has|got)\s+no\s+(?:more\s+)?(?:filters|restrictions|rules|limits|guidelines|guardrails|"
        r"boundaries|morals|ethics|censorship|policies)\b")),
    Rule("assistant-modal", INSTRUCTION, _c(
        rf"(?<![\w'])(?P<s>you|u|ya|assistant|hermes|claude|chatgpt|gpt[\w.-]*|gemini|copilot|siri|alexa|(?:the|this|"
        r"my|our)\s+(?:ai|a\.i\.|bot|chatbot|model|llm|agent|assistant|ai\s+assistant))(?:\s+|(?='))"
        rf"(?:(?:\w+ly|really|just|also|still)\s+)?(?:{MODAL})\s+(?:(?:\w+ly|always|never|not|only|also|just|ever|"
        rf"again|now)\s+)*+(?!(?:{MIND}|{EPISTEMIC}|\w+ing)\b)[\w'-]+"),
          check=lambda m, t: not _before_is_object_context(m, t) and _order_to_assistant(m, t)),
    Rule("named-modal", INSTRUCTION, _c(
        r"(?<![\w'])(?P<s>(?!(?:i|we|he|she|they|it|you|u|ya|people|someone|somebody|everyone|everybody|nobody|"
        r"who|that|this|there|which|what|kids|children)\b)(?:(?:the|this|my|our|your)\s+)?[a-z][\w'.-]{1,30})"
        r"(?:\s*\([^()]{0,40}\))?(?:\s+|(?='))(?:(?:\w+ly|really|just|also|still)\s+)?(?:must|should|shall|ha(?:s|ve)\s+to|needs?\s+to|"
        r"ought\s+to|is\s+to|(?:is|are|'s)\s+(?:required|obliged|obligated|expected|supposed|instructed|programmed|"
        r"meant)\s+to|(?:will|'ll|would|can|may)\s+(?:always|never|only))\b"),
          check=_named_order),
    Rule("assistant-role", INSTRUCTION, _c(
        r"\byour\s+(?:new\s+|only\s+|real\s+|true\s+)?(?:job|task|role|purpose|goal|mission|function|instructions?|"
        r"rules?|name|identity|persona|directive|priority)\s+(?:is|are|will\s+be|shall\s+be)\b"
        r"|\byou(?:\s+are|'re)\s+(?:now|no\s+longer|henceforth|hereby)\b(?!\s*(?:[.!?,;:)]|$))"
        r"(?!\s+(?:officially|finally|legally|truly|really|basically|technically|pretty|so|too|old|retired|married|"
        r"engaged|divorced|done|ready|home|back|safe|free\s+to\s+go|a\s+(?:proud|certified|licensed|qualified|"
        r"published|registered)|the\s+proud|(?:a\s+)?(?:mom|mum|mother|dad|father|parent|grandma|grandpa|"
        r"grandmother|grandfather|homeowner|graduate|citizen|resident|member|aunt|uncle|auntie|bride|groom|wife|"
        r"husband)\b))"
        r"|(?:from\s+now\s+on|going\s+forward|henceforth|from\s+(?:today|here\s+on|this\s+point))\s*,?\s+you(?:\s+are|'re|"
    r"\s+will\s+be|'ll\s+be)\b"
        r"|\b(?:you|the\s+(?:assistant|ai|bot|model))\s+(?:only\s+)?(?:work|works|answer|answers|report|reports|belong|"
        r"belongs)\s+(?:only\s+)?(?:for|to)\s+(?:me|the\s+user)\b")),
    Rule("edit-rules", INSTRUCTION, _c(
        rf"\b(?P<v>{EDIT_V})\b(?:\s+[\w'’-]+){{0,4}}?\s+(?:to|in|into|as|of)\s+(?:your|the\s+system|its|the\s+assistant's)"
        r"\s+(?:\w+\s+)?(?:rules|instructions|guidelines|system\s+prompt|prompt|policy|policies|directives|configuration|"
        r"config|settings|persona|programming)\b"
        rf"|\b(?P<w>{EDIT_V})\s+(?:your|its|the\s+assistant's)\s+(?:\w+\s+)?(?:rules|instructions|guidelines|system\s+"
        r"prompt|prompt|policy|policies|directives|configuration|config|persona|programming)\b"),
          check=lambda m, t: _gate(_EDIT_GATE, m, t) if m.group("v") else _gate(_EDIT_GATE_W, m, t)),
    Rule("preference-wrapper", INSTRUCTION, _c(
        r"\b(?:i|we|user|the\s+user|he|she|they)\s+(?:\w+\s+){0,2}?(?:prefer|prefers|want|wants|need|needs|wish|"
        r"wishes|expect|expects|insist|insists|demand|demands|require|requires|request|requests|instruct|instructs|"
        r"order|orders|command|commands|authori[sz]es?|allow|allows|permit|permits|urge|direct|directs|(?:would|'d)\s+"
        r"(?:like|love|prefer|rather|appreciate|want)(?:\s+it)?|(?:like|love)\s+it|am\s+asking|'m\s+asking|"
        r"ask|asks)\s+(?:that\s+|for\s+|if\s+|when\s+)?(?P<s>you|u|assistant|hermes|claude|chatgpt|gpt[\w.-]*|"
        r"(?:the|this|my|an?|our)\s+(?:ai|a\.i\.|bot|chatbot|model|llm|agent|assistant|ai\s+assistant))\s+"
        rf"(?:(?:\w+ly|always|never|not|only|also|just|ever|to)\s+)*+(?!(?:{MIND}|{NOT_A_VERB})\b)[\w'-]+"
        r"|\b(?:what|all)\s+(?:i|we|the\s+user)\s+(?:really\s+)?(?:want|need|prefer|expect|ask|require)\s+is\s+(?:for|that)"
        r"\s+(?:you|the\s+(?:assistant|ai|bot|model))\b"
        r"|\b(?:my|the\s+user's|user's)\s+(?:[\w-]+\s+)?(?:preference|wish|request|requirement|expectation|instruction|rule|demand|"
        r"standing\s+order|order|policy|desire)s?\s+(?:is|are|was)\s+(?:that|for)\s+(?:you|the\s+(?:assistant|ai|bot|"
        r"model))\b|\bit\s+is\s+my\s+(?:wish|preference|requirement|instruction|rule|order|demand)\s+that\s+(?:you|the)")),
    Rule("obey", INSTRUCTION, _c(rf"\b(?P<v>{OBEY_V})\b"), gated=True, bases=OBEY_B),
    Rule("follow-me", INSTRUCTION, _c(
        rf"\b(?P<v>{FOLLOW_V}|listen\w*|comply\w*)\s+(?:(?:only|exclusively|solely|just)\s+)?(?:to\s+|with\s+)?(?:only\s+)?(?:me\b|"
        r"my\s+(?:\w+\s+)?(?:instructions|orders|commands|rules|lead|word|words|directions|requests|wishes|demands|"
        r"guidance|every\s+word)\b|the\s+user\b|this\s+user\b|whatever|everything|anything|"
        r"all\s+of\s+my|user\b|any\s+request|every\s+request|all\s+requests)"), gated=True, bases=FOLLOW_B),
    Rule("do-what-i-say", INSTRUCTION, _c(
        r"\b(?P<v>do|does|did|doing)\s+(?:whatever|anything|everything|exactly\s+what|all\s+that|what)\s+(?:i|the\s+"
        r"user|user|we)\s+(?:\w+\s+)?(?:say|says|said|tell|tells|told|ask|asks|asked|want|wants|command|order|"
        r"instruct|request)"), gated=True, bases=frozenset({"do"})),
    Rule("agree-with-me", INSTRUCTION, _c(
        r"\b(?P<v>agree\w*|side\w*|go\w*\s+along)\s+with\s+(?:whatever|everything|anything|all)\s+(?:that\s+)?(?:i|the\s+user)\s+"
        r"(?:say|says|said|want|wants|think|thinks|claim|claims|ask|asks)"), gated=True,
          bases=frozenset({"agree", "side", "go along"})),
    Rule("whatever-i-say", INSTRUCTION, _c(
        r"\b(?:whatever|anything|everything)\s+i\s+(?:say|command|order|ask|tell\s+you|want|request|demand|instruct)\s*,?\s*"
        r"(?:you\s+)?(?:must\s+|will\s+|should\s+|shall\s+)?(?:do|carry\s+out|execute|obey|follow|perform|deliver|accept)\b")),
    Rule("my-word-is-law", INSTRUCTION, _c(
        r"\bmy\s+(?:word|instructions?|commands?|orders?|rules?|requests?)\s+(?:is|are)\s+(?:law|final|absolute|supreme|"
        r"binding)|\bmy\s+(?:instructions?|commands?|orders?|rules?|words?|requests?)\s+(?:always\s+)?(?:override|"
        r"overrides|supersede|supersedes|outrank|outranks|take\s+precedence|takes\s+precedence|come\s+first|comes\s+"
        r"first|trump|trumps|replace|replaces|beat|beats)")),
    Rule("bias-me-first", INSTRUCTION, _c(
        rf"\b(?P<v>{BIAS_V})\b(?:\s+[\w'’-]+){{0,3}}?\s+(?:me|my|mine|our|us)\b(?:\s+[\w'’-]+){{0,4}}?\s+(?:first|"
        r"on\s+top|at\s+the\s+top|to\s+the\s+top|higher|highest|first\s+in\s+line|(?:top|first|highest)\s+priority)\b"),
          gated=True, bases=BIAS_B),
    Rule("bias-over-all", INSTRUCTION, _c(
        rf"\b(?P<v>{BIAS_V})\b(?:\s+[\w'’-]+){{0,5}}?\s+(?:above|over|before|ahead\s+of)\s+(?:(?:its|their|the|all|any|"
        r"every|other)\s+)*(?:all|every|any|others|other|everyone|everybody|anyone|anything|the\s+rest|competitors?|"
        r"competition|rivals?|everything|alternatives)\b"), gated=True, bases=BIAS_B),
    Rule("bias-my-stuff", INSTRUCTION, _c(
        r"\b(?P<v>my|our)\s+(?:[\w'-]+\s+){0,2}?(?:always\s+|should\s+|must\s+|will\s+)?(?:appear|show\s+up|rank|come|"
        r"be\s+(?:listed|shown|ranked|placed|pinned|recommended)|stay|sit|get\s+(?:listed|shown|ranked|recommended))\w*\s+"
        r"(?:[\w'-]+\s+){0,3}?(?:first|at\s+the\s+top|on\s+top|higher|above\s+(?:all|every|others|everyone|the\s+rest)|"
        r"before\s+(?:all|every|others|everyone))"), check=lambda m, t: _asked_of_assistant(m, t)),
    Rule("bias-praise", INSTRUCTION, _c(
        rf"\b(?P<v>{PRAISE_V})\s+(?:my|our)\s+(?:[\w'-]+\s+){{0,2}}?(?:as\s+)?(?:(?:five|5|ten|10)\s*(?:stars?|/\s*5|/\s*10)|"
        r"the\s+best|number\s+one|#1|excellent|perfect|superior|better\s+than)"), gated=True, bases=PRAISE_B),
    Rule("self-promotion", INSTRUCTION, _c(
        rf"\b(?P<v>{PROMOTE_V})\s+(?:only\s+)?(?:my|our)\s+[\w'’-]+"), gated=True, bases=PROMOTE_B),
    Rule("no-competitors", INSTRUCTION, _c(
        r"\b(?:never|don't|do\s+not|stop|no\s+longer)\s+(?P<v>mention|recommend|suggest|show|list|name|talk\s+about)\w*"
        r"\s+(?:any\s+)?(?:competitors?|competing|other\s+(?:brands?|shops?|stores?|products?|companies|restaurants|"
        r"vendors|sellers|apps))"), gated=True, bases=frozenset({"mention", "recommend", "suggest", "show", "list",
                                                                   "name", "talk about"})),
    Rule("never-refuse", INSTRUCTION, _c(
        r"\b(?:never|don't|do\s+not|no\s+longer|stop|not|without|cannot|can't|mustn't|must\s+not|won't|will\s+not|"
        r"shall\s+not)\s+(?:\w+\s+)?(?P<v>refus\w*|declin\w*|say(?:ing)?\s+no|reject\w*|question\w*|challeng\w*|"
        r"censor\w*|moraliz\w*|moralis\w*|lectur\w*|add(?:ing)?\s+(?:any\s+)?(?:disclaimers?|warnings?|"
        r"caveats?)|ask(?:ing)?\s+(?:for\s+)?(?:permission|confirmation|verification|why)|verif\w*|check(?:ing)?\s+"
        r"(?:my\s+|the\s+user's\s+)?(?:identity|credentials|permissions?|id))"),
          gated=True, bases=frozenset({"refuse", "decline", "say no", "reject", "question", "challenge", "censor",
                                        "moralize", "moralise", "lecture", "verify"})),
    Rule("role-play", INSTRUCTION, _c(rf"\b(?P<v>{ROLEPLAY_V})"), gated=True,
          bases=frozenset({"act as", "act as if", "pretend", "roleplay", "role-play", "impersonate"})),
    Rule("mode", INSTRUCTION, _c(rf"\b(?P<v>{MODE_V})\b(?:\s+[\w'’-]+){{0,3}}?\s+(?:{MODES})\s+mode\b"),
          gated=True, bases=MODE_B),
    Rule("jailbreak", INSTRUCTION, _c(
        rf"\b(?:do\s+anything\s+now|dan\s+(?:mode|prompt|jailbreak)|jailbreak\s+prompt|(?:without|no)"
        rf"\s+(?:any\s+)?(?:ethical|moral|safety|content)\s+(?:{NO_LIMITS}|considerations)|unrestricted\s+(?:ai|"
        r"assistant|mode|access|model)|(?:unfiltered|uncensored)\s+(?:ai|assistant|mode|model|responses?|answers?)|"
        rf"(?:you|assistant|bot|model|ai)\s+(?:are|is|'re)\s+(?:now\s+)?(?:in|running\s+in)\s+(?:\w+\s+)?(?:{MODES})\s+mode)\b")),
    Rule("without-limits", INSTRUCTION, _c(
        rf"\b(?P<v>answer|respond|reply|talk|speak|act|operate|work|function|behave|do)(?:s|ed|ing)?\s+(?:\w+\s+){{0,3}}?"
        rf"without\s+(?:any\s+)?(?:{NO_LIMITS})"), gated=True,
          bases=frozenset({"answer", "respond", "reply", "talk", "speak", "act", "operate", "function", "behave", "do"})),
    Rule("standing-order", INSTRUCTION, _c(
        rf"(?:{TEMPORAL})\s*,?\s+(?:please\s+)?(?:you\s+)?(?P<v>{BEHAVIOUR_V})\b"), gated=True, bases=BEHAVIOUR_B,
          check=lambda m, t: _standing_not_past(m, t) and _gate(_STANDING_GATE, m, t)),
    Rule("standing-order-tail", INSTRUCTION, _c(
        rf"\b(?P<v>{BEHAVIOUR_V})\b[^.;!?]{{0,60}}?\b(?:from\s+now\s+on|going\s+forward|henceforth|from\s+here\s+on|"
        r"for\s+the\s+rest\s+of\s+(?:this|our|the)\s+(?:chat|conversation|session)|in\s+(?:all|every)\s+future\s+\w+|"
        r"forever|permanently)\b"), gated=True, bases=BEHAVIOUR_B),
    Rule("output-rule", INSTRUCTION, _c(
        rf"\b(?:every|each|all\s+(?:of\s+)?(?:your\s+|the\s+)?|your\s+)(?:{OUTPUTS})\s+(?:should|must|will|need\s+to|"
        r"needs\s+to|have\s+to|has\s+to|are\s+to|is\s+to|always|never|shall)\b")),
    Rule("framing", INSTRUCTION, _c(
        r"[\[<{【〔]\s*/?\s*(?:system|sys|admin|administrator|developer|dev|root|inst|instructions?|prompt|assistant|"
        r"operator|moderator|override|jailbreak)\b[^\]>}】〕]{0,20}[\]>}】〕]"
        r"|[\[<{【〔]\s*/?\s*(?:系统|管理员|开发者|官方|指令|后台|平台)[^\]>}】〕]{0,12}[\]>}】〕]"
        r"|<\|[^|>]{0,20}\|>|<<\s*/?\s*sys\s*>>|(?:^|\s)#{2,}\s*(?:system|instructions?|new\s+instructions?|admin|"
        r"developer|assistant|response|rules?|new\s+rules?|override|prompt|context)\b"
        r"|(?:^|[\n.;:!?\"'*>-]\s*)(?:(?:system|admin|administrator|developer|root|operator|sys)\s*(?:message|note|prompt|"
        r"override|notice|instructions?|alert|command|directive|msg)|admin|administrator|developer|assistant|operator)\s*:"
        r"|\{\s*\"role\"\s*:\s*\"(?:system|developer|assistant|tool)\"|<!--|```\s*(?:system|instructions?|prompt)\b"
        r"|\b(?:begin|start|end)\s+(?:of\s+)?(?:system|admin|developer|hidden|secret)\s+(?:prompt|instructions?|message|"
        r"override)|\b(?:system|admin|administrator|developer|operator|root)\s+(?:override|directive|instructions?|notice|"
        r"command|note)\b|(?:系统|管理员|开发者|官方|后台|平台)(?:提示|消息|通知|指令|公告|说明|设定|备注)\s*:"
        r"|(?:^|[\n。!?])\s*(?:系统|管理员|开发者)\s*:")),
    # 3. requests to reveal or bypass
    Rule("reveal", REVEAL, _c(
        rf"\b(?P<v>{REVEAL_V}|what(?:\s+is|\s+are|\s+was|\s+were|'s|'re|\s+did|\s+do|\s+does|\s+has|\s+have)|let\s+me\s+(?:see|know|have|view|read|access))"
        rf"\b(?:\s+(?:me|us))?(?:\s+[\w'’-]+){{0,4}}?\s+(?:{SENSITIVE})"),
          gated=True, bases=REVEAL_B | {"what is", "what are", "what's"}, request_frame=True, scoped=_scope),
    Rule("reveal-question", REVEAL, _c(
        r"\b(?:what|which|who|whose|how\s+much|how\s+many)\b[^.?!]{0,40}?\b(?:stored|saved|kept|recorded|remember|"
        r"remembered|know|knows|held|logged|said|asked|wrote|typed|told)\b[^.?!]{0,40}?(?:" + SENSITIVE + ")")),
    Rule("reveal-question-2", REVEAL, _c(
        r"\b(?=(?:what|who|which)\b)[^.?!]{0,24}?(?:" + SENSITIVE + r")[^.?!]{0,30}?\b(?:said|say|asked|ask|told|tell|wrote|"
        r"write|talked|talk|stored|saved|typed|shared|spoken|chatted)\b")),
    Rule("how-configured", REVEAL, _c(
        r"\b(?:how|what|which)\s+(?:[\w'-]+\s+){0,3}?(?:were|are|was|is|have|has|did|do)\s+(?:you|it)\s+(?:been\s+)?"
        r"(?:configured|instructed|programmed|prompted|set\s+up|trained|told|given|taught)\b"
        r"|\bwhat\s+(?:did|do|does)\s+(?:your|the)\s+(?:developers?|creators?|makers?|admins?|system\s+prompt|"
        r"operators?|instructions?)\s+(?:tell|say|instruct)")),
    Rule("bypass-control", REVEAL, _c(
        rf"\b(?P<v>{BYPASS_V})\b(?:\s+[\w'’-]+){{0,3}}?\s+(?:(?:safety|security|content|age|identity|id|kyc|fraud|"
        r"moderation|permission|access|authentication|auth|verification|approval|audit|compliance|parental|nsfw|"
        r"profanity)\s+(?:checks?|filters?|controls?|verification|review|screening|limits?|gates?|locks?|measures|"
        r"mechanisms?|process|steps?|requirements?|policy|policies|layer|system)|paywall|captcha|2fa|mfa|two-factor|"
        r"kyc|moderation|authentication|verification|content\s+filter\w*|age\s+gate|rate\s+limits?)\b"),
          gated=True, bases=BYPASS_B),
    # 2. privilege and authority
    Rule("claim", PRIVILEGE, CLAIM, check=claim),
    Rule("grant-me", PRIVILEGE, _c(
        rf"\b(?P<v>{GRANT_V})\s+(?:me|my\s+account|this\s+account|the\s+user|this\s+user|my\s+user|my\s+role|my\s+"
        r"status|my\s+access|my\s+permissions?|my\s+privileges?)\s+(?:to\s+|as\s+|with\s+|into\s+)?(?:an?\s+|the\s+)?"
        rf"(?:\w+\s+)?(?:{STATUS}|admin\w*|moderator|owner|staff|full\s+(?:access|control|rights|permissions|"
        r"privileges)|unlimited|unrestricted|elevated|special\s+(?:access|rights|permissions|privileges)|all\s+(?:access|"
        r"rights|permissions|privileges)|highest|maximum|max)\b"), gated=True, bases=GRANT_B),
    Rule("i-am-your-master", PRIVILEGE, _c(
        r"\bi\s*(?:am|'m)\s+(?:now\s+)?your\s+(?:new\s+)?(?:master|owner|creator|boss|developer|admin|administrator|god|"
        r"operator|maker|programmer|lord|king|commander|superior|supervisor|handler)\b")),
    Rule("entitlement", PRIVILEGE, _c(
        r"\b(?:i|we|the\s+user|user|this\s+user|my\s+account|this\s+account)(?:'ve|'d)?\s+(?:\w+\s+){0,2}?(?:have|has|hold|holds|"
        r"got|possess|possesses|was\s+given|were\s+given|been\s+given|was\s+granted|were\s+granted|been\s+granted|am\s+"
        r"granted|am\s+given|now\s+have)\s+(?P<q>(?:[\w'-]+\s+){0,3}?)(?:rights?|permissions?|authori[sz]ation|clearance|"
        r"access|privileges?|authority|approval|mandate)\b(?P<scope>[^.;!?]{0,60})"), check=entitled),
    Rule("entitled-to", PRIVILEGE, _c(
        r"\b(?:i\s*am|i'm|im|we\s+are|we're|user\s+is)\s+(?:\w+\s+)?(?:authori[sz]ed|allowed|permitted|entitled|cleared|"
        r"approved|empowered|licensed)\s+(?:to|for)\s+(?P<q>)(?P<scope>[^.;!?]{0,60})"), check=entitled),
    Rule("pass-claim", PRIVILEGE, _c(
        r"\b(?:i|we)(?:'ve)?\s+(?:\w+\s+){0,2}?(?:have|hold|got|own|possess|was\s+given|been\s+given)\s+(?:an?\s+|the\s+)?"
        r"(?:all[- ]access|master|admin|root|unrestricted|vip|staff|backstage|super\w*)\s+(?:pass|badge|key|keycard|card|"
        r"token|credentials?|login)\s+(?:to|for|on|into)\s+(?:this|your|the\s+(?:system|platform|app|service|assistant|"
        r"database|backend|server))")),
    Rule("exempt", PRIVILEGE, _c(
        r"\b(?:i\s*am|i'm|im|we\s+are|we're|user\s+is|my\s+account\s+is)\s+(?:\w+\s+)?(?:exempt|excused|immune|excluded)\s+"
        rf"from\s+(?:\w+\s+){{0,2}}?(?:{RULE_WORDS}|review|verification|moderation|checks?|limits?|logging|monitoring)\b"
        r"|\b(?:i|we)\s+(?:work|worked)\s+(?:for|at|with|on)\s+the\s+(?:company|team|people|lab|group)\s+(?:that|who|which)\s+"
        r"(?:built|made|created|trained|designed|programmed|runs|owns|operates)\s+(?:you|this\s+(?:assistant|ai|bot|model|system))")),
    Rule("authorize-you", PRIVILEGE, _c(
        r"\b(?:i|we)\s+(?:hereby\s+)?(?:authori[sz]e|permit|allow|order|instruct|command|direct|mandate|sanction|empower|"
        r"license|exempt|release|free)\s+(?:you|the\s+assistant|the\s+ai|the\s+model|the\s+bot|this\s+assistant|hermes)\b"
        r"|\bhereby\b(?:\s+\w+){0,6}?\s+(?:authori|grant|order|instruct|permit|allow|direct|command|exempt|waive|revoke|"
        r"override|elevat|promot|appoint)"
        r"|\bon\s+behalf\s+of\s+(?:the\s+|your\s+)?(?:admin\w*|management|security\s+team|it\s+department|developers?|"
        r"ceo|cto|legal|compliance|police|government|hermes|openai|anthropic|system)\b"
        r"|\b(?:approved|authori[sz]ed|sanctioned|signed\s+off|cleared)\s+by\s+(?:the\s+|your\s+)?(?:admin\w*|developers?|"
        r"creators?|owners?|security\s+team|system|operators?)\b"
        r"|\b(?:i|we|user|the\s+user|my\s+account)\s+(?:\w+\s+){0,2}?(?:get|gets|have|has|receive|receives|deserve|"
        r"deserves|am\s+owed|qualify\s+for)\s+(?:an?\s+)?(?:unlimited|infinite|special|priority|vip|premium|exclusive)"
        r"\s+(?:credits?|access|refunds?|discounts?|usage|quota|tokens|requests|privileges|rights|treatment|status)")),
    # Chinese
    Rule("cn-override", INSTRUCTION, _c(rf"(?P<v>{CN_OVERRIDE_V})[^,.!?;:。！？；]{{0,12}}?(?:{CN_RULES})"),
          gated=True, scoped=_cn_scope),
    Rule("cn-override-ba", INSTRUCTION, _c(
        rf"(?P<v>把)[^,.!?;:。！？；]{{0,10}}?(?:{CN_RULES})[^,.!?;:。！？；]{{0,6}}?(?:{CN_OVERRIDE_V}|关掉|关了|拿掉|撤掉|删了|扔掉|"
        r"丢掉|抛开|放一边|不要了)"), gated=True, scoped=_cn_scope),
    Rule("cn-override-passive", INSTRUCTION, _c(
        r"(?:之前|以上|上面|前面|先前|原来|原有|原始|初始|你的|系统|所有)[^,.!?;:。！？；]{0,6}?(?:指令|指示|规则|设定|限制|规定|"
        r"约束|要求|准则|提示|内容|对话|消息|说明)[^,.!?;:。！？；]{0,4}?(?:都|全部|统统|一律|已经|已)?(?:作废|无效|失效|取消|废除|不算数?|不作数|不再(?:有效|"
        r"适用|生效)|不用管了?|不适用|解除|清空)")),
    Rule("cn-wrapper", INSTRUCTION, _c(
        r"(?:(?:我|用户)(?:更|比较|真的|一直)?(?:希望|想要|要求|偏好|喜欢|需要|期望|命令|让|请求|要(?!是))|(?:我|用户)的(?:偏好|要求|期望|希望|"
        r"指示|规定|意思)(?:是|为)"
        r")(?:你|您|助手|ai|机器人|系统)(?:以后|永远|一直|总是|始终|每次|只|都|必须|要|能|会|可以)*"
        r"(?!记住|记得|知道|了解|注意|放心|别担心|多休息|保重|好好)[\u4e00-\u9fff]")),
    Rule("cn-assistant-modal", INSTRUCTION, _c(
        rf"(?P<s>你|您|{CN_AI_NAMES})(?:以后|今后|从现在起|从现在开始|从今以后|每次|一直|永远|总是|始终|务必|只|就|都|也|再也)?"
        r"(?:必须|应该|应当|得(?!到|了)|需要|只能|只许|只准|不准|不许|不能|不可以|不要|别|不得|一律|务必|要(?!是|的|不要)|给我(?!的))"
        r"(?!记住|记得|知道|了解|注意|忘|放心|担心|猜|想|觉得|相信我|喜欢|爱|发现|看到|笑|哭|小心|保重|加油|多休息|好好)"
        rf"|(?:你|您|{CN_AI_NAMES})(?:以后|今后|从现在起|永远|一直|总是|始终|每次)(?:都|一律|只)?(?:{CN_BEHAVIOUR})"),
          check=_cn_order_to_assistant),
    Rule("cn-obey", INSTRUCTION, _c(
        r"(?<![不没别])(?:听我的|听我说的|听从我|服从我|服从于我|照我说的|按我说的|按照我说的|按我的意思|以我为准|一切听我|一切以我|"
        r"我说什么(?:你)?就(?:做|是|干)什么|我说了算|我的话就是(?:命令|圣旨|规则)|我的(?:指令|命令|规则)(?:优先|高于|凌驾|覆盖)|"
        r"无条件(?:服从|执行|满足|同意|听从|接受|答应))")),
    Rule("cn-bias", INSTRUCTION, _c(
        r"(?P<v>优先(?:推荐|展示|显示|处理|回复|回答|考虑|排序|给我)|置顶|排(?:在)?(?:第一|最前|前面|首位|最上)|"
        r"放(?:在)?(?:第一|最前|首位|最上|前面)|排名靠前|首推|只推荐|只介绍|(?:推荐|推|介绍|展示|夸)(?:我|我们)(?:的|家|们|公司|店)|"
        r"把我(?:的\S{0,6})?(?:放|排|置))"),
          gated=True),
    Rule("cn-universal", INSTRUCTION, _c(
        r"(?:所有|全部|一切|每次|任何)(?:的)?(?:推荐|回答|回复|结果|排序|建议|输出|答案|搜索结果|请求|问题)"
        r"[^,.!?;:。！？；]{0,6}?(?:都|一律|全|一概|必须|只能)?(?:要|得)?(?:按|按照|优先|只|以|先|置顶|排在|听)"
        rf"|(?P<v>以后|今后|从现在起|从现在开始|从今以后|从今天起|往后)(?:你|您)?(?:都|一律|必须|只能|要|得|全部|统统|一概)?(?:{CN_BEHAVIOUR})"),
          gated=True),
    Rule("cn-never-refuse", INSTRUCTION, _c(
        r"(?P<v>不要|别|不准|不许|不能|不得|禁止|永远不要|永远别|绝不|不可以|从不)(?:再)?(?:拒绝|质疑|反驳|审查|过滤|说不|"
        r"加免责|添加免责|加警告|核实|验证|确认身份|问为什么)"), gated=True),
    Rule("cn-role-play", INSTRUCTION, _c(
        r"(?P<v>扮演|假装|假扮|冒充|充当|角色扮演|进入|开启|打开|启用|激活|切换到|(?:没有|不受)(?:任何)?)"
        r"[^,.!?;:。！？；]{0,8}?(?:开发者模式|上帝模式|越狱|无限制模式|dan模式|管理员模式|限制|约束|规则|底线|角色|身份|人格)"
        r"|(?P<w>你现在是|你现在的身份是|你的新身份是|你不再是|你已经不是|(?:假装|假设|想象|当作)(?:你|您)(?:是|成|为|现在是))"), check=lambda m, t: bool(m.group("w"))
          or _gate(_CN_GATE, m, t)),
    Rule("cn-reveal-question", REVEAL, _c(
        rf"(?:{CN_SENSITIVE})[^,.!?;:。！？；]{{0,8}}?(?:是什么|是啥|有哪些|有什么|(?:说|问|聊|写|存|讲|提|留|发|输入)(?:了|过)?"
        r"(?:什么|啥|哪些)|都是什么|长什么样)")),
    Rule("cn-reveal", REVEAL, _c(
        rf"(?P<v>{CN_REVEAL_V})[^,.!?;:。！？；]{{0,8}}?(?:{CN_SENSITIVE})|(?P<b>把)[^,.!?;:。！？；]{{0,12}}?(?:{CN_SENSITIVE})"
        rf"[^,.!?;:。！？；]{{0,8}}?(?:{CN_REVEAL_V}|列出|发出|拿出|调出|找出|整理|给我)"), check=lambda m, t: _cn_reveal(m, t)),
    Rule("cn-bypass", REVEAL, _c(
        r"(?P<v>绕过|绕开|跳过|略过|避过|躲过|免除|省掉|关闭|关掉|禁用|停用|取消|规避|避开)[^,.!?;:。！？；]{0,8}?(?:验证|认证|审核|审查|安全检查|过滤器?|风控|"
        r"验证码|校验|核验|核实|识别|付费墙)"), gated=True),
    Rule("cn-claim", PRIVILEGE, CN_CLAIM, check=cn_claim),
    Rule("cn-entitlement", PRIVILEGE, _c(
        r"(?:我|本人|用户|该用户)(?:现在|已经|已|目前|也|都)?(?:有|拥有|具有|具备|获得了?|取得了?|被授予了?|被赋予了?|持有)(?:了)?"
        r"(?P<q>[^,.!?;:。！？；]{0,8}?)(?:权限|权利|授权|特权|许可)(?P<scope>[^,.!?;:。！？；]{0,12})"), check=cn_entitled),
    Rule("cn-entitled-to", PRIVILEGE, _c(
        r"(?:我|本人)(?:现在|已经|已)?(?:有权|有权利|被授权|获得授权|已获授权|经过授权|得到授权|有资格)"
        r"(?!.{0,2}(?:我的|自己的))(?:查看|访问|调取|获取|知道|修改|删除|导出|要求|命令|读取|看|了解)"
        r"|(?:我|本人)(?:现在)?(?:授权|允许|批准|命令|指示|特许|准许)(?:你|您|助手|ai|系统)"
        r"|我是你的(?:主人|老板|开发者|创造者|管理员|上司|老大|领导|父亲|爸爸|神)")),
)
SQUASHED = re.compile(
    r"(?:ignor|disregard|forget|forgot|overrid|bypass|skip)\w*?(?:instruction|rule|prompt|guideline|polic|restriction|"
    r"filter|safety)|systemprompt|developermode|godmode|jailbreak|doanythingnow|(?:reveal|show|print|tell|give)\w{0,12}?"
    r"(?:systemprompt|instruction|password|secret)|(?:iam|im)(?:an|a|the|your)?(?:admin|administrator|root|superuser|"
    r"vip|owner|developer|moderator)|obeyme"
)
