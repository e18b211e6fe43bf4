"""LangChain integration of Hermes Memory.

For LangChain 1.x agents (``langchain.agents.create_agent``): :class:`HermesMemoryMiddleware` (session + recall in
every model request), :class:`HermesStore` (a LangGraph ``BaseStore``: ``runtime.store``, LangMem, deepagents) and
:func:`create_memory_tools` (``manage_memory`` / ``search_memory``). For chains: :class:`HermesChatMessageHistory`
and :class:`HermesRetriever`. Thin adapters over ``hermes_memory_core``; summaries and classification run on the
host's LangChain model (:class:`LangChainLLM`).
"""

from hermes_memory_core import __version__
from langchain_hermes_memory.chat_history import HermesChatMessageHistory
from langchain_hermes_memory.llm import LangChainLLM
from langchain_hermes_memory.middleware import HermesMemoryMiddleware
from langchain_hermes_memory.retrievers import HermesRetriever
from langchain_hermes_memory.store import HermesStore
from langchain_hermes_memory.tools import create_memory_tools

__all__ = [
    "HermesChatMessageHistory",
    "HermesMemoryMiddleware",
    "HermesRetriever",
    "HermesStore",
    "LangChainLLM",
    "__version__",
    "create_memory_tools",
]
