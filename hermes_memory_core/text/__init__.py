"""Text processing both the storage and the retrieval side use: the Chinese-aware keyword tokenizer."""

from hermes_memory_core.text.tokenizer import ENGLISH_STOPWORDS, MAX_TOKEN_CHARS, tokenize, tokenize_query

__all__ = ["ENGLISH_STOPWORDS", "MAX_TOKEN_CHARS", "tokenize", "tokenize_query"]
