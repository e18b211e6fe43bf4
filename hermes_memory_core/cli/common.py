"""What the ``hermes-memory`` commands share: the store they open, how they print, and where content comes from."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_memory_core.types import MemoryHit

__all__ = ["READ_COMMANDS", "OutputError", "config_from", "emit", "fmt_time", "hit_dict", "open_existing", "open_store",
           "operator_caller", "read_content", "say", "usable_folder", "user_hint"]


def config_from(args: argparse.Namespace, data_dir: str | None = None) -> Any:
    """The store's configuration from the shared options (:func:`~hermes_memory_core.cli.options.cli_config`), with
    ``data_dir`` instead of ``--data-dir`` when given."""
    from hermes_memory_core.cli.options import cli_config

    return cli_config(args, **({"data_dir": data_dir} if data_dir else {}))


#: The CLI is the operator's tool: it acts with every permanent-tier permission, logged under this name.
def operator_caller() -> Any:
    from hermes_memory_core.trust.permissions import Caller

    return Caller.admin("hermes-memory-cli")


def open_store(args: argparse.Namespace) -> Any:
    from hermes_memory_core.provider import MemoryProvider

    return MemoryProvider(usable_folder(config_from(args)), caller=operator_caller())


def usable_folder(cfg: Any) -> Any:
    """``cfg``, after checking that its embedded store's folder is not a file (or under one)."""
    from hermes_memory_core.errors import ConfigError

    if cfg.metadata_url is None or cfg.vector_backend == "edge":
        folder = Path(cfg.data_dir)
        for path in (folder, *folder.parents):
            if path.exists():
                if not path.is_dir():
                    raise ConfigError(f"the data directory {folder} cannot be used: {path} is a file, not a folder")
                break
    return cfg


#: Commands that only read: on an embedded store they open it read-only (see :func:`open_existing`).
READ_COMMANDS = frozenset({"search", "history", "list", "stats", "recall", "get"})


def open_existing(args: argparse.Namespace) -> Any:
    """Open the configured store for a command that needs one to exist: a folder with no store is reported and left
    as it was (nothing is created). Server stores are opened as they are.

    A command of :data:`READ_COMMANDS` opens an embedded store read-only, so reading never changes what it reads
    (a writable open ends the sessions a previous process left open and promotes what was said in them) and works
    beside a running app that holds the store; only a store whose schema this version must upgrade first is opened
    writable (once)."""
    from hermes_memory_core.engine import METADATA_FILE
    from hermes_memory_core.errors import ConfigError, ReadOnlyStoreError
    from hermes_memory_core.provider import MemoryProvider

    cfg = usable_folder(config_from(args))
    if cfg.metadata_url is None and not (Path(cfg.data_dir) / METADATA_FILE).is_file():
        raise ConfigError(
            f"no Hermes Memory store in {cfg.data_dir} (nothing was created there); name the store's folder with "
            "--data-dir, data_dir in --config or HERMES_MEMORY_DATA_DIR"
        )
    if getattr(args, "command", None) in READ_COMMANDS and cfg.metadata_url is None and not cfg.read_only:
        try:
            return MemoryProvider(cfg.model_copy(update={"read_only": True}), caller=operator_caller())
        except ReadOnlyStoreError as exc:
            if "schema" not in str(exc):
                raise
    return MemoryProvider(cfg, caller=operator_caller())


class OutputError(OSError):
    """The command did its work but its output could not be written (a full disk, a closed pipe)."""


def emit(args: argparse.Namespace, data: Any, text: Callable[[], str]) -> None:
    try:
        if args.json:
            print(json.dumps(data, ensure_ascii=False, indent=2, default=str), flush=True)
        else:
            print(text(), flush=True)
    except OSError as exc:
        raise OutputError(exc.errno, exc.strerror) from exc


def fmt_time(ts: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ts))


def hit_dict(h: MemoryHit) -> dict[str, Any]:
    """A search hit as the CLI prints it (``--json``)."""
    return h.to_dict(("id", "content", "memory_type", "score", "created_at", "tags", "metadata"), score_digits=4)


def read_content(args: argparse.Namespace, name: str = "content") -> str:
    """The text a command stores: the positional argument, standard input when it is ``-``, or ``--file PATH``
    (UTF-8; from either, the final line break is dropped). Exactly one of them; anything else is a one-line
    ``InvalidInputError``."""
    from hermes_memory_core.errors import InvalidInputError

    given, path = getattr(args, name), getattr(args, "file", None)
    if (given is None) == (path is None):
        raise InvalidInputError(f"give the {name} as an argument, as - to read standard input, or with --file PATH "
                                "(exactly one of them)")
    try:
        if path is not None:
            return Path(path).read_text(encoding="utf-8").rstrip("\r\n")  # the file's last line break is no content
        return sys.stdin.read().rstrip("\r\n") if given == "-" else str(given)
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"the {name} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InvalidInputError(f"cannot read --file {path}: {exc.strerror or exc}") from None


def user_hint(mem: Any, user_id: str, *, new: bool = False) -> str | None:
    """A line for a user id the store holds no memory of (None when it holds some): which known ids differ from it
    only by case or spaces (user ids are exact: ``LIN`` and ``lin`` are two users). ``new``: the command is about to
    write the first memory of ``user_id``, which is said only when such a near id exists."""
    known: dict[str, int] = mem.stats().as_dict()["by_user"]
    if user_id in known:
        return None
    near = sorted(u for u in known if " ".join(u.split()).casefold() == " ".join(user_id.split()).casefold())
    if not near:
        return None if new else (f"no memories of user {user_id!r} in this store ({len(known)} users have some: "
                                 "`hermes-memory stats` lists them)")
    names = " or ".join(f"{u!r} ({known[u]} memor{'y' if known[u] == 1 else 'ies'})" for u in near)
    start = f"{user_id!r} is a new user" if new else f"no memories of user {user_id!r} in this store"
    return f"{start}; did you mean {names}? User ids are exact: case and spaces count"


def say(line: str) -> None:
    """One note for the operator on standard error (standard output stays the command's result, e.g. its JSON)."""
    print(f"hermes-memory: {line}", file=sys.stderr, flush=True)
