"""Wraps a LlamaIndex ``LLM`` onto the core's LLM protocol (``llm.chat``/``achat`` or ``complete``), with
structured output (the classifier's JSON) for function-calling models."""

from __future__ import annotations

from typing import Any, Literal

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import PromptTemplate
from pydantic import BaseModel, Field, create_model

__all__ = ["LlamaIndexLLM"]

_TYPES: dict[str, type] = {"string": str, "number": float, "integer": int, "boolean": bool}


def _model_from_schema(schema: dict[str, Any]) -> type[BaseModel] | None:
    """A pydantic class for a flat JSON schema (scalar properties, string enums), or None for anything else."""
    fields: dict[str, Any] = {}
    required = set(schema.get("required", []))
    for name, spec in dict(schema.get("properties", {})).items():
        if "enum" in spec:
            kind: Any = Literal[tuple(spec["enum"])]
        elif spec.get("type") in _TYPES:
            kind = _TYPES[spec["type"]]
        else:
            return None
        default = ... if name in required else None
        fields[name] = (kind if name in required else kind | None, Field(default, description=spec.get("description")))
    if not fields:
        return None
    model: type[BaseModel] = create_model(str(schema.get("title", "Answer")), **fields)
    model.__doc__ = str(schema.get("description", "")) or None
    return model


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
        """Structured output for a function-calling model (``structured_predict`` with the schema as a tool);
        None for other models, whose text answers the core parses."""
        if not getattr(self.llm.metadata, "is_function_calling_model", False):
            return None
        output_cls = _model_from_schema(schema)
        if output_cls is None:
            return None
        result = self.llm.structured_predict(output_cls, PromptTemplate("{text}"), text=prompt)
        return result.model_dump(exclude_none=True) if isinstance(result, BaseModel) else None
