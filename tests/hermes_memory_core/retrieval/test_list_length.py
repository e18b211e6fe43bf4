"""Asking for more results never reorders the first ones: ``search(top_k=20)`` starts with ``search(top_k=5)``.

Fusion normalises each leg's scores over the candidates the legs fetched; if a longer list fetched more candidates,
the first hits could change with ``top_k`` alone. Every ``top_k`` up to ``ranking.min_candidates`` ranks the same
candidates.
"""

from __future__ import annotations

import random

from hermes_memory_core import MemoryProvider

WORDS = ("coffee tea garden bike train Berlin piano python rust cat dog rain summer winter paper music river "
         "doctor school bread market travel camera window mountain letter").split()


def test_a_longer_list_starts_with_the_shorter_one(mem: MemoryProvider) -> None:
    rng = random.Random(7)
    texts = [" ".join(rng.sample(WORDS, 4)) for _ in range(300)]
    mem.add_many([{"content": f"Memory {i}: {t}", "user_id": "u"} for i, t in enumerate(texts)])
    for _ in range(30):
        query = " ".join(rng.sample(WORDS, 2))
        short, mid, longer = ([h.id for h in mem.search(query, user_id="u", top_k=k)] for k in (5, 10, 40))
        assert short == mid[:5] and mid == longer[:10], query
