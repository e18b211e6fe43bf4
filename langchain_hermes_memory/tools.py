"""LangMem-shaped agent tools over Hermes Memory: ``manage_memory`` and ``search_memory``.

They work on ``MemoryProvider`` directly (no store needed) and go through the same guards as the rest of Hermes:
``create`` runs ``remember`` (injection guard, normalisation, PII redaction), ``update`` runs the injection guard
before it adds a version, a user can only reach their own memories, and permanent memories need a ``caller``
allowed to read or change them.

The model calls these tools, so they never speak with the user's authority: ``create`` writes as the model (no
permanent fact, no reply preference — "always reply in Russian" from the model is a refused standing order — and
no weight against what the user said), tagged :data:`MODEL_TAG`; ``update`` changes only memories the model
created, never one the user's own words made.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from langchain_core.language_models import BaseLanguageModel
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field

from hermes_memory_core import (
    Caller,
    HermesMemoryError,
    InvalidInputError,
    MemoryHit,
    MemoryProvider,
    MemoryType,
    NotFoundError,
    RememberAction,
    check_memory_write,
    shown_hit,
)
from langchain_hermes_memory.identity import user_id_of
from langchain_hermes_memory.llm import LangChainLLM
from langchain_hermes_memory.namespaces import check_user_id

__all__ = ["MODEL_TAG", "ManageMemoryInput", "SearchMemoryInput", "create_memory_tools"]

_STORE_TAG = "langgraph:item"  # memories a HermesStore holds are changed through the store
#: The tag of a memory ``manage_memory`` created: the model's words, which the tool's ``update`` may change (a memory
#: the user's own words made is not the model's to rewrite).
MODEL_TAG = "written-by:model"
_SEARCH_TIERS = (MemoryType.LONG_TERM, MemoryType.PERMANENT)  # permanent only for a caller who may read it

MANAGE_DESCRIPTION = """Create, update or delete a memory that persists across conversations.
Include the MEMORY ID when updating or deleting a MEMORY. Omit it when creating a new MEMORY - it will be created for you.
Proactively call this tool when you:

1. Identify a new USER preference.
2. Receive an explicit USER request to remember something or otherwise alter your behavior.
3. Are working and want to record important context.
4. Identify that an existing MEMORY is incorrect or outdated."""

SEARCH_DESCRIPTION = "Search your long-term memories for information relevant to your current context."


class ManageMemoryInput(BaseModel):
    """Arguments of ``manage_memory`` (LangMem's shape)."""

    content: str | None = Field(default=None, description="The memory's text (for create and update).")
    action: Literal["create", "update", "delete"] = Field(default="create", description="What to do.")
    id: str | None = Field(default=None, description="The MEMORY ID (for update and delete).")


class SearchMemoryInput(BaseModel):
    """Arguments of ``search_memory``."""

    query: str = Field(description="What to look for, in any language.")
    limit: int = Field(default=5, ge=1, le=50, description="How many memories to return.")


def _hits_json(hits: list[MemoryHit]) -> str:
    """The results as JSON; a memory the core's read-time guard withholds (``prompt_safe``) shows
    ``WITHHELD_NOTE`` as its content and ``"withheld": true`` (its id stays, so it can be deleted)."""
    return json.dumps(
        [shown_hit(h, ("id", "content", "memory_type", "score", "updated_at")) for h in hits],
        ensure_ascii=False,
    )


class _MemoryTools:
    """What the two tools do (sync; the tools' async forms run it in a worker thread)."""

    def __init__(self, memory: MemoryProvider, user_id: str | None, caller: Caller | None,
                 llm: BaseLanguageModel[Any] | None, memory_type: MemoryType | None) -> None:
        self.memory = memory
        self.user_id = None if user_id is None else check_user_id(user_id, "create_memory_tools")
        self.caller = caller
        self.llm = LangChainLLM(llm) if llm is not None else None
        self.memory_type = memory_type

    def user(self, config: RunnableConfig | None) -> str:
        if self.user_id is not None:
            return self.user_id
        from langgraph.runtime import get_runtime

        try:
            context = get_runtime().context
        except (RuntimeError, AttributeError):  # not inside a LangGraph run
            context = None
        return user_id_of(context, config, "memory tools")

    @property
    def changer(self) -> Caller:
        """Who updates or deletes: the tools' caller, else the provider's own, never the user's authority (the
        model calls these tools: a changed or forgotten fact needs a caller allowed to change it)."""
        return self.caller if self.caller is not None else self.memory.caller

    @property
    def writer(self) -> Caller:
        """Who creates: the model, never the user's authority — a caller bound to no user and without
        ``write_permanent``, so what the model writes is not the user's own words (no reply preference, no
        permanent fact, weight 0 against what the user said) and is tagged :data:`MODEL_TAG`."""
        base = self.caller if self.caller is not None else self.memory.caller
        return Caller(f"{base.name}:model-tool", read_permanent=base.read_permanent, write_permanent=False)

    @staticmethod
    def check(action: str, content: str | None, memory_id: str | None) -> None:
        if action == "create" and memory_id is not None:
            raise ToolException("Do not pass an id when creating a memory; omit the id argument.")
        if action in ("update", "delete") and not memory_id:
            raise ToolException(f"Pass the MEMORY ID of the memory to {action}.")
        if action in ("create", "update") and not (content and content.strip()):
            raise ToolException(f"Pass the content of the memory to {action}.")

    def _check_update(self, memory_id: str, content: str, user_id: str) -> None:
        verdict = check_memory_write(content, "user")
        if not verdict.allow_long_term:
            raise ToolException(f"Not stored: {verdict.reason}.")
        record = self.memory.get(memory_id, user_id=user_id, caller=self.caller)
        if _STORE_TAG in record.tags:
            raise ToolException("This memory belongs to a LangGraph store namespace; change it through the store.")
        unchangeable = record.memory_type is MemoryType.PERMANENT and not self.changer.may(user_id, write=True)
        if MODEL_TAG not in record.tags and not unchangeable:  # (a fact the changer may not touch: the core says so)
            raise ToolException("This memory holds what the user said; only the user changes it. Create a new "
                                "memory instead.")

    def manage(self, content: str | None, action: str, memory_id: str | None, config: RunnableConfig | None) -> str:
        self.check(action, content, memory_id)
        user_id = self.user(config)
        try:
            if action == "create":
                assert content is not None
                result = self.memory.remember(content, user_id=user_id, llm=self.llm, memory_type=self.memory_type,
                                              caller=self.writer, tags=(MODEL_TAG,))
                if result.id is None:
                    raise ToolException(f"Not stored: {result.reason}.")
                return _CREATE_ANSWERS.get(result.action, "created memory {id}").format(id=result.id)
            assert memory_id is not None
            if action == "update":
                assert content is not None
                self._check_update(memory_id, content, user_id)
                self.memory.update(memory_id, content, user_id=user_id, caller=self.changer,
                                   version_note="updated by the manage_memory tool")
                return f"updated memory {memory_id}"
            self.memory.delete(memory_id, user_id=user_id, caller=self.changer, reason="deleted by the manage_memory tool")
            return f"deleted memory {memory_id}"
        except NotFoundError:
            raise ToolException(f"No memory with id {memory_id} (search_memory lists the ids).") from None
        except HermesMemoryError as exc:
            raise ToolException(str(exc)) from exc

    def search(self, query: str, limit: int, config: RunnableConfig | None) -> str:
        user_id = self.user(config)
        try:
            hits = self.memory.search(query, user_id=user_id, top_k=limit, memory_types=_SEARCH_TIERS,
                                      caller=self.caller)
        except HermesMemoryError as exc:
            raise ToolException(str(exc)) from exc
        return _hits_json(hits)


#: What ``manage_memory(action="create")`` answers, by what ``remember`` did: only a new memory is "created".
_CREATE_ANSWERS = {
    RememberAction.ADDED: "created memory {id}",
    RememberAction.DUPLICATE: "memory {id} already holds this; nothing new was stored",
    RememberAction.VERSIONED: "updated memory {id}: this is its new version",
    RememberAction.KEPT_APART: "created memory {id}, kept apart from a fact recorded with more authority",
}


def create_memory_tools(
    memory: MemoryProvider,
    user_id: str | None = None,
    caller: Caller | None = None,
    *,
    llm: BaseLanguageModel[Any] | None = None,
    memory_type: MemoryType | str | None = MemoryType.LONG_TERM,
) -> list[BaseTool]:
    """``manage_memory`` and ``search_memory``: LangMem's memory tools, over Hermes Memory.

    ``manage_memory(content, action="create" | "update" | "delete", id)`` answers ``"created memory <id>"``
    (``updated`` / ``deleted``; a create the user's memory already holds answers ``"memory <id> already holds
    this; nothing new was stored"``, one that changes a fact on the same topic ``"updated memory <id>: this is its
    new version"``) and ``search_memory(query, limit=5)`` a JSON list of
    ``{"id", "content", "memory_type", "score", "updated_at"}``, best first, over the user's long-term (and, for a
    ``caller`` who may read them, permanent) memories. A refused write (the injection guard, an unknown id, another
    user's id) comes back to the model as the tool's error message, not as an exception.

    Setup:
        .. code-block:: bash

            pip install "hermes-memory-layer[langchain]"

    Instantiate:
        .. code-block:: python

            from langchain_hermes_memory import create_memory_tools

            tools = create_memory_tools(mem)                     # the user comes from each run
            tools = create_memory_tools(mem, user_id="alice")   # or is fixed

    Usage:
        .. code-block:: python

            manage, search = tools
            manage.invoke({"content": "Alice prefers window seats", "action": "create"},
                          {"configurable": {"user_id": "alice"}})
            search.invoke({"query": "靠窗的座位", "limit": 3}, {"configurable": {"user_id": "alice"}})

    Async:
        .. code-block:: python

            await search.ainvoke({"query": "seat preference"}, {"configurable": {"user_id": "alice"}})

    In an agent:
        .. code-block:: python

            agent = create_agent(model, tools=create_memory_tools(mem), context_schema=Context)
            agent.invoke({"messages": [...]}, context=Context(user_id="alice"))

    Args:
        memory: The open Hermes store.
        user_id: A fixed user; by default each call's user comes from ``runtime.context.user_id`` or
            ``config["configurable"]["user_id"]`` (or LangMem's ``langgraph_user_id``).
        caller: Who acts on permanent memories (default: the provider's caller).
        llm: The host's model that normalises new memories (and classifies them when ``memory_type`` is None).
        memory_type: The tier ``create`` writes (default long-term); None lets the classifier decide.
    """
    try:
        tier = None if memory_type is None else MemoryType(memory_type)
    except ValueError:
        raise InvalidInputError(f"unknown memory_type {memory_type!r}") from None
    if tier is MemoryType.SHORT_TERM:
        raise InvalidInputError("memory tools keep long-term or permanent memories, not short-term ones")
    impl = _MemoryTools(memory, user_id, caller, llm, tier)

    # the async forms run the sync ones in a worker thread (which keeps the run's context: get_runtime works)
    def manage_memory(config: RunnableConfig, content: str | None = None, action: str = "create",
                      id: str | None = None) -> str:
        return impl.manage(content, action, id, config)

    async def amanage_memory(config: RunnableConfig, content: str | None = None, action: str = "create",
                             id: str | None = None) -> str:
        return await asyncio.to_thread(impl.manage, content, action, id, config)

    def search_memory(config: RunnableConfig, query: str, limit: int = 5) -> str:
        return impl.search(query, limit, config)

    async def asearch_memory(config: RunnableConfig, query: str, limit: int = 5) -> str:
        return await asyncio.to_thread(impl.search, query, limit, config)

    common: dict[str, Any] = {"handle_tool_error": True}
    return [
        StructuredTool.from_function(manage_memory, amanage_memory, name="manage_memory",
                                     description=MANAGE_DESCRIPTION, args_schema=ManageMemoryInput, **common),
        StructuredTool.from_function(search_memory, asearch_memory, name="search_memory",
                                     description=SEARCH_DESCRIPTION, args_schema=SearchMemoryInput, **common),
    ]
