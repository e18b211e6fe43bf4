"""HermesRetriever: who reads (``caller``) and a gated, chat-turn recall (``gate``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder
from langchain_hermes_memory import HermesRetriever

ADMIN = Caller.admin("tests")
READER = Caller("support-bot", read_permanent=True)


@pytest.fixture
def anonymous(config: MemoryConfig, real_embedder: Embedder) -> Iterator[MemoryProvider]:
    """A provider with no caller of its own (the default), holding one long-term memory and one permanent fact."""
    with MemoryProvider(config, embedder=real_embedder) as mem:
        mem.add("The user drinks green tea every morning", user_id="u")
        mem.add("The user lives in Hangzhou", user_id="u", memory_type="permanent", caller=ADMIN)
        mem.add("The user's passport number is on file with billing", user_id="u", caller=ADMIN)
        yield mem


def test_a_default_retriever_serves_its_user_and_reads_their_facts(anonymous: MemoryProvider) -> None:
    """A retriever bound to one user acts for that user (``MemoryProvider.caller_for``): their facts, no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        docs = HermesRetriever(memory=anonymous, user_id="u", k=5).invoke("Where does the user live?")
    assert docs and {d.metadata["memory_type"] for d in docs} == {"long_term", "permanent"}
    assert HermesRetriever(memory=anonymous, user_id="someone-else", k=5).invoke("Where does the user live?") == []


def test_a_caller_without_permission_gets_long_term_and_says_so_once(anonymous: MemoryProvider) -> None:
    retriever = HermesRetriever(memory=anonymous, user_id="u", k=5, memory_types=["long_term", "permanent"],
                                caller=Caller("some-app"))
    with pytest.warns(UserWarning, match="may not read permanent memories"):
        docs = retriever.invoke("Where does the user live?")
    assert docs and {d.metadata["memory_type"] for d in docs} == {"long_term"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once is enough
        retriever.invoke("Where does the user live?")
    assert retriever.invoke("x", memory_types=["permanent"]) == []


def test_a_caller_that_may_read_gets_the_permanent_tier(anonymous: MemoryProvider) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        docs = HermesRetriever(memory=anonymous, user_id="u", k=5, caller=READER).invoke("Where does the user live?")
    assert docs[0].page_content == "The user lives in Hangzhou" and docs[0].metadata["memory_type"] == "permanent"


def test_without_the_gate_a_greeting_gets_k_documents(anonymous: MemoryProvider) -> None:
    assert len(HermesRetriever(memory=anonymous, user_id="u", k=2, caller=READER).invoke("hi")) == 2


@pytest.mark.parametrize("query", ["hi", "thanks!", "ok", "你好", "继续", "What is the capital of Peru?"])
def test_the_gate_answers_greetings_fillers_and_unrelated_questions_with_nothing(anonymous: MemoryProvider,
                                                                                 query: str) -> None:
    assert HermesRetriever(memory=anonymous, user_id="u", gate=True, caller=READER).invoke(query) == []


async def test_the_gate_recalls_what_is_relevant_and_facts_for_identity_questions(anonymous: MemoryProvider) -> None:
    gated = HermesRetriever(memory=anonymous, user_id="u", gate=True, caller=READER)
    assert gated.invoke("What does the user drink in the morning?")[0].page_content.startswith("The user drinks")
    where = await gated.ainvoke("Which city does the user live in?")
    assert where[0].page_content == "The user lives in Hangzhou"
    no_reader = HermesRetriever(memory=anonymous, user_id="u", gate=True, caller=Caller("some-app"))
    assert all(d.metadata["memory_type"] != "permanent" for d in no_reader.invoke("Which city does the user live in?"))
    default = HermesRetriever(memory=anonymous, user_id="u", gate=True)  # serves u: u's facts
    assert (await default.ainvoke("Which city does the user live in?"))[0].page_content == "The user lives in Hangzhou"
    assert await gated.ainvoke("thanks") == []


def test_the_caller_is_not_serialised(anonymous: MemoryProvider) -> None:
    retriever = HermesRetriever(memory=anonymous, user_id="u", caller=READER, gate=True)
    dumped = retriever.model_dump(exclude={"memory"})
    assert "caller" not in dumped and dumped["gate"] is True
