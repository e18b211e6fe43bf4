"""The session ring buffer: 12 turns, oldest 4 summarised and appended, re-compressed past 500 characters."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from hermes_memory_core import MemoryConfig, MemoryProvider, MemoryType
from hermes_memory_core.short_term.summarizer import ExtractiveSummarizer, clip
from tests.conftest import ADMIN
from tests.fakes import Clock
from tests.hermes_memory_core.fake_llms import ScriptedLLM


def _turn(i: int) -> list[tuple[str, str]]:
    return [("user", f"Question {i}: please plan step {i} of the data migration."), ("assistant", f"Answer {i}.")]


def test_overflow_summarises_oldest_four_with_host_llm(mem: MemoryProvider) -> None:
    llm = ScriptedLLM()
    s = mem.session("u", "s1", llm=llm)
    for i in range(12):
        s.add_messages(_turn(i))
    s.flush()
    assert s.view().summary == "" and len(s.view().turns) == 12
    s.add_messages(_turn(12))
    s.flush()
    view = s.view()
    assert len(view.turns) == 9  # 13 - 4
    assert view.turns[0][0].content.startswith("Question 4")
    assert view.summary.startswith("LLM-SUMMARY-1") and len(view.summary) <= 200
    assert llm.summaries == 1


def test_summary_is_appended_then_compressed(mem: MemoryProvider) -> None:
    llm = ScriptedLLM()
    s = mem.session("u", "s1", llm=llm)
    for i in range(30):
        s.add_messages(_turn(i))
        s.flush()
    chunks = mem.engine.sessions.chunks("u", "s1")
    assert llm.summaries == 5  # turns 0-19 summarised in 5 chunks of 4
    assert any("LLM-COMPRESSED" in c.text for c in chunks)  # passed 500 chars once
    assert sum(len(c.text) for c in chunks) <= mem.config.summary_max_chars
    assert len(s.view().turns) == 10
    assert all(len(c.text) <= 200 for c in chunks)


def test_view_caps_at_ring_size_and_never_mixes_sessions(mem: MemoryProvider) -> None:
    a, b = mem.session("u", "a"), mem.session("u", "b")
    a.add_messages(_turn(1))
    b.add_messages([("user", "only in b")])
    assert [m.content for m in b.view().messages] == ["only in b"]
    assert mem.session("other-user", "a").view().turns == []


def test_buffer_survives_restart(config, embedder) -> None:  # type: ignore[no-untyped-def]
    with MemoryProvider(config, embedder=embedder) as mem:
        s = mem.session("u", "s")
        for i in range(14):
            s.add_messages(_turn(i))
        s.flush()
        before = (s.view().summary, [[m.content for m in t] for t in s.view().turns])
    with MemoryProvider(config, embedder=embedder) as mem:
        s = mem.session("u", "s")
        assert (s.view().summary, [[m.content for m in t] for t in s.view().turns]) == before
        assert before[0]  # the extractive fallback summarised turns 0-3


def test_two_writers_never_lose_a_turn(mem: MemoryProvider) -> None:
    mem.config.ring_size = 500
    s1, s2 = mem.session("u", "shared"), mem.session("u", "shared")

    def write(s, tag):  # type: ignore[no-untyped-def]
        for i in range(25):
            s.add_messages([("user", f"{tag}-{i}"), ("assistant", f"ok {tag}-{i}")])

    threads = [threading.Thread(target=write, args=(s1, "A")), threading.Thread(target=write, args=(s2, "B"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    turns = mem.session("u", "shared").view().turns
    assert len(turns) == 50
    assert all(len(t) == 2 and t[1].content == "ok " + t[0].content for t in turns)  # turns never interleave
    assert {t[0].content for t in turns} == {f"{x}-{i}" for x in "AB" for i in range(25)}


def test_tool_results_belong_to_the_turn(mem: MemoryProvider) -> None:
    s = mem.session("u", "t")
    s.add_messages([("user", "weather?"), ("assistant", "calling tool"), ("tool", "18°C"), ("assistant", "18°C")])
    s.add_messages([("user", "thanks")])
    assert [len(t) for t in s.view().turns] == [4, 1]


def test_context_tokens_counts_summary_and_turns(mem: MemoryProvider) -> None:
    s = mem.session("u", "tok")
    full = 0
    from hermes_memory_core.tokens import count_message_tokens

    for i in range(40):
        s.add_messages(_turn(i))
        full += count_message_tokens(_turn(i))
    s.flush()
    assert 0 < s.context_tokens() < full * 0.6


def test_clear(mem: MemoryProvider) -> None:
    s = mem.session("u", "c")
    for i in range(14):
        s.add_messages(_turn(i))
    s.flush()
    s.clear()
    assert s.view().turns == [] and s.view().summary == ""


def test_extractive_summarizer_is_deterministic_and_bounded() -> None:
    turns = [("user", "I need the report by Friday. Hello there."), ("assistant", "Sure."),
             ("user", "我们决定用 Airflow 调度。还要迁移 3 个任务。")]
    a = ExtractiveSummarizer().summarize(turns, 60)
    assert a == ExtractiveSummarizer().summarize(turns, 60) and len(a) <= 60
    assert "Friday" in a or "Airflow" in a
    assert len(ExtractiveSummarizer().compress(["x" * 300, "y" * 300], 100)) <= 100
    # what the user asks is chat: a summary of the questions asked tells the next turn nothing
    asked = [("user", "Where do I live? 我住在哪里？"), ("assistant", "In Beijing."),
             ("user", "I moved to Shanghai. What's my job again?"), ("assistant", "A data engineer.")]
    assert ExtractiveSummarizer().summarize(asked, 200) == "I moved to Shanghai."
    assert ExtractiveSummarizer().summarize(asked[:2], 200) == ""
    assert clip("a  b   c", 3) == "a …" or len(clip("a  b   c", 3)) <= 3


CHILD = """
import os, sys
from hermes_memory_core import MemoryConfig, MemoryProvider, MemoryType
mem = MemoryProvider(MemoryConfig(data_dir=sys.argv[1]))
s = mem.session("u", "crash")
for i in range(20):
    s.add_messages([("user", f"turn {i}: remember the budget is {i}00 euros"), ("assistant", "noted")])
os._exit(0)   # killed: no close(), background work may be unfinished
"""


def test_kill_loses_no_acknowledged_turn(tmp_path: Path, real_embedder) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "d"
    res = subprocess.run([sys.executable, "-c", CHILD, str(data)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    with MemoryProvider(MemoryConfig(data_dir=data), embedder=real_embedder) as mem:
        mem.flush()  # resumes what the dead process left
        s = mem.session("u", "crash")
        live = [int(t[0].turn) for t in s.view().turns]
        summarised = [(c.first_turn, c.last_turn) for c in mem.engine.sessions.chunks("u", "crash")]
        covered = set(live) | {n for a, b in summarised for n in range(a, b + 1)}
        assert covered == set(range(20))
        assert len(live) <= mem.config.ring_size
        assert mem.engine.sessions.queued() == []  # evicted turns were promoted


async def test_begin_on_an_empty_session_ends_the_users_other_sessions_once(config: MemoryConfig, embedder) -> None:  # type: ignore[no-untyped-def]
    clock = Clock()
    with MemoryProvider(config, embedder=embedder, caller=ADMIN, clock=clock) as mem:
        left = mem.session("u1", "left")
        left.add_messages([{"role": "user", "content": "I am allergic to peanuts."},
                           {"role": "assistant", "content": "Noted."}])
        mem.session("u2", "theirs").add_messages([{"role": "user", "content": "I am allergic to cats."},
                                                  {"role": "assistant", "content": "Noted."}])
        ended: list[tuple[str, str]] = []
        events = mem._sessions.events  # type: ignore[attr-defined]
        began = events.began
        events.began = lambda u, s: (ended.append((u, s)), began(u, s))
        # the same second (times are whole seconds), not idle: only the new session says the user left the first one
        await mem.session("u1", "new").abegin()  # read before its first message
        mem.flush()
        assert ended == [("u1", "new")]
        assert any(h.memory_type is MemoryType.PERMANENT for h in mem.search("allergic peanuts", user_id="u1"))
        assert not any(h.memory_type is MemoryType.PERMANENT for h in mem.search("allergic cats", user_id="u2"))
        left.begin()  # a session with turns: nothing happens
        assert ended == [("u1", "new")]
