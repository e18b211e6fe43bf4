"""Hermes Memory as a LangGraph store: what ``create_agent``, middleware, tools and LangMem reach as ``runtime.store``.

Class hierarchy::

    BaseStore --> HermesStore

Every item is one long-term Hermes memory of the namespace's owner (see
:mod:`langchain_hermes_memory.namespaces`): its *content* is the text of the indexed fields (what hybrid search,
``MemoryProvider.recall``, :class:`HermesRetriever` and the middleware see), its *metadata* keeps the namespace,
key, value and timestamps, and tags make namespaces, prefixes and keys filterable inside the core. A store item
written into ``("memories", "alice")`` is therefore one of Alice's memories everywhere else too.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from hermes_memory_core import (
    ConfigError,
    InvalidInputError,
    MemoryItem,
    MemoryProvider,
    MemoryRecord,
    MemoryType,
    NotFoundError,
    Redactor,
    reserved_user_ids,
)
from langchain_hermes_memory.namespaces import (
    DEFAULT_USER_NAMESPACES,
    REGISTRY_USER_ID,
    HermesNamespaceError,
    NamespacePolicy,
    check_labels,
    digest,
)
from langchain_hermes_memory.values import (
    check_filter,
    check_index,
    check_value,
    guard_value,
    index_texts,
    matches,
    redact_value,
)

__all__ = ["HermesStore"]

#: Tag every store item carries.
TAG_ITEM = "langgraph:item"
#: Tag of the registry entries (one per namespace ever written).
TAG_NAMESPACE = "langgraph:namespace"
_PAGE = 1000
_MAX_TOP_K = 1000  # the core's top_k limit: a query reaches the 1,000 best matches of a prefix


def _prefix_tag(prefix: Sequence[str]) -> str:
    return f"langgraph:ns:{digest(prefix)}"


def _indexed_tag(prefix: Sequence[str]) -> str:
    return f"langgraph:ix:{digest(prefix)}"


def _exact_tag(namespace: Sequence[str]) -> str:
    return f"langgraph:at:{digest(namespace)}"


def _key_tag(namespace: Sequence[str], key: str) -> str:
    return f"langgraph:key:{digest([*namespace, key])}"


def _tags(namespace: tuple[str, ...], key: str, indexed: bool) -> list[str]:
    tags = [TAG_ITEM, _exact_tag(namespace), _key_tag(namespace, key)]
    for depth in range(1, len(namespace) + 1):
        tags.append(_prefix_tag(namespace[:depth]))
        if indexed:
            tags.append(_indexed_tag(namespace[:depth]))
    return tags


@dataclass(frozen=True, slots=True)
class _Entry:
    """A store item as read back from a memory's metadata."""

    id: str
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    indexed: bool
    created_at: float
    updated_at: float
    seq: int

    @classmethod
    def of(cls, rec: MemoryRecord) -> _Entry | None:
        lg = rec.metadata.get("langgraph")
        if not isinstance(lg, dict) or not isinstance(lg.get("value"), dict):
            return None
        return cls(rec.id, tuple(lg["namespace"]), str(lg["key"]), lg["value"], bool(lg.get("indexed")),
                   float(lg["created_at"]), float(lg["updated_at"]), int(lg["seq"]))

    def item(self, score: float | None = None, *, search: bool = False) -> Item:
        value = copy.deepcopy(self.value)
        created = datetime.fromtimestamp(self.created_at, UTC)
        updated = datetime.fromtimestamp(self.updated_at, UTC)
        if search:
            return SearchItem(self.namespace, self.key, value, created, updated, score)
        return Item(value=value, key=self.key, namespace=self.namespace, created_at=created, updated_at=updated)


@dataclass(slots=True)
class _Write:
    """One put, prepared (validated, redacted, rendered) before anything is written."""

    namespace: tuple[str, ...]
    key: str
    owner: str
    value: dict[str, Any] | None  # None: delete
    content: str = ""
    indexed: bool = False
    pii: dict[str, int] | None = None
    seq: int = 0  # set when the batch is applied, in write order
    written_at: float = 0.0


class HermesStore(BaseStore):
    """A LangGraph ``BaseStore`` over Hermes Memory: persistent, bilingual hybrid search, one memory for every surface.

    Namespaces map onto Hermes users (see :mod:`langchain_hermes_memory.namespaces`): with the default
    ``user_namespaces=[("memories", "{user_id}")]`` (LangMem's shape) everything under ``("memories", "alice")``
    is Alice's long-term memory — recalled by :class:`HermesMemoryMiddleware`, found by :class:`HermesRetriever`
    — and a search never mixes two users. Namespaces that name no user (``("users",)``, ``("filesystem",)``) share
    one application scope that is never recalled for a person (``shared_namespaces=False`` rejects them).

    Setup:
        .. code-block:: bash

            pip install "hermes-memory-layer[langchain]"

    Instantiate:
        .. code-block:: python

            from hermes_memory_core import MemoryConfig, MemoryProvider
            from langchain_hermes_memory import HermesStore

            mem = MemoryProvider(MemoryConfig(data_dir="./hermes_data"))
            store = HermesStore(mem)                      # no embedding config: Hermes embeds and ranks

    Usage:
        .. code-block:: python

            store.put(("memories", "alice"), "editor", {"content": "Alice edits code in Helix"})
            store.put(("memories", "alice"), "lang", {"content": "爱丽丝主要写 Rust", "level": 3})
            store.get(("memories", "alice"), "editor").value     # {"content": "Alice edits code in Helix"}
            store.search(("memories", "alice"), query="她用什么编辑器？", limit=3)   # ranked, .score set
            store.search(("memories", "alice"), filter={"level": {"$gte": 2}})     # newest first
            store.list_namespaces(prefix=("memories",), max_depth=2)                # [("memories", "alice")]
            store.delete(("memories", "alice"), "editor")

    Async:
        .. code-block:: python

            await store.aput(("memories", "alice"), "tz", {"content": "Alice lives in UTC+8"})
            await store.asearch(("memories", "alice"), query="time zone")

    Use in an agent:
        .. code-block:: python

            from langchain.agents import create_agent

            agent = create_agent(model, tools=[...], store=store)   # tools and middleware get runtime.store

    Semantics (LangGraph's, with ``InMemoryStore`` as the reference a differential test compares against):

    - ``put`` creates or replaces (a replacement is a new version of the same Hermes memory, ``history`` keeps the
      old one); ``delete`` soft-deletes. In one ``batch`` every read sees the store as it was before the batch's
      writes, and several puts to one key keep the last. Every op is validated before anything is written; a
      backend failure midway leaves the earlier writes of that batch applied.
    - ``search`` without ``query`` returns the prefix's items that pass ``filter``, most recently written first.
      With ``query`` (not blank) indexed items come first, ranked by Hermes' hybrid search (``score`` is its final
      score), then unindexed ones (``score=None``); a query reaches the 1,000 best matches. ``limit``/``offset``
      page either list.
    - ``put(..., index=False)`` keeps the item out of the store's ranking; ``index=[paths]`` indexes those
      fields (LangGraph path syntax). The store's default ``index_fields=["$"]`` indexes every string of the
      value (its JSON when it holds none). Only the first ``max_content_chars`` characters are indexed.
    - ``list_namespaces`` (``prefix``/``suffix`` with ``"*"``, ``max_depth``, ``limit``/``offset``) lists the
      namespaces holding items, sorted, from a registry the store keeps in the core (under a reserved user);
      after restoring a per-user export bundle, :meth:`reindex_namespaces` rebuilds it. ``purge_user`` on the
      provider erases a user's registry entries too (the store registers itself with ``on_purge``).
    - Values are kept as given, except that when the core redacts PII in long-term memories
      (``MemoryConfig.redact_pii``, the default) the strings, numbers and dict keys of the value are redacted
      too, so no PII reaches long-term storage through the store; ``redact_values=False`` keeps them verbatim.
    - Every put passes the core's injection guard on *every* string and key of its value (not only the indexed
      ones): a value carrying an instruction to the assistant is refused with ``InjectionRejectedError`` before
      anything of the batch is written.
    - Items are stored at importance ``max(default_importance, forget_downgrade_importance)``: ``forget()`` never
      downgrades or expires them. TTLs are not supported (``supports_ttl = False``).
    - A value lives in the memory's metadata, so it is limited by ``MemoryConfig.max_metadata_bytes``; each item
      carries ``2 * depth + 3`` tags, so ``max_tags`` limits the namespace depth.

    Args:
        memory: The open Hermes store.
        user_namespaces: Templates of per-user namespaces, each with one ``{user_id}`` label.
        shared_namespaces: Keep namespaces that name no user in the shared application scope.
        index_fields: Default field paths to index (``["$"]``: every string of the value).
        redact_values: Redact PII in values; default: whenever the core redacts long-term content.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: MemoryProvider,
        *,
        user_namespaces: Sequence[Sequence[str]] = DEFAULT_USER_NAMESPACES,
        shared_namespaces: bool = True,
        index_fields: Sequence[str] | None = None,
        redact_values: bool | None = None,
    ) -> None:
        self.memory = memory
        self.policy = NamespacePolicy(user_namespaces, shared=shared_namespaces)
        fields = ["$"] if index_fields is None else list(index_fields)
        check_index(fields)
        self.index_fields: tuple[str, ...] = tuple(fields)
        cfg = memory.config
        if cfg.max_tags < 5:
            raise ConfigError(f"HermesStore needs MemoryConfig.max_tags >= 5 (2 * depth + 3 tags per item); it is {cfg.max_tags}")
        if redact_values is None:
            redact_values = cfg.redact_pii and MemoryType.LONG_TERM.value in cfg.redact_tiers
        self.redact_values = bool(redact_values)
        self._redactor = Redactor(cfg.redact_kinds) if self.redact_values else None
        self._importance = min(1.0, max(cfg.default_importance, cfg.forget_downgrade_importance,
                                        cfg.forget_expire_importance))
        self._lock = threading.RLock()
        self._seq = 0
        self._registered: set[tuple[str, ...]] = set()
        memory.on_purge(self._purge_registry)  # purge_user erases what the registry knows of the user too

    def __repr__(self) -> str:
        return f"HermesStore({self.memory.location!r}, {self.policy!r})"

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops: reads first (against the state before this batch), then the writes, deduplicated per key."""
        with reserved_user_ids():  # the store's own shared items and registry live under the reserved user ids
            return self._batch(list(ops))

    def _batch(self, ops: list[Op]) -> list[Result]:
        owners = [self._plan(op) for op in ops]  # validates every op before anything is read or written
        writes: dict[tuple[tuple[str, ...], str], _Write] = {}
        gets: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for op, owner in zip(ops, owners, strict=True):
            if isinstance(op, PutOp) and owner is not None:
                key = (tuple(op.namespace), str(op.key))
                writes.pop(key, None)  # the last put to a key wins, and counts as written last
                writes[key] = self._prepare(op, owner)
            elif isinstance(op, GetOp) and owner is not None:
                gets.setdefault(owner, []).append((tuple(op.namespace), str(op.key)))
        got: dict[tuple[tuple[str, ...], str], Item | None] = {}
        for owner, keys in gets.items():
            for k, found in self._find(owner, keys).items():
                got[k] = max(found, key=lambda e: e.seq).item() if found else None
        results: list[Result] = []
        for op, owner in zip(ops, owners, strict=True):
            if isinstance(op, GetOp):
                results.append(got[(tuple(op.namespace), str(op.key))])
            elif isinstance(op, SearchOp) and owner is not None:
                results.append(self._search(op, owner))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                results.append(None)
        if writes:
            self._apply(list(writes.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async twin of :meth:`batch` (runs it in a worker thread)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _plan(self, op: Op) -> str | None:
        """Validate one op; return the Hermes user it reads or writes (None for list_namespaces)."""
        if isinstance(op, GetOp):
            return self.policy.owner(check_labels(op.namespace))
        if isinstance(op, PutOp):
            namespace = check_labels(op.namespace)
            if not namespace:
                raise HermesNamespaceError("a namespace cannot be empty")
            if namespace[0] == "langgraph":
                raise HermesNamespaceError(f"namespace {namespace!r}: the root label 'langgraph' is reserved")
            needed = 2 * len(namespace) + 3
            if needed > self.memory.config.max_tags:
                raise HermesNamespaceError(
                    f"namespace {namespace!r} is {len(namespace)} deep: an item needs {needed} tags, "
                    f"MemoryConfig.max_tags is {self.memory.config.max_tags}"
                )
            if not isinstance(op.key, str):
                raise InvalidInputError(f"a store key must be a string, got {type(op.key).__name__}")
            check_index(op.index)
            if op.ttl is not None:
                raise NotImplementedError("HermesStore does not support TTLs (supports_ttl is False)")
            return self.policy.owner(namespace)
        if isinstance(op, SearchOp):
            prefix = check_labels(op.namespace_prefix, "namespace prefix")
            check_filter(op.filter)
            for name in ("limit", "offset"):
                n = getattr(op, name)
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise InvalidInputError(f"search {name} must be a non-negative integer, got {n!r}")
            if op.query is not None and not isinstance(op.query, str):
                raise InvalidInputError(f"search query must be a string, got {type(op.query).__name__}")
            return self.policy.search_owner(prefix)
        if isinstance(op, ListNamespacesOp):
            for cond in op.match_conditions or ():
                if not isinstance(cond, MatchCondition) or cond.match_type not in ("prefix", "suffix"):
                    raise InvalidInputError(f"match conditions are prefix or suffix MatchConditions, got {cond!r}")
                check_labels(cond.path, f"{cond.match_type} path")
            if op.max_depth is not None and (isinstance(op.max_depth, bool) or not isinstance(op.max_depth, int)
                                             or op.max_depth < 1):
                raise InvalidInputError(f"max_depth must be a positive integer, got {op.max_depth!r}")
            for name in ("limit", "offset"):
                n = getattr(op, name)
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise InvalidInputError(f"list_namespaces {name} must be a non-negative integer, got {n!r}")
            return None
        raise InvalidInputError(f"unknown store operation {type(op).__name__}")

    # ------------------------------------------------------------------ reads
    def _records(self, owner: str, tags: Sequence[str]) -> list[MemoryRecord]:
        """Every active memory of ``owner`` carrying one of ``tags``, oldest first."""
        out: list[MemoryRecord] = []
        step = self.memory.config.max_tags
        for start in range(0, len(tags), step):
            chunk = list(tags[start : start + step])
            offset = 0
            while True:
                page = self.memory.list_memories(user_id=owner, tags=chunk, limit=_PAGE, offset=offset)
                out.extend(page)
                if len(page) < _PAGE:
                    break
                offset += _PAGE
        return out

    def _entries(self, owner: str, tags: Sequence[str], prefix: tuple[str, ...] = ()) -> list[_Entry]:
        """Store items of ``owner`` carrying one of ``tags`` whose namespace starts with ``prefix``."""
        found = (_Entry.of(r) for r in self._records(owner, tags))
        return [e for e in found if e is not None and e.namespace[: len(prefix)] == prefix]

    def _find(self, owner: str, keys: Sequence[tuple[tuple[str, ...], str]]) -> dict[tuple[tuple[str, ...], str], list[_Entry]]:
        """The memories holding each (namespace, key); more than one only after concurrent writers raced."""
        wanted = set(keys)
        out: dict[tuple[tuple[str, ...], str], list[_Entry]] = {k: [] for k in keys}
        for e in self._entries(owner, list(dict.fromkeys(_key_tag(ns, key) for ns, key in keys))):
            if (e.namespace, e.key) in wanted:
                out[(e.namespace, e.key)].append(e)
        return out

    def _search(self, op: SearchOp, owner: str) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        want = op.offset + op.limit
        if want == 0:
            return []
        tag = _prefix_tag(prefix) if prefix else TAG_ITEM
        if not (op.query and op.query.strip()):
            entries = [e for e in self._entries(owner, [tag], prefix) if matches(e.value, op.filter)]
            entries.sort(key=lambda e: -e.seq)
            return [e.item(search=True) for e in entries[op.offset : want]]  # type: ignore[misc]
        scored: list[tuple[_Entry, float]] = []
        top_k = min(_MAX_TOP_K, max(want, 10) if not op.filter else max(4 * want, 50))
        while True:
            hits = self.memory.search(op.query, user_id=owner, top_k=top_k,
                                      tags=[_indexed_tag(prefix) if prefix else TAG_ITEM])
            scored = []
            for hit in hits:
                e = _Entry.of(hit.record)
                if e is not None and e.indexed and e.namespace[: len(prefix)] == prefix and matches(e.value, op.filter):
                    scored.append((e, hit.score))
            if len(scored) >= want or len(hits) < top_k or top_k == _MAX_TOP_K:
                break
            top_k = min(_MAX_TOP_K, top_k * 4)
        out = [e.item(score, search=True) for e, score in scored]
        if len(out) < want:  # every indexed match is in: fill with the unindexed items, newest first
            rest = [e for e in self._entries(owner, [tag], prefix) if not e.indexed and matches(e.value, op.filter)]
            rest.sort(key=lambda e: -e.seq)
            out.extend(e.item(search=True) for e in rest[: want - len(out)])
        return out[op.offset : want]  # type: ignore[return-value]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        registered: dict[tuple[str, ...], None] = {}
        for rec in self._records(REGISTRY_USER_ID, [TAG_NAMESPACE]):
            ns = rec.metadata.get("langgraph_namespace")
            if isinstance(ns, list) and all(isinstance(x, str) for x in ns):
                registered[tuple(ns)] = None
        conditions = op.match_conditions or ()
        live: set[tuple[str, ...]] = set()
        for ns in registered:
            if not all(_does_match(c, ns) for c in conditions):
                continue
            try:
                owner = self.policy.owner(ns)
            except HermesNamespaceError:  # written under another policy: not reachable under this one
                continue
            if self.memory.list_memories(user_id=owner, tags=[_exact_tag(ns)], limit=1):
                live.add(ns if op.max_depth is None else ns[: op.max_depth])
        return sorted(live)[op.offset : op.offset + op.limit]

    # ------------------------------------------------------------------ writes
    def _next_seq(self) -> int:
        self._seq = max(self._seq + 1, time.time_ns())
        return self._seq

    def _prepare(self, op: PutOp, owner: str) -> _Write:
        """Validate and render one put: the redacted value, the text to index, the metadata size."""
        namespace, key = tuple(op.namespace), str(op.key)
        if op.value is None:
            return _Write(namespace, key, owner, None)
        value = check_value(op.value)
        guard_value(value, f"the value of {namespace!r}/{key!r}")  # every string, not just the indexed ones
        pii: dict[str, int] = {}
        if self._redactor is not None:
            value = redact_value(value, self._redact_text, pii)
        fields: Sequence[str] = () if op.index is False else (self.index_fields if op.index is None else op.index)
        text = "\n".join(index_texts(value, fields)).strip()
        content = text or json.dumps(value, ensure_ascii=False, sort_keys=True)
        size = len(json.dumps(value, ensure_ascii=False).encode()) + 400 + 2 * len(json.dumps([*namespace, key]))
        limit = self.memory.config.max_metadata_bytes
        if size > limit:
            raise InvalidInputError(
                f"the value of {namespace!r}/{key!r} takes about {size} bytes with its bookkeeping; "
                f"MemoryConfig.max_metadata_bytes is {limit} (raise it to store larger values)"
            )
        return _Write(namespace, key, owner, value, content[: self.memory.config.max_content_chars], bool(text),
                      pii or None)

    def _redact_text(self, text: str) -> tuple[str, dict[str, int]]:
        assert self._redactor is not None
        result = self._redactor.redact(text)
        return result.text, result.found

    def _metadata(self, w: _Write, created_at: float | None) -> dict[str, Any]:
        meta: dict[str, Any] = {"langgraph": {
            "namespace": list(w.namespace), "key": w.key, "value": w.value, "indexed": w.indexed,
            "created_at": w.written_at if created_at is None else created_at, "updated_at": w.written_at,
            "seq": w.seq,
        }}
        if w.pii:
            meta["pii_redacted"] = w.pii
        return meta

    def _apply(self, writes: list[_Write]) -> None:
        with self._lock:
            by_owner: dict[str, list[_Write]] = {}
            now = time.time()
            for w in writes:
                w.seq, w.written_at = self._next_seq(), now
                by_owner.setdefault(w.owner, []).append(w)
            current: dict[tuple[tuple[str, ...], str], list[_Entry]] = {}
            for owner, ws in by_owner.items():
                current.update(self._find(owner, [(w.namespace, w.key) for w in ws]))
            new_items: list[MemoryItem] = []
            updates: list[tuple[_Write, _Entry]] = []
            deletes: list[tuple[str, str]] = []
            for w in writes:
                found = sorted(current[(w.namespace, w.key)], key=lambda e: e.seq)
                deletes.extend((w.owner, e.id) for e in found[:-1])  # duplicates left by racing writers
                latest = found[-1] if found else None
                if w.value is None:
                    if latest is not None:
                        deletes.append((w.owner, latest.id))
                elif latest is not None:
                    updates.append((w, latest))
                else:
                    new_items.append(self._new_item(w, None))
            new_namespaces = {w.namespace: w.owner for w in writes if w.value is not None}
            registry = self._registry_items(new_namespaces)
            if new_items or registry:
                self.memory.add_many([*new_items, *registry])
            for w, e in updates:
                try:
                    self.memory.update(e.id, w.content, user_id=w.owner, metadata=self._metadata(w, e.created_at),
                                       tags=_tags(w.namespace, w.key, w.indexed), version_note="langgraph store put")
                except NotFoundError:  # deleted meanwhile by another writer
                    self.memory.add_many([self._new_item(w, e.created_at)])
            for owner, mid in deletes:
                with contextlib.suppress(NotFoundError):  # deleted meanwhile by another writer
                    self.memory.delete(mid, user_id=owner, reason="langgraph store delete")
            self._registered.update(new_namespaces)

    def _new_item(self, w: _Write, created_at: float | None) -> MemoryItem:
        return MemoryItem(content=w.content, user_id=w.owner, memory_type=MemoryType.LONG_TERM,
                          importance=self._importance, tags=_tags(w.namespace, w.key, w.indexed),
                          metadata=self._metadata(w, created_at))

    def _registry_items(self, namespaces: dict[tuple[str, ...], str]) -> list[MemoryItem]:
        """Registry entries for the namespaces (→ owner) not yet registered (checked in the store, then cached)."""
        unknown = [ns for ns in namespaces if ns not in self._registered]
        if not unknown:
            return []
        present = {
            tuple(r.metadata.get("langgraph_namespace", ()))
            for r in self._records(REGISTRY_USER_ID, [_exact_tag(ns) for ns in unknown])
        }
        self._registered.update(present)
        return [
            MemoryItem(content="langgraph namespace " + " / ".join(ns), user_id=REGISTRY_USER_ID,
                       memory_type=MemoryType.LONG_TERM, importance=1.0, tags=(TAG_NAMESPACE, _exact_tag(ns)),
                       metadata={"langgraph_namespace": list(ns), "owner": namespaces[ns]})
            for ns in unknown if ns not in present
        ]

    def _purge_registry(self, user_id: str) -> None:
        """Erase (hard) the registry entries of the namespaces ``user_id`` owns: their labels name the user."""
        with self._lock, reserved_user_ids():
            for rec in self._records(REGISTRY_USER_ID, [TAG_NAMESPACE]):
                if rec.metadata.get("owner") == user_id:
                    with contextlib.suppress(NotFoundError):
                        self.memory.delete(rec.id, user_id=REGISTRY_USER_ID, hard=True, reason="purge_user")
                    self._registered.discard(tuple(rec.metadata.get("langgraph_namespace") or ()))

    # ------------------------------------------------------------------ maintenance
    def reindex_namespaces(self) -> int:
        """Rebuild the namespace registry that :meth:`list_namespaces` reads from the items themselves.

        Needed after restoring a per-user export bundle (``export(user_id=...)`` carries that user's items, not
        the store's registry); get, put and search work without it. Reads every store item once.

        Returns:
            How many namespaces were missing from the registry and are now registered.
        """
        with reserved_user_ids():
            return self._reindex_namespaces()

    def _reindex_namespaces(self) -> int:
        found: dict[tuple[str, ...], str] = {}
        for owner in self.memory.stats().by_user:
            if owner != REGISTRY_USER_ID:
                for e in self._entries(owner, [TAG_ITEM]):
                    found.setdefault(e.namespace, owner)
        with self._lock:
            self._registered.clear()
            items = self._registry_items(found)
            if items:
                self.memory.add_many(items)
            self._registered.update(found)
        return len(items)

    async def areindex_namespaces(self) -> int:
        """Async twin of :meth:`reindex_namespaces`."""
        return await asyncio.to_thread(self.reindex_namespaces)


def _does_match(cond: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace match: the path is a prefix (or suffix) of the namespace, ``"*"`` matching any label."""
    path = tuple(cond.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if cond.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))
