"""LlamaIndex integration of Hermes Memory: a ``BaseMemory`` for chat engines and agents, and memory blocks
for ``llama_index.core.memory.Memory``."""

from hermes_memory_core import __version__
from llama_index_hermes_memory.base import HermesMemory
from llama_index_hermes_memory.blocks import HermesLongTermBlock, HermesPermanentBlock
from llama_index_hermes_memory.llm import LlamaIndexLLM

__all__ = ["HermesLongTermBlock", "HermesMemory", "HermesPermanentBlock", "LlamaIndexLLM", "__version__"]
