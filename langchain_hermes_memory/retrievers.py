"""Hermes Memory as a LangChain retriever: long-term and permanent recall as ``Document`` objects.

Class hierarchy::

    BaseRetriever --> HermesRetriever
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from hermes_memory_core import MemoryHit, MemoryProvider, MemoryType

__all__ = ["HermesRetriever"]

_FILTERS = ("memory_types", "session_id", "tags", "time_range", "now")


def _document(hit: MemoryHit) -> Document:
    meta: dict[str, Any] = dict(hit.metadata)
    meta.update(
        id=hit.id,
        memory_type=hit.memory_type.value,
        score=hit.score,
        created_at=hit.created_at,
        updated_at=hit.updated_at,
        session_id=hit.session_id,
        tags=list(hit.tags),
    )
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

    Filters (constructor defaults, each overridable in ``invoke``): ``memory_types`` (default long-term and
    permanent), ``session_id``, ``tags``, ``time_range=(start, end)``, ``now``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: MemoryProvider = Field(description="The Hermes Memory store to search.")
    user_id: str = Field(description="Whose memories to search; never anyone else's.")
    k: int = Field(default=4, ge=1, le=1000, description="Number of documents to return.")
    memory_types: list[MemoryType] = Field(
        default_factory=lambda: [MemoryType.LONG_TERM, MemoryType.PERMANENT], description="Tiers to search."
    )
    session_id: str | None = Field(default=None, description="Only memories from this session.")
    tags: list[str] | None = Field(default=None, description="Only memories with at least one of these tags.")
    time_range: tuple[float | None, float | None] | None = Field(
        default=None, description="(start, end) Unix seconds on created_at."
    )

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
        return int(kwargs.get("k", self.k)), args

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        k, args = self._search_args(kwargs)
        return [_document(h) for h in self.memory.search(query, user_id=self.user_id, top_k=k, **args)]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        k, args = self._search_args(kwargs)
        hits = await self.memory.asearch(query, user_id=self.user_id, top_k=k, **args)
        return [_document(h) for h in hits]
