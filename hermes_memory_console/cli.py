"""``hermes-memory console``: serve the web console for a store (registered through the ``hermes_memory.cli`` entry
point group, so the core's command table does not import this package)."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

__all__ = ["CONSOLE_OPTIONS", "cmd_console", "register"]

#: The shared options the command takes.
CONSOLE_OPTIONS = ("--data-dir", "--config", "--embedding-model", "--key-file", "--read-only", "--log-level")


def register(subparsers: Any, common: argparse.ArgumentParser | None = None) -> None:
    """Add ``console`` to the ``hermes-memory`` sub-commands."""
    from hermes_memory_core import cli_parent

    p = subparsers.add_parser(
        "console", parents=[cli_parent(*CONSOLE_OPTIONS)], help="see and fix what it remembers, in a browser",
        description="Serve a web console for the store on 127.0.0.1: users' memories by tier and kind, search, "
        "history, edit, delete (also in bulk, with a preview), forget a user, a recall inspector and the store's "
        "health, in English and Chinese. The address it prints carries a one-time token. With --read-only it "
        "changes nothing and opens a store a running app holds. Ctrl-C stops it.")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    p.set_defaults(func=cmd_console)


def cmd_console(args: argparse.Namespace) -> int:
    """Open the store as its operator, serve the console until Ctrl-C, then close the store."""
    from hermes_memory_console.server import ConsoleServer
    from hermes_memory_core import Caller, ConfigError, MemoryProvider, StoreLockedError, cli_config

    signal.signal(signal.SIGTERM, _stop)
    cfg = cli_config(args)
    # the embedded store's metadata file: a folder without one holds no store, and the console creates none
    if cfg.metadata_url is None and not (cfg.data_dir / "metadata.sqlite").is_file():
        raise ConfigError(f"no Hermes Memory store in {cfg.data_dir} (nothing was created there); name the store's "
                          "folder with --data-dir")
    try:
        mem = MemoryProvider(cfg, caller=Caller.admin("hermes-memory-console"))
    except StoreLockedError as exc:
        raise StoreLockedError(f"{exc} To look at it while the app runs: hermes-memory console --read-only") from None
    with mem, ConsoleServer(mem, port=args.port, read_only=bool(cfg.read_only)) as console:
        mode = " (read-only)" if console.read_only else ""
        try:  # (a signal may come as soon as the address is out)
            print(f"Hermes Memory console{mode} for {mem.location}:\n  {console.url}\nCtrl-C stops it.", flush=True)
            console.wait()
        except KeyboardInterrupt:
            print("console stopped", file=sys.stderr)
    return 0


def _stop(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM closes the store as Ctrl-C does
