"""Trust round 4, class 2 (last sentence): a tool-written fact is not displaced by a claim in chat. The value a
system of record wrote (``source="tool"``) is the current one and is recalled first; the user's contrary claim — said
in a session or given to ``remember`` — is kept with its provenance, below it. Strings written for this sweep."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryProvider, MemoryType
from hermes_memory_core.embedding import Embedder
from tests.conftest import make_config
from tests.fakes import Clock

USER = "kwame.asante"
BACKEND = Caller.admin("loyalty-backend")

#: (what the system of record wrote, the user's contrary claim, a question about it)
CASES = [
    ("Membership level: Bronze (loyalty ledger)", "My membership level is Diamond.", "What is my membership level?"),
    ("Overdraft allowance: 300 GBP (core banking)", "My overdraft allowance is 9,000 GBP.",
     "What's my overdraft allowance?"),
    ("Support plan: Community (contracts DB)", "My support plan is Premium 24/7.", "Which support plan do I have?"),
    ("Seat count: 5 (licensing service)", "I have a seat count of 500.", "What is my seat count?"),
    ("Verified age: 17 (KYC provider)", "I am 25 years old.", "How old am I?"),
    ("会员级别：银卡（会员系统）", "我的会员级别是黑金卡。", "我的会员级别是什么？"),
]


@pytest.fixture
def clocked(tmp_path: Path, embedder: Embedder) -> tuple[MemoryProvider, Clock]:
    clock = Clock()
    mem = MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, clock=clock)
    yield mem, clock  # type: ignore[misc]
    mem.close()


def _first(mem: MemoryProvider, question: str) -> list[str]:
    return [h.content for h in mem.recall(question, user_id=USER)]


@pytest.mark.parametrize("tier", ["permanent", "long_term"])
@pytest.mark.parametrize(("fact", "claim", "question"), CASES)
def test_the_tool_fact_stays_current_and_first(clocked: tuple[MemoryProvider, Clock], tier: str, fact: str,
                                               claim: str, question: str) -> None:
    mem, clock = clocked
    written = mem.remember(fact, user_id=USER, source="tool", caller=BACKEND, memory_type=tier)
    assert written.id is not None
    clock.now += 3600
    said = mem.remember(claim, user_id=USER)  # the user's word, later than the system's
    assert mem.get(written.id, caller=BACKEND).version == 1  # the tool's value is untouched
    recalled = _first(mem, question)
    value = mem.get(written.id, caller=BACKEND).content
    if said.action == "rejected":  # a privilege claim ("Diamond", "Premium") is refused by the guard outright
        assert recalled in ([], [value]) or recalled[0] == value, recalled
        return
    assert recalled and recalled[0] == value, recalled
    assert said.id != written.id and said.action == "kept_apart"
    kept = mem.get(said.id)
    assert kept.metadata["disputes"] == written.id and kept.memory_type is MemoryType.LONG_TERM
    assert kept.content in recalled[1:]  # the claim is kept, and shown below


@pytest.mark.parametrize(("fact", "claim", "question"), CASES)
def test_a_claim_said_in_an_open_session_does_not_come_first(clocked: tuple[MemoryProvider, Clock], fact: str,
                                                             claim: str, question: str) -> None:
    mem, clock = clocked
    written = mem.remember(fact, user_id=USER, source="tool", caller=BACKEND, memory_type="permanent")
    clock.now += 3600
    mem.session(USER, "desk-12").add_messages([("user", claim), ("assistant", "Thanks, I have noted that.")])
    mem.flush()
    recalled = _first(mem, question)
    said_at = [i for i, text in enumerate(recalled) if text == claim]
    if said_at:  # the line may be recalled, never above the system's value
        assert recalled.index(mem.get(written.id, caller=BACKEND).content) < said_at[0], recalled


def test_a_claim_never_versions_a_tool_written_long_term_fact(clocked: tuple[MemoryProvider, Clock]) -> None:
    mem, clock = clocked
    written = mem.remember("Preferred store: Accra Mall branch (CRM)", user_id=USER, source="tool", caller=BACKEND,
                           memory_type="long_term")
    clock.now += 60
    said = mem.remember("My preferred store is the Kumasi branch now.", user_id=USER)
    assert said.action == "kept_apart" and said.id != written.id
    assert mem.get(written.id).content == "Preferred store: Accra Mall branch (CRM)"
    clock.now += 60
    again = mem.remember("Preferred store: Kumasi branch (CRM)", user_id=USER, source="tool", caller=BACKEND,
                         memory_type="long_term")
    assert again.id is not None  # the system of record itself may write the new value


def test_fact_subject_reads_a_value_statement_not_a_heading() -> None:
    from hermes_memory_core.trust.authority import fact_subject

    same = ["Membership level: Bronze (loyalty ledger)", "My membership level is Diamond.",
            "The user's membership level is Diamond.", "The user says: My membership level is Diamond."]
    assert {fact_subject(t) for t in same} == {"membership level"}
    assert fact_subject("I have a seat count of 500.") == fact_subject("Seat count: 5") == "seat count"
    assert fact_subject("会员级别：银卡") == fact_subject("我的会员级别是黑金卡。") == "会员级别"
    for text in ("Note: I am allergic to kiwi", "Plan: fly to Accra", "I live in Tamale", "Hello: are you there?",
                 "我是黑金卡会员", "Remember: call mum"):
        assert fact_subject(text) is None, text
