"""A first-person question is matched twice (as about "the user", and as asked); what only the second finds joins
the candidates only when it is a line of a conversation, and nothing the keyword leg found is ever lost."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from hermes_memory_core import MemoryProvider
from tests.conftest import make_config


class TwoWayEmbedder:
    """Puts the memory about a bike on one axis and everything else on another; a question about "the user" points
    at everything else, the same question in the first person at the bike (a stand-in for a model that matches a
    question as asked better than in the third person)."""

    model_id = "two-way-test"
    dim = 8

    def _axis(self, bike: bool) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        vec[0 if bike else 1] = 1.0
        return vec

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._axis("bike" in t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._axis("the user" not in text.lower())


def test_a_keyword_match_found_only_by_the_question_as_asked_is_kept(tmp_path: Path) -> None:
    with MemoryProvider(make_config(tmp_path / "store", vector_dim=8), embedder=TwoWayEmbedder()) as mem:
        mem.add_many([{"content": f"Filler note {i} about cars", "user_id": "u"} for i in range(300)])
        bike = mem.add("My bike is a red Brompton", user_id="u")
        hits = mem.search("Where do I keep my bike?", user_id="u", top_k=3)
        assert hits and hits[0].id == bike
