"""Fusion and ranking as plain functions: a conversation's neighbours lend an answer the relevance of the question."""

from __future__ import annotations

from hermes_memory_core.config import RankingConfig
from hermes_memory_core.retrieval.ranking import Candidate, rank
from hermes_memory_core.storage.metadata import RankRow
from hermes_memory_core.types import MemoryType


def _row(at: int) -> RankRow:
    return RankRow("s", at, at, 0.5, 1, MemoryType.SHORT_TERM, 0, dialogue=True)


def test_an_answer_takes_its_neighbours_from_the_whole_moment_before_it() -> None:
    """The question and another line written in the same second (a turn and its reply written together) are one
    moment: the answer after them is lent the question's relevance whichever of the two sorts next to it by id."""
    question, same_second, answer, alone = "a-question", "z-same-second", "m-answer", "b-alone"
    rows = {question: _row(100), same_second: _row(100), answer: _row(130), alone: _row(5_000)}
    candidates = [Candidate(question, dense=0.9), Candidate(same_second, dense=0.1), Candidate(answer, dense=0.5),
                  Candidate(alone, dense=0.5)]
    ranked = {r.id: r for r in rank(candidates, rows, 5_000, RankingConfig(), 10)}
    assert ranked[answer].relevance > ranked[alone].relevance  # the question's, not the same-second line's
