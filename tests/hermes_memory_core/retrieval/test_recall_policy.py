"""Recall policy: an earlier question never takes an answer's place, nor does a reply that did not know or one that
restates another line; asking again a week later recalls what it did before (the real model, both backends)."""

from __future__ import annotations

import pytest

from hermes_memory_core import CONVERSATION_KIND, MemoryHit, MemoryProvider, MemoryRecord, MemoryType
from hermes_memory_core.retrieval.recall_policy import (
    asked,
    covers_focus,
    distinct,
    focus_terms,
    holds_no_answer,
    says_unknown,
    without_restated_lines,
)
from tests.fakes import Clock
from tests.hermes_memory_core.retrieval.test_recall_speakers import WEEK, talk_then_wait


def _line(content: str, role: str, at: int = 0, mid: str = "") -> MemoryHit:
    rec = MemoryRecord(id=mid or content, user_id="u", session_id="s", content=content,
                       memory_type=MemoryType.SHORT_TERM, importance=0.3, created_at=at, updated_at=at,
                       access_count=0, expires_at=None, version=1,
                       metadata={"kind": CONVERSATION_KIND, "role": role, "turn": 1})
    return MemoryHit(rec, 0.5, 0.5)


def test_the_lines_that_hold_no_answer() -> None:
    assert asked(_line("Where do I live now?", "user").record)
    assert not asked(_line("Where do I live now?", "assistant").record)
    assert not asked(_line("I live in Munich. Do you know it?", "user").record)
    assert says_unknown(_line("I don't know, you haven't told me.", "assistant"))
    assert says_unknown(_line("我不记得你说过。", "assistant"))
    assert not says_unknown(_line("You live in Munich.", "assistant"))


def test_distinct_keeps_one_of_a_line_said_twice_and_drops_a_reply_that_restates_another() -> None:
    source = _line("I started pottery classes in May with my sister.", "user", at=1)
    again = _line("i started pottery classes in may, with my sister", "user", at=2, mid="again")
    reply = _line("From what I remember: I started pottery classes in May with my sister.", "assistant", at=3)
    other = _line("Pottery sounds relaxing; how is your sister?", "assistant", at=4)
    assert [h.id for h in distinct([reply, source, again, other])] == [source.id, other.id]


def test_a_reply_that_restates_a_line_hands_it_its_place() -> None:
    """Asked again, the same question finds the reply first (its rank was earned by its question's words): the line
    it restated takes that place and score, instead of staying where its own words ranked it."""
    from dataclasses import replace

    source = replace(_line("I won a trophy at a dance contest last year.", "user", at=1), score=0.2, confidence=4.0)
    other = replace(_line("Dance is a great way to unwind.", "assistant", at=2, mid="other"), score=0.4)
    reply = replace(_line("From what I remember: I won a trophy at a dance contest last year.", "assistant", at=3,
                          mid="reply"), score=0.6, confidence=5.0)
    lifted = distinct([reply, other, source])
    assert [h.id for h in lifted] == [source.id, other.id]
    assert (lifted[0].score, lifted[0].confidence) == (0.6, 5.0)


def test_a_fact_says_once_what_the_users_line_said() -> None:
    """The line the user said and the fact made of it say the same: the fact stands once, in the better place."""
    from dataclasses import replace

    fact_rec = replace(_line("The user's boss is called Zhang Wei.", "user").record, id="fact",
                       memory_type=MemoryType.PERMANENT, metadata={"fact_key": "boss"})
    fact = MemoryHit(fact_rec, 0.3, 0.3)
    line = replace(_line("My boss is called Zhang Wei.", "user", mid="line"), score=0.6)
    other = _line("I work as a data engineer.", "user", mid="other")
    zh_fact = MemoryHit(replace(fact_rec, id="zh", content="用户对花生过敏。"), 0.2, 0.2)
    zh_line = _line("我对花生过敏。", "user", mid="zh-line")
    kept = without_restated_lines([line, other, fact, zh_line, zh_fact])
    assert [h.id for h in kept] == ["fact", "other", "zh"] and kept[0].score == 0.6
    # the assistant's acknowledgement of it says it again: the fact stands in its place, in either language
    reply = replace(_line("Got it, Zhang Wei is your boss.", "assistant", mid="reply"), score=0.7)
    assert [(h.id, h.score) for h in without_restated_lines([reply, other, fact])] == [("fact", 0.7), ("other", 0.5)]
    zh_reply = _line("好的，我会记住你对花生过敏。", "assistant", mid="zh-reply")
    assert [h.id for h in without_restated_lines([zh_reply, zh_fact])] == ["zh"]
    advice = _line("Tell your boss how you feel about the deadline.", "assistant", mid="advice")
    assert [h.id for h in without_restated_lines([advice, fact])] == ["advice", "fact"]


def test_a_line_of_pleasantries_holds_no_answer() -> None:
    for text, role in [("Hi!", "user"), ("Thanks, that's all", "user"), ("Welcome! How can I help?", "assistant"),
                       ("不客气", "assistant"), ("Noted.", "assistant"), ("Hi! I'm new here.", "user"),
                       ("Nice to meet you!", "user")]:
        assert holds_no_answer(_line(text, role)), text
    for text, role in [("Hi! I'm new to Lyon.", "user"), ("Welcome to Lyon!", "assistant"),
                       ("Noted: you are allergic to penicillin.", "assistant")]:
        assert not holds_no_answer(_line(text, role)), text


def test_focus_words_leave_out_generic_question_words() -> None:
    assert {t for t in focus_terms("What is the user's blood type?") if t.isascii()} == {"blood"}
    assert covers_focus(_line("I gave blood last week.", "user"), focus_terms("What is my blood type?"))
    assert not covers_focus(_line("My name is Lin.", "user"), focus_terms("What is my dentist's name?"))


TALK = [("I started pottery classes in May with my sister.", "That sounds lovely."),
        ("My favourite hiking trail is the Lost Coast.", "A beautiful place."),
        ("I play the cello in a community orchestra.", "How fun!")]
QUESTIONS = ["When did I start pottery classes?", "What is my favourite hiking trail?", "Which instrument do I play?"]


@pytest.mark.real_model
def test_asking_never_makes_recall_worse(clocked_real_store: tuple[MemoryProvider, Clock]) -> None:
    mem, clock = clocked_real_store
    talk_then_wait(mem, clock, TALK)
    before = {q: [h.content for h in mem.recall(q, user_id="ann")][:1] for q in QUESTIONS}
    asking = mem.session("ann", "asking")
    for q in QUESTIONS * 2:  # asked twice, answered that it does not know
        clock.now += 60
        asking.add_messages([("user", q)])
        clock.now += 2
        asking.add_messages([("assistant", "I don't know, you haven't told me.")])
    asking.close()
    mem.flush()
    clock.now += WEEK
    for q in QUESTIONS:
        recalled = [h.content for h in mem.recall(q, user_id="ann")]
        assert recalled[:1] == before[q], q
        assert not any(r in QUESTIONS or r.startswith("I don't know") for r in recalled)
