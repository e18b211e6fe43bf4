"""``MemoryProvider``: the facade every adapter and the CLI use. It wires the rooms below it and exposes the
public API; it holds no storage, search or lifecycle logic of its own.

Layers (nothing points up)::

    adapters, CLI  →  MemoryProvider  →  sessions, lifecycle, retrieval, portability  →  MemoryEngine
                   →  storage, embedding, trust  →  text, types, errors, config, validation

Every operation has an ``a``-prefixed async twin with the same signature, which runs it in a worker thread.
Durability: when ``add``/``add_many``/``update``/``delete`` return, the change is committed to the metadata store
and applied to the vector engine's write-ahead log, so a killed process loses nothing acknowledged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from hermes_memory_core import open_providers
from hermes_memory_core import validation as v
from hermes_memory_core.administration import StoreAdministration
from hermes_memory_core.async_twins import async_twin
from hermes_memory_core.config import MemoryConfig
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.engine import MemoryEngine
from hermes_memory_core.errors import InvalidInputError
from hermes_memory_core.lifecycle.background import BackgroundLifecycle
from hermes_memory_core.lifecycle.erasure import erase_memory, finish_erasures
from hermes_memory_core.lifecycle.promotion import RememberResult, remember
from hermes_memory_core.llm import LLM
from hermes_memory_core.portability import restore_bundle
from hermes_memory_core.retrieval.recall import Recaller
from hermes_memory_core.retrieval.search import Searcher, build_filter
from hermes_memory_core.short_term.session import SessionMemory, Sessions
from hermes_memory_core.storage.hot_cache import HotCache
from hermes_memory_core.storage.vectors import VectorStore
from hermes_memory_core.trust.permissions import ANONYMOUS, Caller
from hermes_memory_core.trust.write_guard import guard_text, guard_texts
from hermes_memory_core.types import MemoryHit, MemoryItem, MemoryRecord, MemoryType, MemoryVersion

__all__ = ["MemoryProvider"]

@v.typed_arguments
class MemoryProvider(StoreAdministration):
    """Tiered, persistent, searchable memory for one store (a data directory, or servers).

    Args:
        config: The configuration; embedded defaults when omitted.
        embedder: A ready embedder (else built from ``config.embedding_model``).
        vector_store: A ready vector store (else built from ``config.vector_backend``).
        llm: Default host model for summaries, classification and normalisation (sessions may bring their
            own); without one the deterministic fallbacks run.
        caller: Default identity for permanent-tier access (see :mod:`hermes_memory_core.trust.permissions`);
            without one, a call about one user acts as that user (:meth:`caller_for`), and nothing else may read
            or write the permanent tier.
        clock: Returns the current Unix time; tests and replays may pass their own.

    Raises:
        StoreLockedError: Another process holds the embedded data directory.
        DimensionMismatchError: Model, config and collection disagree on the vector dimension.

    Example::

        with MemoryProvider(MemoryConfig(data_dir="./hermes_data")) as mem:
            mid = mem.add("用户主用 Python，避免 Java", user_id="u1")
            hits = mem.search("Which language does the user prefer?", user_id="u1")
    """

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        embedder: Embedder | None = None,
        vector_store: VectorStore | None = None,
        llm: LLM | None = None,
        caller: Caller | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        engine = MemoryEngine(config or MemoryConfig(), embedder=embedder, vector_store=vector_store, clock=clock)
        self._wire(engine, llm, caller)

    @classmethod
    def from_config(
        cls,
        config: MemoryConfig | str | os.PathLike[str] | Mapping[str, Any] | None = None,
        *,
        llm: LLM | None = None,
        caller: Caller | None = None,
        **overrides: Any,
    ) -> MemoryProvider:
        """Open a store from a config object, a TOML file or a mapping, with ``HERMES_MEMORY_*`` environment
        variables and keyword overrides on top (see :meth:`MemoryConfig.load`)."""
        if isinstance(config, MemoryConfig):
            cfg = config.model_copy(update=overrides) if overrides else config
        elif isinstance(config, Mapping):
            cfg = MemoryConfig.load(None, **{**config, **overrides})
        else:
            cfg = MemoryConfig.load(config, **overrides)
        return cls(cfg, llm=llm, caller=caller)

    @classmethod
    def _from_engine(cls, engine: MemoryEngine, llm: LLM | None, caller: Caller | None) -> MemoryProvider:
        provider = cls.__new__(cls)
        provider._wire(engine, llm, caller)
        return provider

    def _wire(self, engine: MemoryEngine, llm: LLM | None, caller: Caller | None) -> None:
        self.engine = engine
        self.config = engine.config
        self.llm = llm
        self.caller = caller or ANONYMOUS
        self._caller_given = caller is not None
        self._search = Searcher(engine.lookups)
        self._recall = Recaller(self._search)
        self._background = BackgroundLifecycle(engine, self._llm_for)
        self._sessions = Sessions(engine.parts, self._background)
        open_providers.add(engine.store_key, self)
        if not engine.read_only:  # a read-only store runs no background work and finishes nothing
            finish_erasures(engine)  # an erasure a killed process left half done
            self._background.resume()

    def _llm_for(self, user_id: str, session_id: str | None) -> LLM | None:
        return self._sessions.llm_for(user_id, session_id) or self.llm

    def _who(self, caller: Caller | None) -> Caller:
        return self.caller if caller is None else v.check_caller(caller)

    def _acting(self, user_id: str | None, caller: Caller | None) -> Caller:  # as caller_for, scoped to the user
        return self._who(caller) if user_id is None else self.caller_for(user_id, caller).toward(user_id)

    def caller_for(self, user_id: str, caller: Caller | None = None, *, source: str = "user") -> Caller:
        """Who a call about ``user_id`` (remember, recall, search, list, get/history/export with it) acts as:
        ``caller`` when given, else the provider's own caller when it was given one, else the user themselves
        (:meth:`Caller.for_user`: that user's facts only; a tool result's ``source="tool"`` may not write them)."""
        if caller is not None:
            return v.check_caller(caller)
        if self._caller_given:
            return self.caller
        return Caller.for_user(v.check_user_id(user_id), write_permanent=source == "user")

    # ------------------------------------------------------------------ properties
    @property
    def embedder(self) -> Embedder:
        """The store's embedding model (``model_id``, ``dim``)."""
        return self.engine.parts.embedder

    @property
    def data_dir(self) -> Path:
        """The embedded store's directory."""
        return self.engine.data_dir

    @property
    def location(self) -> str:
        """Where this store's metadata lives (a file path, or a PostgreSQL URL without password and schema)."""
        return self.engine.location

    @property
    def store_key(self) -> str:
        """Identifies this store within the process (the resolved data directory, or the server collection)."""
        return self.engine.store_key

    @property
    def closed(self) -> bool:
        return self.engine.closed

    @property
    def hot_cache(self) -> HotCache:
        """The per-user cache of most-searched records (``hits``/``misses`` counters, ``size()``)."""
        return self.engine.parts.hot  # reach-in: the public hot_cache property hands out the cache itself

    @property
    def key_file(self) -> Path | None:
        """The file that holds the encryption key, or None when the key comes from the config or environment."""
        return self.engine.sealing.key_file

    @classmethod
    def open_store(cls, store_key: str) -> MemoryProvider | None:
        """The open provider with this :attr:`store_key` in this process, if any (adapters re-attach
        deserialised objects to it)."""
        provider = open_providers.get(store_key)
        return provider if isinstance(provider, MemoryProvider) and not provider.closed else None

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Finish background work, write buffered access records, flush both stores, release the data
        directory. Idempotent."""
        if self.engine.closed:
            return
        self._background.close()
        self.engine.close()

    def flush(self) -> None:
        """Finish background summaries and promotions, write buffered access records, flush both stores."""
        self.engine.need_open()
        self._background.drain()
        self.engine.upkeep.flush()

    def __enter__(self) -> MemoryProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort for forgotten providers
        try:
            if "engine" in self.__dict__:
                self.close()
        except Exception:  # noqa: BLE001
            pass

    # ------------------------------------------------------------------ writes
    def add(
        self,
        content: str,
        *,
        user_id: str,
        session_id: str | None = None,
        memory_type: MemoryType | str = MemoryType.LONG_TERM,
        importance: float | None = None,
        tags: Iterable[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        created_at: float | None = None,
        caller: Caller | None = None,
        trusted: bool = False,
    ) -> str:
        """Store one memory and return its id.

        Args:
            content: The text to remember (non-blank, at most ``max_content_chars``).
            user_id: Owner of the memory.
            session_id: Session it came from.
            memory_type: ``short_term``, ``long_term`` (default) or ``permanent``.
            importance: 0..1 (default ``config.default_importance``).
            tags: Labels for filtering.
            metadata: JSON-serialisable extra data returned with the memory.
            created_at: Original Unix time, for importers replaying old conversations.
            caller: Who writes (permanent memories need ``write_permanent``); default: the provider's caller.
            trusted: Skip the injection guard (see :mod:`hermes_memory_core.trust.write_guard`): only for bulk
                imports of text the operator has vetted. By default content the guard flags is refused.

        Raises:
            InvalidInputError: A malformed argument (nothing is stored).
            InjectionRejectedError: The injection guard flagged the content (nothing is stored).
            PermissionDeniedError: A permanent memory without the permission (nothing is stored).
            ConsistencyError: The vector engine failed; nothing is stored.
        """
        item = MemoryItem(
            content=content,
            user_id=user_id,
            session_id=session_id,
            memory_type=memory_type,
            importance=importance,
            tags=tuple(tags) if isinstance(tags, Iterable) and not isinstance(tags, str | bytes) else tags,  # type: ignore[arg-type]
            metadata=dict(metadata) if isinstance(metadata, Mapping) else metadata,
            created_at=created_at,
        )
        return self.add_many([item], caller=caller, trusted=trusted)[0]

    def add_many(
        self,
        items: Iterable[MemoryItem | Mapping[str, Any]],
        *,
        dialogue: bool = False,
        on_progress: Callable[[int, int], None] | None = None,
        caller: Caller | None = None,
        trusted: bool = False,
    ) -> list[str]:
        """Store many memories, embedding them in batches of ``config.embedding_batch_size``.

        Every item is validated before anything is written. Each batch is stored atomically: if a batch fails,
        earlier batches stay stored and the error says how many were.

        Args:
            items: ``MemoryItem`` objects or mappings with the arguments of :meth:`add`.
            dialogue: The items are turns of a conversation (a transcript import: one memory per turn, with its
                session and time). Each turn is then also found by the words of the turns written just before and
                after it in its session (an answer by its question's words). Leave it False for facts: independent
                memories never lend each other words, so when they were written never changes a ranking.
            on_progress: Called with ``(done, total)`` after each batch.
            caller: Who writes (permanent memories need ``write_permanent``).
            trusted: Skip the injection guard, for a vetted bulk import; by default an item the guard flags
                refuses the whole call (:class:`InjectionRejectedError`, nothing is stored).

        Returns:
            The new ids, in input order.
        """
        if not isinstance(dialogue, bool) or not isinstance(trusted, bool):
            raise InvalidInputError(f"dialogue and trusted must be True or False, got {dialogue!r}, {trusted!r}")
        self._need_writable("add memories")
        checked = v.check_items(items)
        if not trusted:
            guard_texts((item.content for item in checked if isinstance(item.content, str)), "item")
        ids = self.engine.writes.add_items(checked, self._who(caller), dialogue=dialogue, on_progress=on_progress)
        if self.llm is not None:
            self._background.schedule_terms()  # other-language key terms, off this thread (lifecycle.xlang)
        return ids

    def update(
        self,
        memory_id: str,
        content: str,
        *,
        version_note: str = "",
        user_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tags: Iterable[str] | None = None,
        caller: Caller | None = None,
        trusted: bool = False,
    ) -> int:
        """Add a new version of a memory; earlier versions stay in :meth:`history`. Returns the version number.

        Args:
            memory_id: The memory.
            content: Its new text.
            version_note: Why it changed (kept with the version).
            user_id: When given, the memory must belong to this user.
            metadata: When given, replaces the memory's metadata (metadata is not versioned).
            tags: When given, replaces the memory's tags (tags are not versioned).
            caller: Who writes (permanent memories need ``write_permanent``); by default as :meth:`caller_for`
                when ``user_id`` is given (the user corrects their own fact), else the provider's caller.
            trusted: Skip the injection guard (a vetted import); by default flagged content is refused with
                :class:`InjectionRejectedError` and the memory keeps its current version.
        """
        self._need_writable("update a memory")
        text = v.check_content(content, self.config.max_content_chars)
        if trusted is not True:
            guard_text(text, f"the new content of memory {memory_id}")
        note = v.check_text(version_note, "version_note")
        meta = None if metadata is None else v.check_metadata(metadata, self.config.max_metadata_bytes)
        new_tags = None if tags is None else v.check_tags(tags, self.config.max_tags)
        rec = self.engine.reads.owned(memory_id, user_id, self._acting(user_id, caller), write=True)
        version = self.engine.writes.update(rec, text, note, metadata=meta, tags=new_tags)
        if self.llm is not None:
            self._background.schedule_terms()  # the new version's own key terms
        return version

    def delete(self, memory_id: str, *, reason: str = "", user_id: str | None = None, hard: bool = False,
               caller: Caller | None = None) -> bool:
        """Soft-delete: the memory is never returned again and leaves the indexes at once; its history stays (and
        ``search(as_of=...)`` before now finds it). ``hard=True`` erases it (also a soft-deleted one) completely:
        no file of the store keeps a byte of it (see :mod:`~hermes_memory_core.lifecycle.erasure`). With
        ``user_id`` and no ``caller`` it acts as :meth:`caller_for` (the user forgets their own fact)."""
        self._need_writable("delete a memory")
        note = v.check_text(reason, "reason")
        rec = self.engine.reads.owned(memory_id, user_id, self._acting(user_id, caller), write=True,
                                include_inactive=v.check_flag(hard, "hard"))
        if hard:
            erase_memory(self.engine, rec)
        else:
            self.engine.writes.delete(rec, note)
        return True

    # ------------------------------------------------------------------ reads
    def get(self, memory_id: str, *, user_id: str | None = None, caller: Caller | None = None) -> MemoryRecord:
        """The current version of one active memory.

        Args:
            memory_id: Its UUID.
            user_id: When given, the memory must belong to this user (else :class:`NotFoundError`).
            caller: Who reads (permanent memories need ``read_permanent``); by default as :meth:`caller_for`.
        """
        self.engine.need_open()
        return self.engine.reads.owned(memory_id, user_id, self._acting(user_id, caller))

    def history(
        self, memory_id: str, *, user_id: str | None = None, caller: Caller | None = None
    ) -> list[MemoryVersion]:
        """Every version of a memory, oldest first (deleted memories keep their history)."""
        self.engine.need_open()
        rec = self.engine.reads.owned(memory_id, user_id, self._acting(user_id, caller), include_inactive=True)
        return self.engine.reads.versions(rec.id)

    def list_memories(
        self,
        *,
        user_id: str,
        memory_types: Iterable[MemoryType | str] | None = None,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        limit: int = 100,
        offset: int = 0,
        caller: Caller | None = None,
    ) -> list[MemoryRecord]:
        """One user's active memories, oldest first, with the filters of :meth:`search` and no ranking.

        Permanent memories are listed for callers that may read that user's (by default the user themselves, see
        :meth:`caller_for`; asking for only them without the permission raises :class:`PermissionDeniedError`);
        each listed one is logged as a permanent read.

        Args:
            user_id: Whose memories.
            memory_types: Only these tiers.
            session_id: Only this session's memories.
            tags: Only memories carrying at least one of these tags.
            time_range: ``(start, end)`` Unix seconds on ``created_at``, inclusive.
            limit: At most this many (1..10,000).
            offset: Skip this many first.
            caller: Who reads.
        """
        self.engine.need_open()
        who = self._acting(user_id, caller)
        flt = build_filter(user_id, who, self.config.max_tags, memory_types, session_id, tags, time_range)
        flt = self.engine.parts.codec.seal_filter(flt)
        v.check_int_range(limit, "limit", 1, 10_000)
        v.check_int_range(offset, "offset", 0, 2**62)
        now = self.engine.now()
        return self.engine.reads.list_records(flt.user_id, flt.for_rows(now), limit, offset, who, now)

    def search(
        self,
        query: str,
        *,
        user_id: str,
        top_k: int = 5,
        memory_types: Iterable[MemoryType | str] | None = None,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        now: float | None = None,
        min_score: float | None = None,
        as_of: float | None = None,
        caller: Caller | None = None,
        llm: LLM | None = None,
    ) -> list[MemoryHit]:
        """Hybrid search over one user's memories: BM25 keyword leg + vector leg, fused and ranked. It first waits,
        at most ``config.recall_settle_seconds``, for this user's turns still being kept in the background (a turn
        just answered, a session just ended), so a question asked right after finds them.

        Args:
            query: The question or text to match.
            user_id: Whose memories to search (never anyone else's).
            top_k: How many hits to return.
            memory_types: Only these tiers.
            session_id: Only memories from this session.
            tags: Only memories carrying at least one of these tags.
            time_range: ``(start, end)`` Unix seconds on ``created_at``, inclusive; either end may be None.
            now: The Unix time the ranking treats as the present (for replaying old conversations).
            min_score: Return nothing unless the question's best dense match reaches this confidence (the
                calibrated z-score in :attr:`MemoryHit.confidence`; ~4 and above is a real match). Default: no
                floor, the ``top_k`` best memories whatever they are.
            as_of: Answer as the store stood at this Unix time: memories that existed then (also those deleted
                since), each with the version current then (both legs score that version's text); ``now``
                defaults to it.
            caller: Who searches; permanent memories are only searched for callers that may read the user's (by
                default the user themselves, see :meth:`caller_for`).
            llm: The host's model for this search (default: the provider's ``llm``): with one, a question asked
                of a user who also holds memories in the other language is translated and searched beside itself
                (``llm_translation``; cached, at most ``llm_translation_timeout_seconds``).

        Returns:
            Hits, best first.

        Raises:
            PermissionDeniedError: Only permanent memories were asked for, without the permission.
        """
        self._background.settle(user_id, self.engine.config.recall_settle_seconds)
        return self._search.search(query, user_id=user_id, top_k=top_k, memory_types=memory_types,
                                   session_id=session_id, tags=tags, time_range=time_range, now=now,
                                   min_score=min_score, as_of=as_of, who=self._acting(user_id, caller),
                                   llm=llm or self.llm)

    def recall(
        self,
        query: str,
        *,
        user_id: str,
        top_k: int = 5,
        session_id: str | None = None,
        tags: Iterable[str] | None = None,
        time_range: tuple[float | None, float | None] | None = None,
        now: float | None = None,
        min_score: float | None = None,
        caller: Caller | None = None,
        llm: LLM | None = None,
        shown_session: str | None = None,
    ) -> list[MemoryHit]:
        """Long-term recall for a chat turn: nothing for greetings and fillers (the recall gate), nothing when no
        memory is relevant (``min_score``, default ``config.recall_min_score``); long-term memories, plus
        permanent facts when the question is about identity, configuration or compliance (and the caller may
        read them: by default the user themselves, see :meth:`caller_for`); never a memory the read-time guard
        withholds from prompts (:func:`~hermes_memory_core.rendering.prompt_safe`; ``search`` still finds it).
        Like ``search`` it first waits, at most ``config.recall_settle_seconds``, for this user's turns still being
        kept in the background — except those of ``shown_session``, a session whose buffered turns the caller shows
        itself (:func:`turn_context`): a turn never waits for the last one's archiving. The user's standing
        preferences about replies come first on every turn, beside ``top_k``. Filters and ``llm`` as in :meth:`search`."""
        self._background.settle(user_id, self.engine.config.recall_settle_seconds, shown_session)
        return self._recall.recall(query, user_id=user_id, top_k=top_k, session_id=session_id, tags=tags,
                                   time_range=time_range, now=now, min_score=min_score,
                                   who=self._acting(user_id, caller), llm=llm or self.llm)

    # ------------------------------------------------------------------ tiers and lifecycle
    def session(self, user_id: str, session_id: str, *, llm: LLM | None = None) -> SessionMemory:
        """The short-term memory of one session (ring buffer + running summary).

        Args:
            user_id: Owner.
            session_id: Session.
            llm: The host's model for this session's summaries and promotions (else the provider's ``llm``).
        """
        return self._sessions.open(user_id, session_id, llm)

    def remember(
        self,
        content: str,
        *,
        user_id: str,
        session_id: str | None = None,
        llm: LLM | None = None,
        source: str = "user",
        memory_type: MemoryType | str | None = None,
        importance: float | None = None,
        tags: Iterable[str] | None = None,
        caller: Caller | None = None,
    ) -> RememberResult:
        """Classify content and store it where it belongs.

        ``short_term`` content is kept with the session (nothing is stored without one); ``long_term`` content is
        rewritten into one normalised sentence first; a ``permanent`` fact whose topic already has a current
        version supersedes it (both versions stay in :meth:`history`). Any classifier failure means
        ``short_term``. The injection guard runs on every write: instructions and unbacked privilege claims are
        rejected; a permanent fact needs a first-person statement or ``source="tool"`` (a tool result). The user's
        own lasting preference about replies ("Please always reply in Chinese.") is kept as a preference memory. With a
        host model, the classification answer also says whether the content is an instruction addressed to the
        assistant; a yes is rejected the same way (``action="rejected"``), with no extra model call.
        A permanent write also needs a caller with ``write_permanent``: by default the user themselves
        (:meth:`caller_for`), so a first-person statement about the user is stored as their fact; a caller that may
        not write it gets the fact as a long-term memory instead (``reason`` says so), never nothing.

        With ``memory_type`` the classifier is skipped and the content goes to that tier, under the same guard,
        permission and normalisation rules; ``importance`` and ``tags`` replace the tier's defaults.
        """
        self._need_writable("remember")
        text = v.check_content(content, self.config.max_content_chars)
        if source not in ("user", "tool"):
            raise InvalidInputError(f"source must be 'user' or 'tool', got {source!r}")
        tier = None if memory_type is None else v.check_memory_type(memory_type)
        weight = None if importance is None else v.check_importance(importance, self.config.default_importance)
        labels = v.check_tags(tags, self.config.max_tags)
        result = remember(self.engine, text, user_id=v.check_user_id(user_id),
                          session_id=v.check_session_id(session_id), llm=llm or self.llm, source=source,
                          caller=self.caller_for(user_id, caller, source=source), memory_type=tier,
                          importance=weight, tags=labels, health=self._background.health)
        if llm is not None or self.llm is not None:
            self._background.schedule_terms()
        return result

    @classmethod
    def restore(
        cls,
        bundle: str | os.PathLike[str],
        config: MemoryConfig | None = None,
        *,
        overwrite: bool = False,
        embedder: Embedder | None = None,
        vector_store: VectorStore | None = None,
        llm: LLM | None = None,
        caller: Caller | None = None,
        clock: Callable[[], float] = time.time,
        trusted: bool = False,
    ) -> MemoryProvider:
        """Verify a bundle completely, then rebuild the store it holds under ``config``; returns it open. A key
        given as a file (``encryption_key_file``) is copied into an embedded target that has none. The bundle's
        files are copied privately before they are checked, and its memories pass the injection guard unless
        ``trusted=True`` (a vetted backup).

        Raises:
            BundleError: Wrong checksum, missing file, other dimension or model, newer format, or a non-empty
                target without ``overwrite=True``. Nothing is written in that case.
        """
        engine = restore_bundle(Path(v.check_path(bundle, "bundle")), config or MemoryConfig(), overwrite, embedder,
                                vector_store, clock, trusted is True)
        if engine.config.metadata_url is None:
            engine.parts.keys.copy_beside(engine.data_dir)  # a key given as a file stays with the restored store
        return cls._from_engine(engine, llm, caller)

    # ------------------------------------------------------------------ async twins
    aadd = async_twin(add)
    aadd_many = async_twin(add_many)
    aupdate = async_twin(update)
    adelete = async_twin(delete)
    aget = async_twin(get)
    ahistory = async_twin(history)
    alist_memories = async_twin(list_memories)
    asearch = async_twin(search)
    arecall = async_twin(recall)
    aremember = async_twin(remember)
    aflush = async_twin(flush)
    aclose = async_twin(close)
    arestore = classmethod(async_twin(restore))
