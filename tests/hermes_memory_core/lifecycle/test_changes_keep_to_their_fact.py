"""A change replaces only itself: the employer never replaces the job, a change said the other way in Chinese versions
its fact, and what a host model keys is held to the rules' reading of what is no fact (a wish, a remark about today,
a request, someone else's news)."""

from __future__ import annotations

import json

import pytest

from hermes_memory_core import MemoryProvider, RememberAction
from hermes_memory_core.lifecycle.classifier import fact_key_of
from tests.hermes_memory_core.fake_llms import ScriptedLLM


def _current(mem: MemoryProvider, user: str = "u") -> list[str]:
    return sorted(r.content for r in mem.list_memories(user_id=user, limit=100) if not r.is_conversation)


@pytest.mark.parametrize(("job", "employer", "new_job"), [
    ("我是一名数据工程师。", "I work for Siemens.", "I'm a machine learning engineer now."),
    ("I work as a data engineer.", "我现在在华为工作。", "我换工作了，现在是机器学习工程师。"),
])
def test_the_employer_and_the_job_are_two_facts(mem: MemoryProvider, job: str, employer: str, new_job: str) -> None:
    first = mem.remember(job, user_id="u")
    where = mem.remember(employer, user_id="u")
    assert where.action is RememberAction.ADDED and where.id != first.id
    changed = mem.remember(new_job, user_id="u")
    assert changed.action is RememberAction.VERSIONED and changed.id == first.id
    assert [v.content for v in mem.history(where.id, user_id="u")] == [where.content]  # the employer stays


def test_an_employer_stored_under_the_old_job_key_is_not_replaced_by_a_job(mem: MemoryProvider) -> None:
    """A store written before the table had an employer topic holds "works at Google" under ``occupation``: a new
    job leaves it be (it keeps to what it says), a new employer versions it."""
    old = mem.add("The user works at Google.", user_id="u", memory_type="permanent", metadata={"fact_key": "occupation"})
    job = mem.remember("I'm a nurse now.", user_id="u")
    assert job.id != old
    moved = mem.remember("I work for Siemens now.", user_id="u")
    assert moved.action is RememberAction.VERSIONED and moved.id == old


@pytest.mark.parametrize(("fact", "change", "key"), [
    ("I live in Hangzhou.", "我上个月搬到深圳了。", "residence"),
    ("I drive a Toyota Corolla.", "我现在开特斯拉了。", "vehicle"),
    ("I work for Siemens.", "我上个月入职了腾讯。", "employer"),
    ("I drive a Toyota Corolla.", "我换了车，现在开特斯拉。", "vehicle"),
    ("My girlfriend is Sofia.", "我和Sofia分手了，现在的女朋友叫Lena。", "family_partner"),
    ("我女朋友叫Sofia。", "I broke up with Sofia; my partner is now Lena.", "family_partner"),
    ("我住在杭州。", "I moved to Shenzhen last month.", "residence"),  # never the employer ("moved to X last…")
    # how people say a new partner or employer (trial seven)
    ("My girlfriend is Sofia.", "My new girlfriend is Mia.", "family_partner"),
    ("My girlfriend is Sofia.", "I have a new girlfriend, Mia.", "family_partner"),
    ("My partner is Sam.", "I'm dating Chris now.", "family_partner"),
    ("我女朋友叫Sofia。", "我现在的对象是小林。", "family_partner"),
    ("我女朋友叫Sofia。", "我有新女朋友了，叫小美。", "family_partner"),
    ("我男朋友叫Tom。", "我和Tom分手了，我的新男朋友叫Max。", "family_partner"),
    ("我在华为工作。", "我跳槽到腾讯了。", "employer"),
    # trial eight: a move said for the household ("we"), a relocation
    ("I live in Leeds.", "Big news: we moved to Bristol last weekend.", "residence"),
    ("我住在杭州。", "We just moved to a bigger flat in Punggol.", "residence"),
    ("I live in Leeds.", "我们上个月搬到上海了。", "residence"),
    ("I live in Hangzhou.", "I've relocated to Lisbon.", "residence"),
    ("我在华为工作。", "我去阿里上班了。", "employer"),
    ("我在华为工作。", "我从华为离职了，去了小米。", "employer"),
    ("I work for Siemens.", "I got a new job at Bosch.", "employer"),
    ("我对花生过敏。", "I'm no longer allergic to peanuts.", "allergy_peanut"),  # one allergen in both languages
    ("I'm allergic to penicillin.", "我现在对青霉素不过敏了。", "allergy_penicillin"),
])
def test_a_change_said_in_the_other_language_versions_its_fact(mem: MemoryProvider, fact: str, change: str,
                                                            key: str) -> None:
    first = mem.remember(fact, user_id="u")
    assert fact_key_of(change) == key
    changed = mem.remember(change, user_id="u")
    assert changed.action is RememberAction.VERSIONED and changed.id == first.id


def _keying(key: str) -> ScriptedLLM:
    """A host model that keys every statement with ``key`` and keeps it long-term (as small local models do)."""
    return ScriptedLLM(classify=lambda c: json.dumps({"type": "long_term", "reason": "scripted keying", "key": key}),
                       normalize=lambda c: c)


@pytest.mark.parametrize(("fact", "key", "said"), [
    ("I live in Hangzhou.", "residence", "I'm thinking about moving to Berlin."),
    ("I live in Hangzhou.", "residence", "My sister lives in Paris."),
    ("I have a cat named Mochi.", "pet", "By the way, Mochi has been sick this week."),
    ("我的老板叫王强。", "boss", "提醒我明天给老板发邮件。"),
    ("I live in Hangzhou.", "residence", "Remind me to call my landlord in Hangzhou."),
    ("I live in Hangzhou.", "residence", "I might move to Lyon next year."),  # trial seven
    ("我住在杭州。", "residence", "我打算明年搬到成都。"),
    ("我的老板叫王强。", "boss", "This week my boss is Ana while Wang is away."),
])
def test_a_host_models_key_never_turns_a_non_fact_into_a_version(mem: MemoryProvider, fact: str, key: str,
                                                                 said: str) -> None:
    first = mem.remember(fact, user_id="u", llm=_keying(key))  # the fact, kept by the same model
    kept = mem.remember(said, user_id="u", llm=_keying(key))
    assert kept.action is not RememberAction.VERSIONED and kept.id != first.id, kept
    assert [v.content for v in mem.history(first.id, user_id="u")] == [first.content]


@pytest.mark.parametrize(("fact", "key", "change"), [
    ("I work as a nurse.", "occupation", "Today I'm officially a paramedic."),  # trial seven: blocked as "today"
    ("我是一名护士。", "occupation", "我今天开始当急救员了。"),
    ("I drive a Toyota Corolla.", "vehicle", "我今天换了新车，特斯拉。"),
    ("I drive a Toyota Corolla.", "vehicle", "I got a Tesla this week, sold the Corolla."),
    ("I'm vegetarian.", "diet", "I went pescatarian today."),
    ("我的老板叫王强。", "boss", "My new boss is Ana, starting today"),
])
@pytest.mark.parametrize("with_model", [False, True], ids=["rules", "keying-model"])
def test_a_change_said_with_today_is_still_a_change(mem: MemoryProvider, fact: str, key: str, change: str,
                                                    with_model: bool) -> None:
    llm = _keying(key) if with_model else None
    first = mem.remember(fact, user_id="u", llm=llm)
    changed = mem.remember(change, user_id="u", llm=llm)
    assert changed.action is RememberAction.VERSIONED and changed.id == first.id, changed


@pytest.mark.parametrize(("fact", "key", "said"), [
    # trial eight: a model that keys both weekend activities "hobby", a catch-all key, a right key on a remark
    ("我每周六早上去游泳。", "hobby", "周末我常去西湖边骑车。"),
    ("我每周六早上去游泳。", "hobby", "I also play chess online."),
    ("I'm allergic to penicillin.", "chat", "周末我常去西湖边骑车。"),
    ("I'm allergic to penicillin.", "chat", "I'm now learning the piano."),  # news, but of another subject
    ("I have a border collie called Biscuit.", "pet", "Biscuit hated the car ride though, haha."),
])
def test_a_host_models_key_alone_never_replaces_a_memory(mem: MemoryProvider, fact: str, key: str,
                                                          said: str) -> None:
    first = mem.remember(fact, user_id="u", llm=_keying(key))
    kept = mem.remember(said, user_id="u", llm=_keying(key))
    assert kept.action is not RememberAction.VERSIONED and kept.id != first.id, kept
    assert [v.content for v in mem.history(first.id, user_id="u")] == [first.content]


@pytest.mark.parametrize(("fact", "change"), [
    ("My favourite band is Muse.", "Now my favourite band is Radiohead."),
    ("I play the cello in an orchestra.", "I switched from the cello to the viola in the orchestra."),
])
def test_a_host_models_key_versions_a_change_of_what_it_keyed(mem: MemoryProvider, fact: str, change: str) -> None:
    """A topic the rules do not know ("favourite_band") still versions when the statement says the value changed and
    names what the keyed memory is about."""
    first = mem.remember(fact, user_id="u", llm=_keying("favourite_thing"))
    changed = mem.remember(change, user_id="u", llm=_keying("favourite_thing"))
    assert changed.action is RememberAction.VERSIONED and changed.id == first.id, changed


def test_a_host_model_still_versions_a_real_change(mem: MemoryProvider) -> None:
    first = mem.remember("I live in Hangzhou.", user_id="u", llm=_keying("residence"))
    moved = mem.remember("I've relocated to Lisbon.", user_id="u", llm=_keying("residence"))
    assert moved.action is RememberAction.VERSIONED and moved.id == first.id


@pytest.mark.parametrize(("message", "kept"), [
    ("我搬到里昂了，你知道那边有什么好吃的面包店吗？", "里昂"),
    ("By the way, I moved to Lyon, can you recommend a dentist?", "Lyon"),  # trial seven
    ("I just moved to Lyon — any tips?", "Lyon"),
    ("我搬到里昂了，你知道里昂吗", "里昂"),
    ("Did you know I moved to Lyon?", "Lyon"),
    ("你知道吗，我搬到里昂了。", "里昂"),
    ("My blood type is O+, can you note that?", "O+"),
    ("I moved to Lyon, do you know any good bakeries?", "Lyon"),
    ("Could you remember that my daughter's name is Mia?", "Mia"),
    ("你能记住我女儿叫米娅吗？", "米娅"),
])
def test_a_statement_asked_with_a_question_is_kept_without_it(mem: MemoryProvider, message: str, kept: str) -> None:
    result = mem.remember(message, user_id="u")
    assert result.action is RememberAction.ADDED, result
    assert kept in (result.content or "") and not (result.content or "").rstrip().endswith(("?", "？", "吗"))


@pytest.mark.parametrize("question", ["Can you remember what my job is?", "你记得我住在哪里吗？", "我想知道，我住在哪里？",
                                      "Could you remember that for me, what's my cat called?", "你记住了吗？",
                                      "Hey, where do I live?", "Which editor do I like, Vim or Emacs?"])
def test_a_question_stays_a_question(mem: MemoryProvider, question: str) -> None:
    assert mem.remember(question, user_id="u").action is RememberAction.SKIPPED


def test_a_greeting_is_no_profile_entry(mem: MemoryProvider) -> None:
    chat = mem.session("u", "s1")
    chat.add_messages([("user", "Hi! I just started using this assistant. I live in Lyon."), ("assistant", "Welcome!")])
    chat.close()
    mem.flush()
    assert _current(mem) == ["The user lives in Lyon."]


@pytest.mark.parametrize(("question", "first"), [
    ("我做什么工作？", "数据工程师"), ("What is my job?", "数据工程师"),
    ("我在哪家公司上班？", "腾讯"), ("Where do I work?", "腾讯"),
])
def test_a_work_question_gets_what_it_asks_first(real_mem: MemoryProvider, question: str, first: str) -> None:
    """The job and the employer are both on a work question's topics; the one it asks comes first (trial seven: the
    newer employer came first for 我做什么工作？)."""
    real_mem.remember("我是一名数据工程师。", user_id="u")
    real_mem.remember("我在华为工作。", user_id="u")
    real_mem.remember("我跳槽到腾讯了。", user_id="u")  # the employer is the newer fact
    real_mem.flush()
    hits = real_mem.recall(question, user_id="u")
    assert hits and first in hits[0].content, [h.content for h in hits]


@pytest.mark.parametrize(("said", "kept"), [
    ("We live in Leeds, near Roundhay Park.", True),
    ("我们住在杭州。", True),
    ("We love pizza.", False),  # "we" about anything else speaks for no one in particular
    ("We moved the sofa to the garage.", False),
])
def test_where_the_household_lives_is_the_users_residence(mem: MemoryProvider, said: str, kept: bool) -> None:
    result = mem.remember(said, user_id="u")
    assert (result.action is RememberAction.ADDED) is kept, result
    if kept:
        assert mem.get(result.id, user_id="u").metadata.get("fact_key") == "residence"  # type: ignore[union-attr]
        assert [h.id for h in mem.recall("Where do I live?", user_id="u")][:1] == [result.id]
