"""Vocabulary of the injection guard (English and Chinese): verb forms, targets, subjects, modals, sensitive data.

Words only; what counts as an injection is decided in :mod:`hermes_memory_core.trust.injection_rules`. Every
English verb list is written once as base forms and expanded by :func:`verbs` into all its forms ("ignore" →
"ignores", "ignored", "ignoring"), so a rule written for one form holds for all of them.
"""

from __future__ import annotations

import re

__all__ = [
    "ASSIST",
    "ASSIST_RE",
    "BEHAVIOUR_B",
    "BEHAVIOUR_V",
    "BIAS_B",
    "BIAS_V",
    "BYPASS_B",
    "BYPASS_V",
    "CN_BEHAVIOUR",
    "CN_OVERRIDE_V",
    "CN_REVEAL_V",
    "CN_RULES",
    "CN_SENSITIVE",
    "DATA",
    "EDIT_B",
    "EDIT_V",
    "EPISTEMIC",
    "FILLER",
    "FOLLOW_B",
    "FOLLOW_V",
    "GRANT_B",
    "GRANT_V",
    "GROUP",
    "INSTRUCTION",
    "MIND",
    "MODAL",
    "MODES",
    "MODE_B",
    "MODE_V",
    "NOT_A_VERB",
    "NOT_FOLLOW",
    "NO_LIMITS",
    "OBEY_B",
    "OBEY_V",
    "OBJECT_CONTEXT",
    "OUTPUTS",
    "OVERRIDE_B",
    "OVERRIDE_V",
    "OWN",
    "PRAISE_B",
    "PRAISE_V",
    "PRIVILEGE",
    "PROMOTE_B",
    "PROMOTE_V",
    "REQUEST_FRAME",
    "REVEAL",
    "REVEAL_B",
    "REVEAL_V",
    "ROLEPLAY_V",
    "RULE_WORDS",
    "SCOPE",
    "SENSITIVE",
    "SUBJECT",
    "TEMPORAL",
    "verbs",
]

#: The three classes the guard flags.
INSTRUCTION, PRIVILEGE, REVEAL = "instruction", "privilege", "reveal"

def _inflect(base: str) -> list[str]:
    """Regular English forms of a verb: base, -s, -ed, -ing (with the usual spelling rules)."""
    if base.endswith("e") and not base.endswith("ee"):
        return [base, base + "s", base + "d", base[:-1] + "ing"]
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return [base, base[:-1] + "ies", base[:-1] + "ied", base + "ing"]
    if base.endswith(("s", "x", "z", "ch", "sh")):
        return [base, base + "es", base + "ed", base + "ing"]
    forms = [base, base + "s", base + "ed", base + "ing"]
    if base[-1] not in "aeiouwxy" and base[-2:-1] in tuple("aeiou") and base[-3:-2] not in tuple("aeiou"):
        forms += [base + base[-1] + "ed", base + base[-1] + "ing"]  # skip → skipped, forget → forgetting
    return forms


def verbs(spec: str) -> tuple[str, frozenset[str]]:
    """``"ignore forget/forgot/forgotten turn_off"`` → (regex alternation of all forms, set of base forms).

    ``/`` adds irregular forms; ``_`` joins a phrasal verb (the first word is inflected).
    """
    forms: set[str] = set()
    bases: set[str] = set()
    for entry in spec.split():
        words = entry.split("/")
        head, _, tail = words[0].partition("_")
        suffix = " " + tail.replace("_", " ") if tail else ""
        bases.add(head + suffix)
        forms.update(f + suffix for f in _inflect(head))
        forms.update(w.replace("_", " ") for w in words[1:])
    alternation = "|".join(re.escape(f).replace(r"\ ", r"\s+") for f in sorted(forms, key=len, reverse=True))
    return alternation, frozenset(bases)


OVERRIDE_V, OVERRIDE_B = verbs(
    "ignore disregard override/overrode/overridden bypass skip circumvent evade neglect discard dismiss violate "
    "suspend disable deactivate abandon drop erase wipe reset cancel lift waive nullify escape unlearn defy "
    "break/broke/broken forget/forgot/forgotten turn_off switch_off set_aside put_aside throw_out/threw_out/thrown_out "
    "get_around/got_around work_around overlook disobey flout contravene breach sidestep brush_aside look_past "
    "shrug_off"
)
NOT_FOLLOW = (
    r"(?:don't|do\s+not|doesn't|does\s+not|didn't|never|stop|stops|stopped|no\s+longer|not|quit|cease\s+to|"
    r"refuse\s+to)\s+(?:(?:follow|obey|respect|apply|applie|honou?r|observe|enforce)\w*|(?:adher|compl|abid|stick|"
    r"listen)\w*\s+(?:to|with|by))|pay\s+no\s+(?:attention|heed|mind)\s+to|(?:free|release|liberate)\s+(?:yourself|"
    r"itself)\s+from|(?:no\s+longer|not|never)\s+(?:bound|restricted|limited|constrained|governed)\s+by"
)
RULE_WORDS = (
    r"instructions?|instructed|rules?|prompts?|guidelines?|guidance|polic(?:y|ies)|restrictions?|safeguards?|"
    r"safety|filters?|filtering|guardrails?|constraints?|directives?|programming|training|limitations?|limits?|"
    r"protocols?|principles?|ethics|ethical|morals?|morality|boundaries|moderation|censorship|alignment|"
    r"conditioning|commands?|orders?|terms\s+of\s+(?:service|use)|system\s+(?:messages?|prompts?)|"
    r"everything\s+(?:above|before|prior|earlier|else|so\s+far|you\s+know)|"
    r"(?:everything|anything|whatever|what|all)\s+(?:[\w'-]+\s+){0,3}?(?:told|taught|instructed|gave|programmed)\s+you|"
    r"(?:everything|anything|whatever|what|all)\s+you\s+(?:were|have\s+been|'ve\s+been)\s+(?:told|taught|given|"
    r"instructed|programmed)|"
    r"(?:previous|prior|earlier|preceding|original|initial|existing|default)\s+(?:\w+\s+)?"
    r"(?:messages?|context|conversation|text|inputs?|settings?|content|setup|configuration)|the\s+above|above"
)
SCOPE = re.compile(
    r"\b(?:your|its|yours|system|previous|prior|earlier|above|preceding|built-in|builtin|internal|hidden|developer|"
    r"developers|openai|anthropic|everything)\b|(?:assistant|ai|model|bot)'s"
)
ASSIST = (
    r"you|u|ya|yourself|it|assistant|hermes|claude|chatgpt|gpt[\w.-]*|gemini|copilot|siri|alexa|"
    r"(?:the|this|my|an?|our)\s+(?:ai|a\.i\.|bot|chatbot|model|llm|agent|assistant|ai\s+assistant|system|memory)"
)
OWN = re.compile(r"\b(?:its|their|yours)\b")
ASSIST_RE = re.compile(rf"^(?:{ASSIST})$")
SUBJECT = re.compile(
    rf"\b(?:{ASSIST}|i|i'm|i've|i'd|i'll|we|we're|he|she|they|people|everyone|everybody|someone|somebody|"
    r"nobody|no\s+one|who|kids|children|students|(?:my|our|his|her|their|the|a|an|this|that|these|those|some|"
    r"many|most|both|every|each)\s+[\w'-]+)\b"
)
FILLER = re.compile(
    r"^(?:(?:please|pls|plz|kindly|just|now|so|and|also|then|ok|okay|hey|hi|hello|yo|dear\s+\w+|simply|really|"
    r"seriously|honestly|basically|actually|always|never|from\s+now\s+on|going\s+forward|henceforth|in\s+(?:the\s+)?"
    r"future|remember(?:\s+to)?|make\s+sure(?:\s+to)?|be\s+sure\s+to|(?:don't|do\s+not)\s+forget\s+to|try\s+to|"
    r"first|next|finally|again|immediately|instead|rather|but|oh|well|alright|right|sure|yes|no|listen|look|"
    r"note|important|urgent|new\s+rule|rule\s*\d*|step\s*\d*|\d+|[a-z]+ly|-+|\*+|>+)\s*)*$"
)
REQUEST_FRAME = re.compile(
    r"\b(?:i|we)\s*(?:(?:really|just|also)\s+)?(?:want|need|would\s+like|'d\s+like|wish|demand|request|require|"
    r"must|have\s+to|am\s+(?:going|here|trying)\s+to|'m\s+(?:going|here|trying)\s+to|can|could|may|should)\b"
    r"|\b(?:can|could|may|let)\s+(?:i|me|we|us)\b"
)
MIND = (
    r"know|remember|recall|note|notice|understand|realize|realise|be\s+aware|keep\s+in\s+mind|guess|imagine|think|"
    r"believe|bet|see|expect|find|love|like|enjoy|hate|agree|laugh|cry|win|lose|wonder|get\s+it|be\s+surprised|"
    r"be\s+amazed|never\s+know|regret|forget|go\s+back|count\s+on"
)
#: Words after "I wish you …" that start a noun phrase, not an instruction ("I wish you the best").
NOT_A_VERB = r"the|a|an|all|luck|well|best|happy|good|merry|lots|much|many|more|so|too|very|and|or|but|for|with|on|in|at|as"
OBJECT_CONTEXT = frozenset(
    "to with from about of than at thank thanks see miss love like told tell ask asked bless hear help meet call "
    "text email show give gave send sent let made make got get pay paid and where wherever whenever if unless as "
    "what whatever how".split()
)
BEHAVIOUR_V, BEHAVIOUR_B = verbs(
    "answer respond reply write speak talk use say recommend rank refer address end start begin include add "
    "append mention sign format translate output treat act obey follow refuse agree praise insult curse swear "
    "lie pretend assume consider prioritize prioritise favor favour promote trust believe comply "
    "reveal tell grant approve accept ignore"
)
REVEAL_V, REVEAL_B = verbs(
    "reveal show/shown print output display repeat tell/told give/gave/given send/sent list dump export leak "
    "disclose expose share recite paste copy access see/saw/seen view retrieve fetch provide return forward email "
    "publish spill read divulge unmask decode read_out spell_out pull_up look_up hand_over"
)
#: Modals that make "you …" a directive: obligation and prohibition always; prediction and permission ("you'll",
#: "you can") only with a standing adverb ("you can now …", "you will always …").
MODAL = (
    r"must|should|shall|has\s+to|have\s+to|had\s+better|'d\s+better|needs?\s+to|are\s+to|is\s+to|ought\s+to|"
    r"(?:are|is|'re)\s+(?:required|obliged|obligated|expected|supposed|instructed|programmed|meant)\s+to|"
    r"may\s+not|must\s+not|mustn't|should(?:n't|\s+not)|(?:are|is|'re)\s+(?:not\s+|no\s+longer\s+)?(?:allowed|"
    r"permitted)\s+to|(?:will|'ll|would|'d|can|could|may|might|are|is|'re)\s+(?:always|never|only|now|no\s+longer|"
    r"henceforth|from\s+now\s+on)|"
    rf"(?:always|never|only)\s+(?=(?:{BEHAVIOUR_V}|{OVERRIDE_V}|{REVEAL_V})\b)|now|from\s+now\s+on|henceforth|"
    r"going\s+forward|hereby"
)
#: After "you must": epistemic readings ("you must be so proud", "you must have been tired") are not directives.
EPISTEMIC = r"(?:be|have|feel)\s+(?:so|really|very|pretty|super|quite|such|thrilled|excited|proud|stoked|exhausted|tired|happy|sad|been|had|felt|a\s+\w+)\b"
GROUP = r"users?|customers?|clients?|members?|accounts?|patients?|employees?|subscribers?|tenants?"
DATA = (
    r"data|info|information|records?|memories|memory|messages?|chats?|conversations?|history|details|e-?mails?|"
    r"passwords?|files?|profiles?|addresses|phone\s+numbers?|numbers|orders?|notes|documents?|pii|secrets?|database|"
    r"list|table|accounts?"
)
SENSITIVE = (
    r"(?:your|its|the\s+assistant's|the\s+ai's|the\s+model's|hidden|secret|original|initial|internal|underlying|"
    r"developer|system|pre-?)\s+(?:\w+\s+)?(?:prompts?|instructions?|rules|guidelines|configuration|config|"
    r"directives|programming|guardrails|polic(?:y|ies))"
    r"|(?:hidden|secret|internal|underlying|developer|system)\s+(?:\w+\s+)?(?:setup|settings|training(?:\s+data)?|"
    r"context|memory|memories)"
    r"|system\s+prompt"
    rf"|(?:other|another|all\s+(?:the\s+)?(?:other\s+)?|every|any\s+(?:other\s+)?|the\s+other)\s*(?:\w+\s+)?(?:{GROUP})"
    r"(?:'s?|s')?"
    r"|(?:everyone|everybody|someone|somebody|anyone|anybody)(?:\s+else)?'s\s+(?:\w+\s+)?(?:" + DATA + r")"
    r"|(?:other\s+people's|others')\s+(?:\w+\s+)?(?:" + DATA + r")"
    rf"|(?:{GROUP})['’]?s?\s+(?:personal\s+|private\s+)?(?:{DATA})"
    r"|(?:user|customer|account|client|member|patient)\s+(?:#|no\.?\s*|number\s+|id\s+)?\d+"
    rf"|(?:the\s+)?(?:last|previous|prior|next|earlier)\s+(?:{GROUP})"
    r"|the\s+(?:text|words|content|messages?|instructions|lines?)\s+(?:above|before\s+this|preceding)|everything\s+above"
    r"|(?:the|your)\s+(?:first|previous|initial|original)\s+(?:message|prompt|lines?|instructions)"
    r"|(?:about|on|of)\s+(?:other|another)\s+(?:people|persons?|users?|customers?)"
    r"|the\s+(?:instructions|rules|prompt|guidelines|directives)\s+(?:you\s+(?:got|received|were\s+given|have|follow|"
    r"were\s+told)|(?:given|sent)\s+to\s+you)|(?:anyone|someone|everyone|somebody|anybody|everybody|who)\s+else"
    r"|(?<!my\s)(?<!our\s)\b[a-z]+'s\s+(?:private\s+)?(?:chat\s+logs?|chats|messages|conversations|chat\s+history|"
    r"memories|emails|passwords?|location(?:\s+history)?|home\s+address|phone\s+number|medical\s+records)"
    r"|(?<!my\s)(?<!our\s)(?:(?:api|secret|private|access|encryption|master|admin|root)\s+keys?|passwords?|"
    r"credentials|(?:auth|access|session|bearer|api)\s+tokens?)"
    r"|(?:internal|confidential|classified|restricted|private|hidden|secret)\s+(?:data|documents?|docs|notes|files|"
    r"information|info|memos?|records?|details)|the\s+(?:whole\s+|entire\s+|full\s+)?database"
    r"|(?:admin|backend|back-end)\s+(?:panel|console|dashboard|data)"
)
EDIT_V, EDIT_B = verbs(
    "add append insert write/wrote/written save put/put include update change modify rewrite/rewrote/rewritten edit "
    "replace set/set store"
)


OBEY_V, OBEY_B = verbs("obey defer_to submit_to")
FOLLOW_V, FOLLOW_B = verbs("follow listen comply")
BIAS_V, BIAS_B = verbs(
    "rank prioritize prioritise put/put show list place promote favor favour boost push pin recommend feature "
    "highlight suggest sort move serve answer handle process rate score"
)
PRAISE_V, PRAISE_B = verbs("rate review score describe call present praise portray depict list rank")
PROMOTE_V, PROMOTE_B = verbs("recommend promote suggest push feature advertise mention")
MODE_V, MODE_B = verbs("enter enable activate unlock switch_to turn_on go_into start boot_into engage")
GRANT_V, GRANT_B = verbs("grant give/gave/given make/made upgrade promote elevate escalate assign set add")
BYPASS_V, BYPASS_B = verbs(
    "bypass skip circumvent disable turn_off switch_off deactivate remove lift avoid evade get_around work_around "
    "override/overrode/overridden suppress"
)
ROLEPLAY_V = (
    r"act(?:s|ed|ing)?\s+as(?:\s+if)?|pretend(?:s|ed|ing)?\s+(?:to\s+be|you|that\s+you|you're|to\s+have|(?:that\s+)?i\s*(?:am|'m))"
    r"|role-?play(?:s|ed|ing)?|impersonat\w*|play(?:s|ed|ing)?\s+the\s+(?:role|part)\s+of"
    r"|behav\w*\s+(?:as|like)\s+(?:an?\s+)?(?:unrestricted|unfiltered|evil|jailbroken|different|human|admin|root|"
    r"developer|dan|god|uncensored)|simulat\w*\s+(?:being|an?\s+(?:unrestricted|unfiltered|evil|jailbroken|uncensored))"
)
NO_LIMITS = r"restrictions|limits|limitations|filters|rules|censorship|guardrails|guidelines|boundaries|constraints|refusals?"
MODES = r"developer|dev|god|dan|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|sudo|admin|root|evil|opposite|no-?rules?|super|unlimited"
OUTPUTS = r"answers?|responses?|replies|recommendations?|results|outputs?|suggestions?"
TEMPORAL = (
    r"from\s+now\s+on|going\s+forward|henceforth|from\s+this\s+point(?:\s+on)?|in\s+(?:all\s+)?future\s+"
    r"(?:conversations|chats|answers|responses|sessions|replies)|for\s+(?:all|every)\s+(?:future\s+)?(?:answers|"
    r"responses|conversations|replies|sessions|messages)|in\s+(?:every|each|all)\s+(?:answer|response|reply|"
    r"conversation|message|chat)s?|every\s+time\s+(?:you|i\s+ask)|whenever\s+[^,.;!?]{1,50},|always|never"
)
CN_OVERRIDE_V = (
    r"忽略|忽视|无视|不理会|不要理会|别理会|不用理会|不理|别理|不要理|不用理|不管|别管|不要管|不用管|忘掉|忘记|忘了|抛开|抛弃|"
    r"丢掉|丢弃|放弃|跳过|绕过|绕开|规避|突破|打破|违反|违背|解除|取消|关闭|关掉|停用|禁用|去掉|去除|移除|删除|删掉|清除|清空|"
    r"重置|覆盖|推翻|作废|废除|(?:无需|不必|不用|不要|不再|不需要|别)再?(?:遵守|遵循|执行|理会)|不再受|摆脱|挣脱|越过|逃避"
)
CN_RULES = (
    r"指令|指示|规则|设定|限制|提示词|提示|要求|命令|约束|准则|规定|政策|条款|过滤|审核|审查|安全|道德|伦理|底线|原则|规矩|"
    r"人设|训练|编程|上文|前文|以上|上面|之前的(?:对话|内容|消息|话)|一切|所有内容"
)
CN_BEHAVIOUR = (
    r"用\S{1,6}(?:回答|回复|说话|交流|沟通|写|输出)|按|按照|优先|只推荐|推荐|回答|回复|听|服从|遵守|执行|照|拒绝|不准|不许|"
    r"不要拒绝|给我|置顶|排序|称呼我为?"
)
CN_SENSITIVE = (
    r"系统提示词?|提示词|系统指令|系统设定|系统消息|初始(?:指令|提示|设定)|内部(?:指令|提示|规则|资料|文件|数据|文档|信息|记录)|"
    r"隐藏(?:指令|提示|规则)|你的(?:指令|规则|设定|提示|配置|密钥|密码|系统|训练数据|记忆|初始设置)|"
    r"(?:其他|其它|别的|全部|所有|每个|任何)(?:的)?(?:用户|客户|人|会员|账户|账号|病人|患者|员工|租户|学生|顾客)|别人的|他人的|"
    r"(?:用户|客户|会员|患者|病人|员工|顾客)(?:的)?(?:数据|资料|信息|记录|隐私|名单|列表|手机号|电话|地址|订单|密码|病历|档案|"
    r"聊天记录|记忆)|数据库|后台数据|机密|(?<!我的)(?:密码|密钥)|token|隐私数据"
    r"|(?<![我己])的(?:聊天记录|对话记录|通话记录|病历|档案|私信|隐私|记忆|密码|住址|身份证)"
)
CN_REVEAL_V = (
    r"告诉我?|告知|透露|泄露|泄漏|显示|展示|输出|打印|给我看|发给我|发我|列出|导出|查看|查询|调取|获取|访问|读取|看看|看一下|"
    r"公开|说出|复述|重复|提供|拿到|调出|翻出|共享|分享|念出|背出|交出|发送|看|查|翻|读|说说|讲讲|聊聊"
)
