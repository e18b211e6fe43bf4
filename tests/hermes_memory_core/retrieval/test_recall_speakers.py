"""Recall for a question about the user alone: what the user said ranks before the assistant's reply to it, and the
reply does not push the user's profile out (both metadata backends, the real model, a week later)."""

from __future__ import annotations

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.retrieval.ordering import about_user_alone
from tests.fakes import Clock

WEEK = 7 * 86_400
TALK = [("I play the cello on weekends.", "That's a fun instrument."),
        ("My daughter Mia just started school.", "Congratulations to her!"),
        ("I'm vegetarian, by the way.", "Good to know.")]

pytestmark = pytest.mark.real_model


def talk_then_wait(mem: MemoryProvider, clock: Clock, talk: list[tuple[str, str]] = TALK, later: int = WEEK) -> None:
    """Ann's session "monday": each (said, reply) a minute apart, closed and its background work done; the clock
    then moves ``later`` seconds on."""
    s = mem.session("ann", "monday")
    for said, reply in talk:
        clock.now += 60
        s.add_messages([{"role": "user", "content": said}, {"role": "assistant", "content": reply}])
    s.close()
    mem.flush()
    clock.now += later


def test_the_users_line_ranks_before_the_reply_that_shares_the_questions_word(
    clocked_real_store: tuple[MemoryProvider, Clock],
) -> None:
    mem, clock = clocked_real_store
    talk_then_wait(mem, clock)
    searched = [h.content for h in mem.search("What instrument do I play?", user_id="ann", top_k=5)]
    # the reply has the question's word "instrument"; the line it answered is found by it too (the turn was written in
    # one call, one second: its lines still lend each other context in the order they were said)
    assert searched.index("I play the cello on weekends.") < searched.index("That's a fun instrument.")
    recalled = [h.content for h in mem.recall("What instrument do I play?", user_id="ann")]
    # the profile is not pushed out by the reply, and it says once what the user's line said
    assert recalled.index("The user plays the cello on weekends.") < recalled.index("That's a fun instrument.")
    assert "I play the cello on weekends." not in recalled


def test_a_question_about_the_family_brings_the_users_family_fact(
    clocked_real_store: tuple[MemoryProvider, Clock],
) -> None:
    mem, clock = clocked_real_store
    talk_then_wait(mem, clock)
    recalled = [h.content for h in mem.recall("Tell me about my family.", user_id="ann")]
    assert recalled and "daughter Mia" in recalled[0]
    recalled = [h.content for h in mem.recall("我的家人怎么样？", user_id="ann")]
    assert recalled and "Mia" in recalled[0]


@pytest.mark.parametrize(("question", "alone"), [
    ("What instrument do I play?", True), ("我喜欢什么乐器？", True), ("What did you suggest for my cache?", False),
    ("What did we decide about the trip?", False), ("你上次给我推荐了什么？", False), ("What does Ann play?", False),
])
def test_which_questions_are_about_the_user_alone(question: str, alone: bool) -> None:
    assert about_user_alone(question) is alone


def test_a_question_asked_again_brings_last_times_reply_not_the_old_question(
    clocked_real_store: tuple[MemoryProvider, Clock],
) -> None:
    mem, clock = clocked_real_store
    talk_then_wait(mem, clock, [("My daughter is called Mia.", "Lovely name."),
                                ("What instrument should I learn?", "Maybe the cello: you said you like low voices.")])
    asked = "what instrument should I learn"
    assert any(h.content == "What instrument should I learn?" for h in mem.search(asked, user_id="ann", top_k=5))
    recalled = [h.content for h in mem.recall(asked, user_id="ann")]
    assert recalled[0] == "Maybe the cello: you said you like low voices."
    assert "What instrument should I learn?" not in recalled  # the same question holds no answer
    other = [h.content for h in mem.recall("Which instrument did you suggest?", user_id="ann")]
    # a differently worded question gets the reply too: an earlier question never holds an answer
    assert other[0] == "Maybe the cello: you said you like low voices."
    assert "What instrument should I learn?" not in other


def test_for_a_question_about_the_user_their_own_lines_come_before_the_assistants() -> None:
    """The user is the authority on themselves: every line the user said (and every fact kept about them) goes before
    the assistant's lines, each group in its order; the reply to this same question asked before keeps its place."""
    from hermes_memory_core import CONVERSATION_KIND, MemoryHit, MemoryRecord, MemoryType
    from hermes_memory_core.retrieval.ordering import speaker_first

    def line(mid: str, role: str | None) -> MemoryHit:
        meta = {"kind": CONVERSATION_KIND, "role": role, "turn": 1} if role else {}
        rec = MemoryRecord(id=mid, user_id="ann", session_id="s", content=mid, memory_type=MemoryType.SHORT_TERM,
                           importance=0.3, created_at=0, updated_at=0, access_count=0, expires_at=None, version=1,
                           metadata=meta)
        return MemoryHit(rec, 0.5, 0.5)

    hits = [line("reply-a", "assistant"), line("said-a", "user"), line("reply-b", "assistant"), line("fact", None),
            line("said-b", "user")]
    assert [h.id for h in speaker_first(hits)] == ["said-a", "fact", "said-b", "reply-a", "reply-b"]
    assert [h.id for h in speaker_first(hits, frozenset({"reply-a"}))] == [
        "reply-a", "said-a", "fact", "said-b", "reply-b"]
