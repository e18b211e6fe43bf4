"""The topics of keyed facts, in one table: how a user states each (the rule classifier keys a first-person
statement with it) and the words of a question about it (search ranks the user's fact on that topic first).

A keyed fact's ``fact_key`` starts with its topic (``residence``, ``allergy_peanuts``); a later statement on the
same topic becomes the fact's next version, and a question on the topic finds the current version whatever it says
("用户从北京搬到上海了" answers "用户住在哪里？"). Patterns match lower-cased (and, for questions, NFKC-normalised) text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ABOUT_SOMEONE_ELSE",
    "CATEGORIES",
    "INSTRUMENTS",
    "PEOPLE_EN",
    "PEOPLE_ZH",
    "SPORTS",
    "TOPICS",
    "FactTopic",
    "about_someone_else",
    "asks_a_kind",
    "household_residence",
    "names_a_member",
]


@dataclass(frozen=True, slots=True)
class FactTopic:
    """One topic of keyed facts.

    Attributes:
        key: The topic (a ``fact_key`` before its ``_``).
        statement: A first-person statement of such a fact, in English or Chinese ("my name is", "我住在").
        question: A question about it ("where do I live", "住在哪里").
    """

    key: str
    statement: re.Pattern[str]
    question: re.Pattern[str]


#: Job nouns of the English occupation statement ("I'm a paramedic now", "I became a pharmacist").
_JOBS = (r"engineer|developer|doctor|teacher|nurse|lawyer|analyst|designer|manager|student|scientist|programmer|"
         r"accountant|journalist|chef|driver|paramedic|pharmacist|architect|pilot|firefighter|electrician|plumber|"
         r"carpenter|mechanic|librarian|consultant|researcher|professor|lecturer|dentist|surgeon|vet|veterinarian|"
         r"therapist|physiotherapist|anaesthetist|anesthesiologist|cashier|waiter|waitress|barista|photographer|"
         r"musician|writer|editor|translator|salesperson|receptionist|secretary|police officer|officer|soldier|"
         r"farmer|banker|entrepreneur|freelancer|contractor|tutor|coach|social worker|clerk|intern|technician|"
         r"radiologist|psychologist|economist|data scientist|product manager|paralegal")


#: A job noun as the object of "I am a …" / "I became a …": up to two words before it that are no judgement ("a
#: terrible driver", "a big Doctor Who fan" are no jobs), and nothing after it that makes it someone else's or a kind
#: of fan ("a nurse's daughter").
_JOB = (r"(?:(?!(?:terrible|good|great|bad|big|huge|awful|better|worse|lousy|careful|safe|fast|slow|nervous|decent|poor|"
        r"amateur|wannabe|failed|frustrated|born|natural|backseat|sunday|total|real|proud)\b)[\w-]+ ){0,2}(?:" + _JOBS
        + r")\b(?!'s|\s+(?:who|fan|friend|wannabe|'s)\b)")
#: What a user drives: kinds of vehicle, makes and common models.
_CARS = (r"car|suv|truck|van|minivan|pickup|hatchback|sedan|motorbike|motorcycle|scooter|electric car|ev|tesla|honda|"
         r"toyota|bmw|ford|audi|volkswagen|vw|mercedes|benz|nissan|hyundai|kia|mazda|subaru|volvo|chevy|chevrolet|jeep|"
         r"porsche|lexus|byd|prius|civic|corolla|camry|model [3sxy]")


#: Makes of car as Chinese users name them ("我现在开特斯拉了").
_CARS_ZH = (r"特斯拉|比亚迪|丰田|本田|宝马|奔驰|奥迪|大众|蔚来|理想|小鹏|福特|日产|马自达|雷克萨斯|保时捷|吉利|长城|哈弗|红旗|五菱|"
            r"沃尔沃|现代|起亚|别克|雪佛兰|小米|问界|极氪|凯迪拉克|路虎|斯巴鲁|三菱|标致|雪铁龙|奇瑞|长安|荣威|名爵|领克")
#: When a Chinese statement says a thing happened ("我上个月搬到深圳了", "我去年刚换了车"): words between 我 and its verb.
#: Where the user's household lives, said as "we" ("We live in Leeds", "we just moved to Bristol", "我们搬到上海了"), or
#: as a stored fact words it ("The user and their household live in…", "用户一家住在…", read in the first person).
_HOUSEHOLD_MOVE = (r"\b(?:we|i and their household)(?: now| currently| still)? live in\b"
                   r"|\b(?:we|i and their household)(?: have|'ve)? (?:just |recently |finally )?(?:moved|relocated)"
                   r" (?:from .{1,40} )?(?:to|into)\b"
                   r"|我(?:们|一家)(?:现在|目前|已经|一直)?(?:住在|家在|搬到|搬家到)"
                   r"|我(?:们|一家)(?:上个?月|上周|去年|今年|最近|前不久|前几天|昨天|今天)?(?:从.{1,12})?搬(?:家)?到")
_HOUSEHOLD = re.compile(_HOUSEHOLD_MOVE, re.IGNORECASE)


def household_residence(text: str) -> bool:
    """Whether ``text`` says where the user's household lives or moved in the first person plural ("We live in
    Leeds", "Big news: we moved to Bristol", "我们搬到上海了"): the speaker's own residence, said for all of them."""
    return bool(_HOUSEHOLD.search(text))


_WHEN_ZH = (r"(?:上个?月|上周|上礼拜|去年|今年|年初|月初|最近|前不久|前段时间|前几天|昨天|前天|今天|这周|本周|这个月|本月|"
            r"刚刚|刚|已经|终于|也|正式)*")

#: A question about the user's work: what they do and where (both the occupation and the employer topic).
_WORK_QUESTION = (r"\b(?<!\bto )(?<!from )(?<!after )(?<!before )work(?:s|ing)?\b"
                  r"|\b(?:job|occupation|profession|employer|career|for a living)\b"
                  r"|工作|职业|上班|做什么的|(?<![空险递业信])公司")

#: The people of a user's life, as a pattern's alternatives (English; Chinese): a statement or question about one of
#: them is about them, not the user.
PEOPLE_EN = (r"sister|brother|siblings?|mom|mum|mother|dad|father|parents?|son|daughter|kids?|children|wife|husband|"
             r"partner|girlfriend|boyfriend|fianc[eé]e?|friends?|colleagues?|co-?workers?|neighbou?rs?|room-?mates?|"
             r"flatmates?|cousins?|aunt|uncle|grand(?:ma|mother|pa|father|parents)|niece|nephew|in-laws?|teammates?|"
             r"classmates?")
PEOPLE_ZH = (r"姐姐|妹妹|哥哥|弟弟|妈妈|母亲|爸爸|父亲|父母|儿子|女儿|孩子|老婆|妻子|老公|丈夫|男朋友|女朋友|朋友|同事|邻居|室友|"
             r"表哥|表姐|表弟|表妹|堂哥|堂姐|舅舅|阿姨|叔叔|奶奶|爷爷|外婆|外公|姥姥|姥爷")
#: A question about someone of the user's, not the user ("What does my neighbour do?", "用户的外公以前是做什么的？",
#: "Where does my sister live?"): the user's own job or home is not its answer; a relative's family fact may be.
ABOUT_SOMEONE_ELSE = re.compile(
    r"\b(?:my|the user's|user's)\s+(?:(?:older|younger|little|big|best|new|old|oldest|eldest|late|ex-?)\s+)?"
    r"(?:" + PEOPLE_EN + r")\b|(?:我|用户)(?:的|家)?(?:" + PEOPLE_ZH + r"|公公|婆婆|岳父|岳母)")
#: The user among the doers ("Where do my wife and I live?", "我和我老婆住在哪里？"): the user's own fact still answers.
_WITH_THE_USER = re.compile(r"\b(?:and|&) i\b|\bi and\b|\bwe\b|\bour\b|我们|我和|和我|跟我")


def about_someone_else(question: str) -> bool:
    """Whether ``question`` asks about someone of the user's rather than the user (see :data:`ABOUT_SOMEONE_ELSE`)."""
    q = question.lower()
    return bool(ABOUT_SOMEONE_ELSE.search(q)) and not _WITH_THE_USER.search(q)


#: Instruments and sports a user plays, as a pattern's alternatives ("I play the cello" is a habit of the user).
INSTRUMENTS = (r"piano|guitar|cello|violin|viola|drums|flute|saxophone|sax|clarinet|trumpet|trombone|bass|ukulele|"
               r"harp|organ|keyboard|banjo|harmonica|accordion")
SPORTS = (r"tennis|football|soccer|basketball|chess|golf|badminton|volleyball|baseball|hockey|squash|cricket|rugby|"
          r"table tennis|ping pong|pickleball")


#: Kinds of thing a question names, and how a line says the user does one of them: "What instrument do I play?" is
#: answered by "The user took up the violin", which shares no word with it. Only the user's own doing counts ("My
#: brother plays piano", "The user loves Chinese food" name a member, not the user's). Patterns match lower-cased text.
_DOER_EN = r"\b(?:i|the user)\b(?:\s+[\w']+){0,8}?\s+"
_DOER_ZH = (r"(?:^|[^哥姐弟妹儿女爸妈友夫妻子])(?:我|用户)(?:(?!哥|姐|弟|妹|儿|女|爸|妈|朋友|老婆|老公|妻|夫|同事|孩子)"
            r"[^，。！？,.!?的]){0,8}?")
_KINDS = (
    (r"\binstruments?\b|乐器",
     _DOER_EN + r"(?:play(?:s|ed|ing)?|took up|picked up|learn(?:s|ed|ing|t)?|practi[cs](?:e|es|ed|ing)|switched (?:from "
     r"[\w ]{1,20} )?to)\s+(?:the\s+|my\s+)?(?:" + INSTRUMENTS + r")\b"
     + r"|" + _DOER_ZH + r"(?:弹|拉|吹|打|学|练)了?(?:钢琴|吉他|大提琴|小提琴|架子鼓|长笛|萨克斯|古筝|二胡|尤克里里|口琴|手风琴|"
     r"单簧管|小号|长号|竖琴|贝斯|琵琶|笛子)"),
    (r"\bsports?\b|运动|体育",
     _DOER_EN + r"(?:play(?:s|ed|ing)?|took up|picked up|do(?:es)?|go(?:es)?|practi[cs](?:e|es|ed|ing)|watch(?:es)?|follow(?:s)?|love(?:s)?|like(?:s)?|enjoy(?:s)?)\s+(?:the\s+)?(?:"
     + SPORTS + r"|running|swimming|cycling|yoga|hiking|climbing|skiing|surfing|boxing)\b"
     + r"|" + _DOER_ZH + r"(?:打|踢|去|练|学)?了?(?:篮球|网球|羽毛球|乒乓球|足球|跑步|游泳|骑行|瑜伽|爬山|滑雪|拳击)"),
    (r"(?<!programming )\blanguages?\b|(?<!编程)语言|外语",
     _DOER_EN + r"(?:speak(?:s|ing)?|learn(?:s|ed|ing|t)?|stud(?:y|ies|ied|ying))\s+(?:a (?:little|bit of) |some |fluent |"
     r"basic )?(?:english|german|french|spanish|italian|portuguese|russian|arabic|hindi|japanese|korean|mandarin|chinese|"
     r"cantonese|dutch|greek|hebrew|thai|turkish|polish|swedish)\b"
     + r"|" + _DOER_ZH + r"(?:说|讲|学)(?:一点|一些|流利的)?(?:英语|德语|法语|西班牙语|意大利语|葡萄牙语|俄语|阿拉伯语|日语|韩语|普通话|中文|粤语)"),
)
CATEGORIES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(kind), re.compile(doing)) for kind, doing in _KINDS)


def asks_a_kind(question: str) -> bool:
    """Whether ``question`` asks which instrument or sport the user plays or does (see :data:`CATEGORIES`) — the
    user, not someone of theirs. (A language is left out: "What language do I use?" may ask about code.)"""
    q = question.lower()
    return bool(_USER_DOES.search(q)) and any(kind.search(q) for kind, _doing in CATEGORIES[:2])


#: A question whose doer is the user ("What sport do I play?", "我会什么乐器？"), not someone of theirs ("What
#: instrument does my daughter play?").
_USER_DOES = re.compile(r"\b(?:do|did|can|could|should|would|will|have) i\b|\bi (?:play|speak|do|know|learn)\b"
                        r"|\bthe user (?:play|speak|do|know|learn)|\b(?:does|did|can) the user\b|我(?:会|在|平时|做|玩|打|弹|拉|说|学|练)")


def names_a_member(question: str, content: str) -> bool:
    """Whether ``content`` says the user does one of the kind of thing ``question`` asks about (see
    :data:`CATEGORIES`)."""
    q, c = question.lower(), content.lower()
    return any(kind.search(q) and members.search(c) for kind, members in CATEGORIES)


#: Every topic, in the order the rules try them on a statement (the first that matches keys it): its key, then the
#: patterns of a statement and of a question (a table of patterns, compiled here).
TOPICS: tuple[FactTopic, ...] = tuple(
    FactTopic(key, re.compile(statement), re.compile(question))
    for key, (statement, question) in {
        "name": (
            r"\bmy name is\b|\bcall me\b|我叫|我的名字|我姓",
            (r"\b(?:my name|the user's name|who am i|what am i called|what is the user called)\b"
             r"|我叫什么|名字|用户叫什么"),
        ),
        "allergy": (
            r"\bi(?: am|'m) allergic\b|\ballergic to\b|过敏",
            (r"allerg|\bavoid|medicin|medicat|\bdrugs?\b|\b(?:can't|cannot|can not|shouldn't|should not|mustn't) "
             r"(?:eat|have|take|drink)\b|过敏|忌口|不能吃|不能用|药"),
        ),
        "birth": (
            r"\bi was born\b|\bmy birthday\b|我的生日|我出生",
            r"\b(?:born|birthday|how old|age)\b|生日|出生|几岁|多大(?![号码尺的个])",
        ),
        "occupation": (
            (r"\b(?:i|and) (?:now |currently |still )?work as\b|\bmy (?:new |current )?job (?:is as |title is |as )"
             r"|\bmy (?:new |current )?job is an? " + _JOB + r"|\bi(?: am|'m) (?:now |currently |still |officially |finally )?(?:working |employed )?(?:as )?an? " + _JOB
             + r"|\bi(?: have|'ve)? (?:just )?(?:became|become|retrained as|qualified as|trained as) an? " + _JOB
             + r"|\bi (?:just )?(?:got|started|landed|took) (?:a |my )?(?:new )?job\b(?! (?:interview|offer|application|at|with)\b)"
             r"|\bi(?: have|'ve)? (?:just )?(?:switched|changed) (?:careers?|jobs?)\b"
             r"|\bi(?: am|'m| have|'ve)? (?:just )?retired\b(?! (?:my|the|a|an|it|this|that|our|his|her|them)\b)"
             r"|我的工作是|我(?:已经|刚|刚刚)?(?:换|找到)了?(?:一?份|个|新)?(?:新)?工作"
             r"|我退休了"
             r"|我(?:现在|目前)?在.{1,20}(?:做|当|担任)(?:一名|一个)?.{0,8}(?:师|员|医生|经理|主管|工人|编辑|作家|会计|护士|司机|记者)(?!的)"
             r"|我(?:现在|目前|已经)?" + _WHEN_ZH + r"(?:开始)?(?:是|当|成为)(?:一名|一个|了)?.{0,6}"
             r"(?:工程师|医生|老师|律师|学生|设计师|分析师|经理|程序员|护士|会计|记者|厨师|司机|销售|教师|急救员|药剂师|"
             r"建筑师|飞行员|警察|消防员|研究员|教授|作家|翻译|会计师|麻醉师)(?!的)"
             r"|^我.{0,20}[，,]\s*(?:我)?(?:现在|目前)(?:是|当|做)(?:一名|一个)?.{0,6}(?:工程师|医生|老师|律师|设计师|分析师|经理|程序员|"
             r"护士|会计|记者|厨师|司机|教师|急救员|药剂师|麻醉师)|我(?:现在|目前)?是一名(?!.{0,8}的(?:女儿|儿子|妻子|丈夫))"),
            _WORK_QUESTION,
        ),
        # where the user works, apart from what they do: "I work for Siemens" never replaces "I'm a data engineer"
        "employer": (
            (r"\b(?:i|and) (?:now |currently |still )?work (?:at|for)\b|\bmy (?:new |current )?job is (?:at|with) "
             r"|\bmy new job at\b|\bi(?: have|'ve)? (?:just |recently )?(?:joined|switched to) (?!(?:a|an|the|my|our|"
             r"this|that|some)\b)\w+(?: \w+)? (?:as|last|this|in|on|a)\b"
             r"|我(?:现在|目前)?" + _WHEN_ZH + r"在(?!找|考虑|想|准备).{1,20}(?:工作|上班)|我" + _WHEN_ZH + r"(?:加入|入职)了?"
             r"|我" + _WHEN_ZH + r"跳槽|我" + _WHEN_ZH + r"(?:去|到)[^，。,.！!？?]{1,10}(?:上班|工作)了|离职了?[，,]\s*(?:去了|加入了?|到了)"
             r"|\b(?:a |my )?new job (?:at|with)\b"),
            _WORK_QUESTION + r"|\b(?:company|firm)\b",
        ),
        "residence": (
            (r"\bi (?:now |currently |still )?live in\b(?! (?:fear|hope|denial|the moment|the past|a bubble|peace|dread)\b)"
             r"|\bmy address\b"
             r"|\bi(?: have|'ve)? (?:just |recently |finally )?(?:moved|relocated) (?:from .{1,40} )?to\b"
             r"|我(?:现在|目前)?在.{1,10}住(?!院|宿|店|酒店)|我(?:现在|目前|已经|一直)?(?:住在|家在|搬到|住(?!院|宿|店|酒店|了一晚))"
             r"|我" + _WHEN_ZH + r"(?:从.{1,12})?搬(?:家)?到|" + _HOUSEHOLD_MOVE),
            (r"\b(?:live[sd]?|(?<!for a )living|address|city|town|country|moved|reside\w*)\b"
             r"|\b(?<!\bat )home\b(?!\s*(?:wi-?fi|network|internet|router|page|screen|office|made|cook\w*|gym))"
             r"|住|地址|城市|搬|家在|哪个城市"),
        ),
        "pet": (
            (r"\bmy (?:new )?(?:cat|dog|pet|puppy|kitten|rabbit|hamster|parrot)(?:'s name is| is (?:called|named|an?) |,? [a-z]+,? is an? )"
             r"|\bi (?:have|got|adopted) an? (?:new )?(?:\w+ )?(?:cat|dog|pet|puppy|kitten|rabbit|hamster|parrot)\b"
             r"|我(?:的|家)?(?:猫|狗|宠物|小猫|小狗|兔子)(?:叫|名叫|是)|我(?:新)?养了"),
            r"\b(?:cat|dog|pets?|puppy|kitten)\b|猫|狗|宠物",
        ),
        "family": (
            (r"(?:^|[.!?;,]\s*)my (?:wife|husband|son|daughter|mother|father|kids?|children"
             r"|(?:new |current )?(?:partner|girlfriend|boyfriend|fianc[eé]e?))\b(?!'s)"
             r"|\bi (?:have|'ve got|got|have got) a (?:new )?(?:girlfriend|boyfriend|partner)\b"
             r"|\bi(?:'m| am) (?:now )?(?:dating|engaged to) (?!(?:apps?|sites?)\b)[a-z]|\bi(?:'m| am) seeing [a-z]+ now\b"
             r"|\bi (?:just |recently )?(?:married|got married to|got engaged to)\b"
             r"|我(?:的)?(?:妻子|老婆|丈夫|老公|儿子|女儿|孩子|父亲|母亲|爸爸|妈妈)"
             r"|我(?:现在|目前)?的?(?:新)?(?:女朋友|男朋友|对象)(?:叫|是)|我有了?(?:一个|个)?新?(?:女朋友|男朋友|对象)"
             r"|(?:^|[，,;；]\s*)(?:我)?(?:现在|目前)?的?(?:新)?(?:女朋友|男朋友|对象|老婆|妻子|老公|丈夫)(?:叫|是)"),
            (r"\b(?:wife|husband|partner|girlfriend|boyfriend|daughter|son|kids?|children|mother|father|mom|dad|parents?|family"
             r"|relatives?)\b|妻子|老婆|丈夫|老公|女儿|儿子|孩子|父母|妈妈|爸爸|母亲|父亲|家人|家庭|家里人|亲人|女朋友|男朋友|对象"),
        ),
        "boss": (
            (r"\bmy (?:new |current )?(?:boss|manager|supervisor|line manager)(?:'s name is| is (?:now )?(?:called |named )?"
             r"(?!(?:so|very|really|too|quite|pretty|kind|a|an|the|not|always|never|on|in|off|out|away|back|here|there|"
             r"annoying|great|nice|mean|strict|awesome|terrible|awful|cool|rude|busy|sick|angry|happy|upset|late|going|"
             r"leaving|coming|being|getting|fine|ok|okay|good|bad|new|old|young|retiring|moving)\b)[a-z])"
             r"|\bi (?:now )?report to\b|\bi (?:have|got|'ve got) a new (?:boss|manager|supervisor)(?:,| called| named| -)"
             r"|我(?:换|有)了(?:一个|个)?新(?:老板|领导|上司)[，,]?\s*(?:叫|名叫|是)"
             r"|我(?:现在|目前)?(?:的|们)?(?:新)?(?:老板|领导|上司|顶头上司)(?:叫|是|姓|名叫|换成)|我(?:现在)?(?:向|给).{1,10}汇报"),
            r"\b(?:boss|manager|supervisor)\b|\breport(?:s|ing)? to\b|老板|领导|上司|汇报",
        ),
        "diet": (
            (r"\bi(?: am|'m| have|'ve)? (?:now |just |recently )?(?:a )?(?:went|gone|become|became|turned|been)? ?"
             r"(?:vegetarian|vegan|pescatarian|pescetarian)\b|\bi(?: am|'m) on an? (?:\w+ )?(?:keto|paleo|gluten-free|"
             r"low-carb|vegan|vegetarian) diet\b|\bi (?:don't|do not|no longer|never) eat (?:any )?meat\b"
             r"|\bi (?:stopped|quit) eating meat\b|我(?:现在|已经|开始)?(?:吃素|是素食|不吃肉|只吃鱼(?!香))"),
            r"\b(?:vegetarian|vegan|pescatarian|pescetarian|diet|eat|food|meat)\b|素|饮食|吃",
        ),
        "vehicle": (
            (r"\bi (?:now |currently |still )?drive an? (?:\w+ ){0,2}?(?:" + _CARS + r")\b|\bmy (?:new |current )?car is (?:now )?an? \b"
             r"|\bi (?:now )?own an? (?:\w+ )?(?:" + _CARS + r")\b"
             r"|\bi (?:just )?(?:bought|got) (?:myself )?an? (?:new |used |second-hand )?(?:\w+ )?(?:" + _CARS + r")\b"
             r"|\bi (?:just )?(?:sold|traded in) my (?:[\w-]+ ){0,3}?(?:and (?:bought|got)|for) an? "
             r"|我(?:现在)?开(?:的是|一辆|着一辆)|我(?:现在|目前)?" + _WHEN_ZH + r"(?:改|换)?开(?:上)?了?(?:一辆|辆)?(?:新的?)?(?:"
             + _CARS_ZH + r")|(?:^|[，,;；]\s*)(?:我)?(?:现在|目前)(?:改|换)?开(?:上)?了?(?:一辆|辆)?(?:新的?)?(?:" + _CARS_ZH
             + r")|我的(?:新)?车是|我(?:新)?买了(?:一辆)?.{0,8}车|我(?:把车|的车)换成了|我" + _WHEN_ZH + r"换了(?:一辆|辆)?(?:新)?车(?!位|票|厢|次)"),
            r"\b(?:car|cars|vehicle)\b|\bdo i drive\b|汽车|车子|开车|开的车|什么车|的车|车是|车牌|买车|换车",
        ),
    }.items()
)
