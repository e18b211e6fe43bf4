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
