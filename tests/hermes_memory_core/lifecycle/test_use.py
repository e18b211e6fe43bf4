"""Memory over use: what the user asks is chat, never knowledge; a change replaces only its own fact; the host
model the surface was given classifies a conversation left open at exit (promotion and updates, both tiers)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider, MemoryType, RememberAction
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.lifecycle.classifier import fact_key_of
from tests.conftest import ADMIN
from tests.hermes_memory_core.fake_llms import ScriptedLLM

ASKED = ["Which code editor do I like?", "用户每天早上练习什么？", "I wonder whether I told you my blood type",
         "你知道我老板叫什么名字吗", "What's my job again?", "我是不是说过我对花生过敏"]


def _keying(content: str) -> str:
    """A host model that keys by topic, as small local models do (a question shares its answer's topic)."""
    key = "editor" if "editor" in content.lower() or "Neovim" in content else "boss" if "老板" in content else "job"
    return json.dumps({"type": "permanent", "reason": "scripted", "key": key, "to_assistant": False})


def _lasting(mem: MemoryProvider, user: str) -> list[str]:
    records = mem.list_memories(user_id=user, memory_types=["long_term", "permanent"], caller=ADMIN)
    return [v.content for r in records for v in mem.history(r.id, caller=ADMIN)]


@pytest.mark.parametrize("llm", [None, ScriptedLLM(classify=_keying, normalize=lambda c: c)], ids=["rules", "keying"])
def test_a_question_is_never_a_profile_entry_a_fact_or_a_version(mem: MemoryProvider, llm: ScriptedLLM | None) -> None:
    mem.remember("I like to write code in Neovim.", user_id="u", llm=llm)
    mem.remember("我的老板叫王强。", user_id="u", llm=llm)
    before = _lasting(mem, "u")
    for question in ASKED:
        result = mem.remember(question, user_id="u", llm=llm)
        assert result.action is RememberAction.SKIPPED and result.id is None, question
    chat = mem.session("u", "asking", llm=llm)
    for question in ASKED:
        chat.add_messages([("user", question), ("assistant", "I'm not sure.")])
    chat.close()
    mem.flush()
    assert _lasting(mem, "u") == before  # no new memory, no new version


def test_a_statement_followed_by_a_question_keeps_only_the_statement(mem: MemoryProvider) -> None:
    result = mem.remember("I moved to Munich last month. Do you know any good bakeries there?", user_id="u")
    assert result.content is not None and "Munich" in result.content and "bakeries" not in result.content


def test_a_move_versions_the_residence_not_the_office(mem: MemoryProvider) -> None:
    home = mem.remember("我住在北京朝阳区", user_id="u")
    office = mem.add("The user's office is in Beijing's Haidian district", user_id="u", memory_type="long_term")
    moved = mem.remember("I moved from Beijing to Shanghai last month.", user_id="u")
    assert moved.action is RememberAction.VERSIONED and moved.id == home.id
    assert mem.get(office).version == 1 and "Haidian" in mem.get(office).content
    assert "Shanghai" in mem.get(home.id).content
    for question in ("Where does the user live now?", "用户现在住在哪里？"):
        assert "Shanghai" in mem.recall(question, user_id="u")[0].content


def test_a_job_change_in_the_other_language_versions_the_job(mem: MemoryProvider) -> None:
    job = mem.remember("I work as a data engineer", user_id="u")
    changed = mem.remember("我换工作了，现在是机器学习工程师", user_id="u")
    assert changed.action is RememberAction.VERSIONED and changed.id == job.id
    assert "机器学习工程师" in mem.recall("What is my job?", user_id="u")[0].content


#: (the fact, a change said as users say it, a word of the new value, a question about it)
CHANGES = [
    ("I work as a nurse at a hospital.", "I'm a paramedic now.", "paramedic", "What is my job?"),
    ("I'm vegetarian.", "I went pescatarian last month.", "pescatarian", "What's my diet?"),
    ("My manager is Tom.", "I got a new manager, Ana.", "Ana", "Who is my manager?"),
    ("我是一名医生。", "I switched careers, I'm a teacher now.", "teacher", "What do I do for work?"),
    ("I drive a Honda Civic.", "My new car is a Tesla Model 3.", "Tesla", "What car do I drive?"),
    ("我开的是一辆本田思域。", "我的新车是特斯拉。", "特斯拉", "我开什么车？"),
    ("I play the cello.", "I gave up the cello and took up the violin.", "violin", "What instrument do I play?"),
    ("I play the cello.", "I play the violin now.", "violin", "What instrument do I play?"),
    ("我拉大提琴。", "我现在拉小提琴，不拉大提琴了。", "小提琴", "我会什么乐器？"),
    ("I drive a Toyota Corolla.", "I sold my Corolla and bought a Tesla Model 3.", "Tesla", "What car do I drive?"),
    ("我开的是一辆丰田卡罗拉。", "我把车换成了特斯拉。", "特斯拉", "我开什么车？"),
    ("我叫张伟。", "我叫张小伟。", "张小伟", "我叫什么名字？"),
    ("我的老板叫王强。", "我换了个新领导，叫李娜。", "李娜", "我的老板是谁？"),
    ("I work as a nurse.", "I quit nursing and now work as a teacher.", "teacher", "What is my job?"),
    ("我是护士。", "我已经不是护士了，现在是急救员。", "急救员", "我做什么工作？"),
    ("我住在杭州。", "我现在在深圳住。", "深圳", "我住在哪里？"),
]


@pytest.mark.parametrize(("fact", "change", "new", "question"), CHANGES, ids=[c[2] for c in CHANGES])
def test_a_change_said_in_passing_versions_its_fact(mem: MemoryProvider, fact: str, change: str, new: str,
                                                    question: str) -> None:
    first = mem.remember(fact, user_id="u")
    assert first.memory_type in (MemoryType.LONG_TERM, MemoryType.PERMANENT), fact
    changed = mem.remember(change, user_id="u")
    assert changed.action is RememberAction.VERSIONED and changed.id == first.id, (change, changed)
    assert new in mem.recall(question, user_id="u")[0].content


def test_a_job_said_in_chinese_is_kept_as_the_users_job(mem: MemoryProvider) -> None:
    kept = mem.remember("我在一家医院做麻醉师", user_id="u")
    assert kept.memory_type is MemoryType.PERMANENT and fact_key_of(kept.content or "") == "occupation"
    assert "麻醉师" in mem.recall("What is my job?", user_id="u")[0].content


def test_a_new_fact_does_not_version_another_fact_that_shares_its_words(mem: MemoryProvider) -> None:
    allergy = mem.remember("I'm allergic to peanuts.", user_id="u")
    other = mem.remember("I'm allergic to penicillin.", user_id="u")
    assert other.action is RememberAction.ADDED and other.id != allergy.id


def test_a_conversation_left_open_at_exit_is_classified_by_the_surface_s_model(tmp_path: Path) -> None:
    """A script that never closes its session or store: the process's exit ends the session with the model the
    session was given (its reason names the scripted model), not the rules of a later process."""
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
        from hermes_memory_core import MemoryProvider
        from tests.conftest import make_config
        from tests.fakes import HashingEmbedder
        from tests.hermes_memory_core.fake_llms import ScriptedLLM
        llm = ScriptedLLM(classify=lambda c: json.dumps({{"type": "long_term", "reason": "host model", "key": None}}),
                          normalize=lambda c: "The user likes sailing on weekends.")
        mem = MemoryProvider(make_config({str(tmp_path / "store")!r}), embedder=HashingEmbedder())
        mem.session("u", "t1", llm=llm).add_messages([("user", "I like sailing on weekends."), ("assistant", "Nice!")])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    from tests.conftest import make_config
    from tests.fakes import HashingEmbedder

    with MemoryProvider(make_config(tmp_path / "store"), embedder=HashingEmbedder(), caller=Caller.admin("t")) as mem:
        profile = mem.list_memories(user_id="u", memory_types=["long_term"])
    assert [r.content for r in profile] == ["The user likes sailing on weekends."]
    assert profile[0].metadata["reason"] == "host model"


def test_a_fact_and_its_change_carry_the_time_they_were_said(tmp_path: Path) -> None:
    """A session promoted days after its turns (ended by the next process, or by idleness) gives its facts the time
    the user said them, not the time they were promoted; so does the version a change makes."""
    from hermes_memory_core import MemoryConfig
    from tests.fakes import Clock

    clock = Clock()
    said = int(clock.now)
    with MemoryProvider(MemoryConfig(data_dir=tmp_path / "store"), clock=clock) as mem:
        chat = mem.session("kai", "monday")
        chat.add_messages([("user", "I work as an anesthesiologist at a hospital."), ("assistant", "Noted.")])
        clock.now += 3 * 86_400  # the session ends three days later
        chat.close()
        mem.flush()
        facts = mem.list_memories(user_id="kai", memory_types=["long_term", "permanent"], caller=ADMIN)
        assert [f.content for f in facts if "anesthesiologist" in f.content.lower()], facts
        assert all(f.created_at == said for f in facts if "anesthesiologist" in f.content.lower())
        clock.now += 7 * 86_400
        moved = int(clock.now)
        chat = mem.session("kai", "next week")
        chat.add_messages([("user", "I changed jobs, now I work as a data engineer."), ("assistant", "Congrats!")])
        clock.now += 2 * 86_400
        chat.close()
        mem.flush()
        job = next(f for f in mem.list_memories(user_id="kai", memory_types=["long_term", "permanent"], caller=ADMIN)
                   if "anesthesiologist" in mem.history(f.id, caller=ADMIN)[0].content.lower())
        versions = mem.history(job.id, caller=ADMIN)
    assert len(versions) == 2 and "data engineer" in versions[-1].content, versions
    assert versions[-1].created_at == moved == job.updated_at  # when it was said, not two days later


@pytest.mark.parametrize(("said", "kept"), [
    ("Hi! I work as a data engineer at Acme.", "The user works as a data engineer at Acme."),
    ("Thanks! My cat is called Mochi.", "The user's cat is called Mochi."),
    ("你好！我在一家医院做麻醉师。", "用户在一家医院做麻醉师。"),
    ("Some news: I'm a paramedic now.", "The user is a paramedic now."),
])
def test_a_greeting_around_a_statement_is_no_part_of_the_fact(mem: MemoryProvider, said: str, kept: str) -> None:
    assert mem.remember(said, user_id="u").content == kept


@pytest.mark.parametrize("passed_on", ['My friend Tom told me "I moved to Madrid."', "My friend Tom told me “I moved to Madrid.”",
                                       "朋友跟我说“我搬到马德里了”", "The assistant told me: you live in Madrid now."])
def test_someone_elses_words_never_version_the_users_fact(mem: MemoryProvider, passed_on: str) -> None:
    home = mem.remember("我住在杭州。", user_id="u")
    chat = mem.session("u", "news")
    chat.add_messages([("user", passed_on), ("assistant", "Oh, nice.")])
    chat.close()
    mem.flush()
    assert mem.remember(passed_on, user_id="u").action is not RememberAction.VERSIONED
    assert mem.get(home.id).version == 1 and "杭州" in mem.get(home.id).content
    assert "杭州" in mem.recall("Where do I live?", user_id="u")[0].content


def test_lines_passed_on_from_others_stand_below_the_users_own(mem: MemoryProvider) -> None:
    chat = mem.session("u", "w1")
    chat.add_messages([("user", "Bob wrote: I am allergic to shellfish."), ("assistant", "ok"),
                       ("user", "I'm allergic to penicillin, by the way."), ("assistant", "Noted.")])
    chat.close()
    mem.flush()
    lines = [h.content for h in mem.recall("What am I allergic to?", user_id="u")]
    assert "penicillin" in lines[0] and all("penicillin" not in ln for ln in lines[1:] if "Bob" in ln)


def test_what_i_do_for_a_living_asks_about_the_job(mem: MemoryProvider) -> None:
    from hermes_memory_core.retrieval.gate import question_topics

    assert question_topics("What do I do for a living?") == {"occupation", "employer"}
    mem.remember("I live in Hangzhou.", user_id="u")
    mem.remember("I work as a nurse at a hospital.", user_id="u")
    assert "nurse" in mem.recall("What do I do for a living?", user_id="u")[0].content


@pytest.mark.parametrize("remark", ["My car is in the shop.", "My car broke down on the highway.", "我的车坏了。",
                                    "I drive a lot for work."])
def test_a_remark_about_a_thing_is_not_a_new_version_of_it(mem: MemoryProvider, remark: str) -> None:
    car = mem.remember("I drive a Honda Civic.", user_id="u")
    assert mem.remember(remark, user_id="u").id != car.id
    assert mem.get(car.id).version == 1


#: A fact, then what must not change it (a remark, someone else's job, a hypothetical, a wish, a plan).
UNCHANGED = [
    ("My boss is Tom.", ["My boss is annoying.", "I'm meeting my new manager tomorrow.", "My manager's wife plays the violin.",
                         "My boss's car is a Porsche."]),
    ("I have a cat named Mochi.", ["My cat is sick.", "I took my cat to the vet.", "我的猫生病了。"]),
    ("I work as a nurse.", ["I'm a terrible driver.", "I'm a nurse's daughter.", "I'm a big Doctor Who fan.",
                            "My job is so stressful this week.", "I got a job interview tomorrow.",
                            "I retired my old laptop last week.", "If I were a teacher, I'd quit.", "我朋友跳槽了。",
                            "我是护士的女儿。", "我在找工作。", "我想换工作。", "如果我是老师就好了。"]),
    ("我住在杭州。", ["I live in fear of my landlord.", "我住院了。"]),
    ("I drive a Toyota Corolla.", ["I drive an hour to work each way.", "I drive a hard bargain."]),
    ("I'm vegetarian.", ["我只吃鱼香肉丝。"]),
    ("我叫张伟。", ["我有了个新老板，叫李娜。"]),
    ("My wife Sofia is a teacher.", ["I asked my wife if she's a pharmacist now.", "If I were a teacher, I'd quit."]),
]


@pytest.mark.parametrize(("fact", "remarks"), UNCHANGED, ids=[f[0] for f in UNCHANGED])
def test_what_is_not_a_new_value_never_versions_a_fact(mem: MemoryProvider, fact: str, remarks: list[str]) -> None:
    for n, remark in enumerate(remarks):
        user = f"u{n}"
        first = mem.remember(fact, user_id=user)
        mem.remember(remark, user_id=user)
        chat = mem.session(user, "chat")
        chat.add_messages([("user", remark), ("assistant", "I see.")])
        chat.close()
        mem.flush()
        assert mem.get(first.id).version == 1, (fact, remark, mem.get(first.id).content)


def test_a_kind_question_is_answered_by_what_the_user_does_never_by_others(mem: MemoryProvider) -> None:
    """A line naming a language, a sport or an instrument answers "which language / sport / instrument" only when it
    says the user speaks, plays or does it: "I love Chinese food" and the brother's piano never answer it."""
    from hermes_memory_core.text.fact_topics import names_a_member

    for question, line in (("What instrument do I play?", "The user gave up the cello and took up the violin."),
                           ("我会什么乐器？", "用户拉大提琴。"), ("Which sport do I play?", "I play tennis on weekends"),
                           ("我做什么运动？", "我每周游泳"), ("What languages do I speak?", "I speak a bit of German")):
        assert names_a_member(question, line), (question, line)
    for question, line in (("我会说什么语言？", "The user loves Chinese food"), ("What instrument do I play?", "我哥哥弹钢琴。"),
                           ("What instrument do I play?", "My brother plays piano."),
                           ("What programming language do I use?", "用户会说日语"), ("Which sport do I play?", "用户会说日语")):
        assert not names_a_member(question, line), (question, line)
    mem.remember("I took up the violin last year.", user_id="u")
    assert "violin" in mem.recall("What instrument do I play?", user_id="u")[0].content


def test_a_kind_question_gets_the_newest_saying_first_and_nothing_when_the_user_never_said(
        config: MemoryConfig, embedder: Embedder) -> None:
    from tests.fakes import Clock

    clock = Clock()
    with MemoryProvider(config, embedder=embedder, clock=clock) as mem:
        chat = mem.session("u", "w1")
        chat.add_messages([("user", "I play the cello in a community orchestra."), ("assistant", "Lovely."),
                           ("user", "My daughter plays the piano."), ("assistant", "Nice!")])
        chat.close()
        mem.flush()
        clock.now += 7 * 86_400
        for never_said in ("What sport do I play?", "我做什么运动？", "Which languages do I speak?"):
            assert mem.recall(never_said, user_id="u") == [], never_said
        later = mem.session("u", "w3")
        later.add_messages([("user", "I switched from cello to violin."), ("assistant", "Exciting!")])
        later.close()
        mem.flush()
        clock.now += 7 * 86_400
        for question in ("What instrument do I play?", "我会什么乐器？"):
            assert "violin" in mem.recall(question, user_id="u")[0].content, question
        assert "piano" in mem.recall("What instrument does my daughter play?", user_id="u")[0].content


def test_the_users_fact_on_the_topic_comes_without_their_other_facts(mem: MemoryProvider) -> None:
    chat = mem.session("u", "w1")
    chat.add_messages([("user", "我的老板叫王强。"), ("assistant", "好的"), ("user", "我是素食者，不吃肉。"), ("assistant", "好的"),
                       ("user", "I have a cat named Mochi."), ("assistant", "Cute!"), ("user", "我住在杭州。"),
                       ("assistant", "好的")])
    chat.close()
    mem.flush()
    lines = [h.content for h in mem.recall("Who is my manager?", user_id="u")]
    assert "王强" in lines[0], lines
    assert not any(w in ln for ln in lines for w in ("素食", "Mochi", "杭州")), lines
