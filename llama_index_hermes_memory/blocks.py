"""Memory blocks for ``llama_index.core.memory.Memory`` users: Hermes long-term and permanent tiers as blocks.

``Memory`` keeps the short-term chat history itself (by tokens) and flushes whole turns into its blocks when it
overflows; these blocks store what those turns say about the user in Hermes Memory and bring it back into the
prompt. Blocks get no LLM from the host: pass one (``llm=``) for LLM classification, else the rules run.

Permanent facts need a caller allowed to read them: ``caller=Caller("my-app", read_permanent=True)`` on the block (or
the provider's default caller). Without one, :class:`HermesPermanentBlock` shows nothing and warns once.
"""

from __future__ import annotations

import warnings
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.llms.llm import LLM
from llama_index.core.memory.memory import BaseMemoryBlock

from hermes_memory_core import (
    Caller,
    MemoryProvider,
    MemoryType,
    aturn_context,
    memory_lines,
    needs_permanent,
    should_recall,
)
from llama_index_hermes_memory.llm import LlamaIndexLLM

__all__ = ["HermesLongTermBlock", "HermesPermanentBlock"]


def _last_user_text(messages: list[ChatMessage] | None) -> str | None:
    for m in reversed(messages or []):
        if m.role == MessageRole.USER and m.content:
            return m.content
    return None


class HermesLongTermBlock(BaseMemoryBlock[str]):
    """Long-term memories (preferences, habits) recalled for the latest user message; flushed turns are promoted.

    Example:
        ```python
        from llama_index.core.memory import Memory
        memory = Memory.from_defaults(session_id="s1", memory_blocks=[
            HermesLongTermBlock(memory=mem, user_id="u1", priority=1),
            HermesPermanentBlock(memory=mem, user_id="u1", priority=0),
        ])
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = Field(default="hermes_long_term", description="Block name in the memory template.")
    memory: MemoryProvider = Field(exclude=True, description="The Hermes Memory store.")
    user_id: str = Field(description="Owner of the memories.")
    top_k: int = Field(default=5, ge=1, le=100, description="Memories recalled per turn.")
    llm: LLM | None = Field(default=None, exclude=True, description="Model for classification (else rules) and for "
                            "judging which recalled lines help (recall_judge).")
    caller: Caller | None = Field(default=None, exclude=True,
                                  description="Who writes promoted facts (default: the provider's caller).")

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = _last_user_text(messages)
        if not query or not should_recall(query):
            return ""
        # the core's one turn context (recall: the gate, the relevance judgement, nothing when nothing fits),
        # without the permanent facts (their own block)
        llm = LlamaIndexLLM(self.llm) if self.llm is not None else None
        context = await aturn_context(self.memory, query, user_id=self.user_id, top_k=self.top_k, caller=self.caller,
                                      include_summary=False, llm=llm)
        return memory_lines([h for h in context.hits if h.memory_type is not MemoryType.PERMANENT])

    async def _aput(self, messages: list[ChatMessage]) -> None:
        wrapped = LlamaIndexLLM(self.llm) if self.llm is not None else None
        for m in messages:
            if m.role == MessageRole.USER and m.content and m.content.strip():
                session = m.additional_kwargs.get("session_id")
                await self.memory.aremember(m.content, user_id=self.user_id, session_id=session, llm=wrapped,
                                            caller=self.caller)


class HermesPermanentBlock(BaseMemoryBlock[str]):
    """Current versions of permanent facts, loaded only when the question is about identity, configuration or
    compliance (the fact router). Read-only here: facts are written by promotion (``HermesLongTermBlock``,
    ``remember``) so a flushed turn cannot overwrite them directly. Use ``priority=0`` to never truncate them.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = Field(default="hermes_permanent", description="Block name in the memory template.")
    memory: MemoryProvider = Field(exclude=True, description="The Hermes Memory store.")
    user_id: str = Field(description="Owner of the facts.")
    top_k: int = Field(default=5, ge=1, le=100, description="Facts loaded per turn.")
    accept_short_term_memory: bool = Field(default=False, description="Flushed turns are not written here.")
    caller: Caller | None = Field(default=None, exclude=True, description="Who reads the facts (needs "
                                  "read_permanent; default: the provider's caller when it was given one, else the "
                                  "user themselves). Without the permission the block is empty.")

    _warned: bool = PrivateAttr(default=False)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = _last_user_text(messages)
        if not query or not should_recall(query) or not needs_permanent(query):
            return ""
        who = self.memory.caller_for(self.user_id, self.caller)
        if not who.read_permanent:  # nothing to show, said once (an identity question must not fail the turn)
            if not self._warned:
                self._warned = True
                warnings.warn(
                    f"{type(self).__name__}: caller {who.name!r} may not read permanent memories, so this block shows "
                    "nothing; pass caller=Caller(name, read_permanent=True) to the block or the MemoryProvider",
                    UserWarning, stacklevel=2,
                )
            return ""
        # the fact router decides (above); the user's facts are few, so the block shows the best of them
        hits = await self.memory.asearch(query, user_id=self.user_id, top_k=self.top_k,
                                         memory_types=[MemoryType.PERMANENT], caller=who)
        return memory_lines(hits)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        return None
