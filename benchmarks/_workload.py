"""The continuous-use workload: conversations written session by session, questions asked as they become answerable.

One :class:`Workload` turns conversations (LoCoMo or generated) into an ordered stream of events that every store
of a run receives in the same order:

- :class:`Write`: one ``add_many`` worth of memories for one user — a real session (one memory per turn,
  "speaker: text", the session's dates) or, to reach a larger store size, a *filler* batch written just before it;
- :class:`Ask`: a question, asked right after the session that completes its evidence (``now`` = that session's
  last turn), the way an agent's memory sees questions while it fills.

Users take the conversations in turn (user ``u`` has conversation ``u % len(conversations)``), sessions go round
robin over users. Filler memories are two turns of *other* conversations joined, with the normalised sum of their
real embeddings plus a little Gaussian noise as vector (so text and vector agree); they carry no evaluation key,
so they only ever count as misses. Every vector a store receives is computed once and handed to all of them.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import CachedEmbedder, Progress
from benchmarks.locomo import Conversation, Turn

__all__ = [
    "Ask", "Workload", "Write", "corpus_label", "describe", "embed_corpus", "load_conversations_for",
    "time_raw_embedding",
]

_SESSION = re.compile(r"D(\d+):")


@dataclass(frozen=True)
class Write:
    """One ``add_many`` call: memories of one user, with their vectors and evaluation keys (None for filler)."""

    user: str
    session: str
    keys: tuple[str | None, ...]
    texts: list[str]
    created_at: list[int]
    vectors: np.ndarray


@dataclass(frozen=True)
class Ask:
    """One question for one user; a hit is relevant when its evaluation key is in ``evidence``."""

    user: str
    text: str
    evidence: frozenset[str]
    category: int
    now: int


@dataclass
class _User:
    user: str
    conv: Conversation
    conv_index: int
    filler: int
    sessions: list[list[Turn]] = field(default_factory=list)
    asks_after: dict[int, list[Ask]] = field(default_factory=dict)


def load_conversations_for(
    corpus: str, data: str | None, indices: list[int], max_sessions: int | None = None
) -> list[Conversation]:
    """LoCoMo conversations (``data`` must be set) or generated ones, cut to ``max_sessions`` sessions each."""
    if corpus == "synthetic":
        from benchmarks._synthetic import synthetic_conversations

        convs = synthetic_conversations(count=max(indices) + 1)
        convs = [convs[i] for i in indices]
    else:
        from benchmarks.locomo import load_conversations

        assert data is not None
        convs = load_conversations(data, indices)
    if max_sessions is None:
        return convs
    out = []
    for c in convs:
        turns = [t for t in c.turns if t.session <= max_sessions]
        known = {t.dia_id for t in turns}
        questions = [q for q in c.questions if set(q.evidence) <= known]
        out.append(Conversation(c.sample_id, turns, questions, max(t.timestamp for t in turns), c.skipped_evidence))
    return out


def embed_corpus(convs: Sequence[Conversation], real: Any, cache_dir: str | None) -> dict[str, np.ndarray]:
    """Document vectors of every turn (the real model's, cached on disk in ``cache_dir`` between runs)."""
    cached = CachedEmbedder(real, cache_dir)
    texts = list(dict.fromkeys(t.content for c in convs for t in c.turns))
    progress = Progress("embedding the corpus (cached between runs)", len(texts))
    out: dict[str, np.ndarray] = {}
    for start in range(0, len(texts), 64):
        chunk = texts[start : start + 64]
        out.update(zip(chunk, cached.embed_documents(chunk), strict=True))
        progress.update(start + len(chunk))
        if cached.misses and start % 1024 == 0:
            cached.save()
    cached.save()
    return out


def time_raw_embedding(real: Any, texts: Sequence[str], batch: int = 64) -> float:
    """Seconds per text of the model's own batched ``embed_documents`` on ``texts`` (never cached; one untimed
    warm-up batch first, as the model's first call pays its set-up)."""
    if not texts:
        return float("nan")
    real.embed_documents(list(texts[:8]))
    t0 = time.perf_counter()
    for start in range(0, len(texts), batch):
        real.embed_documents(list(texts[start : start + batch]))
    return (time.perf_counter() - t0) / len(texts)


class Workload:
    """The event stream for one store size.

    Args:
        convs: Conversations (each with questions whose evidence are dia ids of its turns).
        vectors: Document vector of every turn's text (see :func:`embed_corpus`).
        size: Total memories wanted; 0 or anything below the conversations' turns means "the turns as they are".
        users: Users; user ``u`` gets conversation ``u % len(convs)`` and ``size / users`` memories.
        questions: Ask at most this many questions (a fixed random sample; 0: all).
        seed: Fixes the filler texts, filler noise and the question sample.
        noise: Standard deviation of the per-dimension noise added to filler vectors.
    """

    def __init__(
        self, convs: Sequence[Conversation], vectors: dict[str, np.ndarray], *, size: int, users: int,
        questions: int = 0, seed: int = 7, noise: float = 0.01,
    ) -> None:
        if not convs:
            raise ValueError("no conversations")
        self.seed, self.noise = seed, noise
        self.vectors = vectors
        self.dim = len(next(iter(vectors.values())))
        self.users: list[_User] = []
        real_total = sum(len(convs[u % len(convs)].turns) for u in range(users))
        per_user = size // users if size > real_total else 0
        for u in range(users):
            conv = convs[u % len(convs)]
            uid = conv.sample_id if users <= len(convs) else f"u{u:03d}-{conv.sample_id}"
            self.users.append(_User(uid, conv, u % len(convs), max(0, per_user - len(conv.turns))))
        self.total = real_total + sum(u.filler for u in self.users)
        # the pool filler is drawn from: every turn, with its conversation, as one matrix
        pool = [(i, t.content) for i, c in enumerate(convs) for t in c.turns]
        self._pool_conv = np.array([i for i, _ in pool])
        self._pool_text = [t for _, t in pool]
        self._pool_vec = np.stack([vectors[t] for t in self._pool_text]).astype(np.float32)
        every: list[Ask] = []
        for user in self.users:
            by_session: dict[int, list[Turn]] = {}
            for t in user.conv.turns:
                by_session.setdefault(t.session, []).append(t)
            user.sessions = [by_session[s] for s in sorted(by_session)]
            order = {s: i for i, s in enumerate(sorted(by_session))}
            for q in user.conv.questions:
                last = order[max(int(_SESSION.match(e).group(1)) for e in q.evidence)]  # type: ignore[union-attr]
                now = user.sessions[last][-1].timestamp
                ask = Ask(user.user, q.question, frozenset(q.evidence), q.category, now)
                user.asks_after.setdefault(last, []).append(ask)
                every.append(ask)
        chosen = set(range(len(every)))
        if 0 < questions < len(every):
            chosen = set(random.Random(seed).sample(range(len(every)), questions))
        self._chosen = {id(every[i]) for i in chosen}
        self.asked = len(chosen)

    def stream(self) -> Iterator[Write | Ask]:
        """Writes and questions in the order an agent's memory sees them (sessions round robin over users)."""
        rounds = max(len(u.sessions) for u in self.users)
        for j in range(rounds):
            for ui, user in enumerate(self.users):
                if j >= len(user.sessions):
                    continue
                turns = user.sessions[j]
                n_fill = user.filler // len(user.sessions) + (1 if j < user.filler % len(user.sessions) else 0)
                if n_fill:
                    yield self._filler(ui, j, n_fill, turns[0].timestamp)
                yield Write(
                    user.user, f"session_{turns[0].session}", tuple(t.dia_id for t in turns),
                    [t.content for t in turns], [t.timestamp for t in turns],
                    np.stack([self.vectors[t.content] for t in turns]),
                )
                for ask in user.asks_after.get(j, []):
                    if id(ask) in self._chosen:
                        yield ask

    def final_questions(self) -> list[Ask]:
        """The same questions, asked again of the full stores, round robin over users, ``now`` = the last session."""
        per_user = [
            [Ask(a.user, a.text, a.evidence, a.category, u.conv.last_date)
             for j in sorted(u.asks_after) for a in u.asks_after[j] if id(a) in self._chosen]
            for u in self.users
        ]
        out: list[Ask] = []
        for i in range(max((len(p) for p in per_user), default=0)):
            out.extend(p[i] for p in per_user if i < len(p))
        return out

    def _filler(self, ui: int, j: int, n: int, before: int) -> Write:
        user = self.users[ui]
        rng = np.random.default_rng([self.seed, ui, j])
        others = np.flatnonzero(self._pool_conv != user.conv_index)
        if len(others) == 0:
            others = np.arange(len(self._pool_text))
        pick = others[rng.integers(0, len(others), (n, 2))]
        vecs = self._pool_vec[pick[:, 0]] + self._pool_vec[pick[:, 1]]
        vecs += rng.normal(0.0, self.noise, vecs.shape).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        texts = [f"{self._pool_text[a]} {self._pool_text[b]}" for a, b in pick]
        return Write(
            user.user, f"filler_{j}", (None,) * n, texts, [before - 60 * (n - i) for i in range(n)],
            vecs.astype(np.float32),
        )


def describe(work: Workload) -> str:
    """One line: users, memories, questions."""
    real = work.total - sum(u.filler for u in work.users)
    return f"{len(work.users)} users, {work.total:,} memories ({real:,} real turns), {work.asked:,} questions"


def corpus_label(corpus: str, data: Path | None) -> str:
    return "generated conversations (--corpus synthetic)" if corpus == "synthetic" else f"LoCoMo ({data})"
