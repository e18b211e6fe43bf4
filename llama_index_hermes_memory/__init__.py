"""LlamaIndex integration of Hermes Memory: a ``BaseMemory`` for chat engines and agents, and memory blocks
for ``llama_index.core.memory.Memory``."""

from importlib import metadata as _metadata

from llama_index_hermes_memory.base import HermesMemory
from llama_index_hermes_memory.blocks import HermesLongTermBlock, HermesPermanentBlock
from llama_index_hermes_memory.llm import LlamaIndexLLM

try:
    __version__ = _metadata.version("hermes-memory")
except _metadata.PackageNotFoundError:  # pragma: no cover
    __version__ = "0.0.0+local"

__all__ = ["HermesLongTermBlock", "HermesMemory", "HermesPermanentBlock", "LlamaIndexLLM", "__version__"]
