"""The user is the authority on themselves: their own facts are stored by default, recalled for them, never for
anyone else (both metadata backends)."""

from __future__ import annotations

import pytest

from hermes_memory_core import Caller, MemoryProvider, MemoryType, NotFoundError, PermissionDeniedError
from hermes_memory_core.lifecycle.classifier import rule_normalize

OWN_FACTS = [
    ("I live in Shanghai now.", MemoryType.PERMANENT),
    ("我现在住在上海", MemoryType.PERMANENT),
    ("I am allergic to peanuts", MemoryType.PERMANENT),
    ("我的猫叫豆豆", MemoryType.PERMANENT),
    ("My daughter is called Mia", MemoryType.PERMANENT),
    ("I play the cello on weekends", MemoryType.LONG_TERM),
    ("I'm vegetarian", MemoryType.PERMANENT),
    ("Remember that I work as a nurse at the city hospital", MemoryType.PERMANENT),
]


@pytest.mark.parametrize(("text", "tier"), OWN_FACTS)
def test_remember_without_a_caller_stores_the_users_own_fact(plain: MemoryProvider, text: str,
                                                               tier: MemoryType) -> None:
    result = plain.remember(text, user_id="u1")
    assert result.action == "added" and result.memory_type is tier and result.id is not None
    assert not result.content.lower().startswith("remember")
    hits = plain.recall(text, user_id="u1", top_k=3)
    assert result.id in [h.id for h in hits]


def test_the_users_facts_are_theirs_alone(plain: MemoryProvider) -> None:
    fact = plain.remember("I am allergic to peanuts", user_id="u1")
    assert fact.memory_type is MemoryType.PERMANENT
    assert plain.recall("What am I allergic to?", user_id="u2") == []
    with pytest.raises(PermissionDeniedError):
        plain.get(fact.id, caller=Caller.for_user("u2"))
    assert plain.get(fact.id, caller=Caller.for_user("u1")).id == fact.id
    # reads about u1 are u1's own; a third party's caller and a read bound to no user keep needing the permission
    assert fact.id in [h.id for h in plain.search("allergic peanuts", user_id="u1")]
    assert all(h.memory_type is not MemoryType.PERMANENT
               for h in plain.search("allergic peanuts", user_id="u1", caller=Caller("app")))
    with pytest.raises(PermissionDeniedError):
        plain.get(fact.id)


def test_the_user_corrects_and_forgets_their_own_fact(plain: MemoryProvider) -> None:
    fact = plain.remember("I live in Beijing", user_id="u1")
    assert fact.id is not None and fact.memory_type is MemoryType.PERMANENT
    # a call bound to no user, a third party and another user keep today's limits: nothing changes
    with pytest.raises(PermissionDeniedError):
        plain.update(fact.id, "The user lives in Shanghai.")
    with pytest.raises(PermissionDeniedError):
        plain.update(fact.id, "The user lives in Shanghai.", user_id="u1", caller=Caller("app", read_permanent=True))
    with pytest.raises(NotFoundError):
        plain.delete(fact.id, user_id="u2")
    with pytest.raises(PermissionDeniedError):
        plain.delete(fact.id)
    assert [r.version for r in plain.history(fact.id, user_id="u1")] == [1]
    # the user themselves: a new version (the old one stays in the history), then forgotten
    assert plain.update(fact.id, "The user lives in Shanghai.", user_id="u1") == 2
    assert plain.get(fact.id, user_id="u1").content == "The user lives in Shanghai."
    assert plain.history(fact.id, user_id="u1")[0].content.startswith("The user lives in Beijing")
    assert plain.delete(fact.id, user_id="u1")
    assert plain.recall("Where do I live?", user_id="u1") == []


def test_a_tool_result_never_writes_a_fact_on_the_users_authority(plain: MemoryProvider) -> None:
    result = plain.remember("The user's account plan is Enterprise", user_id="u1", source="tool", session_id="s")
    assert result.memory_type is not MemoryType.PERMANENT


def test_a_caller_that_may_not_write_facts_keeps_the_statement_in_the_profile(plain: MemoryProvider) -> None:
    result = plain.remember("I live in Hangzhou", user_id="u1", caller=Caller("app", read_permanent=True))
    assert result.action == "added" and result.memory_type is MemoryType.LONG_TERM
    assert "may not write permanent" in result.reason


def test_a_short_session_leaves_its_facts_behind(plain: MemoryProvider) -> None:
    s = plain.session("u1", "first")
    for user, reply in [("Hi!", "Hello."), ("I am allergic to peanuts, by the way.", "Noted."),
                        ("I live in Hangzhou and work remotely.", "Nice city."), ("Thanks, bye", "Bye!")]:
        s.add_messages([("user", user), ("assistant", reply)])
    s.close()
    plain.flush()
    tiers = {r.content: r.memory_type for r in plain.list_memories(user_id="u1", caller=Caller.for_user("u1"))}
    assert tiers.get("The user is allergic to peanuts.") is MemoryType.PERMANENT
    assert any("lives in Hangzhou and works remotely" in c for c in tiers)
    hits = plain.recall("Where do I live?", user_id="u1")
    assert any("Hangzhou" in h.content for h in hits)


# --------------------------------------------------------------------- agreement of the rule normaliser
AGREEMENT = [
    ("I am allergic to peanuts and live in Hangzhou", "The user is allergic to peanuts and lives in Hangzhou"),
    ("I live in Hangzhou and work remotely", "The user lives in Hangzhou and works remotely"),
    ("I moved to Shanghai and work at a bank", "The user moved to Shanghai and works at a bank"),
    ("I have two kids and work as a nurse", "The user has two kids and works as a nurse"),
    ("I am a teacher and play the cello on weekends", "The user is a teacher and plays the cello on weekends"),
    ("I mostly write Python and avoid Java", "The user mostly writes Python and avoids Java"),
    ("I like jazz and live music", "The user likes jazz and live music"),
    ("I can swim and dive", "The user can swim and dive"),
    ("I will travel and work abroad", "The user will travel and work abroad"),
    ("I quit smoking and exercise every day", "The user quit smoking and exercises every day"),
    ("I own a dog and walk him twice a day", "The user owns a dog and walks him twice a day"),
    ("I run every morning and swim on Sundays", "The user runs every morning and swims on Sundays"),
    ("I prefer tea and drink coffee only at work", "The user prefers tea and drinks coffee only at work"),
    ("I study law and work part-time at a cafe", "The user studies law and works part-time at a cafe"),
    ("I speak French and teach Spanish", "The user speaks French and teaches Spanish"),
    ("I love hiking and hate crowds", "The user loves hiking and hates crowds"),
    ("I rent a flat and live alone", "The user rents a flat and lives alone"),
    ("I was born in Chengdu and live in Beijing", "The user was born in Chengdu and lives in Beijing"),
    ("I work from home and commute twice a week", "The user works from home and commutes twice a week"),
    ("I usually cook at home and eat out on Fridays", "The user usually cooks at home and eats out on Fridays"),
    ("I manage a team and lead the data platform", "The user manages a team and leads the data platform"),
    ("I don't eat meat or drink alcohol", "The user doesn't eat meat or drink alcohol"),
    ("I have a cat and live near the park", "The user has a cat and lives near the park"),
    ("I enjoy painting and sing in a choir", "The user enjoys painting and sings in a choir"),
    ("I am learning Japanese and plan to visit Kyoto", "The user is learning Japanese and plans to visit Kyoto"),
    ("I play tennis and volunteer at a shelter", "The user plays tennis and volunteers at a shelter"),
    ("I wake up early and read before work", "The user wakes up early and reads before work"),
    ("I avoid sugar and drink green tea", "The user avoids sugar and drinks green tea"),
    ("I use Linux and write Rust", "The user uses Linux and writes Rust"),
    ("I build furniture and sell it online", "The user builds furniture and sells it online"),
    ("I need glasses and wear them for reading", "The user needs glasses and wears them for reading"),
    ("I could cook and clean", "The user could cook and clean"),
    ("I should sleep and exercise more", "The user should sleep and exercise more"),
    ("I know Go and use it at work", "The user knows Go and uses it at work"),
    ("I teach math and coach the school team", "The user teaches math and coaches the school team"),
]
AGREEMENT_ZH = [
    ("我对花生过敏，住在杭州", "用户对花生过敏，住在杭州"),
    ("我住在杭州，远程工作", "用户住在杭州，远程工作"),
    ("我喜欢喝茶，不喝咖啡", "用户喜欢喝茶，不喝咖啡"),
    ("我有两个孩子，在医院工作", "用户有两个孩子，在医院工作"),
    ("我的女儿叫小美，今年七岁", "用户的女儿叫小美，今年七岁"),
    ("我是老师，周末拉大提琴", "用户是老师，周末拉大提琴"),
    ("我主用 Python，避免 Java", "用户主用 Python，避免 Java"),
    ("我们公司在上海，我住在苏州", "我们公司在上海，用户住在苏州"),
    ("我每天跑步，周日游泳", "用户每天跑步，周日游泳"),
    ("我养了一只猫，叫豆豆", "用户养了一只猫，叫豆豆"),
    ("我在银行上班，喜欢爬山", "用户在银行上班，喜欢爬山"),
    ("我吃素，也不喝酒", "用户吃素，也不喝酒"),
    ("我从北京搬到了上海，在一家新能源公司工作", "用户从北京搬到了上海，在一家新能源公司工作"),
    ("我学日语，打算去京都", "用户学日语，打算去京都"),
    ("我的妈妈住在成都，我住在北京", "用户的妈妈住在成都，用户住在北京"),
]


@pytest.mark.parametrize(("text", "expected"), AGREEMENT + AGREEMENT_ZH)
def test_rule_normaliser_keeps_verbs_agreeing_in_compound_statements(text: str, expected: str) -> None:
    assert rule_normalize(text) == expected


def test_agreement_list_is_large_enough() -> None:
    assert len(AGREEMENT) + len(AGREEMENT_ZH) >= 50
