"""The ``hermes-memory`` parser and entry point: every command, "did you mean" for a mistyped one, ``--log-level``,
and one line on stderr (never a traceback) for an error, a closed pipe or Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import errno
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from hermes_memory_core.cli.admin import (
    cmd_add,
    cmd_delete,
    cmd_export,
    cmd_forget,
    cmd_history,
    cmd_list,
    cmd_purge_user,
    cmd_reconcile,
    cmd_restore,
    cmd_rotate_key,
    cmd_search,
    cmd_stats,
    cmd_update,
)
from hermes_memory_core.cli.common import OutputError
from hermes_memory_core.cli.demo import cmd_demo
from hermes_memory_core.cli.doctor import cmd_config, cmd_doctor
from hermes_memory_core.cli.options import (
    TIERS,
    add_command,
    add_content,
    add_memory_fields,
    add_owner_check,
    cli_parent,
)
from hermes_memory_core.cli.personal import add_personal_commands

__all__ = ["HelpfulParser", "build_parser", "main", "set_log_level"]

#: The loggers ``--log-level`` sets: the core's; a command of another package names its own in its parser's
#: defaults (``loggers=(...)``).
LOGGERS = ("hermes_memory", "hermes_memory_core")


class HelpfulParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line that suggests the closest command or option."""

    def error(self, message: str) -> NoReturn:
        hint = ""
        choice = _bad_choice(message)
        if choice is not None:
            word, choices = choice
            close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
        elif message.startswith("unrecognized arguments:"):
            options = {s for p in _parsers(self) for a in p._actions for s in a.option_strings}
            for word in message.split(":", 1)[1].split():
                close = difflib.get_close_matches(word.split("=")[0], sorted(options), n=1, cutoff=0.6)
                if word.startswith("-") and close:
                    hint = f"; did you mean {close[0]!r}?"
                    break
        self.exit(2, " ".join(f"{self.prog}: {message}{hint} (see {self.prog.split()[0]} --help)".split()) + "\n")


def _bad_choice(message: str) -> tuple[str, list[str]] | None:
    """``(word, choices)`` of argparse's "invalid choice: 'x' (choose from ...)" message."""
    if "invalid choice:" not in message:
        return None
    rest = message.split("invalid choice:", 1)[1]
    word = rest.split("(", 1)[0].strip().strip("'\"")
    choices = [c.strip(" '\",)") for c in rest.split("choose from", 1)[-1].split(",")]
    return word, [c for c in choices if c]


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out += [p for sub in action.choices.values() for p in _parsers(sub)]
    return out


def set_log_level(level: str, extra: Sequence[str] = ()) -> None:
    """Log records of Hermes Memory (:data:`LOGGERS` and ``extra``) at ``level`` and above go to stderr, one line
    each."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("hermes-memory: %(levelname)s %(name)s: %(message)s"))
    for name in (*LOGGERS, *extra):
        logger = logging.getLogger(name)
        logger.setLevel(level.upper())
        if not any(getattr(h, "_hermes_cli", False) for h in logger.handlers):
            handler._hermes_cli = True  # type: ignore[attr-defined]
            logger.addHandler(handler)
            logger.propagate = False


def _version_line() -> str:
    from hermes_memory_core.version import DISTRIBUTION, __version__

    return f"hermes-memory {__version__} (Python distribution {DISTRIBUTION})"



def _add_record_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """``list``, ``update`` and ``delete``: one user's memories, one memory's new version, a soft delete."""
    p = add_command(sub, common, "list", cmd_list, "one user's memories, oldest first",
                    "List one user's active memories, oldest first, with optional filters (no "
                    "ranking; use search to rank by a question).")
    p.add_argument("--user", required=True, help="user id")
    p.add_argument("--type", action="append", choices=TIERS, help="tier filter (repeatable)")
    p.add_argument("--session", default=None, help="only this session's memories")
    p.add_argument("--tag", action="append", help="only memories with this tag (repeatable: any of them)")
    p.add_argument("--limit", type=int, default=100, help="at most this many (default 100; it says when there are more)")
    p.add_argument("--offset", type=int, default=0, help="skip this many first")

    p = add_command(sub, common, "update", cmd_update, "a new version of a memory",
                    "Store a new version of a memory (earlier versions stay in history); prints "
                    "the version number. Content: an argument, - for standard input, or --file PATH.")
    p.add_argument("id", help="memory id")
    add_content(p, "the memory's new text, or - for standard input", "read the new text from this UTF-8 file")
    p.add_argument("--note", default="", help="why it changed (kept with the version)")
    add_owner_check(p)

    p = add_command(sub, common, "delete", cmd_delete, "delete a memory (--hard: erase it for good)",
                    "Soft-delete a memory: it is never returned again and leaves the indexes; its "
                    "history stays. With --hard: erase it, every version and index entry, from every file of "
                    "the store.")
    p.add_argument("id", help="memory id")
    p.add_argument("--hard", action="store_true", help="erase it for good (cannot be undone)")
    p.add_argument("--reason", default="", help="why (kept in its history)")
    add_owner_check(p)


def build_parser() -> argparse.ArgumentParser:
    """Every ``hermes-memory`` command, the core's and those of the ``hermes_memory.cli`` entry point group."""
    common = cli_parent()
    parser = HelpfulParser(prog="hermes-memory", description="Tiered long-term memory for LLM agents.")
    parser.add_argument("--version", action="version", version=_version_line())
    sub: Any = parser.add_subparsers(dest="command", required=True)

    p = add_command(sub, common, "demo", cmd_demo, "run the bilingual end-to-end demo (the main job)",
                    "Store a short bilingual conversation in all three tiers, recall it in both "
                    "languages (checking every answer), version, export and restore it, and print what happens. "
                    "It runs in a temporary folder unless --data-dir names a new or empty one; it never touches "
                    "an existing store. Exit status 1 if an answer was wrong.")

    p = add_command(sub, common, "add", cmd_add, "store one memory as given",
                    "Store one memory as given (no classification: remember does that); prints its "
                    "id. Content: an argument, - for standard input, or --file PATH.")
    add_content(p, "text to store, or - to read it from standard input", "read the text from this UTF-8 file")
    add_memory_fields(p, "owner user id", "long_term", "tier")

    p = add_command(sub, common, "search", cmd_search, "hybrid search of one user's memories",
                    "Hybrid (BM25 + vector) search of one user's memories.")
    p.add_argument("query", help="question or text")
    p.add_argument("--user", required=True, help="user id")
    p.add_argument("--top-k", type=int, default=5, help="number of hits (default 5)")
    p.add_argument("--type", action="append", choices=TIERS, help="tier filter")
    p.add_argument("--as-of", type=int, default=None, metavar="UNIX_TIME",
                   help="answer as the store stood then (the versions current at that time)")

    p = add_command(sub, common, "history", cmd_history, "every version of a memory",
                    "Print every version of a memory, oldest first.")
    p.add_argument("id", help="memory id")

    _add_record_commands(sub, common)
    add_personal_commands(sub, common)

    p = add_command(sub, common, "doctor", cmd_doctor, "check a store and say what to do",
                    "Check the configuration, the store folder, who may read it and its key, that "
                    "the store opens with its key, whether it can be written, SQLite's integrity, sizes and the background work's warnings; "
                    "each problem comes with what to do. Read-only. Exit status 1 if a check failed.")

    p = add_command(sub, common, "config", cmd_config, "the configuration a command would use",
                    "Print the configuration a command would use — code defaults, --config, "
                    "HERMES_MEMORY_* variables and the options given, merged — each field with its meaning. "
                    "Secrets are masked. Opens no store.")

    p = add_command(sub, common, "export", cmd_export, "write a portable bundle",
                    "Export the whole store, or one user's memories (--user), to a self-contained "
                    "bundle folder.")
    p.add_argument("target", help="new folder for the bundle")
    p.add_argument("--user", default=None, help="only this user's memories (no byte of any other user)")

    p = add_command(sub, common, "restore", cmd_restore, "rebuild a store from a bundle",
                    "Verify a bundle and restore it into --data-dir.")
    p.add_argument("bundle", help="bundle folder")
    p.add_argument("--overwrite", action="store_true", help="replace a non-empty target store")
    p.add_argument("--trusted", action="store_true",
                   help="skip the injection guard on the bundle's memories (a vetted backup of your own store)")

    p = add_command(sub, common, "reconcile", cmd_reconcile, "repair orphans between the stores",
                    "Find and repair orphans between metadata and vectors; print counts.")

    p = add_command(sub, common, "forget", cmd_forget, "expire closed sessions and stale, unimportant memories",
                    "Expire short-term memories of closed sessions; downgrade or expire stale "
                    "low-importance long-term memories. Never touches permanent or important ones.")
    p.add_argument("--dry-run", action="store_true", help="only report what would be done")

    p = add_command(sub, common, "rotate-key", cmd_rotate_key, "re-encrypt sealed memories under a new key",
                    "Generate a new encryption key and re-encrypt every sealed memory with it in one "
                    "transaction. The new key is written to a file and read back before the commit, never "
                    "printed: the key file is replaced after the commit; with the key in the config or "
                    "environment, --key-out names the new file the key goes to.")
    p.add_argument("--key-out", default=None, help="new file for the new key (required when the key comes from the "
                   "config or HERMES_MEMORY_ENCRYPTION_KEY; created with mode 0600)")

    p = add_command(sub, common, "purge-user", cmd_purge_user, "erase everything of one user, for good",
                    "Erase every memory (all tiers and versions), session buffer, summary, queue entry, "
                    "access-log row, keyword entry and vector point of one user, and rewrite the store's files so "
                    "none keeps a byte of them. Other users are untouched. Needs --yes.")
    p.add_argument("--user", required=True, help="the user id to erase")
    p.add_argument("--yes", action="store_true", help="confirm: nothing of the user can be recovered afterwards")

    p = add_command(sub, common, "stats", cmd_stats, "counts per tier and user, bytes on disk",
                    "Print counts per tier and user, versions and bytes on disk.")

    # Commands of other packages: each entry point of the group ``hermes_memory.cli`` is a function
    # ``register(subparsers, common_parent_parser)``; the core imports none of them itself.
    from importlib.metadata import entry_points

    for ep in entry_points(group="hermes_memory.cli"):
        try:
            ep.load()(sub, common)
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not take the core commands down
            print(f"hermes-memory: skipped the commands of {ep.name!r} ({type(exc).__name__}: {exc})", file=sys.stderr)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``hermes-memory``. Returns the exit code: 2 for a Hermes Memory error or a path that cannot
    be used (one line on stderr, no traceback), 130 for Ctrl-C (one line), 141 when the reader of its output went
    away (a closed pipe)."""
    from hermes_memory_core._startup import ready
    from hermes_memory_core.errors import HermesMemoryError

    ready()  # from here Ctrl-C is KeyboardInterrupt, reported below
    with contextlib.suppress(AttributeError, ValueError):  # lines reach a pipe as they are printed, as on a terminal
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    try:
        args = build_parser().parse_args(argv)
        set_log_level(getattr(args, "log_level", None) or "warning", getattr(args, "loggers", ()))
        return int(args.func(args))
    except KeyboardInterrupt:
        _say_error(f"hermes-memory: interrupted{_during(argv)}; a write that returned is kept, one in progress is "
                   "rolled back or finished at the next open")
        return 130
    except HermesMemoryError as exc:
        _say_error(f"hermes-memory: {type(exc).__name__}: {exc}")
        return 2
    except OutputError as exc:
        if exc.errno == errno.EPIPE:
            return _closed_pipe()
        _say_error(f"hermes-memory: {args.command} completed, but its output could not be written ({exc.strerror})")
        with contextlib.suppress(OSError, ValueError):  # no second failure when Python flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 3
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as exc:  # a path the command was given cannot be used (an export target under a file, ...)
        where = f": {exc.filename}" if exc.filename else ""
        _say_error(f"hermes-memory: {args.command} failed: {exc.strerror or exc}{where}")
        return 2


def _during(argv: Sequence[str] | None) -> str:
    words = [w for w in (sys.argv[1:] if argv is None else argv) if not w.startswith("-")]
    return f" during {words[0]}" if words else ""


def _say_error(text: str) -> None:
    """One line on stderr; a stderr that cannot be written costs nothing more."""
    with contextlib.suppress(OSError, ValueError):
        print(" ".join(text.split()), file=sys.stderr)


def _closed_pipe() -> int:
    """The reader of stdout went away (``hermes-memory demo | head -1``): stop quietly, as ``head``'s writers do."""
    with contextlib.suppress(OSError, ValueError):  # no second error when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141

