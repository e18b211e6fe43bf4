"""LangChain integration of Hermes Memory: a chat message history and a retriever.

Thin adapters over ``hermes_memory_core``; summaries and classification run on the host's LangChain model.
"""

from importlib import metadata as _metadata

from langchain_hermes_memory.chat_history import HermesChatMessageHistory
from langchain_hermes_memory.llm import LangChainLLM
from langchain_hermes_memory.retrievers import HermesRetriever
from langchain_hermes_memory.store import HermesStore

try:
    __version__ = _metadata.version("hermes-memory")
except _metadata.PackageNotFoundError:  # pragma: no cover
    __version__ = "0.0.0+local"

__all__ = ["HermesChatMessageHistory", "HermesRetriever", "HermesStore", "LangChainLLM", "__version__"]
