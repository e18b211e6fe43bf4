import warnings

import langchain_hermes_memory


def test_all_is_pinned() -> None:
    assert set(langchain_hermes_memory.__all__) == {
        "HermesChatMessageHistory", "HermesMemoryMiddleware", "HermesRetriever", "HermesStore", "LangChainLLM",
        "__version__", "create_memory_tools"}


def test_building_our_classes_warns_nothing(mem) -> None:  # type: ignore[no-untyped-def]
    from langchain_hermes_memory import (
        HermesChatMessageHistory,
        HermesMemoryMiddleware,
        HermesRetriever,
        HermesStore,
        create_memory_tools,
    )

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        HermesChatMessageHistory(session_id="s", user_id="u", memory=mem)
        HermesRetriever(memory=mem, user_id="u", k=2)
        HermesStore(mem)
        HermesMemoryMiddleware(memory=mem)
        create_memory_tools(mem)
    assert [str(w.message) for w in caught] == []
