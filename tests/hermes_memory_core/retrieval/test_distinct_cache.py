"""``distinct`` tokenizes a candidate's text once, not on every recall that returns it (recall judges the same
candidates turn after turn), and answers exactly as before."""

from __future__ import annotations

import pytest

from hermes_memory_core.retrieval import recall_policy
from hermes_memory_core.retrieval.recall_policy import distinct
from tests.hermes_memory_core.retrieval.test_recall_policy import _line


def test_the_same_candidates_are_tokenized_once(monkeypatch: pytest.MonkeyPatch) -> None:
    recall_policy._DISTINCT_WORDS.clear()
    calls: list[str] = []
    real = recall_policy.tokenize

    def counted(text: str) -> list[str]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(recall_policy, "tokenize", counted)
    source = _line("I started pottery classes in May with my sister.", "user", at=1)
    again = _line("i started pottery classes in may, with my sister", "user", at=2, mid="again")
    reply = _line("From what I remember: I started pottery classes in May with my sister.", "assistant", at=3)
    other = _line("Pottery sounds relaxing; how is your sister?", "assistant", at=4)
    for _ in range(5):  # five recalls of one question
        assert [h.id for h in distinct([reply, source, again, other])] == [source.id, other.id]
    assert sorted(calls) == sorted(h.content for h in (reply, source, again, other))  # once each, ever


def test_whether_a_line_holds_no_answer_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``without_unanswering`` splits and matches a candidate once per text, speaker and kind, with the same verdicts
    (a line that only asks leaves unless the question is about what was said)."""
    recall_policy._NO_ANSWER.clear()
    calls: list[str] = []
    real = recall_policy.sentences

    def counted(text: str) -> list[str]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(recall_policy, "sentences", counted)
    asked = _line("Where did I put my passport?", "user", at=1)
    unknown = _line("I don't know, sorry.", "assistant", at=2, mid="unknown")
    hello = _line("Hi there!", "user", at=3, mid="hello")
    fact = _line("My passport is in the blue drawer.", "user", at=4, mid="fact")
    lines = [asked, unknown, hello, fact]
    for _ in range(5):
        assert [h.id for h in recall_policy.without_unanswering(lines)] == [fact.id]
        assert [h.id for h in recall_policy.without_unanswering(lines, about_talk=True)] == [asked.id, fact.id]
    assert sorted(calls) == sorted(h.content for h in (asked, unknown, hello, fact))  # once each, ever


def test_focus_words_of_a_line_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    recall_policy._DOCUMENT_WORDS.clear()
    calls: list[str] = []
    real = recall_policy.document_terms

    def counted(text: str) -> list[str]:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(recall_policy, "document_terms", counted)
    line = _line("My passport is in the blue drawer.", "user", at=1)
    focus = recall_policy.focus_terms("Where is my passport?")
    for _ in range(5):
        assert recall_policy.covers_focus(line, focus) and recall_policy.focus_covered(line, focus) == 1
    assert calls == [line.content]
