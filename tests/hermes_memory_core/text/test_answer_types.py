"""A question that names the kind of its answer is answered only by a line that holds such a value."""

from __future__ import annotations

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.text.answer_types import VALUE_KINDS, expected_value, holds_value

#: (question, line, whether the line may answer it)
PAIRS = [
    ("What is my favourite colour?", "用户最喜欢的菜是外婆做的红烧肉。", False),  # 红烧肉 is a dish, not a colour
    ("What is my favourite colour?", "My favourite colour is teal.", True),
    ("我最喜欢什么颜色？", "我最喜欢蓝色", True),
    ("What colour is my car?", "用户开的是一辆白色的比亚迪汉。", True),
    ("我穿多大码的鞋？", "用户的手机是华为Mate 60。", False),  # a number is a size only as one ("42码", "size 9", "42s")
    ("我穿多大码的鞋？", "我穿42码的鞋", True),
    ("What is my shoe size?", "I'm a size 9.", True),
    ("What size shirt do I wear?", "I usually wear an M.", True),
    ("What size shirt do I wear?", "I'm a nurse.", False),
    ("What is my star sign?", "用户的生日是七月二十三日。", True),  # the sign follows from the birthday
    ("我是什么星座？", "我是狮子座", True),
    ("What is my star sign?", "My daughter is six.", False),
    ("What is my blood type?", "用户的血型是O型。", True),
    ("What is my blood type?", "I'm O negative.", True),
    ("What is my blood type?", "I'm allergic to penicillin.", False),
    ("How tall am I?", "I'm 1.82 m tall.", True),
    ("How tall am I?", "用户每年体检都查出尿酸偏高。", False),
    ("我的身高是多少？", "我身高一米七", True),
    ("我的体重是多少？", "我现在120斤", True),
    ("我的体重是多少？", "用户每年体检都查出尿酸偏高。", False),
    ("What is my mother's phone number?", "My mother's number is 138 1234 5678.", True),
    ("What is my mother's phone number?", "用户女儿的生日在十二月。", False),
    ("What is my passport number?", "My passport number is E12345678.", True),
    ("What is my home Wi-Fi password?", "The Wi-Fi password is on the router.", True),
    ("What is my home Wi-Fi password?", "The WiFi router is in the study.", False),
    # how people say them (trial seven): each was a false silence
    ("What is my blood type?", "用户是A型血。", True),
    ("What is my blood type?", "I'm A neg.", True),
    ("我的血型是什么？", "我是O型。", True),
    ("What is my shoe size?", "My shoes are 42s.", True),
    ("我穿多大码的鞋？", "我的鞋是42号。", True),
    ("我穿多大码的衣服？", "我穿L码。", True),
    ("What size clothes do I wear?", "I take a medium in shirts.", True),
    ("我多高？", "我1米8。", True),
    ("How tall am I?", "I'm six foot one.", True),
    ("How tall am I?", "I'm 5ft10.", True),
    ("我最喜欢什么颜色？", "我最喜欢咖啡色。", True),
    ("What is my favourite colour?", "My favourite is burgundy.", True),
    ("What is my star sign?", "I'm a Sag.", True),
    ("What's my Wi-Fi password?", "The wifi code is 1234.", True),
    ("我的无线网密码是什么？", "wifi口令是abc123", True),
    ("我喜欢什么颜色的酒？", "我喜欢喝红酒。", True),
]


@pytest.mark.parametrize(("question", "line", "answers"), PAIRS)
def test_a_line_answers_a_typed_question_only_with_a_value_of_its_kind(question: str, line: str,
                                                                       answers: bool) -> None:
    kind = expected_value(question)
    assert kind is not None, question
    assert holds_value(kind, line) is answers, (question, line)


@pytest.mark.parametrize("question", [
    "What is my job?", "How many kids do I have?", "What sport do I play?", "我住在哪里？", "Where do I work?",
    "What do I do for work?", "Which football team do I support?", "How old am I?",
    # words of a kind that ask something else (trial seven)
    "What size is my apartment?", "What size is my team?", "What size TV do I have?", "我的工资有多高？", "我的压力多重",
    "我的幸运号码是多少？", "Where did I pin the map?", "What weight do I bench?",
])
def test_open_questions_name_no_kind(question: str) -> None:
    assert expected_value(question) is None


def test_every_kind_has_a_unique_key() -> None:
    keys = [k.key for k in VALUE_KINDS]
    assert len(keys) == len(set(keys))


def test_recall_is_silent_when_no_line_holds_the_kind_asked(real_mem: MemoryProvider) -> None:
    """"What is my favourite colour?" of a store that holds the user's favourite dish and phone gets nothing; once the
    user says a colour, the line that says it is recalled (the real model: it ranks the dish close to the colour)."""
    mem = real_mem
    for text in ("用户最喜欢的菜是外婆做的红烧肉。", "用户的手机是华为Mate 60。",
                 "The user's favourite film is Spirited Away.", "The user's daughter is six."):
        mem.add(text, user_id="u", memory_type="long_term")
    mem.flush()
    assert mem.search("What is my favourite colour?", user_id="u")  # search still ranks what it has
    assert mem.recall("What is my favourite colour?", user_id="u") == []
    assert mem.recall("What is my blood type?", user_id="u") == []
    mem.add("The user's favourite colour is teal.", user_id="u", memory_type="long_term")
    mem.flush()
    hits = mem.recall("What is my favourite colour?", user_id="u")
    assert any("teal" in h.content for h in hits)


@pytest.mark.parametrize(("said", "question"), [
    ("我是A型血。", "What is my blood type?"),
    ("I'm type O.", "What's my blood type?"),
    ("My shoes are 42s.", "What's my shoe size?"),
    ("我穿L码。", "我穿多大码的衣服？"),
    ("我1米8。", "我多高？"),
    ("我最喜欢咖啡色。", "我最喜欢什么颜色？"),
    ("I'm a Leo.", "What is my star sign?"),
    ("I'm 70kg.", "How much do I weigh?"),
    ("My apartment is 80 square metres.", "What size is my apartment?"),
])
def test_what_the_user_said_of_a_kind_is_recalled(real_mem: MemoryProvider, said: str, question: str) -> None:
    """Among the user's other facts, a value said in a form of its own still answers the typed question."""
    for text in ("用户最喜欢的菜是外婆做的红烧肉。", "用户的手机是华为Mate 60。", "The user works as a nurse.",
                 "The user lives in Lyon.", "The user's daughter is six.", "用户每周六早上去游泳。", "用户对花生过敏。",
                 "The user drinks a flat white every morning."):
        real_mem.add(text, user_id="u", memory_type="long_term")
    kept = real_mem.remember(said, user_id="u")
    real_mem.flush()
    hits = real_mem.recall(question, user_id="u")
    assert hits and hits[0].id == kept.id, (said, question, [h.content for h in hits])


def test_a_line_of_the_conversation_that_holds_the_kind_is_kept(real_mem: MemoryProvider) -> None:
    """What the user said in chat and nobody made a fact of still answers: the kind check keeps the line that holds
    the value (it had dropped every such line that was not a fact, then found nothing left and fell silent)."""
    for text in ("用户最喜欢的菜是外婆做的红烧肉。", "The user works as a nurse.", "The user lives in Lyon."):
        real_mem.add(text, user_id="u", memory_type="long_term")
    chat = real_mem.session("u", "s1")
    chat.add_messages([("user", "Oh and my blood type is O negative, the clinic told me."),
                       ("assistant", "Thanks for telling me.")])
    chat.close()
    real_mem.flush()
    assert any("O negative" in h.content for h in real_mem.recall("What is my blood type?", user_id="u"))
