"""A scripted tool-calling chat model for ``create_agent`` tests: langchain-core's ``GenericFakeChatModel`` that
accepts tools (``bind_tools`` returns itself), answers from a queue the test fills turn by turn, and records
every request it receives."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import Field, PrivateAttr


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with the next queued message; ``requests`` holds the messages of every call, in order."""

    requests: list[list[BaseMessage]] = Field(default_factory=list)
    _queue: list[AIMessage | str] = PrivateAttr(default_factory=list)

    def __init__(self, **kwargs: Any) -> None:
        queue: list[AIMessage | str] = []

        def feed() -> Iterator[AIMessage | str]:
            while True:
                if not queue:
                    raise AssertionError("the scripted model was called more often than the test scripted")
                yield queue.pop(0)

        super().__init__(messages=feed(), **kwargs)
        self._queue = queue

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.requests.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kwargs)

    def say(self, *answers: AIMessage | str) -> None:
        """Queue the answers of the next model calls."""
        self._queue.extend(answers)

    @staticmethod
    def system_text(request: Sequence[BaseMessage]) -> str:
        """The text of a request's system message ("" when it has none)."""
        return next((m.text for m in request if isinstance(m, SystemMessage)), "")


def tool_call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    """An assistant message that calls one tool."""
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])
