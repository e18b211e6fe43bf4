"""The everyday commands of ``hermes-memory``, as an agent uses its memory: ``remember`` (classified, normalised,
one memory per fact), ``recall`` (gated: nothing for greetings and fillers) and ``get`` (one memory by id)."""

from __future__ import annotations

import argparse
from typing import Any

from hermes_memory_core.cli.common import emit, fmt_time, hit_dict, open_existing, open_store, read_content
from hermes_memory_core.cli.options import add_command, add_content, add_memory_fields, add_owner_check

__all__ = ["add_personal_commands", "cmd_get", "cmd_recall", "cmd_remember"]


def cmd_remember(args: argparse.Namespace) -> int:
    content = read_content(args)
    with open_store(args) as mem:
        res = mem.remember(content, user_id=args.user, session_id=args.session, memory_type=args.type,
                           importance=args.importance, tags=args.tag or None)
        mem.flush()
    data = {"id": res.id, "action": res.action, "memory_type": None if res.memory_type is None else
            str(getattr(res.memory_type, "value", res.memory_type)), "content": res.content, "reason": res.reason}
    emit(args, data, lambda: f"{data['action']}: [{data['memory_type']}] {data['content']}  ({data['id']})"
         + (f"\n  why: {data['reason']}" if data["reason"] else ""))
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        hits = mem.recall(args.query, user_id=args.user, top_k=args.top_k)
    rows = [hit_dict(h) for h in hits]
    emit(args, rows, lambda: "\n".join(f"[{r['memory_type']}]  {r['content']}  ({r['id']})" for r in rows)
         or "(nothing to recall: a greeting or filler, or no memory relevant enough; search ranks without the gate)")
    return 0


def cmd_get(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        record = mem.get(args.id, user_id=args.user)
    data = record.to_dict(("id", "user_id", "memory_type", "content", "version", "session_id", "created_at",
                           "updated_at", "tags", "metadata"))
    emit(args, data, lambda: "\n".join([
        f"{data['content']}",
        f"  id {data['id']}  user {data['user_id']}  [{data['memory_type']}]  version {data['version']}",
        f"  created {fmt_time(data['created_at'])}  updated {fmt_time(data['updated_at'])}"
        + (f"  tags {', '.join(data['tags'])}" if data["tags"] else ""),
    ]))
    return 0


def add_personal_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """``remember``, ``recall`` and ``get``."""
    p = add_command(sub, common, "remember", cmd_remember, "remember a statement as an agent would",
                    "Remember what the user said: classified into a tier (unless --type names "
                    "one), rewritten into one sentence, redacted and checked by the injection guard; a fact "
                    "already held is counted, a changed one becomes a new version. Content: an argument, - for "
                    "standard input, or --file PATH.")
    add_content(p, "the statement, or - to read it from standard input", "read the statement from this UTF-8 file")
    add_memory_fields(p, "whose memory", None, "the tier (default: classified)")

    p = add_command(sub, common, "recall", cmd_recall, "what an agent would recall for a message",
                    "Gated recall for a chat message: nothing for greetings and fillers or when no "
                    "memory is relevant enough; permanent facts only for identity, configuration and compliance "
                    "questions. `search` ranks without the gate.")
    p.add_argument("query", help="the user's message")
    p.add_argument("--user", required=True, help="whose memory")
    p.add_argument("--top-k", type=int, default=5, help="at most this many (default 5)")

    p = add_command(sub, common, "get", cmd_get, "one memory by id",
                    "Print one memory: its current text, tier, version, times and tags.")
    p.add_argument("id", help="memory id")
    add_owner_check(p)
