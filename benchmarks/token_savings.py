"""Tokens per prompt: buffer + running summary against the full history, replaying LoCoMo turn by turn.

Usage::

    python -m benchmarks.token_savings --data PATH/locomo10.json --conversations 0-4   # or $HERMES_LOCOMO_PATH

Each conversation is replayed through ``MemoryProvider.session`` (speaker A as the user, B as the assistant).
After every turn the prompt cost of short-term memory (``context_tokens()``: summary + last 12 turns) is
compared with the cost of sending the whole history. The design aimed at about 40% fewer tokens (docs/benchmarks.md#token-savings-of-the-short-term-tier). With no LLM
configured (the default here) the summaries come from the deterministic extractive summarizer — the table
says so; pass a real model in code to measure LLM summaries.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._common import Progress, add_data_arguments, print_table, require_locomo
from benchmarks.locomo import load_conversations, parse_range

__all__ = ["main", "replay"]


def replay(path: str, indices: list[int], llm: Any = None) -> list[list[Any]]:
    from hermes_memory_core import MemoryConfig, MemoryProvider
    from hermes_memory_core.tokens import count_message_tokens

    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="hermes-tokens-") as tmp:
        cfg = MemoryConfig.model_validate({"data_dir": Path(tmp) / "s", "embedding_model": "all-MiniLM-L6-v2"})
        with MemoryProvider(cfg, llm=llm) as mem:
            for conv in load_conversations(path, indices):
                speakers = list(dict.fromkeys(t.speaker for t in conv.turns))
                user = speakers[0]
                session = mem.session(conv.sample_id, "replay", llm=llm)
                full = 0
                ours_all: list[int] = []
                full_all: list[int] = []
                progress = Progress(conv.sample_id, len(conv.turns))
                for i, t in enumerate(conv.turns):
                    role = "user" if t.speaker == user else "assistant"
                    session.add_messages([(role, t.text)])
                    full += count_message_tokens([(role, t.text)])
                    if role == "assistant" or i == len(conv.turns) - 1:
                        session.flush()
                        ours_all.append(session.context_tokens())
                        full_all.append(full)
                    progress.update(i + 1)
                mean_ours, mean_full = statistics.fmean(ours_all), statistics.fmean(full_all)
                rows.append([conv.sample_id, len(ours_all), round(mean_full), round(mean_ours),
                             f"{100 * (1 - mean_ours / mean_full):.1f}%", ours_all[-1], full_all[-1]])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.token_savings", description=__doc__.split("\n")[0])
    add_data_arguments(parser)
    parser.add_argument("--conversations", default="0-4")
    args = parser.parse_args(argv)
    rows = replay(str(require_locomo(args.data)), parse_range(args.conversations))
    print("summaries: deterministic extractive summarizer (no LLM configured)")
    print_table(["conversation", "prompts", "full history tok/prompt", "buffer+summary tok/prompt", "saved",
                 "last prompt (ours)", "last prompt (full)"], rows)
    total_full = sum(r[2] * r[1] for r in rows)
    total_ours = sum(r[3] * r[1] for r in rows)
    print(f"\noverall: {100 * (1 - total_ours / total_full):.1f}% fewer tokens per prompt (the design aimed at ~40%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
