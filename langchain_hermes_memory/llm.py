"""Wraps any LangChain ``BaseLanguageModel`` (chat model or text LLM) onto the core's LLM protocol."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import BaseMessage

__all__ = ["LangChainLLM", "message_text"]


def message_text(message: Any) -> str:
    """The text of a model output: a message's text content, or the string a text LLM returned."""
    if isinstance(message, BaseMessage):
        content = message.content
        if isinstance(content, str):
            return content
        parts = [b if isinstance(b, str) else b.get("text", "") for b in content if isinstance(b, (str, dict))]
        return "".join(parts)
    return str(message)


class LangChainLLM:
    """The host's LangChain model as a Hermes ``LLM`` (``complete``/``acomplete``) and ``StructuredLLM``.

    Args:
        model: A chat model or a text LLM.
    """

    def __init__(self, model: BaseLanguageModel[Any]) -> None:
        self.model = model

    def complete(self, prompt: str) -> str:
        return message_text(self.model.invoke(prompt))

    async def acomplete(self, prompt: str) -> str:
        return message_text(await self.model.ainvoke(prompt))

    def complete_json(self, prompt: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        """Structured output when the model supports it (``with_structured_output``), else None."""
        make = getattr(self.model, "with_structured_output", None)
        if make is None:
            return None
        try:
            runnable = make(schema)
        except (NotImplementedError, ValueError, TypeError):
            return None
        result = runnable.invoke(prompt)
        return result if isinstance(result, dict) else None
