"""The adapters translate questions with the model they already hold: ``HermesRetriever``,
the LangChain middleware and LlamaIndex's ``HermesMemory`` pass it to ``search``/``recall``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.llms import LLM as LangChainBaseLLM
from llama_index.core.base.llms.types import CompletionResponse, LLMMetadata
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_completion_callback

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from langchain_hermes_memory import HermesMemoryMiddleware, HermesRetriever
from llama_index_hermes_memory import HermesMemory
from tests.conftest import ADMIN, make_config
from tests.hermes_memory_core.retrieval.test_translation import FACTS, QUESTIONS

ASKED: list[str] = []


def _answer(prompt: str) -> str:
    if "\n\nQuestion: " not in prompt:
        return "[]"
    question = prompt.rsplit("\n\nQuestion: ", 1)[1]
    ASKED.append(question)
    return QUESTIONS.get(question, "")


class TranslatingLangChainModel(LangChainBaseLLM):
    """A LangChain text model that translates the test questions."""

    @property
    def _llm_type(self) -> str:
        return "translating-test-model"

    def _call(self, prompt: str, stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> str:
        return _answer(prompt)


class TranslatingLlamaModel(CustomLLM):
    """A LlamaIndex completion model that translates the test questions."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_chat_model=False)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=_answer(prompt))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Iterator[MemoryProvider]:
    """A store with no model of its own, holding one user's memories in both languages."""
    with MemoryProvider(make_config(tmp_path / "s"), embedder=embedder, caller=ADMIN) as mem:
        mem.add_many([{"content": f, "user_id": "u"} for f in FACTS])
        ASKED.clear()
        yield mem


def test_the_retriever_translates_with_its_model_once_per_question(store: MemoryProvider) -> None:
    retriever = HermesRetriever(memory=store, user_id="u", llm=TranslatingLangChainModel())
    retriever.invoke("用户的爱好是什么？")
    retriever.invoke("用户的爱好是什么？")
    assert ASKED == ["用户的爱好是什么？"]  # the second time from the cache
    HermesRetriever(memory=store, user_id="u").invoke("用户的姐姐是做什么的？")
    assert ASKED == ["用户的爱好是什么？"]  # no model anywhere: offline


def test_the_middleware_recalls_with_its_model(store: MemoryProvider) -> None:
    middleware = HermesMemoryMiddleware(memory=store, llm=TranslatingLangChainModel())
    middleware.memory_context("u", None, "用户的姐姐是做什么的？")
    assert ASKED == ["用户的姐姐是做什么的？"]


def test_llama_index_memory_recalls_with_its_model(store: MemoryProvider) -> None:
    memory = HermesMemory.from_defaults(user_id="u", session_id="s", memory=store, llm=TranslatingLlamaModel())
    memory.get("What does the user drink every morning?")
    assert "What does the user drink every morning?" in ASKED
