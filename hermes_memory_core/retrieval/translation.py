"""Cross-language help from the host's model: a question's translation, a memory's other-language key terms.

The shipped embedding model alone finds a fact across Chinese and English about four times in five; the host's
model closes most of the rest:

- **At query time** — when the user also holds memories in the other language than the question's, the question
  is translated (:meth:`Translator.translate`) and the translation is searched beside the question: its
  embedding scores the other-language memories as a same-language question would, and its words join the keyword
  leg. Answers are cached per (question, language), so a repeated question costs no model call; a call is bounded
  by a timeout.
- **At write time** — each long-term or permanent memory gets key terms in the other language
  (:meth:`Translator.key_terms`), stored with the memory and indexed with its own words (see
  :mod:`~hermes_memory_core.lifecycle.xlang`, which runs off the caller's thread).

Contract: a model may answer with the plain text, a JSON object or a JSON list of terms (in a code fence or
not). An answer that fails, times out, is empty, too long, or is not in the language asked for is ``None``, and
the caller then does exactly what it does without a model.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from hermes_memory_core.llm import LLM, ModelPool, ask, default_pool
from hermes_memory_core.text.language import DenseCalibrator, Language, LanguageProfile, chinese_share
from hermes_memory_core.text.perspective import to_third_person
from hermes_memory_core.text.terms import query_terms
from hermes_memory_core.text.tokenizer import tokenize_query

__all__ = [
    "BATCH_CHARS",
    "BATCH_NOTES",
    "TERMS_BATCH_PROMPT",
    "TERMS_PROMPT",
    "TRANSLATED_CROSS_DENSE_WEIGHT",
    "TRANSLATE_PROMPT",
    "TranslatedCalibrator",
    "TranslatedQueries",
    "Translator",
    "balance_keyword",
    "other_language",
    "parse_batch_terms",
    "parse_terms",
    "parse_translation",
]

logger = logging.getLogger("hermes_memory")

_NAMES = {"zh": "Simplified Chinese", "en": "English"}

TRANSLATE_PROMPT = (
    "Translate the question below into {language} so that it can be searched against notes written in "
    "{language}. Keep names as they are. Answer with the translation only.\n\nQuestion: {text}"
)
TERMS_PROMPT = (
    "The note below is kept in a personal memory store. Give the words a person would use in {language} to "
    "ask about it: its key terms translated into {language} (names, things, places, activities, times), 3 to 10 "
    'of them. Answer with a JSON list of strings only, for example ["peanut allergy", "rash"] or ["花生", '
    '"过敏"].\n\nNote: {text}'
)
TERMS_BATCH_PROMPT = (
    "The numbered notes below are lines of a conversation kept in a personal memory store. For each note give "
    "the words a person would use in {language} to ask about it: its key terms translated into {language} "
    "(names, things, places, activities, times), 3 to 10 per note. Answer with a JSON object only, mapping each "
    'note\'s number to its list of strings, for example {{"1": ["peanut allergy", "rash"], "2": ["花生"]}}.'
    "\n\n{notes}"
)
#: Most notes one batched key-terms call asks about, and most characters of them in all.
BATCH_NOTES = 8
BATCH_CHARS = 4000
#: Most characters a translation may have, as a multiple of the question's (plus a margin for short questions).
_LENGTH_FACTOR = 4
_LENGTH_MARGIN = 80
_MAX_TERMS = 16
_MAX_TERM_CHARS = 80
_MAX_TERMS_CHARS = 600
_MAX_WORDS = 6
_KEYS = ("translation", "text", "question", "result", "answer", "terms", "keywords")
_PREFIX = re.compile(r"^\s*(translation|translated|answer|译文|翻译)\s*[:：]\s*", re.I)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def other_language(lang: Language) -> Language:
    """The other of the two languages the store tells apart."""
    return "en" if lang == "zh" else "zh"


def _in_language(text: str, lang: Language) -> bool:
    """Whether ``text`` is mostly in ``lang`` (Chinese above half, English below a tenth) and has a searchable word."""
    share = chinese_share(text)
    ok = share > 0.5 if lang == "zh" else share < 0.1
    return ok and bool(tokenize_query(text))


def _structured(answer: str) -> Any:
    """The JSON value in an answer (whole, fenced, or the first object / list in it), or None."""
    text = _FENCE.sub("", answer.strip())
    for candidate in (text, *(m.group() for m in re.finditer(r"\{.*\}|\[.*\]", text, re.S))):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


def _strings(value: Any) -> list[str]:
    """The strings of a parsed answer: a string, a list of them, or an object's value under one of :data:`_KEYS`
    (an object with none of them answers another question: a classification's ``{"type": "long_term"}`` is no
    translation of anything)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in (_strings(item) if isinstance(item, list | str) else [])]
    if isinstance(value, dict):
        for key in (k for k in _KEYS if k in value):
            found = _strings(value[key])
            if found:
                return found
    return []


def _clean(piece: str) -> str:
    return _PREFIX.sub("", piece.strip()).strip().strip("\"'`“”「」*•-").strip()


def parse_translation(answer: str | None, lang: Language, question: str) -> str | None:
    """The translation in a model's answer, or None when there is none usable.

    Accepts plain text (the first non-empty line, "Translation:" prefixes and quotes dropped), a JSON object
    (its ``translation``/``text``/... value; an object without one is no translation) or a JSON list (its strings
    joined). Rejects
    an answer not in ``lang``, with no searchable word, or longer than a translation of ``question`` can be.
    """
    if not answer or not answer.strip():
        return None
    parsed = _structured(answer)
    if parsed is not None:
        pieces = [_clean(s) for s in _strings(parsed)]
        text = " ".join(p for p in pieces if p)
    else:
        lines = [_clean(line) for line in _FENCE.sub("", answer.strip()).splitlines()]
        text = next((line for line in lines if line), "")
    if not text or len(text) > _LENGTH_FACTOR * len(question) + _LENGTH_MARGIN:
        return None
    return text if _in_language(text, lang) else None


def parse_terms(answer: str | None, lang: Language) -> list[str] | None:
    """The key terms in a model's answer (a JSON list or object, or one term per line / comma), or None.

    Terms not in ``lang`` are dropped; at most 16 terms of 80 characters, 600 characters in all. A JSON item
    longer than six words is kept (its words are indexed like a term's: a model that answers with phrases or
    the note's translation still gives the memory its other-language words); a plain-text answer with such a
    piece is a sentence, not a list (a refusal, say): None.
    """
    if not answer or not answer.strip():
        return None
    parsed = _structured(answer)
    if parsed is not None:
        pieces = _strings(parsed)
    else:  # a model that ignored the format: a short list is accepted, never a sentence (a refusal, say)
        pieces = re.split(r"[\n,，、;；]+", _FENCE.sub("", answer.strip()))
        if any(len(p.split()) > _MAX_WORDS for p in pieces):
            return None
    terms: list[str] = []
    total = 0
    for piece in pieces:
        term = _clean(piece)
        if not term or len(term) > _MAX_TERM_CHARS or not _in_language(term, lang) or term in terms:
            continue
        if total + len(term) > _MAX_TERMS_CHARS or len(terms) >= _MAX_TERMS:
            break
        terms.append(term)
        total += len(term) + 1
    return terms or None


def parse_batch_terms(answer: str | None, count: int, lang: Language) -> list[list[str] | None] | None:
    """Each note's key terms in a model's answer to :data:`TERMS_BATCH_PROMPT` about ``count`` notes: a JSON
    object from note numbers (1-based) to lists, or a JSON list of ``count`` lists; each list read as
    :func:`parse_terms` reads one. None: no such structure in the answer."""
    if not answer or not answer.strip():
        return None
    parsed = _structured(answer)
    if isinstance(parsed, dict):
        for key in ("notes", "terms", "result", "answer"):  # {"notes": {...}} or {"terms": [[...], ...]}
            if len(parsed) == 1 and isinstance(parsed.get(key), dict | list):
                parsed = parsed[key]
    if isinstance(parsed, dict):
        values = [parsed.get(str(i), parsed.get(i)) for i in range(1, count + 1)]
    elif isinstance(parsed, list) and len(parsed) == count and all(isinstance(v, list | dict | str) for v in parsed):
        values = list(parsed)
    else:
        return None
    out = [None if v is None else parse_terms(json.dumps(v, ensure_ascii=False), lang) for v in values]
    return out if any(t is not None for t in out) else None


class Translator:
    """Asks the host's model for translations of questions (cached) and for memories' key terms.

    Args:
        llm: The host's model.
        timeout: Seconds one call may take; past it the answer is None (the caller goes on without).
        cache_size: Questions whose translation is remembered (least recently used go first).
        pool: The store's model threads (:class:`~hermes_memory_core.llm.ModelPool`; None: the shared default).
    """

    def __init__(self, llm: LLM, timeout: float, cache_size: int = 2048, pool: ModelPool | None = None) -> None:
        self.llm = llm
        self.timeout = timeout
        self.pool = pool
        self._cache: OrderedDict[tuple[str, str], str | None] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()
        #: Model calls made (a test and the benchmark read it).
        self.calls = 0

    def translate(self, question: str, lang: Language) -> str | None:
        """``question`` in ``lang``, or None (no usable answer in time). A failed answer is cached too: the same
        question does not wait for the model twice."""
        return self.start(question, lang)()

    def start(self, question: str, lang: Language) -> Callable[[], str | None]:
        """Ask for the translation now, without waiting; the returned function waits for it (until the timeout
        counted from now) and returns what :meth:`translate` would. Search embeds the question meanwhile."""
        key = (question, lang)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                known = self._cache[key]
                return lambda: known
            self.calls += 1
        deadline = time.monotonic() + self.timeout
        future = (self.pool or default_pool()).submit(
            self.llm.complete, TRANSLATE_PROMPT.format(language=_NAMES[lang], text=question), timeout=self.timeout
        )

        def finish() -> str | None:
            try:
                answer = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except concurrent.futures.TimeoutError:
                future.cancel()
                logger.warning("hermes_memory: translation timed out after %.1fs; searching without it", self.timeout)
                answer = None
            except Exception as exc:  # noqa: BLE001 - any model failure means "search as offline"
                logger.warning("hermes_memory: translation failed (%s); searching without it", exc)
                answer = None
            text = parse_translation(answer if isinstance(answer, str) else None, lang, question)
            with self._lock:
                self._cache[key] = text
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
            return text

        return finish

    def key_terms(self, text: str, lang: Language) -> tuple[list[str] | None, bool]:
        """Key terms of a memory's ``text`` in ``lang`` (one model call, not cached), or None; and whether the
        model answered at all (False: it failed or did not answer in time)."""
        with self._lock:
            self.calls += 1
        answer = ask(self.llm, TERMS_PROMPT.format(language=_NAMES[lang], text=text), self.timeout, self.pool)
        return parse_terms(answer, lang), answer is not None

    def batch_terms(self, texts: list[str], lang: Language) -> tuple[list[list[str] | None], bool]:
        """Key terms in ``lang`` of several notes in one model call (:data:`TERMS_BATCH_PROMPT`; one note is
        asked as :meth:`key_terms` asks it): a list per note, None for a note the answer gives none; and whether
        the model answered at all."""
        if len(texts) == 1:
            terms, answered = self.key_terms(texts[0], lang)
            return [terms], answered
        with self._lock:
            self.calls += 1
        answer = ask(self.llm, TERMS_BATCH_PROMPT.format(language=_NAMES[lang], notes=_notes(texts)), self.timeout,
                     self.pool)
        return parse_batch_terms(answer, len(texts), lang) or [None] * len(texts), answer is not None



#: ``cross_dense_weight`` when the question has the host model's translation: a memory in the other language is
#: then judged by its dense match to the translation and by the translation's words matching its own, as a
#: memory in the question's language is judged by the question (0.4 dense / 0.6 keyword), with more weight on
#: the dense part than that because the two languages' keyword scores are only scaled alike, not comparable. On
#: the bilingual fact set with a perfect translator: 0.9 (the offline weight) 0.944 cross / 0.944 same top-1,
#: 0.7 and 0.5 0.954 / 0.963.
TRANSLATED_CROSS_DENSE_WEIGHT = 0.7


def balance_keyword(
    keyword: list[tuple[str, float]], langs: Mapping[str, str | None], query_language: Language
) -> list[tuple[str, float]]:
    """Keyword scores of a search with the question's and its translation's words, with the other language's
    scores scaled so that its best equals the question language's best.

    BM25 scores of the two languages' words are not on one scale (a Chinese question's words are many and
    short); unscaled, the other language's memories would set the range that the question-language memories'
    scores are min-max normalised over, and a question-language memory's own keyword match would count for
    less. Memories of unknown language (``langs`` None or absent) count as the question's.
    """
    def other(mid: str) -> bool:
        return (langs.get(mid) or query_language) != query_language

    own = max((sc for mid, sc in keyword if not other(mid)), default=0.0)
    far = max((sc for mid, sc in keyword if other(mid)), default=0.0)
    if own <= 0 or far <= 0:
        return keyword
    ratio = own / far
    return [(mid, sc * ratio if other(mid) else sc) for mid, sc in keyword]


def _notes(texts: list[str]) -> str:
    return "\n".join(f"Note {i}: {' '.join(text.split())}" for i, text in enumerate(texts, 1))


class TranslatedCalibrator(DenseCalibrator):
    """Dense calibration of a question that has the host model's translation: a memory in the other language is
    scored by the translation's cosine alone, calibrated against that language's background sentences, as the
    translation asked as a question of its own would score it; a memory in the question's language as before.

    (The offline calibrator adds the question's language-centred cosine to a dictionary gloss's; with a model's
    translation that sum lifted other-language near-misses above same-language answers: on the bilingual fact
    set, 0.954 cross / 0.917 same top-1, against 0.935 / 0.935 with the translation alone.)

    Args: as :class:`~hermes_memory_core.text.language.DenseCalibrator`, with ``translated_query`` required.
    """

    def _parts_of(self, vecs: np.ndarray, lang: str, centred: np.ndarray | None = None) -> list[np.ndarray]:
        if lang == self.query_language or self.translated is None:
            return super()._parts_of(vecs, lang, centred)
        return [vecs @ self.translated]

    def z_from_cosines(self, cosines: Sequence[float], doc_language: Language) -> np.ndarray:
        """Calibrated scores of memories from one cosine each: the question's for memories in its language, the
        translation's (as the vector search with it returns them) for memories in the other language, so no
        memory found by either vector search needs its vector fetched."""
        mean, std = self._stats[doc_language]
        return (self._combine([np.asarray(cosines, dtype=np.float64)], doc_language) - mean) / std


class TranslatedQueries:
    """What search derives from a question's translation, kept per translation (least recently used dropped
    past ``size``): its embedding, its keyword terms and the last calibrator built with it, so a repeated
    question costs no model call, no embedding and no calibration beyond the cached lookups.

    Args:
        size: Translations kept.
    """

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._entries: OrderedDict[str, _Translated] = OrderedDict()
        self._lock = threading.Lock()

    def _entry(self, translation: str, embed: Callable[[str], np.ndarray]) -> _Translated:
        with self._lock:
            entry = self._entries.get(translation)
            if entry is not None:
                self._entries.move_to_end(translation)
                return entry
        about_user = to_third_person(translation, keep_requests=True)
        entry = _Translated(embed(about_user), query_terms(about_user, cross_language=False))
        with self._lock:
            self._entries[translation] = entry
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return entry

    def calibrator(
        self,
        translation: str,
        query_vector: np.ndarray,
        query_language: Language,
        profile: LanguageProfile,
        embed: Callable[[str], np.ndarray],
    ) -> TranslatedCalibrator:
        """The :class:`TranslatedCalibrator` of a question (its embedding ``query_vector``) with this translation;
        ``embed`` embeds the translation (as a query) the first time."""
        entry = self._entry(translation, embed)
        last = entry.last  # one attribute, replaced whole: a concurrent search sees a matching pair
        if (last is not None and last[1].profile is profile and last[1].query_language == query_language
                and np.array_equal(last[0], query_vector)):
            return last[1]
        cal = TranslatedCalibrator(profile, query_vector, query_language, entry.vector)
        entry.last = (np.array(query_vector, copy=True), cal)
        return cal

    def terms(self, translation: str, embed: Callable[[str], np.ndarray]) -> list[str]:
        """The keyword terms of the translation (its words, in the third person like the memories)."""
        return self._entry(translation, embed).terms


class _Translated:
    """One translation's embedding and terms, and the calibrator last built with them."""

    __slots__ = ("last", "terms", "vector")

    def __init__(self, vector: np.ndarray, terms: list[str]) -> None:
        self.vector = vector
        self.terms = terms
        self.last: tuple[np.ndarray, TranslatedCalibrator] | None = None  # (question's embedding, its calibrator)
