"""Talk today, ask tomorrow: LoCoMo conversations replayed through the chat surfaces, asked a week later.

Usage (the command line is a contract)::

    python -m benchmarks.chat_replay --data PATH/locomo10.json --conversations 0-4 \
        --surfaces direct,sessions,middleware,llamaindex,hermes --json OUT.json

(``--data`` may be left out when ``$HERMES_LOCOMO_PATH`` names the file.)

Each conversation's speaker A is the user and speaker B the assistant. Its sessions are replayed, one chat session
per LoCoMo session, at the time the file gives each turn, with the default configuration and no LLM:

- ``direct``: the same messages written with ``add_many(..., dialogue=True)`` (one memory per message, its session
  and time) — the path a transcript import takes, as the reference;
- ``sessions``: ``MemoryProvider.session(user, session).add_messages(...)`` turn by turn, ``close()`` at the end;
- ``middleware``: a LangChain ``create_agent`` graph with ``HermesMemoryMiddleware`` and a scripted chat model
  that answers with B's turns, one LangGraph thread per session;
- ``llamaindex``: a LlamaIndex ``HermesMemory`` per session (``put`` of each message, as a chat engine does);
- ``hermes``: the Hermes Agent provider, as Hermes drives it: ``initialize`` per session, ``prefetch`` of each user
  message before the turn, ``sync_turn`` of the turn once B has answered (both messages in one write, when the
  answer came), ``on_session_end`` at the end.

Then, a week after each conversation's last session (in date order), ``forget(now=...)`` runs and every question
of categories 1-4 whose evidence is all A's own turns is asked with ``recall(question, top_k=10)`` in a new
session. An evidence turn counts as
recalled when one recalled memory holds at least half of its content words (lower-cased words of 3+ letters, minus
stop words); a question scores the share of its evidence turns recalled. Prints recall per surface, the mean
tokens (cl100k) of the recalled memories, the memories each surface left, and the time the replay took beside the
direct write.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks._common import CachedEmbedder, Progress, add_data_arguments, log, print_table, require_locomo
from benchmarks.locomo import Conversation, Turn, load_conversations, parse_range

__all__ = ["SURFACES", "content_words", "evaluate", "hermes_provider", "main", "release_hermes", "turn_recalled"]

SURFACES = ("direct", "sessions", "middleware", "llamaindex", "hermes")
WEEK = 7 * 86_400
_STOP = frozenset(
    "the and for are but not you all any can had her was one our out has him his how its may new now old see two who "
    "did get got let say she too use that with have this will your from they know want been good much some time very "
    "when come here just like long make many more most over such take than them well were what which while would "
    "about there their these those then into also because could should after before where being does doing yeah "
    "really thanks thank it's i'm i've that's don't".split()
)


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3+ letters, minus stop words."""
    return {w for w in re.findall(r"[a-z][a-z']{2,}", text.lower()) if w not in _STOP}


def turn_recalled(turn_text: str, recalled: list[str]) -> bool:
    """Whether one recalled memory holds at least half of the turn's content words."""
    words = content_words(turn_text)
    if not words:
        return False
    return any(len(words & content_words(m)) * 2 >= len(words) for m in recalled)


def _sessions_of(conv: Conversation) -> list[list[Turn]]:
    out: dict[int, list[Turn]] = {}
    for t in conv.turns:
        out.setdefault(t.session, []).append(t)
    return [out[k] for k in sorted(out)]


def _exchanges(turns: list[Turn], user: str) -> list[tuple[list[Turn], list[Turn]]]:
    """The session as (user turns, assistant turns) exchanges, in order (a session may open with the assistant)."""
    out: list[tuple[list[Turn], list[Turn]]] = []
    for t in turns:
        if t.speaker == user:
            if not out or out[-1][1]:
                out.append(([], []))
            out[-1][0].append(t)
        else:
            if not out:
                out.append(([], []))
            out[-1][1].append(t)
    return out


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _replay_direct(mem: Any, conv: Conversation, user: str, clock: _Clock) -> None:
    from hermes_memory_core import MemoryItem

    items = [MemoryItem(t.text, conv.sample_id, f"session_{t.session}", created_at=t.timestamp,
                        metadata={"role": "user" if t.speaker == user else "assistant"}) for t in conv.turns]
    clock.now = conv.turns[-1].timestamp
    mem.add_many(items, dialogue=True, trusted=True)  # a public transcript: the documented bulk-import opt-out


def _replay_sessions(mem: Any, conv: Conversation, user: str, clock: _Clock) -> None:
    for n, turns in enumerate(_sessions_of(conv), 1):
        session = mem.session(conv.sample_id, f"session_{n}")
        for t in turns:
            clock.now = t.timestamp
            session.add_messages([("user" if t.speaker == user else "assistant", t.text)])
        session.close()


def _replay_llamaindex(mem: Any, conv: Conversation, user: str, clock: _Clock) -> None:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    from llama_index_hermes_memory import HermesMemory

    for n, turns in enumerate(_sessions_of(conv), 1):
        memory = HermesMemory.from_defaults(user_id=conv.sample_id, session_id=f"session_{n}", memory=mem)
        for t in turns:
            clock.now = t.timestamp
            memory.put(ChatMessage(role=MessageRole.USER if t.speaker == user else MessageRole.ASSISTANT,
                                   content=t.text))


def _replay_middleware(mem: Any, conv: Conversation, user: str, clock: _Clock) -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_hermes_memory import HermesMemoryMiddleware

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, *args: Any, **kwargs: Any) -> Any:
            return self

    def answered(exchanges: list[tuple[list[Turn], list[Turn]]]) -> Iterator[AIMessage]:
        """The replies, each said when its speaker said it (a reply comes after the message it answers)."""
        for u, a in exchanges:
            clock.now = (a or u)[0].timestamp
            yield AIMessage(" ".join(t.text for t in a) or "OK.")

    for n, turns in enumerate(_sessions_of(conv), 1):
        exchanges = [(u, a) for u, a in _exchanges(turns, user) if u]
        replies = answered(exchanges)
        agent = create_agent(Scripted(messages=replies), tools=[], middleware=[HermesMemoryMiddleware(memory=mem)],
                             checkpointer=InMemorySaver())
        config: Any = {"configurable": {"thread_id": f"session_{n}", "user_id": conv.sample_id}}
        for u, _a in exchanges:
            clock.now = u[0].timestamp
            agent.invoke({"messages": [{"role": "user", "content": " ".join(t.text for t in u)}]}, config)


_HELD: set[int] = set()  # stores registered as the process's open core by this replay


def release_hermes(mem: Any) -> None:
    """Give back the core :func:`hermes_provider` registered for ``mem`` (its last release closes it)."""
    if id(mem) in _HELD:
        from hermes_memory_agents import cores

        _HELD.discard(id(mem))
        cores.release(mem)


def hermes_provider(mem: Any, user_id: str, session_id: str) -> Any:
    """A Hermes Agent provider initialised for one session on ``mem`` (registered as the process's open core for
    its directory, so the provider shares it and its shutdown never closes it)."""
    from hermes_memory_agents import cores
    from hermes_memory_agents.hermes_agent import HermesAgentProvider
    from hermes_memory_agents.hermes_settings import ProviderSettings

    if id(mem) not in _HELD:
        cores.acquire(mem.config, lambda _config: mem)  # held for the store's life: the replay's own reference
        _HELD.add(id(mem))
    provider = HermesAgentProvider(ProviderSettings(data_dir=str(mem.config.data_dir)))
    provider.initialize(session_id, user_id=user_id, hermes_home=str(Path(mem.config.data_dir).parent))
    return provider


def _replay_hermes(mem: Any, conv: Conversation, user: str, clock: _Clock) -> None:
    for n, turns in enumerate(_sessions_of(conv), 1):
        provider = hermes_provider(mem, conv.sample_id, f"session_{n}")
        for u, a in _exchanges(turns, user):
            if not u:
                continue  # Hermes answers a user's message: a session that opens with B has no turn for it
            said = " ".join(t.text for t in u)
            clock.now = u[0].timestamp
            provider.on_turn_start(0, said)
            provider.prefetch(said)
            clock.now = (a or u)[-1].timestamp  # Hermes syncs the turn once it is answered
            provider.sync_turn(said, " ".join(t.text for t in a) or "OK.")
        provider.on_session_end([])
        provider.shutdown()


REPLAYS: dict[str, Callable[[Any, Conversation, str, _Clock], None]] = {
    "direct": _replay_direct, "sessions": _replay_sessions, "middleware": _replay_middleware,
    "llamaindex": _replay_llamaindex, "hermes": _replay_hermes,
}


def evaluate(conversations: list[Conversation], surface: str, top_k: int = 10,
             cache_dir: str | None = ".bench_cache", config_overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Replay the conversations through one surface into a fresh store and ask the questions about speaker A."""
    from hermes_memory_core import MemoryConfig, MemoryProvider
    from hermes_memory_core.embedding import load_embedder
    from hermes_memory_core.tokens import count_tokens

    rows: list[float] = []
    tokens: list[int] = []
    with tempfile.TemporaryDirectory(prefix="hermes-replay-") as tmp:
        cfg = MemoryConfig(data_dir=Path(tmp) / "store", **(config_overrides or {}))
        embedder = CachedEmbedder(load_embedder(cfg.embedding_model, cfg.embedding_threads), cache_dir)
        clock = _Clock()
        with MemoryProvider(cfg, embedder=embedder, clock=clock) as mem:
            t0 = time.perf_counter()
            progress = Progress(f"replaying ({surface})", len(conversations))
            for i, conv in enumerate(conversations, 1):
                user = conv.turns[0].speaker
                REPLAYS[surface](mem, conv, user, clock)
                progress.update(i)
            mem.flush()
            replay_s = time.perf_counter() - t0
            embedder.save()
            stats = mem.stats()  # what the surface kept, before any forgetting
            counts = dict(stats.by_type)
            disk = stats.disk_bytes
            # each conversation is asked a week after its last session, after that week's forget(); in the order
            # of those dates, so one user's later forgetting never runs before another user's earlier questions
            for conv in sorted(conversations, key=lambda c: c.last_date):
                clock.now = conv.last_date + WEEK
                mem.forget(now=clock.now)
                user = conv.turns[0].speaker
                text_of = {t.dia_id: t.text for t in conv.turns}
                speaker_of = {t.dia_id: t.speaker for t in conv.turns}
                for q in conv.questions:
                    if any(speaker_of[e] != user for e in q.evidence):
                        continue
                    hits = mem.recall(q.question, user_id=conv.sample_id, top_k=top_k, now=clock.now)
                    recalled = [h.content for h in hits]
                    tokens.append(sum(count_tokens(c) for c in recalled))
                    rows.append(statistics.fmean(turn_recalled(text_of[e], recalled) for e in q.evidence))
            release_hermes(mem)
    total = sum(counts.values())
    return {"surface": surface, "questions": len(rows), "recall": statistics.fmean(rows) if rows else 0.0,
            "mean_tokens": statistics.fmean(tokens) if tokens else 0.0, "memories": counts, "replay_s": replay_s,
            "disk_bytes_per_memory": disk / total if total else 0.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.chat_replay", description=__doc__.splitlines()[0])
    add_data_arguments(parser)
    parser.add_argument("--conversations", default="0-4", help="LoCoMo conversation indices (tune on 0-4)")
    parser.add_argument("--surfaces", default=",".join(SURFACES), help=f"comma-separated: {', '.join(SURFACES)}")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--cache-dir", default=".bench_cache", help="embedding cache ('' for none)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    path = require_locomo(args.data)
    convs = load_conversations(path, parse_range(args.conversations))
    surfaces = [s.strip() for s in args.surfaces.split(",") if s.strip()]
    unknown = [s for s in surfaces if s not in SURFACES]
    if unknown:
        parser.error(f"unknown surfaces {unknown}; choose from {', '.join(SURFACES)}")
    results = []
    for surface in surfaces:
        log(f"surface {surface}")
        results.append(evaluate(convs, surface, args.top_k, args.cache_dir or None))
    direct = next((r for r in results if r["surface"] == "direct"), None)
    print_table(
        ["surface", "questions", f"recall@{args.top_k}", "mean tokens", "memories", "disk KiB/memory", "replay s",
         "× direct"],
        [[r["surface"], r["questions"], f"{r['recall']:.3f}", f"{r['mean_tokens']:.0f}",
          sum(r["memories"].values()), f"{r['disk_bytes_per_memory'] / 1024:.1f}", f"{r['replay_s']:.1f}",
          f"{r['replay_s'] / direct['replay_s']:.2f}" if direct and direct["replay_s"] else "-"] for r in results],
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"conversations": args.conversations, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
