"""The offline relevance judgement: a small model that keeps the recalled lines that answer, or none, with no host model.

Where no host model is given (or it gave no verdict), recall's last step asks this model instead of the host's
(``MemoryConfig.recall_relevance_threshold``; see :mod:`~hermes_memory_core.retrieval.relevance` for the host
model's judgement). It reads, per recalled line, what recall already computed — nothing is embedded again:

- the line's calibrated dense confidence (a z-score over ordinary sentences) and its gap to the best line's;
- its keyword score, as a share of the best line's, and again only when the line is in the question's language;
- how many of the question's focus words it covers (:func:`~hermes_memory_core.retrieval.recall_policy.focus_terms`,
  dictionary glosses included), and the share of those in the question's own script it holds as words;
- its kind: a line the user said, a reply of the assistant, or a fact;
- whether it shares a name or a number with the question, or the question's fact topic or subject family;
- its place in recall's order and its score's share of the best.

The model is a logistic regression over those features (standardised), shipped as plain numpy weights in
``hermes_memory_core/text/data/relevance-model.npz`` (no torch, nothing downloaded). The project trains it on data it
generates itself from in-repo material: ``python -m benchmarks.relevance_training`` regenerates the file,
deterministically. It decides silence: a recall none of whose lines answers with at least the threshold's
probability gives nothing; otherwise its lines stay as the rules made them (dropping lines one by one on these
features lost held-out recall). The judgement only ever removes lines, never adds one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from hermes_memory_core.lifecycle.updates import topic as subject_family
from hermes_memory_core.retrieval.gate import question_topics
from hermes_memory_core.retrieval.ordering import on_topic
from hermes_memory_core.retrieval.recall_policy import focus_covered, focus_terms
from hermes_memory_core.text.language import DATA_DIR, language_of
from hermes_memory_core.text.perspective import to_third_person
from hermes_memory_core.text.tokenizer import tokenize
from hermes_memory_core.types import MemoryHit

__all__ = ["FEATURES", "MODEL_PATH", "RelevanceModel", "default_model", "line_features"]

#: The shipped weights (see :func:`benchmarks.relevance_training.main`).
MODEL_PATH = DATA_DIR / "relevance-model.npz"

#: The features of one recalled line, in the order the weights use.
FEATURES = (
    "confidence", "has_confidence", "margin", "keyword_share", "focus_share", "covers_focus", "covered",
    "own_focus_share", "keyword_same_language", "user_line", "reply", "shared_names", "on_topic", "same_family",
    "rank", "score_share",
)

#: A confidence is clipped to this range (z-scores: ~4 and above is a real match).
_Z_RANGE = (-5.0, 15.0)
#: Names and numbers: a capitalised word (not one of :data:`_OPENERS`), a run of digits.
_NAME = re.compile(r"\b[A-Z][a-z]+\b|\d+")
#: Capitalised words that open sentences rather than name anyone.
_OPENERS = frozenset(
    "I What Which Who Whom Whose Where When Why How Do Does Did Is Are Was Were Can Could Would Will Should Has Have "
    "Had My Me The A An This That These Those There It He She They We You Your Our Their His Her Its Tell Please "
    "Sure Yes No Not Thanks Thank Okay Ok Oh Well So And But Or If Then Also Just Maybe Remember User Assistant".split()
)


def _names(text: str) -> set[str]:
    return {m.group(0).lower() for m in _NAME.finditer(text.strip()) if m.group(0) not in _OPENERS}


def line_features(question: str, hits: Sequence[MemoryHit]) -> np.ndarray:
    """The features (:data:`FEATURES`) of each of ``hits`` recalled, in that order, for ``question`` (the part that
    asks): an array of shape ``(len(hits), len(FEATURES))``."""
    out = np.zeros((len(hits), len(FEATURES)), dtype=np.float64)
    if not hits:
        return out
    focus = focus_terms(to_third_person(question, keep_requests=True))
    topics = question_topics(question)
    family = subject_family(question)
    lang = language_of(question)
    names = _names(question)
    # the focus words in the question's own script, matched as words (no dictionary glosses, no shared characters)
    own = {w for w in focus if w.isascii() == (lang != "zh")}
    confs = [h.confidence for h in hits if h.confidence is not None]
    best = max(confs) if confs else None
    keywords = [h.keyword_score for h in hits if h.keyword_score is not None]
    top_keyword = max(keywords) if keywords and max(keywords) > 0 else None
    top_score = max((h.score for h in hits), default=0.0)
    for i, h in enumerate(hits):
        covered = focus_covered(h, focus) if focus else 0
        conf = None if h.confidence is None else float(np.clip(h.confidence, *_Z_RANGE))
        user_line = (h.is_conversation or h.dialogue) and h.role != "assistant"
        reply = h.is_conversation and h.role == "assistant"
        same_language = language_of(h.content) == lang
        out[i] = (
            conf if conf is not None else 0.0,
            conf is not None,
            conf - float(np.clip(best, *_Z_RANGE)) if conf is not None and best is not None else 0.0,
            (h.keyword_score or 0.0) / top_keyword if top_keyword else 0.0,
            covered / len(focus) if focus else 0.0,
            covered > 0,
            min(covered, 4),
            len(own & set(tokenize(h.content.casefold()))) / len(own) if own else 0.0,
            (h.keyword_score or 0.0) / top_keyword if top_keyword and same_language else 0.0,
            user_line,
            reply,
            bool(names & _names(h.content)),
            on_topic(h, topics),
            family is not None and subject_family(h.content) == family,
            1.0 / (1 + i),
            h.score / top_score if top_score > 0 else 0.0,
        )
    return out


@dataclass(frozen=True)
class RelevanceModel:
    """A logistic regression over :data:`FEATURES`: ``P(answers) = sigmoid(weights · (x - mean) / scale + bias)``.

    Attributes:
        mean: Per-feature mean of the training rows.
        scale: Per-feature standard deviation of the training rows (1 where a feature was constant).
        weights: One weight per feature.
        bias: The intercept.
    """

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def probabilities(self, question: str, hits: Sequence[MemoryHit]) -> np.ndarray:
        """How likely each of ``hits`` answers ``question``, in ``hits``' order."""
        return self.predict(line_features(question, hits))

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The probabilities of feature ``rows`` (shape ``(n, len(FEATURES))``)."""
        z = ((rows - self.mean) / self.scale) @ self.weights + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-z)))

    def keep(self, question: str, hits: Sequence[MemoryHit], threshold: float) -> list[MemoryHit]:
        """``hits`` when at least one of them answers ``question`` with a probability of at least ``threshold``, else
        ``[]`` (the recall is silent). A recall with fewer than two lines that have a dense confidence (lines found
        by the keyword leg alone, or stored without a vector, have none) is not judged: the features weigh a line
        against the others beside it (its gap to the best, its share of the best score, its rank), and a new user's
        one fact, asked in other words ("我喜欢什么编程语言？" of "用户主用 Python，避免 Java"), is not weighed against
        anything. The lines themselves stay as recall ranked them: dropping lines one by one on these features cost
        held-out recall (see docs/benchmarks.md, "Memory over use")."""
        if sum(h.confidence is not None for h in hits) < 2:  # nothing to weigh a line against: it stays
            return list(hits)
        if float(np.max(self.probabilities(question, hits))) < threshold:  # (two lines at least, from here)
            return []
        return list(hits)

    def save(self, path: str | Path) -> None:
        """Write the weights (an ``.npz`` of float64 arrays and the feature names)."""
        np.savez(Path(path), mean=self.mean, scale=self.scale, weights=self.weights, bias=np.array([self.bias]),
                 features=np.array(FEATURES))

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> RelevanceModel:
        """Read weights written by :meth:`save`; a file made for other features is an error (ValueError)."""
        with np.load(Path(path), allow_pickle=False) as data:
            if tuple(str(f) for f in data["features"]) != FEATURES:
                raise ValueError(f"{path}: the relevance model's features are not this version's")
            return cls(data["mean"].astype(np.float64), data["scale"].astype(np.float64),
                       data["weights"].astype(np.float64), float(data["bias"][0]))


@lru_cache(maxsize=1)
def default_model() -> RelevanceModel:
    """The shipped model (:data:`MODEL_PATH`), read once."""
    return RelevanceModel.load(MODEL_PATH)
