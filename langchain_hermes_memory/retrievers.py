"""Hermes Memory as a LangChain retriever: long-term and permanent recall as ``Document`` objects.

Class hierarchy::

    BaseRetriever --> HermesRetriever
"""

from __future__ import annotations

import warnings
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from hermes_memory_core import (
    Caller,
    MemoryHit,
    MemoryProvider,
    MemoryType,
    answering,
    asearch_answers,
    aturn_context,
    prompt_safe_hits,
    search_answers,
    turn_context,
)
from langchain_hermes_memory.llm import LangChainLLM

__all__ = ["HermesRetriever"]

_FILTERS = ("memory_types", "session_id", "tags", "time_range", "now")


def _unfiltered(args: dict[str, Any]) -> bool:
    """Whether a gated retrieval asks for a chat turn's recall as is (no session, tag or time filter)."""
    return not args.get("session_id") and not args.get("tags") and args.get("time_range") is None


def _shown(hits: list[MemoryHit]) -> list[MemoryHit]:
    """Of a page of hits, those a prompt may show and that can answer something, in order."""
    return answering(prompt_safe_hits(hits))


def _document(hit: MemoryHit) -> Document:
    meta: dict[str, Any] = dict(hit.metadata)
    meta.update(hit.to_dict(("id", "memory_type", "score", "created_at", "updated_at", "session_id", "tags")))
    return Document(page_content=hit.content, metadata=meta, id=hit.id)


class HermesRetriever(BaseRetriever):
    """Hybrid (BM25 + vector) recall of one user's memories.

    Setup:
        .. code-block:: bash

            pip install "hermes-memory-layer[langchain]"

    Instantiate:
        .. code-block:: python

            from langchain_hermes_memory import HermesRetriever

            retriever = HermesRetriever(memory=mem, user_id="u1", k=5)
            # a chat-turn recall that may read permanent facts:
            retriever = HermesRetriever(memory=mem, user_id="u1", gate=True,
                                        caller=Caller("my-app", read_permanent=True))

    Usage:
        .. code-block:: python

            docs = retriever.invoke("Which language does the user prefer?")
            docs = retriever.invoke("咖啡", k=3, tags=["food"])          # k and filters per call
            docs[0].metadata  # {"id", "memory_type", "score", "created_at", "updated_at", "session_id", "tags", ...}

    Async:
        .. code-block:: python

            docs = await retriever.ainvoke("Which language does the user prefer?")

    Use within a chain:
        .. code-block:: python

            from langchain_core.runnables import RunnablePassthrough

            chain = {"memories": retriever, "question": RunnablePassthrough()} | prompt | chat_model

    Filters (constructor defaults, each overridable in ``invoke``): ``memory_types``, ``session_id``, ``tags``,
    ``time_range=(start, end)``, ``now``.

    What a default retriever reads: the user's **short-term** memories (what they said in earlier sessions is kept
    as conversation memories there) and **long-term** memories, and their **permanent** facts when its
    caller may read them — ``caller=...`` here, else the ``MemoryProvider``'s own caller when it was given one, else
    the user themselves (``MemoryProvider.caller_for``: a retriever bound to one user reads that user's facts and no
    one else's). Asking for the permanent tier
    in ``memory_types`` with a caller that may not read it leaves it out with one warning.

    ``gate=True`` makes it a chat turn's recall, the memories of the core's one turn context
    (:func:`~hermes_memory_core.turn_context`, what the middleware puts in the system message): nothing for greetings
    and fillers ("hi", "thanks", "继续"), nothing when no memory is relevant enough (``recall_min_score``), the user's
    current fact on the question's topic first, permanent facts only for identity, configuration or compliance
    questions; ``memory_types`` is then not used (with ``session_id``, ``tags`` or ``time_range``, the same recall
    within them). Without it every query returns the ``k`` best memories whatever they are — except the lines that
    can answer nothing: what the user only asked ("Where do I live?" said in an earlier chat), the assistant's
    replies that it did not know, pleasantries and fillers ("Noted.", "thanks!") are passed over for the next best.

    Documents go into prompts, so the core's read-time guard runs on them (``prompt_safe_hits``, as every memory
    block does): a memory whose text the injection guard reads as an instruction to the assistant — stored by a
    trusted import, or before the guard knew its shape — is left out.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: MemoryProvider = Field(description="The Hermes Memory store to search.")
    user_id: str = Field(description="Whose memories to search; never anyone else's.")
    k: int = Field(default=4, ge=1, le=1000, description="Number of documents to return.")
    memory_types: list[MemoryType] | None = Field(
        default=None,
        description="Tiers to search (default: short-term, long-term, and permanent when the caller may read them).",
    )
    session_id: str | None = Field(default=None, description="Only memories from this session.")
    tags: list[str] | None = Field(default=None, description="Only memories with at least one of these tags.")
    time_range: tuple[float | None, float | None] | None = Field(
        default=None, description="(start, end) Unix seconds on created_at."
    )
    caller: Caller | None = Field(
        default=None, exclude=True, description="Who reads permanent memories (default: the provider's caller when "
        "it was given one, else the user themselves)."
    )
    gate: bool = Field(
        default=False,
        description="Recall for a chat turn: the recall gate, the relevance floor and the fact router of "
        "MemoryProvider.recall (memory_types is then not used).",
    )

    llm: Any = Field(
        default=None, exclude=True,
        description="The host's chat model: a question asked of a user who also holds memories in the other language "
        "is translated with it and searched beside itself (default: the provider's llm, if any).",
    )

    _warned: bool = PrivateAttr(default=False)
    _core_llm: Any = PrivateAttr(default=None)

    def _search_args(self, kwargs: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        unknown = set(kwargs) - {"k", *_FILTERS}
        if unknown:
            raise TypeError(f"HermesRetriever got unexpected arguments: {sorted(unknown)}")
        args: dict[str, Any] = {
            "memory_types": self.memory_types,
            "session_id": self.session_id,
            "tags": self.tags,
            "time_range": self.time_range,
        }
        args.update({k: v for k, v in kwargs.items() if k in _FILTERS})
        who = self.memory.caller_for(self.user_id, self.caller)
        args["caller"] = who
        if self.llm is not None:
            if self._core_llm is None or self._core_llm.model is not self.llm:
                self._core_llm = LangChainLLM(self.llm)  # one wrapper: the translation cache is per model object
            args["llm"] = self._core_llm
        if self.gate:
            del args["memory_types"]  # recall decides the tiers
        elif args["memory_types"] is None:
            args["memory_types"] = [MemoryType.SHORT_TERM, MemoryType.LONG_TERM] + (
                [MemoryType.PERMANENT] if who.read_permanent else [])
        elif not who.read_permanent:  # asked for the permanent tier explicitly: say why it is left out
            tiers = list(args["memory_types"])
            readable = [t for t in tiers if getattr(t, "value", t) != MemoryType.PERMANENT.value]
            if len(readable) < len(tiers) and not self._warned:
                self._warned = True
                warnings.warn(
                    f"HermesRetriever: caller {who.name!r} may not read permanent memories, so they are left out; "
                    "pass caller=Caller(name, read_permanent=True) to the retriever or the MemoryProvider",
                    UserWarning,
                    stacklevel=4,
                )
            args["memory_types"] = readable
        return int(kwargs.get("k", self.k)), args

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        k, args = self._search_args(kwargs)
        if args.get("memory_types") == []:  # only tiers the caller may not read
            return []
        if self.gate:
            if _unfiltered(args):
                hits = turn_context(self.memory, query, user_id=self.user_id, top_k=k, caller=args["caller"],
                                    llm=args.get("llm"), now=args.get("now")).hits
                return [_document(h) for h in hits]
            return [_document(h) for h in _shown(self.memory.recall(query, user_id=self.user_id, top_k=k, **args))[:k]]
        # read on while the lines that answer nothing filled the page
        return [_document(h) for h in search_answers(self.memory, query, user_id=self.user_id, top_k=k,
                                                     shown=_shown, **args)]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        k, args = self._search_args(kwargs)
        if args.get("memory_types") == []:
            return []
        if self.gate:
            if _unfiltered(args):
                ctx = await aturn_context(self.memory, query, user_id=self.user_id, top_k=k, caller=args["caller"],
                                          llm=args.get("llm"), now=args.get("now"))
                return [_document(h) for h in ctx.hits]
            return [_document(h) for h in _shown(await self.memory.arecall(query, user_id=self.user_id, top_k=k,
                                                                           **args))[:k]]
        hits = await asearch_answers(self.memory, query, user_id=self.user_id, top_k=k, shown=_shown, **args)
        return [_document(h) for h in hits]
