"""Retrieval: the Chinese-aware tokenizer, optional LLM keywords, the fusion/ranking rule and the hot cache."""

from hermes_memory_core.retrieval.hot_cache import HotCache
from hermes_memory_core.retrieval.keywords import KeywordExtractor, parse_keywords
from hermes_memory_core.retrieval.ranking import Candidate, Ranked, RankFields, minmax, rank
from hermes_memory_core.retrieval.tokenizer import tokenize, tokenize_query

__all__ = [
    "Candidate",
    "HotCache",
    "KeywordExtractor",
    "RankFields",
    "Ranked",
    "minmax",
    "parse_keywords",
    "rank",
    "tokenize",
    "tokenize_query",
]
