"""Hermes Memory as ``create_agent`` middleware: the thread's turns go into a Hermes session, and every model call
sees the running summary and what Hermes recalls about the user — in that request only.

Class hierarchy::

    AgentMiddleware --> HermesMemoryMiddleware
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from langgraph.runtime import Runtime

from hermes_memory_core import (
    MEMORY_BLOCK_END,
    MEMORY_BLOCK_START,
    Caller,
    ExtractiveSummarizer,
    InvalidInputError,
    LLMSummarizer,
    MemoryHit,
    MemoryProvider,
    SessionMemory,
    SessionView,
    render_memory_block,
    turn_context,
)
from langchain_hermes_memory.chat_history import _to_core
from langchain_hermes_memory.identity import current_config, thread_id_of, user_id_of
from langchain_hermes_memory.llm import LangChainLLM, message_text

__all__ = ["MEMORY_BLOCK_END", "MEMORY_BLOCK_START", "HermesMemoryMiddleware", "render_memory"]

def render_memory(summary: str, hits: Sequence[MemoryHit]) -> str:
    """The memory block: the running summary of this thread and the recalled memories (the core's one renderer:
    quoted, guarded, labelled), or "" when both are empty."""
    return render_memory_block(hits, summary)


def _with_block(system: SystemMessage | None, block: str) -> SystemMessage:
    """The request's system message with the memory block appended (a new message; the original is untouched)."""
    if system is None:
        return SystemMessage(block)
    if isinstance(system.content, str):
        text = f"{system.content}\n\n{block}" if system.content else block
        return system.model_copy(update={"content": text})
    return system.model_copy(update={"content": [*system.content, {"type": "text", "text": block}]})


def _message_id(data: dict[str, Any]) -> str | None:
    lc = data.get("lc")
    return (lc.get("data") or {}).get("id") if isinstance(lc, dict) else None


def _latest_question(messages: Sequence[AnyMessage]) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            return message_text(m).strip()
    return ""


class HermesMemoryMiddleware(AgentMiddleware[AgentState[Any], Any]):
    """Long-term memory for ``langchain.agents.create_agent``, on Hermes Memory.

    - **Before the first model call of a run**, the new user message(s) of the thread go into the Hermes session
      ``(user, thread_id)``: its 12-turn ring buffer and running summary; each answered turn is kept as
      conversation memories (what was said, found again in later threads), older turns are summarised, and what
      the user said about themselves is promoted to long-term / permanent memory in the background, by ``llm``
      when given, else by the core's deterministic rules. A thread ends when its user starts another one (or
      after ``session_idle_seconds``): its last turns are kept and promoted then.
    - **Before every model call**, the running summary and the memories Hermes recalls for the latest user
      message (``MemoryProvider.recall``: the recall gate skips greetings; what was said in earlier threads and
      the profile; the user's permanent facts for questions about them — by default the middleware serves the
      user it runs for, a ``caller`` narrows that) are appended to the request's system message with
      ``request.override(system_message=...)``, rendered by the core's one renderer (dated, labelled, quoted).
      Nothing is written into the agent state, so the checkpointed thread never holds recalled memories. Recalled
      text that reads as an instruction to the assistant is left out (the core's injection guard), and turns the
      thread already shows are not repeated.
    - **When the model answers** without calling a tool, its answer joins the session. All of it happens around the
      model call (``wrap_model_call``): the middleware adds no node to the agent's graph.

    The user is ``runtime.context.user_id`` (or ``config["configurable"]["user_id"]``); the session is the
    LangGraph ``thread_id`` — the checkpointer's thread, or ``config["configurable"]["thread_id"]`` when there is
    no checkpointer (the README's block passes one and its turns are stored); with neither, recall still runs and
    no turn is stored.
    Writes are idempotent per message id, so a resumed or retried run does not store a turn twice.

    Setup:
        .. code-block:: bash

            pip install "hermes-memory-layer[langchain]"

    Instantiate:
        .. code-block:: python

            from langchain.agents import create_agent
            from langgraph.checkpoint.memory import InMemorySaver
            from langchain_hermes_memory import HermesMemoryMiddleware, HermesStore, create_memory_tools

            agent = create_agent(
                model,
                tools=create_memory_tools(mem),                  # manage_memory + search_memory
                middleware=[HermesMemoryMiddleware(memory=mem, llm=model)],
                checkpointer=InMemorySaver(),
                store=HermesStore(mem),
            )

    Usage:
        .. code-block:: python

            config = {"configurable": {"thread_id": "t1", "user_id": "alice"}}
            agent.invoke({"messages": [{"role": "user", "content": "I moved to Hangzhou last spring"}]}, config)
            # a week later, in another thread: the model's system message now carries the recalled fact
            agent.invoke({"messages": [{"role": "user", "content": "Where do I live?"}]},
                         {"configurable": {"thread_id": "t2", "user_id": "alice"}})

    Async:
        .. code-block:: python

            await agent.ainvoke({"messages": [{"role": "user", "content": "我住在哪里？"}]}, config)

    With LangChain's summarization middleware:
        .. code-block:: python

            from langchain.agents.middleware import SummarizationMiddleware

            hermes = HermesMemoryMiddleware(memory=mem, llm=model)
            agent = create_agent(model, middleware=[hermes, SummarizationMiddleware(
                model, trigger=("messages", 40), summarizer=hermes.summarizer())])

    Args:
        memory: The open Hermes store.
        caller: Who reads permanent memories in recall (default: the provider's caller when it was given one, else
            the user the run is for).
        llm: The host's model for summaries and promotion (wrapped with :class:`LangChainLLM`); without it the
            core's deterministic fallbacks run.
        top_k: How many memories recall brings into a request (1..1000).
        include_summary: Put the session's running summary into requests.
    """

    def __init__(
        self,
        memory: MemoryProvider,
        caller: Caller | None = None,
        llm: BaseLanguageModel[Any] | None = None,
        *,
        top_k: int = 5,
        include_summary: bool = True,
    ) -> None:
        super().__init__()
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 1000:
            raise InvalidInputError(f"top_k must be an integer in 1..1000, got {top_k!r}")
        self.memory = memory
        self.caller = caller
        self.llm = llm
        self.top_k = top_k
        self.include_summary = include_summary
        self.tools = []
        self._core_llm = LangChainLLM(llm) if llm is not None else None

    def __repr__(self) -> str:
        return f"HermesMemoryMiddleware({self.memory.location!r}, top_k={self.top_k})"

    # ------------------------------------------------------------------ identity and session
    def _who(self, runtime: Runtime[Any] | None) -> tuple[str, str | None]:
        config = current_config()
        return (user_id_of(getattr(runtime, "context", None), config, "HermesMemoryMiddleware"),
                thread_id_of(runtime, config))

    def _session(self, user_id: str, thread_id: str) -> SessionMemory:
        return self.memory.session(user_id, thread_id, llm=self._core_llm)

    @staticmethod
    def _unseen(view: SessionView, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        seen = {_message_id(m.data) for m in view.messages}
        return [m for m in messages if m.id is None or m.id not in seen]

    @staticmethod
    def _new_user_messages(messages: Sequence[AnyMessage]) -> list[BaseMessage]:
        """The user messages this run was started with (those after the thread's last other message)."""
        out: list[BaseMessage] = []
        for m in reversed(messages):
            if not isinstance(m, HumanMessage):
                break
            out.append(m)
        return [m for m in reversed(out) if message_text(m).strip()]

    @staticmethod
    def _final_answer(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        last = messages[-1] if messages else None
        if isinstance(last, AIMessage) and not last.tool_calls and message_text(last).strip():
            return [last]
        return []

    # ------------------------------------------------------------------ the memory block
    def memory_context(self, user_id: str, thread_id: str | None, question: str) -> str:
        """The memory block a request for ``question`` gets: the core's one turn context (:func:`turn_context`:
        the thread's summary, recall minus what the thread shows, rendered); "" for none."""
        return self._context(user_id, thread_id, question)[0]

    def _context(self, user_id: str, thread_id: str | None, question: str) -> tuple[str, SessionView | None]:
        """The memory block, and the session's view it was made with (None without a thread)."""
        view = None if thread_id is None else self._session(user_id, thread_id).view(summary=self.include_summary)
        block = turn_context(self.memory, question, user_id=user_id, session_id=thread_id, top_k=self.top_k,
                             caller=self.caller, llm=self._core_llm, include_summary=self.include_summary,
                             view=view).block
        return block, view

    async def amemory_context(self, user_id: str, thread_id: str | None, question: str) -> str:
        """Async twin of :meth:`memory_context` (runs it in a worker thread)."""
        return await asyncio.to_thread(self.memory_context, user_id, thread_id, question)

    def _request_with(self, request: ModelRequest[Any], block: str) -> ModelRequest[Any]:
        return request.override(system_message=_with_block(request.system_message, block)) if block else request

    # ------------------------------------------------------------------ the one hook
    # Everything happens around the model call: a middleware with ``before_agent`` / ``after_agent`` hooks adds two
    # graph nodes to every run (about 1.4 ms of a 7 ms bare turn), one with only ``wrap_model_call`` adds none.
    def store_new_messages(self, user_id: str, thread_id: str | None, messages: Sequence[AnyMessage]) -> None:
        """Write the run's new user message(s) (the user messages the thread ends with) into the session
        ``(user_id, thread_id)``; none without a thread. Idempotent per message id (a retried run or a second model
        call of the same run writes nothing again)."""
        self._store(user_id, thread_id, self._new_user_messages(messages))

    def store_answer(self, user_id: str, thread_id: str | None, messages: Sequence[BaseMessage],
                     view: SessionView | None = None) -> None:
        """Write the model's answer into the session when it is final (the last of ``messages``: an AI message with
        text and no tool calls); idempotent per message id. ``view``: the session's view read since this run's
        user messages were written (the one its memory block was made with), so the session is not read again
        to find the answer unwritten (the run's own answer cannot have been written since)."""
        self._store(user_id, thread_id, self._final_answer(messages), view)

    async def astore_new_messages(self, user_id: str, thread_id: str | None, messages: Sequence[AnyMessage]) -> None:
        """Async twin of :meth:`store_new_messages` (runs it in a worker thread)."""
        await asyncio.to_thread(self.store_new_messages, user_id, thread_id, messages)

    async def astore_answer(self, user_id: str, thread_id: str | None, messages: Sequence[BaseMessage],
                            view: SessionView | None = None) -> None:
        """Async twin of :meth:`store_answer` (runs it in a worker thread)."""
        await asyncio.to_thread(self.store_answer, user_id, thread_id, messages, view)

    def _store(self, user_id: str, thread_id: str | None, messages: list[BaseMessage],
               view: SessionView | None = None) -> None:
        if thread_id is not None and messages:
            session = self._session(user_id, thread_id)
            view = view if view is not None else session.view(summary=False)
            session.add_messages([_to_core(m) for m in self._unseen(view, messages)])

    def _held(self, user_id: str, thread_id: str | None) -> AbstractContextManager[None]:
        """The background work of the thread's session held back while its memory block is made (see
        :meth:`SessionMemory.holding_background`); nothing without a thread."""
        return nullcontext() if thread_id is None else self._session(user_id, thread_id).holding_background()

    @staticmethod
    def _thread_messages(request: ModelRequest[Any]) -> Sequence[AnyMessage]:
        state = getattr(request, "state", None) or {}
        return state.get("messages") or request.messages

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any]:
        """Write the run's new user message(s) into the session, call the model with the memory block appended to
        this request's system message, and write its final answer into the session."""
        user_id, thread_id = self._who(request.runtime)
        with self._held(user_id, thread_id):  # the message's archiving runs while the model answers, not beside recall
            self.store_new_messages(user_id, thread_id, self._thread_messages(request))
            block, view = self._context(user_id, thread_id, _latest_question(request.messages))
        response = handler(self._request_with(request, block))
        self.store_answer(user_id, thread_id, response.result, view)  # (the view just read: two reads a turn)
        return response

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
    ) -> ModelResponse[Any]:
        """Async twin of :meth:`wrap_model_call` (the session writes and the memory lookup run in a worker thread)."""
        user_id, thread_id = self._who(request.runtime)
        messages = self._thread_messages(request)

        def before() -> tuple[str, SessionView | None]:
            with self._held(user_id, thread_id):
                self.store_new_messages(user_id, thread_id, messages)
                return self._context(user_id, thread_id, _latest_question(request.messages))

        block, view = await asyncio.to_thread(before)
        response = await handler(self._request_with(request, block))
        await self.astore_answer(user_id, thread_id, response.result, view)
        return response

    # ------------------------------------------------------------------ for SummarizationMiddleware
    def summarizer(self, limit: int | None = None) -> Runnable[list[AnyMessage], str]:
        """A ``summarizer`` for LangChain's ``SummarizationMiddleware``: Hermes' summary prompt on ``llm`` (the
        task goal, confirmed facts and open items, in the conversation's language), or the core's extractive
        summary of the user's sentences without one; at most ``limit`` characters (default
        ``summary_max_chars``)."""
        cfg = self.memory.config
        n = cfg.summary_max_chars if limit is None else limit
        if isinstance(n, bool) or not isinstance(n, int) or n < 20:
            raise InvalidInputError(f"limit must be an integer of at least 20 characters, got {limit!r}")
        llm_summarizer = None if self._core_llm is None else LLMSummarizer(self._core_llm, cfg.llm_timeout_seconds)
        extractive = ExtractiveSummarizer()

        def pairs(messages: list[AnyMessage]) -> list[tuple[str, str]]:
            return [(_to_core(m).role, message_text(m)) for m in messages if message_text(m).strip()]

        def summarize(messages: list[AnyMessage]) -> str:
            turns = pairs(messages)
            if llm_summarizer is not None:
                return llm_summarizer.summarize(turns, n)
            return extractive.summarize(turns, n)

        async def asummarize(messages: list[AnyMessage]) -> str:
            return await asyncio.to_thread(summarize, messages)

        return RunnableLambda(summarize, afunc=asummarize, name="hermes_summarizer")
