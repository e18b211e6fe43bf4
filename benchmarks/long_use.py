"""Memory over use: talk, ask a week later, ask the same questions in chat, ask again a week after that.

Usage (the command line is a contract)::

    python -m benchmarks.long_use --data PATH/locomo10.json --conversations 5-9 \
        --surfaces middleware,sessions,llamaindex [--keying] [--first-person] --json OUT.json

(``--data`` may be left out when ``$HERMES_LOCOMO_PATH`` names the file; tune on 0-4, report 5-9.)

Each LoCoMo conversation is replayed through one surface as in :mod:`benchmarks.chat_replay` (speaker A is the
user, one chat session per LoCoMo session, default configuration). Then, for every question of categories 1-4 whose
evidence is all A's own turns:

1. **before** — a week after the last session (``forget()`` run first), the memory block a new turn of a new
   session gets for the question (the core's :func:`~hermes_memory_core.turn_context`, which every surface uses);
2. **asking** — the user asks every question in chat, in a new session of the same surface, and the assistant
   answers from the first line of its memory block (or says it does not know): asking is chatting;
3. **after** — a week later the block for each question again.

Reported per surface, before and after: recall (an evidence turn counts as recalled when one block line holds at
least half of its content words, see :func:`benchmarks.chat_replay.turn_recalled`), block precision (the share of
block lines that hold an evidence turn of the question; a strict reading: a line that helps without being evidence
counts as irrelevant), the median block tokens (cl100k), silence on questions about things never said (the block
shows no recalled line) and how many asked questions became profile entries, facts or versions of facts.
``--keying`` gives the surfaces a scripted host model that classifies every statement as long-term and keys it by
its topic (the way small local models do: a question and its answer share a topic), so a question that reached
classification could become a version of a fact.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks._common import CachedEmbedder, add_data_arguments, log, print_table, require_locomo
from benchmarks.chat_replay import REPLAYS, WEEK, _Clock, content_words, hermes_provider, release_hermes, turn_recalled
from benchmarks.locomo import Conversation, load_conversations, parse_range
from benchmarks.query_shapes import first_person, threshold_argument

__all__ = ["NEVER_SAID", "KeyingLLM", "as_the_user_asks", "evaluate", "main"]

SURFACES = ("middleware", "sessions", "llamaindex", "hermes")
#: Questions about things no LoCoMo speaker says of themselves.
NEVER_SAID = (
    "What is my blood type?", "What is my passport number?", "Which bank do I keep my savings in?",
    "What is my shoe size?", "What car insurance company do I use?", "What is my dentist's name?",
    "我的血型是什么？", "我的护照号码是多少？", "我在哪家银行存钱？", "我穿多大码的鞋？",
)
_LINE = re.compile(r"^- \[[^\]]*\] (.*)$")
_DONT_KNOW = "I don't know, you haven't told me."


class KeyingLLM:
    """A scripted host model (not a real one): every classification is long-term, keyed by the statement's most
    specific content word, so a question and the statement it asks about share a key; rewrites return the text."""

    def complete(self, prompt: str) -> str:
        content = prompt.rsplit("\n\n", 1)[-1].split("\n", 1)[-1]
        if "memory classifier" in prompt:
            words = sorted(content_words(content), key=lambda w: (-len(w), w))
            key = words[0] if words else None
            return json.dumps({"type": "long_term", "reason": "scripted keying model", "key": key,
                               "to_assistant": False})
        if "Rewrite the user's statement" in prompt:
            return content
        return ""

    async def acomplete(self, prompt: str) -> str:
        return self.complete(prompt)


def _answer(lines: list[str]) -> str:
    """The scripted assistant's answer: the first line of its memory block, as an assistant says it."""
    return f"From what I remember: {lines[0]}" if lines else _DONT_KNOW


def _block_lines(block: str) -> list[str]:
    return [m.group(1) for line in block.splitlines() if (m := _LINE.match(line.strip()))]


def _measure(mem: Any, conv: Conversation, questions: list[Any], now: float,
             details: list[dict[str, Any]] | None = None) -> dict[str, list[float]]:
    from hermes_memory_core import turn_context
    from hermes_memory_core.tokens import count_tokens

    text_of = {t.dia_id: t.text for t in conv.turns}
    out: dict[str, list[float]] = {"recall": [], "precision": [], "tokens": [], "silent": []}
    for q in questions:
        lines = _block_lines(turn_context(mem, q.question, user_id=conv.sample_id, now=now).block)
        evidence = [text_of[e] for e in q.evidence]
        out["recall"].append(statistics.fmean(turn_recalled(e, lines) for e in evidence))
        if details is not None:
            details.append({"conversation": conv.sample_id, "question": q.question, "evidence": evidence,
                            "recall": out["recall"][-1], "lines": lines})
        if lines:
            out["precision"].append(statistics.fmean(any(turn_recalled(e, [ln]) for e in evidence) for ln in lines))
        out["tokens"].append(count_tokens("\n".join(lines)))
    for question in NEVER_SAID:
        ctx = turn_context(mem, question, user_id=conv.sample_id, now=now)
        out["silent"].append(float(not ctx.hits or all(h.record.metadata.get("fact_key", "").startswith(
            ("reply_",)) for h in ctx.hits)))
    return out


def _ask(mem: Any, surface: str, conv: Conversation, questions: list[Any], clock: _Clock, llm: Any) -> None:
    """The user asks every question in a new session of ``surface``; the assistant answers from the first line of
    its memory block."""
    from hermes_memory_core import turn_context

    def reply(question: str) -> str:
        lines = _block_lines(turn_context(mem, question, user_id=conv.sample_id).block)
        return _answer(lines)

    session = f"asking_{int(clock.now)}"
    if surface == "middleware":
        _ask_middleware(mem, conv, questions, clock, session, llm)
        return
    if surface == "llamaindex":
        from llama_index.core.base.llms.types import ChatMessage, MessageRole

        from llama_index_hermes_memory import HermesMemory

        memory = HermesMemory.from_defaults(user_id=conv.sample_id, session_id=session, memory=mem)
        for q in questions:
            clock.now += 30
            memory.get(q.question)
            memory.put(ChatMessage(role=MessageRole.USER, content=q.question))
            answer = reply(q.question)
            clock.now += 2  # the model answers a couple of seconds later
            memory.put(ChatMessage(role=MessageRole.ASSISTANT, content=answer))
        return
    if surface == "hermes":  # prefetch before the turn, sync_turn once answered (Hermes gives its provider no model)
        provider = hermes_provider(mem, conv.sample_id, session)
        for q in questions:
            clock.now += 30
            provider.on_turn_start(0, q.question)
            provider.prefetch(q.question)
            answer = reply(q.question)
            clock.now += 2
            provider.sync_turn(q.question, answer)
        provider.on_session_end([])
        provider.shutdown()
        return
    chat = mem.session(conv.sample_id, session, llm=llm)
    for q in questions:
        clock.now += 30
        answer = reply(q.question)
        chat.add_messages([("user", q.question)])
        clock.now += 2  # the model answers a couple of seconds later
        chat.add_messages([("assistant", answer)])
    chat.close()


def _ask_middleware(mem: Any, conv: Conversation, questions: list[Any], clock: _Clock, session: str,
                    llm: Any) -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, SystemMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langgraph.checkpoint.memory import InMemorySaver

    from langchain_hermes_memory import HermesMemoryMiddleware

    class FirstLine(BaseChatModel):
        """Scripted: answers with the first line of the memory block in its system message."""

        @property
        def _llm_type(self) -> str:
            return "first-line"

        def bind_tools(self, *args: Any, **kwargs: Any) -> Any:
            return self

        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            system = next((m for m in messages if isinstance(m, SystemMessage)), None)
            lines = _block_lines(str(system.content)) if system is not None else []
            clock.now += 2  # the model answers a couple of seconds later (as on the other surfaces)
            return ChatResult(generations=[ChatGeneration(message=AIMessage(_answer(lines)))])

    class HostModel(BaseChatModel):
        """The scripted host model as the chat model a LangChain user hands the middleware (``llm=``)."""

        @property
        def _llm_type(self) -> str:
            return "scripted-host"

        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            answer = llm.complete(str(messages[-1].content))
            return ChatResult(generations=[ChatGeneration(message=AIMessage(answer))])

    host = HostModel() if llm is not None else None
    agent = create_agent(FirstLine(), tools=[], middleware=[HermesMemoryMiddleware(memory=mem, llm=host)],
                         checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": session, "user_id": conv.sample_id}}
    for q in questions:
        clock.now += 30
        agent.invoke({"messages": [{"role": "user", "content": q.question}]}, config)


def _asked_stored(mem: Any, conv: Conversation, asked: set[str]) -> int:
    """How many lasting memories (or versions of one) hold an asked question."""
    from hermes_memory_core import Caller

    who = Caller.admin("benchmark")
    count = 0
    for rec in mem.list_memories(user_id=conv.sample_id, memory_types=["long_term", "permanent"], limit=10_000,
                                 caller=who):
        texts = [v.content for v in mem.history(rec.id, caller=who)] or [rec.content]
        count += sum(1 for t in texts if any(a.lower().rstrip("?？") in t.lower() for a in asked))
    return count


def as_the_user_asks(question: str, name: str) -> str:
    """A LoCoMo question about speaker ``name`` as that speaker asks it of their assistant: in the first person
    ("What did Caroline research?" → "What did I research?", "Gina's store" → "my store"). The grammar that follows
    the name is left as it is ("When has I …" reads oddly; the words that matter are kept)."""
    n = re.escape(name)
    question = re.sub(rf"\b{n}'s\b", "the user's", question)
    question = re.sub(rf"\b(did|does|is|was|has|would|will|can|could|should|might)\s+{n}\b", r"\1 the user", question,
                      flags=re.IGNORECASE)
    question = re.sub(rf"^{n}\b", "The user", question)
    question = re.sub(rf"\b{n}\b", "the user", question)
    return first_person(question)


def evaluate(conversations: list[Conversation], surface: str, keying: bool = False,
             cache_dir: str | None = ".bench_cache", config: dict[str, Any] | None = None,
             first: bool = False) -> dict[str, Any]:
    """Replay, ask a week later, ask in chat, ask again a week later (see the module docstring; ``config``: settings
    of the store other than the defaults, e.g. ``recall_relevance_threshold``; ``first``: the questions asked in the
    first person, as the user asks them, :func:`as_the_user_asks`)."""
    from hermes_memory_core import MemoryConfig, MemoryProvider
    from hermes_memory_core.embedding import load_embedder

    before: dict[str, list[float]] = {}
    after: dict[str, list[float]] = {}
    details: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    stored = 0
    llm = KeyingLLM() if keying else None
    with tempfile.TemporaryDirectory(prefix="hermes-long-use-") as tmp:
        cfg = MemoryConfig(data_dir=Path(tmp) / "store", **(config or {}))
        embedder = CachedEmbedder(load_embedder(cfg.embedding_model, cfg.embedding_threads), cache_dir)
        clock = _Clock()
        with MemoryProvider(cfg, embedder=embedder, clock=clock, llm=llm) as mem:
            for i, conv in enumerate(conversations, 1):
                REPLAYS[surface](mem, conv, conv.turns[0].speaker, clock)
                log(f"{surface}: replayed {i}/{len(conversations)}")
            mem.flush()
            for conv in sorted(conversations, key=lambda c: c.last_date):
                user = conv.turns[0].speaker
                speaker_of = {t.dia_id: t.speaker for t in conv.turns}
                questions = [q for q in conv.questions if all(speaker_of[e] == user for e in q.evidence)]
                if first:
                    questions = [replace(q, question=as_the_user_asks(q.question, user)) for q in questions]
                clock.now = conv.last_date + WEEK
                mem.forget(now=clock.now)
                for k, vals in _measure(mem, conv, questions, clock.now, details["before"]).items():
                    before.setdefault(k, []).extend(vals)
                _ask(mem, surface, conv, questions, clock, llm)
                mem.flush()
                clock.now += WEEK
                mem.forget(now=clock.now)
                for k, vals in _measure(mem, conv, questions, clock.now, details["after"]).items():
                    after.setdefault(k, []).extend(vals)
                stored += _asked_stored(mem, conv, {q.question for q in questions})
                log(f"{surface}: asked {conv.sample_id}")
            embedder.save()
            release_hermes(mem)

    def summary(d: dict[str, list[float]]) -> dict[str, float]:
        return {"recall": statistics.fmean(d["recall"]), "precision": statistics.fmean(d["precision"] or [0.0]),
                "median_tokens": statistics.median(d["tokens"]), "silent": statistics.fmean(d["silent"])}

    return {"surface": surface, "keying": keying, "first_person": first, "questions": len(before["recall"]), "before": summary(before),
            "after": summary(after), "asked_stored": stored, "details": details}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.long_use", description=__doc__.splitlines()[0])
    add_data_arguments(parser)
    parser.add_argument("--conversations", default="5-9", help="LoCoMo conversation indices (tune on 0-4)")
    parser.add_argument("--surfaces", default=",".join(SURFACES), help=f"comma-separated: {', '.join(SURFACES)}")
    parser.add_argument("--keying", action="store_true", help="also run with the scripted topic-keying host model")
    parser.add_argument("--cache-dir", default=".bench_cache", help="embedding cache ('' for none)")
    parser.add_argument("--relevance-threshold", type=threshold_argument, default=None,
                        help="recall_relevance_threshold: a probability, or 'off' (default: the configuration's)")
    parser.add_argument("--first-person", action="store_true",
                        help="ask the questions as the user asks them (\"What did I research?\"), not by name")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    config = {} if args.relevance_threshold is None else {"recall_relevance_threshold": args.relevance_threshold[0]}
    convs = load_conversations(require_locomo(args.data), parse_range(args.conversations))
    surfaces = [s.strip() for s in args.surfaces.split(",") if s.strip()]
    unknown = [s for s in surfaces if s not in SURFACES]
    if unknown:
        parser.error(f"unknown surfaces {unknown}; choose from {', '.join(SURFACES)}")
    results = [evaluate(convs, s, keying, args.cache_dir or None, config, args.first_person)
               for s in surfaces for keying in ([False, True] if args.keying else [False])]
    print_table(
        ["surface", "model", "questions", "recall before", "recall after", "precision before", "precision after",
         "median tokens", "never-said silent", "asked → stored"],
        [[r["surface"], "keying (scripted)" if r["keying"] else "none", r["questions"], r["before"]["recall"],
          r["after"]["recall"], r["before"]["precision"], r["after"]["precision"],
          f"{r['before']['median_tokens']:.0f} / {r['after']['median_tokens']:.0f}",
          f"{r['before']['silent']:.2f} / {r['after']['silent']:.2f}", r["asked_stored"]] for r in results],
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"conversations": args.conversations, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
