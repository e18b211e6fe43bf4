"""The options the ``hermes-memory`` commands share: one table for the core's commands and for those of other
packages (``mcp``, ``hermes-agent``), so a help text offers an option only where the command uses it; and the
arguments several core commands take (a memory's text, the fields of a new memory, the owner check), each written
once.

Each row says the flag, its help text, how argparse reads it and which :class:`~hermes_memory_core.MemoryConfig`
field it sets. :func:`cli_parent` builds an argparse parent parser with the options a command takes;
:func:`cli_config` turns the parsed options into the store's configuration (every command of every package opens
its store through it, so an option means the same everywhere); :func:`options_table` renders which command takes
which, as ``docs/cli.md`` shows it (a test keeps the page in step).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

__all__ = ["LOG_LEVELS", "OPTIONS", "STORE_OPTIONS", "TIERS", "Option", "add_command", "add_content",
           "add_memory_fields", "add_owner_check", "cli_config", "cli_parent", "options_table"]

#: ``--log-level`` values, quietest last.
LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True)
class Option:
    """One shared option: its flag, help text, how argparse reads it and the config field it sets (if any)."""

    flag: str
    help: str
    metavar: str | None = None
    switch: bool = False
    choices: tuple[str, ...] | None = None
    default: str | None = None
    field: str | None = None

    @property
    def dest(self) -> str:
        """The attribute argparse stores it under."""
        return self.flag.lstrip("-").replace("-", "_")

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        kwargs: dict[str, Any] = {"help": self.help, "default": self.default}
        if self.switch:
            kwargs.update(action="store_true", default=False)
        else:
            kwargs.update(metavar=self.metavar, choices=self.choices)
        parser.add_argument(self.flag, **kwargs)


OPTIONS: tuple[Option, ...] = (
    Option("--data-dir", "directory of the embedded store (default: data_dir of --config, else "
           "$HERMES_MEMORY_DATA_DIR, else ./hermes_data)", "DIR", field="data_dir"),
    Option("--config", "TOML config file ([hermes_memory] table)", "FILE"),
    Option("--embedding-model", "override the configured embedding model", "NAME", field="embedding_model"),
    Option("--key-file", "file holding the store's encryption key (default: <data dir>/hermes.key; or set "
           "HERMES_MEMORY_ENCRYPTION_KEY); restore copies it into a target that has none", "FILE",
           field="encryption_key_file"),
    Option("--read-only", "open the store read-only: reads, search, stats and export work, a write fails with "
           "ReadOnlyStoreError, nothing in the store is changed (automatic on read-only media)", switch=True,
           field="read_only"),
    Option("--json", "print machine-readable JSON", switch=True),
    Option("--log-level", "what Hermes Memory logs on stderr (default: warning)", "LEVEL", choices=LOG_LEVELS,
           default="warning"),
)
#: The options that say which store a command works on.
STORE_OPTIONS = ("--data-dir", "--config", "--embedding-model", "--key-file", "--read-only")


def cli_parent(*flags: str) -> argparse.ArgumentParser:
    """A parent parser with the shared options named in ``flags`` (every one when none is named), in table order."""
    unknown = set(flags) - {o.flag for o in OPTIONS}
    if unknown:
        raise ValueError(f"no shared option {sorted(unknown)}")
    parent = argparse.ArgumentParser(add_help=False)
    for option in OPTIONS:
        if not flags or option.flag in flags:
            option.add_to(parent)
    return parent


def cli_config(args: argparse.Namespace, **overrides: Any) -> Any:
    """The :class:`~hermes_memory_core.MemoryConfig` the parsed shared options name: ``--config``'s file (else the
    defaults), ``HERMES_MEMORY_*`` variables, then each option given (and ``overrides``) on top."""
    from hermes_memory_core.config import MemoryConfig

    given = {o.field: getattr(args, o.dest) for o in OPTIONS
             if o.field is not None and getattr(args, o.dest, None) not in (None, False, "")}
    return MemoryConfig.load(getattr(args, "config", None), **{**given, **overrides})


def options_table(parser: argparse.ArgumentParser) -> str:
    """A Markdown table: each shared option, its meaning, and the commands of ``parser`` that take it."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    commands: dict[str, argparse.ArgumentParser] = dict(sub.choices)
    lines = ["| option | meaning | commands |", "|---|---|---|"]
    for option in OPTIONS:
        takers = [name for name, p in commands.items()
                  if any(option.flag in a.option_strings for a in p._actions)]
        others = [name for name in commands if name not in takers]
        who = ("all" if not others else "all but " + ", ".join(f"`{n}`" for n in others) if len(others) <= 3
               else ", ".join(f"`{n}`" for n in takers))
        meaning = option.help.replace("|", "/").replace("<", "&lt;").replace(">", "&gt;")
        lines.append(f"| `{option.flag}` | {meaning} | {who} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------- arguments several core commands take
#: ``--type`` values: the tiers.
TIERS = ("short_term", "long_term", "permanent")


def add_command(sub: Any, common: argparse.ArgumentParser, name: str, func: Any, help: str,
                description: str) -> argparse.ArgumentParser:
    """A sub-command that takes the shared options (``common``) and runs ``func(args)``."""
    p: argparse.ArgumentParser = sub.add_parser(name, parents=[common], help=help, description=description)
    p.set_defaults(func=func)
    return p


def add_content(p: argparse.ArgumentParser, text_help: str, file_help: str) -> None:
    """The text a command stores: an argument, ``-`` for standard input, or ``--file PATH`` (see
    :func:`~hermes_memory_core.cli.common.read_content`)."""
    p.add_argument("content", nargs="?", default=None, help=text_help)
    p.add_argument("--file", default=None, metavar="PATH", help=file_help)


def add_memory_fields(p: argparse.ArgumentParser, user_help: str, type_default: str | None, type_help: str) -> None:
    """What a new memory is written with: its owner, session, tier, importance and tags."""
    p.add_argument("--user", required=True, help=user_help)
    p.add_argument("--session", default=None, help="session id")
    p.add_argument("--type", default=type_default, choices=TIERS, help=type_help)
    p.add_argument("--importance", type=float, default=None, help="0..1")
    p.add_argument("--tag", action="append", help="a tag (repeatable)")


def add_owner_check(p: argparse.ArgumentParser) -> None:
    """``--user``: a command on one memory refuses unless the memory belongs to this user."""
    p.add_argument("--user", default=None, help="refuse unless the memory belongs to this user")
