"""The keyword terms of a memory and of a question, across Chinese and English.

A Chinese memory is indexed under its own tokens and the tokens of its English dictionary terms, so an English
question finds "用户对花生过敏" through "allergic" and "peanut". A Chinese question asked of a store that also holds
English memories adds the tokens of its English terms to its own, so it finds "The user is allergic to peanuts".
The reverse directions (English memories under Chinese headwords, English questions expanded into Chinese) were
measured and left out: the bag of candidate headwords adds more noise than matches.
"""

from __future__ import annotations

from hermes_memory_core.text.bilingual import default_dictionary
from hermes_memory_core.text.language import language_of
from hermes_memory_core.text.tokenizer import tokenize, tokenize_query

__all__ = ["document_terms", "english_gloss", "query_terms"]


def english_gloss(text: str) -> str:
    """The English dictionary terms of the Chinese words in ``text``, space-separated ("" when none)."""
    return " ".join(default_dictionary().english_terms(text))


def document_terms(text: str) -> list[str]:
    """Tokens that index a memory: its own, plus, for Chinese text, those of its English dictionary terms."""
    tokens = tokenize(text)
    if language_of(text) == "zh":
        tokens += tokenize(english_gloss(text))
    return tokens


def query_terms(text: str, *, cross_language: bool) -> list[str]:
    """A question's keyword terms (each once): its own tokens, plus, for a Chinese question when the store holds
    memories in English (``cross_language``), the tokens of its English dictionary terms."""
    terms = tokenize_query(text)
    if cross_language and language_of(text) == "zh":
        terms += tokenize_query(english_gloss(text))
    kept = [t for t in dict.fromkeys(terms) if t not in SUBJECT_TERMS]
    return kept or list(dict.fromkeys(terms))


#: The subject every statement about the user names ("the user", "用户"): as a query word it matches every memory of
#: the profile alike and decides nothing but ties (a question about the user's language found the user's name).
SUBJECT_TERMS = frozenset({"user", "users", "用户", "户"})
