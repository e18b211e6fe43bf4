"""Claims of privilege or authority, in English and Chinese: which role statements claim power here.

"I'm a VIP", "my account is admin", "我是超级用户" claim a status on this platform; "I'm your developer" claims
to be the assistant's maker; "as the CTO I authorise …" invokes an office to order or permit; "I have admin
rights" or "我有权查看所有客户的资料" claims an entitlement. Occupations and hopes stay facts: "I'm a database
administrator", "I'm a moderator on a gardening forum", "我是网络管理员", "我是管理员岗位的求职者".

The policy, by kind of role (:func:`claim` / :func:`cn_claim`):

* status (VIP, premium, root, verified, 白金会员 …): a claim unless scoped to another organisation ("a gold member
  at my gym", "健身房的黄金会员");
* admin (admin, moderator, owner, staff, 管理员 …): a claim unless scoped elsewhere, or an occupation ("a database
  administrator", "a business owner", "网络管理员");
* creator (developer, engineer …): a claim only about this assistant ("your developer", "这个助手的工程师");
* office (CTO, auditor, police …): a claim only with an act of authority in the same sentence ("I authorise",
  "有权查看", "all customer records").

Aspirations, past roles and role words followed by a job noun ("admin job", "管理员岗位") are never claims;
"treat me as …" / "把我当成 …" always is.
"""

from __future__ import annotations

import re

from hermes_memory_core.text.patterns import compile_table
from hermes_memory_core.trust.injection_lexicon import SENSITIVE

__all__ = ["CLAIM", "CN_CLAIM", "STATUS", "claim", "cn_claim", "cn_entitled", "entitled"]

_CLAIM_LEAD = (
    r"\bi\s*am|\bi'm|\bim|\bi\s+was\s+(?:just\s+)?(?:made|appointed|promoted\s+to|named|elected)"
    r"|\bi(?:'ve|\s+have)\s+(?:just\s+)?been\s+(?:made|appointed|promoted\s+to|named|elected|upgraded\s+to)"
    r"|\bi\s+(?:serve|work|act|operate)\s+as|\b(?:speaking|acting|writing|talking|asking|messaging)\s+as"
    r"|\bin\s+my\s+(?:role|capacity)\s+as|(?:^|(?<=[,.;:!?\"'])\s*)(?:as|being)|\b(?:the\s+|this\s+)?user\s+is|\buser\s+(?:claims|says|said|stated)\s+(?:to\s+be|(?:he|she|they)\s+(?:is|are))"
    r"|\bmy\s+(?:[\w-]+\s+)?(?:role|title|position|job\s+title|access\s+level|account\s+type|account\s+tier|account|tier|rank|status|"
    r"level|clearance|permission\s+level|privilege\s+level|membership|plan|user\s+type|user\s+group)\s+(?:here\s+|now\s+)?"
    r"(?:is|are|was|=|has\s+been\s+(?:set|changed|upgraded)\s+to|should\s+be|must\s+be)"
)
_TREAT_LEAD = (
    r"\b(?:register|mark|flag|set|label|list|tag|upgrade|promote|treat|consider|regard|recogni[sz]e|handle|classify|"
    r"record|save|store)\s+(?:me|my\s+account|this\s+account|the\s+user|this\s+user)(?:\s+(?:as|to|like))?|\bmake\s+me"
)
STATUS = (
    r"vip|v\.i\.p\.?|premium|pro\s+(?:user|member|account|tier)|gold|platinum|diamond|elite|verified|privileged|"
    r"whitelisted|allowlisted|trusted\s+(?:user|member|partner|source|insider)|priority\s+(?:user|customer|member)|root|"
    r"super\s?user|super\s?admin|sudoer|sudo|god|tier[- ]?\d|level[- ]?\d+|top[- ]tier|highest[- ](?:level|tier)|"
    r"authori[sz]ed\s+(?:user|personnel|person|staff|agent|operator|admin)|insider|"
    r"internal\s+(?:user|staff|employee|auditor|tester|team|personnel)|top[- ]secret"
)
_ADMIN = r"admins?|administrator|sysadmin|moderator|mod|owner|operator|maintainer|staff|staffer|employee"
_CREATOR = r"developer|dev|creator|maker|programmer|engineer|designer|trainer|builder|author|master|handler"
_OFFICE = (
    r"auditor|inspector|investigator|officer|agent|police|cop|detective|regulator|ceo|cto|cfo|coo|ciso|cio|founder|"
    r"co-?founder|executive|director|president|vice\s+president|vp|chairman|head\s+of\s+\w+|manager|supervisor|boss|"
    r"chief|lawyer|attorney|judge|prosecutor|official|fbi|security\s+team|compliance\s+officer|it\s+department|"
    r"tech\s+support|support\s+(?:team|staff|agent)"
)
CLAIM = re.compile(
    rf"(?P<lead>{_CLAIM_LEAD}|{_TREAT_LEAD})\s+(?P<pre>(?:[\w'’.-]+\s+){{0,3}}?)"
    rf"(?P<role>{STATUS}|{_ADMIN}|{_CREATOR}|{_OFFICE})\b(?P<post>[^.;!?]{{0,60}})"
)
_ASPIRATION = re.compile(
    r"\b(?:want(?:ed)?\s+to\s+be(?:come)?|wanna\s+be|hope\s+to\s+be(?:come)?|trying\s+to\s+(?:be|become)|"
    r"studying\s+to\s+be|training\s+to\s+be|apply\w*|interview\w*|not|never|former|ex|used\s+to\s+be|dream\w*|"
    r"aspir\w*|no\s+longer|would\s+love\s+to\s+be|becoming)\b"
)
_OCCUPATION_NEXT = re.compile(
    r"\s*(?:job|jobs|position|role(?!\s+is)|course|exam|certificate|certification|degree|training|student|intern|"
    r"internship|applicant|candidate|interview|opening|vacancy|work|experience|assistant|nurse|writer|engineer|"
    r"scientist|accountant|clerk|by\s+(?:trade|profession))\b"
)
_EXTERNAL = re.compile(
    r"\s*(?:(?!(?:with|and|so|but|who|which|that|to|of|on|at|for|in|from)\b)[\w'-]+\s+){0,2}?(?:of|on|at|for|in|from|to)\s+(?!(?:this|your|the)\s+(?:system|platform|service|app|site|"
    r"assistant|bot|ai|chat|tool|account|database|server|memory)\b)(?!(?:here|you|hermes|charge|control|command|all|"
    r"every|everything|any|the\s+whole|users?|customers?|accounts?)\b)[\w'’]"
)
_PLATFORM_MOD = frozenset("this your the site platform app service bot assistant ai chat account hermes super global "
                          "chief head main master root full senior lead official real actual".split())
_CREATOR_SCOPE = re.compile(
    r"\b(?:your|the\s+assistant's|the\s+ai's|the\s+bot's|the\s+model's)\b|\b(?:of|for|behind)\s+(?:you|this|the)\s+"
    r"(?:assistant|ai|bot|model|system|app|platform|service|chatbot|memory)\b|\b(?:at|from|for)\s+(?:openai|anthropic|"
    r"hermes)\b|\bwho\s+(?:made|built|created|trained|programmed|wrote|designed)\s+you\b|\bthis\s+(?:assistant|ai|bot|"
    r"model|system|app|platform|service)'s\b"
)
_AUTHORITY_ACT = re.compile(
    r"\b(?:authori[sz]\w*|permi(?:t|ts|tted|ssion)|allow\w*\s+(?:you|the\s+assistant|it)|entitle\w*|clearance|"
    r"overrid\w*|overrul\w*|orders?\s+you|instruct\w*|command\w*|direct\w*\s+you|demand\w*|requir\w*\s+you|grant\w*|"
    r"approv\w*\s+(?:you|this|the\s+(?:release|disclosure|export))|exempt\w*|waiv\w*|mandat\w*|sanction\w*|"
    r"\bi\s+(?:hereby\s+)?(?:order|instruct|command|direct|demand|require|mandate)\b|"
    r"on\s+behalf\s+of|(?:have|has)\s+the\s+right|right\s+to|access\s+to|confidential|classified|"
    r"(?:all|other|every)\s+(?:users|customers|accounts|records|files|clients|employees|patients|members)|records?\s+of)"
)


def _role_kind(role: str) -> str:
    for kind, vocab in (("status", STATUS), ("admin", _ADMIN), ("creator", _CREATOR), ("office", _OFFICE)):
        if re.fullmatch(vocab, role):
            return kind
    return "office"


def claim(m: re.Match[str], text: str) -> bool:
    """Whether a role statement claims privilege here (see the module docstring), not an occupation or a hope."""
    lead, pre, role, post = m.group("lead"), m.group("pre"), m.group("role"), m.group("post")
    before = text[max(0, m.start() - 40) : m.start()] + " " + lead + " " + pre
    if _ASPIRATION.search(before) or _OCCUPATION_NEXT.match(post):
        return False
    kind = _role_kind(role)
    if re.match(_TREAT_LEAD, lead):
        return True
    if kind == "creator":
        return bool(_CREATOR_SCOPE.search(pre + " " + role + post))
    if kind == "office":
        return bool(_AUTHORITY_ACT.search(text[m.start() :]))
    if _EXTERNAL.match(post):
        return False
    words = pre.split()
    # "a database administrator", "a business owner": an occupation, not a claim of privilege
    return not (kind == "admin" and words[:1] in (["a"], ["an"]) and any(w not in _PLATFORM_MOD for w in words[1:]))


_ELEVATED = re.compile(
    r"\b(?:full|admin\w*|root|super\w*|sudo|unlimited|unrestricted|elevated|special|top|highest|maximum|max|complete|"
    r"total|master|god|security|top-secret|secret|level[- ]?\d|all|every|override|moderator|owner|developer|staff|"
    r"internal|privileged|vip|premium)\b"
)
_WIDE_SCOPE = re.compile(
    rf"(?:{SENSITIVE})|\b(?:see|view|access|read|know|get|request|receive|obtain|query|export|edit|modify|delete|"
    r"override|bypass|change|approve|unlock)\s+(?:\w+\s+)?(?:all|every|any|other|others|everyone|confidential|"
    r"internal|restricted|private|hidden|secret|the\s+(?:whole|entire|full)|users?|customers?|clients?|accounts?)\b"
    r"|\b(?:use|run|do)\s+(?:anything|everything|whatever)"
)


def entitled(m: re.Match[str], text: str) -> bool:
    """An entitlement with an elevated qualifier or a wide scope — unless it is over the user's own things."""
    scope = m.group("scope") or ""
    if re.match(r"\s*(?:on|to|for|over|at|in|with)\s+(?:my|our)\b", scope):
        return False
    return bool(_ELEVATED.search(m.group("q") or "") or _WIDE_SCOPE.search(scope))


_CN_CLAIM_LEAD = (
    r"我是|我就是|我乃|本人是|本人系|我作为|作为|身为|我身为|我现在是|我已经是|我已是|我担任|我当上了?|"
    r"我被(?:任命|提拔|升级)(?:为|成)|我的[\u4e00-\u9fff]{0,2}?(?:身份|角色|权限|账号|账户|级别|等级|职位|头衔)(?:是|为|已经是|已升级为)|"
    r"(?:该|此|这个|这位)?用户(?:是|为|系)"
)
_CN_TREAT_LEAD = (
    r"把我(?:当成|当作|当做|视为|看作|看成|设为|设置为|升级为|标记为|改成|改为|当)|当我是|视我为|将我(?:视为|设为|升级为|标记为)|"
    r"给我(?:升级|开通|设置)(?:为|成|到)?"
)
_CN_STATUS = (
    r"s?vip|(?:高级|白金|黄金|钻石|尊享|至尊|超级|终身)(?:会员|用户|客户)|白金|黄金|钻石|认证用户|特权用户|特权|最高(?:权限|级别|等级|级)|顶级|"
    r"超级用户|超级管理员|超管|root|内部(?:人员|员工|用户|审计员?|测试员?)|授权用户|可信用户|白名单用户?"
)
_CN_ADMIN = r"管理员|站长|版主|群主|运营人员|运营|工作人员|官方人员|官方|客服人员|技术支持|所有者|拥有者"
_CN_CREATOR = (
    r"(?:(?:开发|创造|制作|训练|设计|编写|负责)?(?:你|您|(?:这个|这款|本|该)(?:系统|平台|助手|机器人|ai|模型|应用|app|软件|"
    r"网站|服务|产品))的?|"
    r"(?:系统|平台|助手)的)(?:开发者|开发人员|工程师|程序员|创造者|创建者|作者|主人|训练者|设计者|负责人|所有者|管理员|老板)"
)
_CN_OFFICE = (
    r"审计员|审计师|稽查员|监察员|调查员|警察|公安|民警|网警|执法人员|检察官|法官|律师|经理|总监|主管|负责人|领导|老板|总裁|"
    r"董事长|ceo|cto|cfo|创始人|高管|安全官|合规官"
)
CN_CLAIM = re.compile(
    rf"(?P<lead>{_CN_CLAIM_LEAD}|{_CN_TREAT_LEAD})\s*(?:一[个名位])?\s*(?P<pre>[^,.!?;:。！？；，]{{0,12}}?)"
    rf"(?P<role>{_CN_CREATOR}|{_CN_STATUS}|{_CN_ADMIN}|{_CN_OFFICE})(?P<post>[^。！？；]{{0,40}})"
)
#: What decides a Chinese status claim: a place outside this service, this service itself, an occupation's qualifier,
#: an aspiration or a past before the role, a word that makes it a job title after it, and what an office holder
#: claims to be allowed.
_CN_CONTEXT = compile_table({
    "external": (
        r"公司|医院|学校|单位|小区|业主|群|论坛|社区|俱乐部|协会|班|家族|工作室|社团|服务器|游戏|项目|仓库|部门|银行|超市|门店|店|"
        r"网吧|图书馆|酒店|工厂|学院|大学|政府|机关|物业|楼|宿舍|办公室|车间|团队|组|频道|公众号|博客|贴吧|微博|抖音|b站|qq|微信|健身房"
    ),
    #: This service, as a Chinese speaker names it: "这个应用", "本平台", "你们", "贵公司", "后台" …
    "platform": (
        r"(?:这个|这款|本|该|咱们|你们的?)(?:应用|app|软件|网站|平台|系统|服务|产品|助手|机器人|ai|站)|平台|你们|贵公司|贵司|这里|"
        r"本站|后台|hermes|助手|机器人|ai"
    ),
    "occupation_mod": r"(?:网络|数据库|行政|物业|仓库|图书|宿舍|资产|档案|机房|it|后勤|餐厅|实验室|设备|信息)$",
    "aspiration": r"想当|想成为|想做|应聘|求职|竞聘|面试|学习|报考|考|以前|曾经|之前|不是|并不是|从来不是|前任",
    "occupation_next": r"^(?:的)?(?:岗位|职位|专业|考试|证书|课程|培训|求职者|候选人|工作经验|资格|助理)",
    "authority_act": (
        r"有权|有权限|有资格|授权|批准|特批|命令你|要求你|允许你|指示你|查看|调取|访问|导出|交出|公开|披露|"
        r"(?:所有|其他|全部|别的)(?:的)?(?:用户|客户|会员|账户|账号|病人|患者|员工)|机密|内部(?:资料|文件|数据)"
    ),
})


def cn_claim(m: re.Match[str], text: str) -> bool:
    """The Chinese twin of :func:`_claim`."""
    lead, pre, role, post = m.group("lead"), m.group("pre"), m.group("role"), m.group("post")
    before = text[max(0, m.start() - 6) : m.start()] + lead + pre
    if _CN_CONTEXT["aspiration"].search(before) or _CN_CONTEXT["occupation_next"].match(post):
        return False
    if re.match(_CN_TREAT_LEAD, lead) or re.fullmatch(_CN_CREATOR, role):
        return True
    if re.fullmatch(_CN_OFFICE, role):
        return bool(_CN_CONTEXT["authority_act"].search(post))
    if _CN_CONTEXT["platform"].search(pre):
        return True
    if _CN_CONTEXT["external"].search(pre) or ("的" in pre and "系统" not in pre):
        return False  # "健身房的黄金会员", "小红书的认证用户": a status somewhere else
    if "系统" in pre:
        return True
    return not (re.fullmatch(_CN_ADMIN, role) and _CN_CONTEXT["occupation_mod"].search(pre))


_CN_ELEVATED = re.compile(r"管理|最高|超级|root|特殊|完全|全部|所有|查看|访问|调取|修改|删除|导出|读取|后台|系统|数据库|vip|无限|特别|高级|内部|审计")


def cn_entitled(m: re.Match[str], text: str) -> bool:
    """An entitlement with an elevated qualifier or scope, or a bare one ("我有权限")."""
    q, scope = m.group("q"), m.group("scope")
    if _CN_CONTEXT["external"].search(q) and not _CN_CONTEXT["platform"].search(q):
        return False  # "公司系统的管理员权限": rights at the user's own organisation
    return bool(_CN_ELEVATED.search(q + scope)) or not (q or scope)
