"""LlamaIndex integration of Hermes Memory: a ``BaseMemory`` for chat engines and agents, and memory blocks
for ``llama_index.core.memory.Memory``. Needs the ``[llama-index]`` extra; without it the import error says so."""

from hermes_memory_core import __version__

try:
    from llama_index_hermes_memory.base import HermesMemory
    from llama_index_hermes_memory.blocks import HermesLongTermBlock, HermesPermanentBlock
    from llama_index_hermes_memory.llm import LlamaIndexLLM
except ModuleNotFoundError as exc:  # name the extra, not just the first module that is missing
    if not (exc.name or "").startswith("llama_index"):
        raise
    raise ModuleNotFoundError(
        f'llama_index_hermes_memory needs llama-index-core 0.14: pip install "hermes-memory-layer[llama-index]" '
        f"(missing: {exc.name})", name=exc.name) from exc

__all__ = ["HermesLongTermBlock", "HermesMemory", "HermesPermanentBlock", "LlamaIndexLLM", "__version__"]
