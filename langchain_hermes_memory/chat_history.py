"""Hermes Memory as a LangChain chat message history.

Class hierarchy::

    BaseChatMessageHistory --> HermesChatMessageHistory

Naming follows LangChain's rule ``BaseChatMessageHistory --> <name>ChatMessageHistory``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import BaseMessage, SystemMessage, message_to_dict, messages_from_dict

from hermes_memory_core import MemoryProvider, Message, SessionView
from langchain_hermes_memory.llm import LangChainLLM, message_text

__all__ = ["SUMMARY_PREFIX", "HermesChatMessageHistory"]

SUMMARY_PREFIX = "Summary of the earlier conversation:\n"
_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "function": "tool", "system": "system"}


def _to_core(message: BaseMessage) -> Message:
    role = getattr(message, "role", None) if message.type == "chat" else _ROLES.get(message.type, message.type)
    return Message(str(role or message.type), message_text(message), {"lc": message_to_dict(message)})


def _to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for m in messages:
        if "lc" in m.data:
            out.extend(messages_from_dict([m.data["lc"]]))
        else:  # written by another adapter or the core API
            from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, ToolMessage

            if m.role in ("user", "human"):
                out.append(HumanMessage(m.content))
            elif m.role == "assistant":
                out.append(AIMessage(m.content))
            elif m.role == "system":
                out.append(SystemMessage(m.content))
            elif m.role == "tool":
                out.append(ToolMessage(m.content, tool_call_id=str(m.data.get("tool_call_id", "unknown"))))
            else:
                out.append(ChatMessage(content=m.content, role=m.role))
    return out


class HermesChatMessageHistory(BaseChatMessageHistory):
    """Chat message history backed by Hermes Memory's short-term tier.

    ``messages`` is the running summary of older turns (one ``SystemMessage``, first, only when there is a
    summary) followed by the last ``ring_size`` (12) turns. Messages are durable when ``add_messages`` returns.
    When the buffer overflows, the oldest 4 turns are summarised — and what they said about the user is
    classified into long-term or permanent memory — by ``llm``, the host's model, in a background thread that
    never blocks the chat. Without ``llm`` deterministic fallbacks run.

    Setup:
        .. code-block:: bash

            pip install "hermes-memory-layer[langchain]"

    Instantiate:
        .. code-block:: python

            from hermes_memory_core import MemoryProvider, MemoryConfig
            from langchain_hermes_memory import HermesChatMessageHistory

            mem = MemoryProvider(MemoryConfig(data_dir="./hermes_data"))
            history = HermesChatMessageHistory(session_id="s1", user_id="u1", memory=mem, llm=chat_model)

    Usage:
        .. code-block:: python

            from langchain_core.messages import AIMessage, HumanMessage

            history.add_messages([HumanMessage("我平时写 Python 比较多"), AIMessage("好的，记住了")])
            history.messages       # [SystemMessage(summary)?, HumanMessage(...), AIMessage(...), ...]
            history.clear()

    Async:
        .. code-block:: python

            await history.aadd_messages([HumanMessage("hi")])
            await history.aget_messages()
            await history.aclear()

    Use in a chain:
        .. code-block:: python

            from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
            from langchain_core.runnables.history import RunnableWithMessageHistory

            prompt = ChatPromptTemplate.from_messages(
                [("system", "You are helpful."), MessagesPlaceholder("history"), ("human", "{question}")]
            )
            chain = RunnableWithMessageHistory(
                prompt | chat_model,
                lambda session_id: HermesChatMessageHistory(session_id=session_id, user_id="u1", memory=mem,
                                                            llm=chat_model),
                input_messages_key="question",
                history_messages_key="history",
            )
            chain.invoke({"question": "Which language do I prefer?"}, {"configurable": {"session_id": "s1"}})

    The view is a snapshot: the first read caches it until this object writes, so the read and the write that
    ``RunnableWithMessageHistory`` does around one call see the same history even while a background summary
    lands in between.
    """

    def __init__(
        self,
        session_id: str,
        user_id: str,
        memory: MemoryProvider,
        llm: BaseLanguageModel[Any] | None = None,
    ) -> None:
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self.llm = llm
        self._session = memory.session(user_id, session_id, llm=LangChainLLM(llm) if llm is not None else None)
        self._snapshot: list[BaseMessage] | None = None

    @staticmethod
    def _render(view: SessionView) -> list[BaseMessage]:
        head: list[BaseMessage] = [SystemMessage(SUMMARY_PREFIX + view.summary)] if view.summary else []
        return head + _to_langchain(view.messages)

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """Summary (if any) then the last turns; a stable snapshot until this object writes."""
        if self._snapshot is None:
            view = self._session.view()
            if not view.messages:  # a new thread read before its first message (RunnableWithMessageHistory reads,
                self._session.begin()  # then runs the chain and its retriever, then writes): the user left the others
            self._snapshot = self._render(view)
        return list(self._snapshot)

    async def aget_messages(self) -> list[BaseMessage]:
        """Async twin of :attr:`messages` (reads through the core's async API)."""
        if self._snapshot is None:
            view = await self._session.aview()
            if not view.messages:
                await self._session.abegin()
            self._snapshot = self._render(view)
        return list(self._snapshot)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages; a ``HumanMessage`` opens a new turn. Durable on return."""
        self._session.add_messages([_to_core(m) for m in messages])
        self._snapshot = None

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async twin of :meth:`add_messages`."""
        await self._session.aadd_messages([_to_core(m) for m in messages])
        self._snapshot = None

    def clear(self) -> None:
        """Forget this session's buffer and summary (long-term and permanent memories stay)."""
        self._session.clear()
        self._snapshot = None

    async def aclear(self) -> None:
        """Async twin of :meth:`clear`."""
        await self._session.aclear()
        self._snapshot = None

    def context_tokens(self) -> int:
        """Tokens the summary and buffered turns put into a prompt (cl100k_base)."""
        return self._session.context_tokens()

    def __repr__(self) -> str:
        return f"HermesChatMessageHistory(user_id={self.user_id!r}, session_id={self.session_id!r})"

    def __getstate__(self) -> dict[str, Any]:  # histories hold a live store; they are not serialisable
        raise TypeError("HermesChatMessageHistory holds an open MemoryProvider and cannot be pickled")
