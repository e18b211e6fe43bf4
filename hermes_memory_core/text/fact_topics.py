"""The topics of keyed facts, in one table: how a user states each (the rule classifier keys a first-person
statement with it) and the words of a question about it (search ranks the user's fact on that topic first).

A keyed fact's ``fact_key`` starts with its topic (``residence``, ``allergy_peanuts``); a later statement on the
same topic becomes the fact's next version, and a question on the topic finds the current version whatever it says
("用户从北京搬到上海了" answers "用户住在哪里？"). Patterns match lower-cased (and, for questions, NFKC-normalised) text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CATEGORIES", "INSTRUMENTS", "SPORTS", "TOPICS", "FactTopic", "names_a_member"]


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


#: Instruments and sports a user plays, as a pattern's alternatives ("I play the cello" is a habit of the user).
INSTRUMENTS = (r"piano|guitar|cello|violin|viola|drums|flute|saxophone|sax|clarinet|trumpet|trombone|bass|ukulele|"
               r"harp|organ|keyboard|banjo|harmonica|accordion")
SPORTS = (r"tennis|football|soccer|basketball|chess|golf|badminton|volleyball|baseball|hockey|squash|cricket|rugby|"
          r"table tennis|ping pong|pickleball")


#: Kinds of thing a question names, and the members a line answers with: "What instrument do I play?" is answered
#: by "The user took up the violin", which shares no word with it (patterns match lower-cased text).
CATEGORIES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(kind), re.compile(members)) for kind, members in (
        (r"\binstruments?\b|乐器", rf"\b(?:{INSTRUMENTS})\b|钢琴|吉他|提琴|架子鼓|长笛|萨克斯|古筝|二胡"),
        (r"\bsports?\b|运动|体育", (rf"\b(?:{SPORTS}|running|swimming|cycling|yoga|hiking|climbing|skiing|surfing|"
                                 r"boxing)\b|篮球|网球|羽毛球|乒乓球|足球|跑步|游泳|骑行|瑜伽|爬山|滑雪|拳击")),
        (r"\blanguages?\b|语言|外语", (r"\b(?:english|german|french|spanish|italian|portuguese|russian|arabic|hindi|"
                                   r"japanese|korean|mandarin|chinese|cantonese|dutch|greek|hebrew|thai|turkish|polish|"
                                   r"swedish)\b|英语|德语|法语|西班牙语|意大利语|葡萄牙语|俄语|阿拉伯语|日语|韩语|普通话|中文|粤语")),
    )
)


def names_a_member(question: str, content: str) -> bool:
    """Whether ``content`` names a member of a kind of thing ``question`` asks about (see :data:`CATEGORIES`)."""
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
            r"\b(?:born|birthday|how old|age)\b|生日|出生|几岁|多大",
        ),
        "occupation": (
            (r"\bi work (?:as|at|for)\b|\bmy (?:new )?job\b|\bi(?: am|'m) (?:now |currently |still )?(?:working |employed )?"
             r"(?:as )?an? (?:\w+ )?(?:" + _JOBS + r")\b|\bi (?:now |currently )?work (?:as|at|for)\b"
             r"|\bi(?: have|'ve)? (?:just )?(?:became|become|retrained as|qualified as|trained as) an? (?:\w+ )?(?:" + _JOBS
             + r")\b|\bi (?:just )?(?:got|started|landed|took) (?:a |my )?(?:new )?job\b|\bi(?: have|'ve)? (?:just )?"
             r"(?:switched|changed) (?:careers?|jobs?)\b|\bi(?: am|'m| have|'ve)? (?:just )?retired\b"
             r"|我(?:现在|目前)?在.{1,20}(?:工作|上班)|我的工作|我?(?:换|找到)了?(?:一?份|个|新)?(?:新)?工作|跳槽|我退休了"
             r"|我(?:现在|目前)?在.{1,20}(?:做|当|担任)(?:一名|一个)?.{0,8}(?:师|员|医生|经理|主管|工人|编辑|作家)"
             r"|(?:现在|目前)(?:是|当|做)(?:一名|一个)?.{0,8}(?:工程师|医生|老师|律师|设计师|分析师|经理|程序员|护士|会计|"
             r"记者|厨师|司机|教师|麻醉师)|我(?:现在|目前|已经)?(?:是|当|成为)(?:一名|一个|了)?.{0,6}"
             r"(?:工程师|医生|老师|律师|学生|设计师|分析师|经理|程序员|护士|会计|记者|厨师|司机|销售|教师|急救员|药剂师|"
             r"建筑师|飞行员|警察|消防员|研究员|教授|作家|翻译|会计师)|我(?:现在|目前)?是一名"),
            (r"\b(?:work(?:s|ing)?|job|occupation|profession|employer|career|for a living)\b"
             r"|工作|职业|上班|做什么的|公司"),
        ),
        "residence": (
            (r"\bi (?:now |currently |still )?live in\b|\bmy address\b"
             r"|\bi(?: have|'ve)? (?:just )?moved (?:from .{1,40} )?to\b"
             r"|我(?:现在|目前|已经|一直)?(?:住在|家在|搬到|住)|我(?:从.{1,12})?搬(?:家)?到"),
            (r"\b(?:live[sd]?|(?<!for a )living|address|city|town|country|home|moved|reside\w*)\b"
             r"|住|地址|城市|搬|家在|哪个城市"),
        ),
        "pet": (
            (r"\bmy (?:cat|dog|pet|puppy|kitten|rabbit|hamster|parrot)\b|\bi have an? (?:cat|dog|pet|puppy|kitten)\b"
             r"|我(?:的|家)?(?:猫|狗|宠物|小猫|小狗|兔子)|我养了"),
            r"\b(?:cat|dog|pets?|puppy|kitten)\b|猫|狗|宠物",
        ),
        "family": (
            (r"\bmy (?:wife|husband|son|daughter|partner|mother|father|kids?|children)\b"
             r"|我(?:的)?(?:妻子|老婆|丈夫|老公|儿子|女儿|孩子|父亲|母亲|爸爸|妈妈)"),
            (r"\b(?:wife|husband|partner|daughter|son|kids?|children|mother|father|mom|dad|parents?|family|relatives?)\b"
             r"|妻子|老婆|丈夫|老公|女儿|儿子|孩子|父母|妈妈|爸爸|母亲|父亲|家人|家庭|家里人|亲人"),
        ),
        "boss": (
            (r"\bmy (?:new )?(?:boss|manager|supervisor|line manager)\b|\bi report to\b"
             r"|\bi (?:have|got|'ve got) a new (?:boss|manager|supervisor)\b"
             r"|我(?:的|们)?(?:新)?(?:老板|领导|上司|顶头上司)|我(?:换|有)了(?:一个|个)?新(?:老板|领导|上司)"),
            r"\b(?:boss|manager|supervisor)\b|\breport(?:s|ing)? to\b|老板|领导|上司|汇报",
        ),
        "diet": (
            (r"\bi(?: am|'m| have|'ve)? (?:now |just |recently )?(?:a )?(?:went|gone|become|became|turned|been|going)? ?"
             r"(?:vegetarian|vegan|pescatarian|pescetarian)\b|\bi(?: am|'m) on an? (?:\w+ )?(?:keto|paleo|gluten-free|"
             r"low-carb|vegan|vegetarian) diet\b|\bi (?:don't|do not|no longer|never) eat (?:any )?meat\b"
             r"|\bi (?:stopped|quit) eating meat\b|我(?:现在|已经|开始)?(?:吃素|是素食|不吃肉|只吃鱼)"),
            r"\b(?:vegetarian|vegan|pescatarian|pescetarian|diet|eat|food|meat)\b|素|饮食|吃",
        ),
        "vehicle": (
            (r"\bi (?:now |currently |still )?drive an? (?!lot\b|bit\b|little\b)|\bmy (?:new |current )?car is (?:now )?an? \b"
             r"|\bi (?:now )?own an? (?:\w+ )?(?:car|suv|truck|van|motorbike|motorcycle|tesla|honda|toyota|bmw|ford|audi)\b"
             r"|\bi (?:just )?(?:bought|got) (?:myself )?an? (?:new |used |second-hand )?(?:car|electric car|ev)\b"
             r"|我(?:现在)?开(?:的是|一辆|着一辆)|我的(?:新)?车是|我(?:新)?买了(?:一辆)?.{0,8}车"),
            r"\b(?:car|cars|vehicle)\b|\bdo i drive\b|汽车|车子|开车|开的车|什么车|的车|车是|车牌|买车|换车",
        ),
    }.items()
)
