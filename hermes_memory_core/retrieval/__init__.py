"""Retrieval: the Chinese-aware tokenizer and the fusion/ranking rule."""

from hermes_memory_core.retrieval.ranking import Candidate, Ranked, RankFields, minmax, rank
from hermes_memory_core.retrieval.tokenizer import tokenize, tokenize_query

__all__ = ["Candidate", "RankFields", "Ranked", "minmax", "rank", "tokenize", "tokenize_query"]
