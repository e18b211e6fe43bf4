"""Wraps a LlamaIndex ``LLM`` onto the core's LLM protocol (``llm.chat``/``achat`` or ``complete``)."""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM

__all__ = ["LlamaIndexLLM"]


class LlamaIndexLLM:
    """The host's LlamaIndex model as a Hermes ``LLM``.

    Chat models are called with one user message (``chat``/``achat``); completion models with ``complete``.
    """

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def _is_chat(self) -> bool:
        return bool(getattr(self.llm.metadata, "is_chat_model", False))

    def complete(self, prompt: str) -> str:
        if self._is_chat():
            return self.llm.chat([ChatMessage(role=MessageRole.USER, content=prompt)]).message.content or ""
        return self.llm.complete(prompt).text

    async def acomplete(self, prompt: str) -> str:
        if self._is_chat():
            response = await self.llm.achat([ChatMessage(role=MessageRole.USER, content=prompt)])
            return response.message.content or ""
        return (await self.llm.acomplete(prompt)).text

    def complete_json(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        """No structured path is assumed for arbitrary LlamaIndex models: the core parses text answers."""
        return None
