"""The everyday commands of ``hermes-memory``, as an agent uses its memory: ``remember`` (classified, normalised,
one memory per fact), ``recall`` (gated: nothing for greetings and fillers) and ``get`` (one memory by id).

``remember`` takes the content as the user's own words about themselves, on their own authority (the caller is bound
to ``--user``): their lasting preference about replies ("Please always reply in Chinese.") is kept as a preference,
as on every chat surface. Text from a file or standard input holds one statement per line, or per paragraph when
blank lines separate paragraphs; each is remembered on its own (its own tier, its own facts). Every outcome line says
what was stored, or, when nothing was, why and what to do.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from hermes_memory_core.cli.common import (
    emit,
    fmt_time,
    hit_dict,
    open_existing,
    open_store,
    read_content,
    say,
    user_hint,
)
from hermes_memory_core.cli.options import add_command, add_content, add_memory_fields, add_owner_check

__all__ = ["add_personal_commands", "cmd_get", "cmd_recall", "cmd_remember", "outcome_lines", "statements"]

#: What to do when nothing was stored, by action.
NEXT_STEP = {
    "skipped": "nothing was stored: the rules found nothing lasting in it, and short-term content needs a session; "
               "give --session ID to keep it with that session, or --type long_term to keep it in the profile",
    "rejected": "nothing was stored: the injection guard keeps orders to the assistant and claims of privilege out of "
                "memory; say it as something about the user (\"I prefer ...\", \"My ... is ...\")",
}


def statements(text: str) -> list[str]:
    """The statements of a file or of standard input: one per paragraph when blank lines separate paragraphs (the
    lines of a paragraph joined by spaces), else one per non-empty line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if re.search(r"\n[ \t]*\n", text.strip()):
        pieces = [" ".join(line.strip() for line in para.splitlines()) for para in re.split(r"\n[ \t]*\n", text)]
    else:
        pieces = text.splitlines()
    return [" ".join(p.split()) for p in pieces if p.strip()]


def _result_dicts(res: Any, said: str) -> list[dict[str, Any]]:
    """Each fact ``remember`` decided on, as the CLI prints it (``said``: the statement it came from)."""
    out = []
    for part in res.parts or (res,):
        tier = part.memory_type
        out.append({"id": part.id, "action": str(part.action), "stored": part.id is not None,
                    "memory_type": None if tier is None else str(getattr(tier, "value", tier)),
                    "content": part.content, "said": said, "reason": part.reason})
    return out


def outcome_lines(row: dict[str, Any]) -> str:
    """One fact's outcome: what was stored, in which tier, under which id; or what was not, why and what to do."""
    if row["stored"]:
        line = f"{row['action']}: [{row['memory_type']}] {row['content']}  ({row['id']})"
        return line + (f"\n  why: {row['reason']}" if row["reason"] else "")
    step = NEXT_STEP.get(row["action"], "nothing was stored")
    return f"{row['action']}: \"{row['said']}\"\n  why: {row['reason']}\n  → {step}"


def cmd_remember(args: argparse.Namespace) -> int:
    from hermes_memory_core.trust.permissions import Caller

    content = read_content(args)
    pieces = [content] if args.file is None and args.content != "-" else statements(content)
    if not pieces:
        from hermes_memory_core.errors import InvalidInputError

        raise InvalidInputError("there is nothing to remember: the text is empty")
    # the user's own words, on their own authority: the operator's permissions, bound to this user
    caller = Caller("hermes-memory-cli", read_permanent=True, write_permanent=True, user_id=args.user)
    rows: list[dict[str, Any]] = []
    with open_store(args) as mem:
        hint = user_hint(mem, args.user, new=True)
        for piece in pieces:
            res = mem.remember(piece, user_id=args.user, session_id=args.session, memory_type=args.type,
                               importance=args.importance, tags=args.tag or None, caller=caller)
            rows.extend(_result_dicts(res, piece))
        mem.flush()
    if hint:
        say(hint)
    data = {**rows[0], "results": rows}  # the first fact's fields stay at the top for scripts that read one
    emit(args, data, lambda: "\n".join(outcome_lines(r) for r in rows))
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    with open_existing(args) as mem:
        hits = mem.recall(args.query, user_id=args.user, top_k=args.top_k)
        hint = None if hits else user_hint(mem, args.user)
    if hint:
        say(hint)
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
                    "Remember what the user said, as their own words: classified into a tier "
                    "(unless --type names one), rewritten into one sentence, redacted and checked by the injection "
                    "guard; a fact already held is counted, a changed one becomes a new version, the user's lasting "
                    "preference about replies is kept as a preference. Content: an argument, - for standard input, "
                    "or --file PATH (from a file or standard input: one statement per line, or per paragraph when "
                    "blank lines separate them). Each outcome line names what was stored, or why nothing was.")
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
