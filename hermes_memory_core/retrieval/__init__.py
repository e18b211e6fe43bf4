"""Retrieval: a search end to end (filter, keyword and vector legs, fusion and ranking), recall over it (the gate,
the recall policy, the ordering and the cut) and optional LLM keywords."""

from hermes_memory_core.retrieval.gate import needs_permanent, should_recall
from hermes_memory_core.retrieval.keywords import KeywordExtractor, parse_keywords
from hermes_memory_core.retrieval.ranking import Candidate, Ranked, minmax, rank
from hermes_memory_core.retrieval.recall import Recaller
from hermes_memory_core.retrieval.search import Searcher, SearchFilter, build_filter

__all__ = [
    "Candidate",
    "KeywordExtractor",
    "Ranked",
    "Recaller",
    "SearchFilter",
    "Searcher",
    "build_filter",
    "minmax",
    "needs_permanent",
    "parse_keywords",
    "rank",
    "should_recall",
]
