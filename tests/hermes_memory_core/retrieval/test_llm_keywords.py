"""Optional LLM keyword extraction: the keyword leg searches the model's key terms, and falls back to the local
tokenizer whenever the model fails."""

from __future__ import annotations

from pathlib import Path

from hermes_memory_core import MemoryProvider
from hermes_memory_core.retrieval.keywords import KeywordExtractor, parse_keywords
from tests.conftest import ADMIN, make_config
from tests.hermes_memory_core.fake_llms import FixedLLM, RaisingLLM


class CountingLLM(FixedLLM):
    def __init__(self, answer: str) -> None:
        super().__init__(answer)
        self.prompts: list[str] = []

    def complete(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answer


def test_parse_keywords() -> None:
    assert parse_keywords('Sure: ["咖啡店", "上周"]') == ["咖啡店", "上周"]
    assert parse_keywords("marathon\nBerlin\n- training\nextra") == ["marathon", "Berlin", "training"]
    assert parse_keywords('["a", 3, ""]') == ["a"]
    assert parse_keywords("") is None and parse_keywords(None) is None and parse_keywords("[]") is None


def test_answers_are_cached_per_question() -> None:
    llm = CountingLLM('["coffee"]')
    extractor = KeywordExtractor(llm, timeout=5)
    assert extractor.terms("what do I drink?") == ["coffee"] == extractor.terms("what do I drink?")
    assert len(llm.prompts) == 1 and "what do I drink?" in llm.prompts[0]


def _store(tmp: Path, embedder, llm, on: bool) -> MemoryProvider:  # type: ignore[no-untyped-def]
    # translation off: these tests count the keyword prompts alone
    return MemoryProvider(make_config(tmp, llm_keywords=on, llm_translation=False), embedder=embedder, llm=llm,
                          caller=ADMIN)


def test_keyword_leg_searches_the_models_terms(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    llm = CountingLLM('["咖啡"]')
    question = "What does the user like to drink in the morning?"
    scores = {}
    for on in (True, False):
        with _store(tmp_path / str(on), embedder, llm, on) as mem:
            mid = mem.add("我喜欢喝美式咖啡", user_id="u")
            mem.add("The user likes to sleep in on Sunday morning", user_id="u")
            mem.add("用户每周六去爬山", user_id="u")
            scores[on] = next(h for h in mem.search(question, user_id="u") if h.id == mid).keyword_score
        assert len(llm.prompts) == 1  # off: the model is never asked
    # on: found by the model's term 咖啡; off: only through the dictionary's "drink" for 喝, a word of two memories
    assert scores[True] is not None and scores[True] > (scores[False] or 0.0)


def test_a_failing_model_falls_back_to_the_local_tokenizer(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    for llm in (RaisingLLM(), FixedLLM("I cannot help with that request, sorry, it is not something I can do.")):
        with _store(tmp_path / type(llm).__name__, embedder, llm, True) as mem:
            mid = mem.add("The user runs a marathon in Berlin", user_id="u")
            hits = mem.search("marathon", user_id="u")
            assert hits[0].id == mid and hits[0].keyword_score is not None
