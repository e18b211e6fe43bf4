"""The default embedder must connect Chinese and English (docs/design.md#how-search-finds-and-ranks)."""

import pytest

from hermes_memory_core import MemoryProvider

PAIRS = [
    ("我喜欢喝美式咖啡", "I like drinking americano coffee"),
    ("用户主用 Python，避免 Java", "The user mainly programs in Python and avoids Java"),
    ("我对花生过敏", "I am allergic to peanuts"),
    ("我住在上海浦东", "I live in Pudong, Shanghai"),
    ("我每天早上跑步五公里", "I run five kilometers every morning"),
    ("我的女儿今年七岁", "My daughter is seven years old"),
    ("我在一家银行做数据分析师", "I work as a data analyst at a bank"),
    ("我周末喜欢去爬山", "I like hiking in the mountains on weekends"),
    ("我养了一只橘猫", "I have an orange cat"),
    ("我下个月要去日本旅游", "I am traveling to Japan next month"),
]


@pytest.mark.parametrize("direction", ["en->zh", "zh->en"])
def test_cross_language_recall(real_mem: MemoryProvider, direction: str) -> None:
    mem = real_mem
    stored = [zh if direction == "en->zh" else en for zh, en in PAIRS]
    queries = [en if direction == "en->zh" else zh for zh, en in PAIRS]
    ids = mem.add_many([{"content": text, "user_id": "u"} for text in stored])
    correct = sum(mem.search(q, user_id="u", top_k=1)[0].id == mid for q, mid in zip(queries, ids, strict=True))
    assert correct >= 8, f"{direction}: {correct}/{len(PAIRS)} top-1"
