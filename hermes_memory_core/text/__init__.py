"""Text processing both the storage and the retrieval side use: the Chinese-aware keyword tokenizer, language
detection and language-calibrated dense scores, and Chinese ↔ English dictionary terms (CC-CEDICT)."""

from hermes_memory_core.text.language import DenseCalibrator, LanguageProfile, language_of
from hermes_memory_core.text.terms import document_terms, english_gloss, query_terms
from hermes_memory_core.text.tokenizer import ENGLISH_STOPWORDS, MAX_TOKEN_CHARS, tokenize, tokenize_query

__all__ = [
    "ENGLISH_STOPWORDS",
    "MAX_TOKEN_CHARS",
    "DenseCalibrator",
    "LanguageProfile",
    "document_terms",
    "english_gloss",
    "language_of",
    "query_terms",
    "tokenize",
    "tokenize_query",
]
