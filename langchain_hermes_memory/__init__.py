"""LangChain integration of Hermes Memory.

For LangChain 1.x agents (``langchain.agents.create_agent``): :class:`HermesMemoryMiddleware` (session + recall in
every model request), :class:`HermesStore` (a LangGraph ``BaseStore``: ``runtime.store``, LangMem, deepagents) and
:func:`create_memory_tools` (``manage_memory`` / ``search_memory``). For chains: :class:`HermesChatMessageHistory`
and :class:`HermesRetriever`. Thin adapters over ``hermes_memory_core``; summaries and classification run on the
host's LangChain model (:class:`LangChainLLM`). Needs the ``[langchain]`` extra; without it the import error says so.
"""

from hermes_memory_core import __version__

try:
    from langchain_hermes_memory.chat_history import HermesChatMessageHistory
    from langchain_hermes_memory.llm import LangChainLLM
    from langchain_hermes_memory.middleware import HermesMemoryMiddleware
    from langchain_hermes_memory.retrievers import HermesRetriever
    from langchain_hermes_memory.store import HermesStore
    from langchain_hermes_memory.tools import create_memory_tools
except ModuleNotFoundError as exc:  # name the extra, not just the first module that is missing
    if (exc.name or "").split(".")[0] not in {"langchain_core", "langchain", "langgraph"}:
        raise
    raise ModuleNotFoundError(
        f'langchain_hermes_memory needs LangChain 1.x: pip install "hermes-memory-layer[langchain]" (missing: '
        f"{exc.name})", name=exc.name) from exc

__all__ = [
    "HermesChatMessageHistory",
    "HermesMemoryMiddleware",
    "HermesRetriever",
    "HermesStore",
    "LangChainLLM",
    "__version__",
    "create_memory_tools",
]
