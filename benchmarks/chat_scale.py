"""A chat turn at chat scale: one user whose every line was kept, 1k to 50k conversation memories.

Usage (the command line is a contract)::

    python -m benchmarks.chat_scale --sizes 1k,10k,20k[,50k] [--embedder hashing|model] [--data PATH]
        [--questions 60] [--turns 40] [--window 200] [--windows 3] [--keep DIR] [--json OUT.json]

One user's store is filled **through sessions** (``mem.session(...).add_messages``, one LoCoMo session a Hermes
session, closed at its end: each line archived as a conversation memory, as a chat surface does) with the
held-out LoCoMo conversations 5-9 (``--data`` or ``$HERMES_LOCOMO_PATH``; read, never copied), repeated as needed
with a ``Week N:`` prefix so each pass is new words, up to each size. At each size, in one run and on the same
vectors (every store is given the same embedder; a question is embedded once before it is timed, so query
embedding is out of every figure):

- **write ms / message**: the wall time of ``--window`` messages through sessions, background archiving drained,
  per message, at 400 memories and at the size (the ratio is how flat writes stay): the median of ``--windows``
  windows, after one untimed window at 400 that warms the process (the first window also paid the process's
  warm-up, which made the base figure move with the run); and, deterministic whatever the machine's load, the
  **SQL statements per message** of one more window, not timed (every SQLite statement, foreground and background,
  SQLite's own FTS5 statements included: the benchmark counts them through ``sqlite3``'s trace callback, set only
  for that window: tracing made a keyword query that scores 20k rows 3-4x slower, so nothing timed is traced);
- **search / recall p50**: ``MemoryProvider.search(top_k=10)`` and ``recall()`` for ``--questions`` LoCoMo
  questions, and their ratio;
- **middleware turn / bare turn p50**: ``langchain.agents.create_agent`` with a scripted model (no model time),
  with ``HermesMemoryMiddleware`` and without it, ``--turns`` turns in one thread (the user's own first-person
  lines as new messages), and what the middleware adds: back to back (the last turn's background work still
  running beside the next), and settled (that work done first, as when a model took its time to answer);
- **SQL statements / middleware turn**: counted (untimed) over 10 more turns, each with its background work, FTS5's
  own statements included (a keyword query reads the size of each row it scores: this count follows the rows a
  turn's keyword leg scores);
- **question embeddings / turn**: calls that reached the model for questions per middleware turn that recalls
  (every turn a new message; a filler the recall gate skips asks nothing);
- **disk KiB / memory**: the store's allocated bytes over its conversation memories, while it is open (the JSON
  splits them: database, its write-ahead log, vectors, the vector engine's log);
- peers on the same lines and vectors: LangGraph's ``SqliteStore`` (sqlite-vec index; ``pip install -e
  '.[peers]'``), LlamaIndex ``VectorMemoryBlock`` on its ``SimpleVectorStore`` (the vector block of ``Memory``),
  and a numpy matrix (the floor): search p50 and its ratio to Hermes' search, disk.

``--embedder hashing`` (default) takes the model out of the figures (a feature-hashing embedder, no download);
``--embedder model`` uses the default model (multilingual-e5-small) through the benchmark embedding cache. Two
shared cores make absolute figures noisy: compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import (
    CachedEmbedder,
    Progress,
    add_data_arguments,
    dir_bytes,
    log,
    parse_size,
    print_table,
    require_locomo,
)
from benchmarks.locomo import load_conversations

__all__ = ["Memoized", "chat_lines", "main"]

USER = "heavy-user"
FIRST = 400  # the size writes are compared against
_COUNTED_TURNS = 10  # middleware turns whose SQL statements are counted (untimed)


class Memoized:
    """The run's embedder with every vector kept: a text is embedded once for every store, so timings are store time."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self._docs: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self.query_calls = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if todo:
            self._docs.update(zip(todo, np.asarray(self.inner.embed_documents(todo), np.float32), strict=True))
        return np.stack([self._docs[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def _query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = np.asarray(self.inner.embed_query(text), np.float32)
        return self._queries[text]

    def embed_query(self, text: str) -> np.ndarray:
        """One call to the model for one question (counted)."""
        self.query_calls += 1
        return self._query(text)

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One call to the model for several forms of a question (counted once, as a batch runs once)."""
        self.query_calls += 1
        return [self._query(t) for t in texts]


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|my|me)\b")


def first_person_lines(sessions: list[list[tuple[str, str]]]) -> list[str]:
    """What the user says in the first person, as new chat turns (``What`` questions and statements alike): a turn
    recalls for the user's own words, and a first-person message is matched in two forms."""
    return list(dict.fromkeys(t for lines in sessions for role, t in lines if role == "user" and _FIRST_PERSON.search(t)))


def chat_lines(data: Path) -> tuple[list[list[tuple[str, str]]], list[str]]:
    """The held-out conversations' sessions as (role, text) lines (speaker A is the user) and their questions."""
    sessions: list[list[tuple[str, str]]] = []
    questions: list[str] = []
    for conv in load_conversations(data, range(5, 10)):
        user = conv.turns[0].speaker
        by_session: dict[int, list[tuple[str, str]]] = {}
        for t in conv.turns:
            by_session.setdefault(t.session, []).append(("user" if t.speaker == user else "assistant", t.text))
        sessions += list(by_session.values())
        questions += [q.question for q in conv.questions if q.category in (1, 2, 3, 4)]
    return sessions, questions


def _stream(sessions: list[list[tuple[str, str]]]) -> Iterator[tuple[int, int, str, str]]:
    """(pass, session number, role, text) forever: each pass over the sessions prefixes its lines with its week."""
    week = 0
    while True:
        for n, lines in enumerate(sessions):
            for role, text in lines:
                yield week, n, role, (f"Week {week}: {text}" if week else text)
        week += 1


class _Statements:
    """Counts every SQLite statement of the process while :meth:`counting` (each connection opened after
    :meth:`install` is traced then, and only then: with a trace callback set, SQLite formats every statement for it,
    FTS5's own per-row statements included, and a keyword query that scores 20k rows took 3-4x as long, so the
    searches, recalls and turns are timed untraced)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        self._on = False

    def _seen(self, _statement: str) -> None:
        with self._lock:
            self.count += 1

    def install(self) -> None:
        connect = sqlite3.connect
        if getattr(connect, "counted", False):
            return

        def counted(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn: sqlite3.Connection = connect(*args, **kwargs)
            with self._lock:
                self._conns.append(conn)
                on = self._on
            if on:
                conn.set_trace_callback(self._seen)
            return conn

        counted.counted = True  # type: ignore[attr-defined]
        sqlite3.connect = counted  # type: ignore[assignment]

    @contextlib.contextmanager
    def counting(self) -> Iterator[None]:
        """Trace every connection while the block runs (enter and leave it with the store flushed: a connection's
        callback is set while no statement runs on it)."""
        self._trace(True)
        try:
            yield
        finally:
            self._trace(False)

    def _trace(self, on: bool) -> None:
        with self._lock:
            self._on, conns = on, list(self._conns)
        live = []
        for conn in conns:
            try:
                conn.set_trace_callback(self._seen if on else None)
                live.append(conn)
            except sqlite3.ProgrammingError:  # closed
                pass
        with self._lock:
            self._conns = live + [c for c in self._conns if c not in conns]


STATEMENTS = _Statements()


def _disk_parts(data_dir: Path) -> dict[str, int]:
    """The store's allocated bytes by part: the database, its write-ahead log, the vectors (a shard's segments or the
    small file) and the vector engine's write-ahead log."""
    parts = {"sqlite": 0, "sqlite log": 0, "vectors": 0, "vector log": 0}
    for path in data_dir.rglob("*"):
        if not path.is_file():
            continue
        size = path.stat().st_blocks * 512
        if path.parent.name == "vectors" or "vectors" in path.parts:
            parts["vector log" if "wal" in path.relative_to(data_dir).parts or path.name.endswith("-wal")
                  else "vectors"] += size
        elif path.name.startswith("metadata.sqlite"):
            parts["sqlite log" if path.name.endswith(("-wal", "-shm")) else "sqlite"] += size
    return parts


def _p50(values: Sequence[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


class Filler:
    """Feeds one user's store through sessions, and the peers the same lines with the same vectors."""

    def __init__(self, mem: Any, embedder: Memoized, peers: list[Any], sessions: list[list[tuple[str, str]]]) -> None:
        self.mem, self.embedder, self.peers, self.sessions = mem, embedder, peers, sessions
        self.stream = _stream(sessions)
        self.session: Any = None
        self.key: tuple[int, int] | None = None
        self.lines = 0

    def messages(self, count: int) -> float:
        """Say ``count`` more lines; returns the seconds Hermes took (the peers' writes are not counted)."""
        spent = 0.0
        for _ in range(count):
            week, n, role, text = next(self.stream)
            vec = self.embedder.embed_documents([text])  # (the run's vectors: embedded once, for every store)
            start = time.perf_counter()
            if (week, n) != self.key:
                if self.session is not None:
                    self.session.close()
                self.key = (week, n)
                self.session = self.mem.session(USER, f"w{week}-s{n}")
            self.session.add_messages([(role, text)])
            spent += time.perf_counter() - start
            for peer in self.peers:
                peer.put(f"m{self.lines}", text, vec[0])
            self.lines += 1
        return spent

    def conversation_memories(self) -> int:
        return int(self.mem.stats().by_type.get("short_term", 0))

    def fill_to(self, memories: int, progress: Progress) -> None:
        while (have := self.conversation_memories()) < memories:
            self.messages(max(50, min(2_000, memories - have)))
            self.mem.flush()
            progress.update(self.conversation_memories())


class _LangGraph:
    name = "LangGraph SqliteStore"

    def __init__(self, root: Path, dim: int) -> None:
        from langgraph.store.sqlite import SqliteStore

        from benchmarks._stores import _sqlite_module

        self.path = root / "langgraph.sqlite"
        self._conn = _sqlite_module().connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._staged: list[list[float]] = []  # the vectors of the text about to be written or searched
        self.store = SqliteStore(self._conn, index={"dims": dim, "embed": self._embed, "fields": ["text"]})
        self.store.setup()

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        staged, self._staged = self._staged[: len(texts)], self._staged[len(texts):]
        return staged

    def put(self, key: str, text: str, vec: np.ndarray) -> None:
        self._staged = [vec.tolist()]
        self.store.put(("memories", USER), key, {"text": text})

    def search(self, query: str, vec: np.ndarray) -> None:
        self._staged = [vec.tolist()]
        self.store.search(("memories", USER), query=query, limit=10)

    def disk(self) -> int:
        return sum(p.stat().st_blocks * 512 for p in self.path.parent.glob(self.path.name + "*"))


class _LlamaIndex:
    name = "LlamaIndex VectorMemoryBlock"

    def __init__(self, embedder: Memoized) -> None:
        from llama_index.core.base.embeddings.base import BaseEmbedding
        from llama_index.core.memory import VectorMemoryBlock
        from llama_index.core.vector_stores import SimpleVectorStore
        from pydantic import PrivateAttr

        class Staged(BaseEmbedding):
            def _get_query_embedding(self, query: str) -> list[float]:
                return embedder.embed_query(query).tolist()

            async def _aget_query_embedding(self, query: str) -> list[float]:
                return self._get_query_embedding(query)

            def _get_text_embedding(self, text: str) -> list[float]:
                return embedder.embed_documents([text])[0].tolist()

        class WithText(SimpleVectorStore):  # the in-memory store, keeping each node's text as the block needs
            stores_text: bool = True
            _nodes: dict[str, Any] = PrivateAttr(default_factory=dict)

            def add(self, nodes: Sequence[Any], **kwargs: Any) -> list[str]:
                self._nodes.update((n.node_id, n) for n in nodes)
                return super().add(nodes, **kwargs)  # type: ignore[arg-type]

            def query(self, query: Any, **kwargs: Any) -> Any:
                result = super().query(query, **kwargs)
                result.nodes = [self._nodes[i] for i in result.ids or []]
                return result

        self.block = VectorMemoryBlock(name="memory", vector_store=WithText(), embed_model=Staged(),
                                       similarity_top_k=10)
        self.loop = asyncio.new_event_loop()

    def put(self, key: str, text: str, vec: np.ndarray) -> None:
        from llama_index.core.base.llms.types import ChatMessage

        self.loop.run_until_complete(self.block.aput([ChatMessage(role="user", content=text)]))

    def search(self, query: str, vec: np.ndarray) -> None:
        from llama_index.core.base.llms.types import ChatMessage

        self.loop.run_until_complete(self.block.aget([ChatMessage(role="user", content=query)]))

    def disk(self) -> int:
        return 0  # held in memory (SimpleVectorStore persists only when asked)


class _Numpy:
    name = "numpy floor"

    def __init__(self, dim: int) -> None:
        self.mat = np.zeros((1024, dim), np.float32)
        self.n = 0

    def put(self, key: str, text: str, vec: np.ndarray) -> None:
        if self.n == len(self.mat):
            self.mat = np.concatenate([self.mat, np.zeros_like(self.mat)])
        self.mat[self.n] = vec
        self.n += 1

    def search(self, query: str, vec: np.ndarray) -> None:
        scores = self.mat[: self.n] @ vec
        np.argpartition(-scores, min(10, self.n - 1))[:10]

    def disk(self) -> int:
        return 0


def _agents(mem: Any) -> tuple[Any, Any]:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_hermes_memory import HermesMemoryMiddleware

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, *args: Any, **kwargs: Any) -> Any:
            return self

    def replies() -> Iterator[AIMessage]:
        while True:
            yield AIMessage("I see, tell me more.")

    bare = create_agent(Scripted(messages=replies()), tools=[], checkpointer=InMemorySaver())
    with_memory = create_agent(Scripted(messages=replies()), tools=[], checkpointer=InMemorySaver(),
                               middleware=[HermesMemoryMiddleware(memory=mem)])
    return bare, with_memory


def measure(size: int, filler: Filler, questions: list[str], args: argparse.Namespace, peers: list[Any],
            bare: Any, with_memory: Any, data_dir: Path) -> dict[str, Any]:
    """Everything of one size (the store already holds ``size`` conversation memories)."""
    mem, emb = filler.mem, filler.embedder
    row: dict[str, Any] = {"size": size, "memories": filler.conversation_memories()}
    if size == FIRST:  # the process's warm-up is not the base figure
        filler.messages(args.window)
        mem.flush()
    windows = []
    for _ in range(args.windows):
        said = filler.messages(args.window)
        windows.append((said + _timed(mem.flush)) / args.window * 1000)  # the messages, then their archiving
    row["write_ms"] = statistics.median(windows)
    row["write_windows_ms"] = windows
    before = STATEMENTS.count
    with STATEMENTS.counting():  # one more window, counted and not timed (tracing slows what it counts)
        filler.messages(args.window)
        mem.flush()
    row["sql_per_message"] = (STATEMENTS.count - before) / args.window
    qs = questions[: args.questions]
    vecs = [emb.embed_query(q) for q in qs]
    for q in qs:  # each question's vector is known to the store (query embedding out of the figures)
        mem.search(q, user_id=USER, top_k=10)
    # the first recall of these questions reads memories the running process has not judged yet (the read-time
    # guard's verdicts are kept per content); then both again, interleaved so both see the same machine
    row["recall_first_ms"] = _p50([_timed(lambda q=q: mem.recall(q, user_id=USER)) for q in qs])
    search, recall = [], []
    for q in qs:
        search.append(_timed(lambda q=q: mem.search(q, user_id=USER, top_k=10)))
        recall.append(_timed(lambda q=q: mem.recall(q, user_id=USER)))
    row["search_ms"], row["recall_ms"] = _p50(search), _p50(recall)
    for peer in peers:
        row[peer.name] = _p50([_timed(lambda p=peer, q=q, v=v: p.search(q, v)) for q, v in zip(qs, vecs, strict=True)])
    row["disk_kib_per_memory"] = dir_bytes(data_dir) / 1024 / max(row["memories"], 1)
    row["disk_parts_kib_per_memory"] = {name: size / 1024 / max(row["memories"], 1)
                                        for name, size in _disk_parts(data_dir).items()}
    row["peer_disk_kib_per_memory"] = {p.name: p.disk() / 1024 / max(filler.lines, 1) for p in peers if p.disk()}
    # turns: a new question each turn (not one the store embedded before), the memo of questions off
    spoken = first_person_lines(filler.sessions)[size % 97:]
    turns = [f"{q} ({size}-{i})" for i, q in enumerate(spoken[: args.turns])]
    config: Any = {"configurable": {"thread_id": f"turns-{size}", "user_id": USER}}
    bare_cfg: Any = {"configurable": {"thread_id": f"bare-{size}"}}
    from hermes_memory_core.retrieval.gate import should_recall

    calls = emb.query_calls  # every turn is a new message: none was embedded before
    bare_t, mid_t, settled_t = [], [], []
    for i, q in enumerate(turns):
        # back to back (the last turn's archiving still running beside this one), and, every other turn, with the
        # background work done first, as when the model took its time to answer
        message = {"messages": [{"role": "user", "content": q}]}
        bare_t.append(_timed(lambda m=message: bare.invoke(m, bare_cfg)))
        if i % 2:
            mem.flush()
            settled_t.append(_timed(lambda m=message: with_memory.invoke(m, config)))
        else:
            mid_t.append(_timed(lambda m=message: with_memory.invoke(m, config)))
    recalled = sum(1 for q in turns if should_recall(q))  # a filler asks the store nothing
    row["question_embeddings_per_turn"] = (emb.query_calls - calls) / max(recalled, 1)
    row["bare_turn_ms"], row["middleware_turn_ms"] = _p50(bare_t), _p50(mid_t)
    row["middleware_settled_turn_ms"] = _p50(settled_t)
    mem.flush()
    # and counted, not timed: the SQL statements of a middleware turn with its background work (FTS5's own
    # per-row statements included: a keyword query reads the size of every row it scores)
    counted = [f"{q} ({size}-c{i})" for i, q in enumerate(spoken[args.turns: args.turns + _COUNTED_TURNS])]
    before = STATEMENTS.count
    with STATEMENTS.counting():
        for q in counted:
            with_memory.invoke({"messages": [{"role": "user", "content": q}]}, config)
            mem.flush()
    row["sql_per_turn"] = (STATEMENTS.count - before) / max(len(counted), 1)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.chat_scale", description=__doc__.splitlines()[0])
    add_data_arguments(parser)
    parser.add_argument("--sizes", default="1k,10k,20k", help="conversation memories of the one user (1k,10k,...)")
    parser.add_argument("--embedder", choices=["hashing", "model"], default="hashing")
    parser.add_argument("--questions", type=int, default=60, help="questions timed for search and recall")
    parser.add_argument("--turns", type=int, default=40, help="agent turns timed with and without the middleware")
    parser.add_argument("--window", type=int, default=200, help="messages timed for the write cost, a window")
    parser.add_argument("--windows", type=int, default=3, help="write windows a size (their median is reported)")
    parser.add_argument("--peers", default="langgraph,llamaindex,numpy", help="peers to run beside ('' for none)")
    parser.add_argument("--cache-dir", default=".bench_cache", help="embedding cache of --embedder model")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--keep", help="fill the store in this (new) folder and keep it, for profiles and reruns")
    args = parser.parse_args(argv)
    sizes = sorted(parse_size(s) for s in args.sizes.split(","))
    sessions, questions = chat_lines(require_locomo(args.data))

    STATEMENTS.install()  # before the store opens its connections
    from hermes_memory_core import MemoryConfig, MemoryProvider

    if args.embedder == "hashing":
        from benchmarks.knowledge import HashingEmbedder

        inner: Any = HashingEmbedder()
    else:
        from hermes_memory_core.embedding import load_embedder

        inner = CachedEmbedder(load_embedder("multilingual-e5-small"), args.cache_dir or None)
    embedder = Memoized(inner)
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        root = Path(args.keep) if args.keep else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="hermes-chat-scale-")))
        wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
        peers: list[Any] = []
        if "langgraph" in wanted:
            peers.append(_LangGraph(root, embedder.dim))
        if "llamaindex" in wanted:
            peers.append(_LlamaIndex(embedder))
        if "numpy" in wanted:
            peers.append(_Numpy(embedder.dim))
        cfg = MemoryConfig(data_dir=root / "hermes")
        with MemoryProvider(cfg, embedder=embedder) as mem:
            filler = Filler(mem, embedder, peers, sessions)
            bare, with_memory = _agents(mem)
            progress = Progress("filling through sessions", sizes[-1])
            filler.fill_to(FIRST, progress)
            first = measure(FIRST, filler, questions, args, peers, bare, with_memory, root / "hermes")
            log(f"at {FIRST}: {first['write_ms']:.2f} ms / message")
            for size in sizes:
                filler.fill_to(size, progress)
                row = measure(size, filler, questions, args, peers, bare, with_memory, root / "hermes")
                row["write_vs_400"] = row["write_ms"] / first["write_ms"]
                rows.append(row)
                log(f"at {size:,}: {json.dumps({k: v for k, v in row.items() if not isinstance(v, dict)})}")
    if isinstance(inner, CachedEmbedder):
        inner.save()
    _report(rows, peers, first)
    if args.json:
        Path(args.json).write_text(json.dumps({"embedder": args.embedder, "first": first, "rows": rows}, indent=2))
    return 0


def _report(rows: list[dict[str, Any]], peers: list[Any], first: dict[str, Any]) -> None:
    print_table(
        ["memories", "write ms/msg (vs 400)", "search p50 ms", "recall p50 ms (first)", "recall ÷ search",
         "bare turn p50 ms", "middleware turn p50 ms: back to back / settled", "middleware adds (× bare)",
         "question embeddings / turn", "disk KiB / memory", "SQL statements / message (vs 400)",
         "SQL statements / middleware turn"],
        [[f"{r['memories']:,}", f"{r['write_ms']:.2f} ({r['write_vs_400']:.2f}×)", f"{r['search_ms']:.1f}",
          f"{r['recall_ms']:.1f} ({r['recall_first_ms']:.1f})", f"{r['recall_ms'] / r['search_ms']:.2f}×",
          f"{r['bare_turn_ms']:.1f}", f"{r['middleware_turn_ms']:.1f} / {r['middleware_settled_turn_ms']:.1f}",
          (f"{(r['middleware_turn_ms'] - r['bare_turn_ms']) / r['bare_turn_ms']:.2f}× / "
           f"{(r['middleware_settled_turn_ms'] - r['bare_turn_ms']) / r['bare_turn_ms']:.2f}×"),
          f"{r['question_embeddings_per_turn']:.2f}", f"{r['disk_kib_per_memory']:.2f}",
          f"{r['sql_per_message']:.1f} ({r['sql_per_message'] / first['sql_per_message']:.2f}×)",
          f"{r['sql_per_turn']:.0f}"] for r in rows],
    )
    print(f"\n(at {first['memories']:,} memories: write {first['write_ms']:.2f} ms / message, "
          f"{first['sql_per_message']:.1f} SQL statements / message)\n")
    if peers:
        print_table(
            ["memories", "Hermes search p50 ms", *(f"{p.name} p50 ms (÷ Hermes)" for p in peers)],
            [[f"{r['memories']:,}", f"{r['search_ms']:.1f}",
              *(f"{r[p.name]:.1f} ({r[p.name] / r['search_ms']:.2f}×)" for p in peers)] for r in rows],
        )
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
