"""The ``hermes-memory`` commands of this package: ``mcp`` and ``hermes-agent``.

``hermes_memory_core.cli`` finds them through the entry point group ``hermes_memory.cli`` (see ``pyproject.toml``)
and calls :func:`register` with its sub-command parsers. Each command takes only the shared options it uses, from
the core's one options table (:func:`hermes_memory_core.cli_parent`): ``mcp`` the store options and
``--log-level`` (no ``--json``: it speaks MCP), ``hermes-agent`` ``--json`` and ``--log-level`` (its data directory
is set in Hermes' ``config.yaml``). ``python -m hermes_memory_agents`` runs the same commands without the installed
entry points (:func:`main`).

- ``hermes-memory mcp --data-dir DIR --user USER [--transport streamable-http --port N]``: serve one user's
  memory over MCP (see :mod:`hermes_memory_agents.mcp_server`).
- ``hermes-memory hermes-agent install|uninstall|status [--hermes-home DIR]``: the Hermes Agent plugin folder
  (see :mod:`hermes_memory_agents.hermes_install`).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["LOGGERS", "MCP_OPTIONS", "STATUS_OPTIONS", "check_served_user", "cmd_hermes_agent", "cmd_mcp", "common_parent",
           "main", "provider_active", "register"]

DEFAULT_HTTP_PORT = 8765
#: The shared options each command takes (see the module docstring).
MCP_OPTIONS = ("--data-dir", "--config", "--embedding-model", "--key-file", "--read-only", "--log-level")
STATUS_OPTIONS = ("--json", "--log-level")
#: The loggers ``--log-level`` sets for these commands (beside the core's).
LOGGERS = ("hermes_memory_agents", "mcp.server")


def _emit(args: argparse.Namespace, data: Any, text: Callable[[], str]) -> None:
    if getattr(args, "json", False):
        print(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        print(text())


def _config(args: argparse.Namespace) -> Any:
    """The store's configuration from the shared options, read as every ``hermes-memory`` command reads them."""
    from hermes_memory_core import cli_config

    return cli_config(args)


# ---------------------------------------------------------------------- mcp
def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the memory tools over MCP until the client disconnects (stdio) or the process is stopped."""
    import anyio

    from hermes_memory_agents.mcp_server import (
        build_server,
        load_or_create_token,
        mcp_missing,
        serve_stdio,
        serve_streamable_http,
        token_path,
    )
    from hermes_memory_agents.tools import MemoryTools, ToolScope
    from hermes_memory_core import Caller, MemoryProvider, cli_user_hint

    missing = mcp_missing()
    if missing:
        print(f"hermes-memory: {missing}", file=sys.stderr)
        return 2
    check_served_user(args.user)
    caller = Caller(args.caller, read_permanent=not args.no_read_permanent, write_permanent=args.write_permanent)
    session_id = args.session or f"mcp-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    with MemoryProvider(_config(args), caller=caller) as mem:
        # the store checks the id as every call will (length, characters): refused now, not at the first tool call
        mem.list_memories(user_id=args.user, memory_types=["short_term"], limit=1)
        hint = cli_user_hint(mem, args.user, new=True)  # a close id the store holds: said; a new user is legitimate
        if hint:
            print(f"hermes-memory: WARNING {hint}", file=sys.stderr, flush=True)
        tools = MemoryTools(mem, ToolScope(user_id=args.user, caller=caller, session_id=session_id))
        server = build_server(tools)
        # Ctrl-C reaches the command's entry point, which says so in one line (exit status 130)
        if args.transport == "stdio":
            anyio.run(serve_stdio, server)
        else:
            token_file = Path(args.token_file) if args.token_file else token_path(mem.data_dir, mem.config.read_only)
            token = load_or_create_token(token_file)
            print(f"hermes-memory: serving MCP for user {args.user!r} at http://127.0.0.1:{args.port}/mcp; "
                  f'clients send the header "Authorization: Bearer <token>" with the token in {token_file}',
                  file=sys.stderr, flush=True)
            anyio.run(functools.partial(serve_streamable_http, server, args.port, token=token,
                                        max_sessions=args.max_sessions))
    return 0


def check_served_user(user_id: str) -> None:
    """Refuse a ``--user`` no tool call could use, before the store opens: blank, or reserved for the LangGraph
    store's own data (:class:`~hermes_memory_core.InvalidInputError`, one line, exit status 2)."""
    from hermes_memory_core import InvalidInputError, is_reserved_user_id

    if not user_id.strip():
        raise InvalidInputError("--user is empty: name the user whose memory the server serves (e.g. --user alice)")
    if is_reserved_user_id(user_id):
        raise InvalidInputError(f"--user {user_id[:40]!r} is reserved for the LangGraph store's own data")


# ---------------------------------------------------------------------- hermes-agent
def cmd_hermes_agent(args: argparse.Namespace) -> int:
    """Install, remove or inspect the Hermes Agent plugin folder."""
    from hermes_memory_agents.hermes_install import install_plugin, plugin_dir, uninstall_plugin
    from hermes_memory_agents.hermes_settings import PROVIDER_NAME, read_settings

    if args.action == "install":
        res = install_plugin(args.hermes_home, force=args.force)
        data = {"plugin_dir": str(res.plugin_dir), "hermes_home": str(res.hermes_home), "replaced": res.replaced}
        _emit(args, data, lambda: (
            f"{'updated' if res.replaced else 'installed'} the Hermes Agent memory provider {PROVIDER_NAME!r} in "
            f"{res.plugin_dir}\nactivate it with `hermes memory setup` (pick {PROVIDER_NAME}) or set "
            f"`memory: {{provider: {PROVIDER_NAME}}}` in {res.hermes_home / 'config.yaml'}, then start a new session"))
        return 0
    if args.action == "uninstall":
        removed = uninstall_plugin(args.hermes_home)
        _emit(args, {"removed": str(removed) if removed else None},
              lambda: f"removed {removed}" if removed else "the plugin folder was not installed")
        return 0
    folder = plugin_dir(args.hermes_home)
    home = folder.parent.parent
    status: dict[str, Any] = {"plugin_dir": str(folder), "installed": (folder / "__init__.py").exists()}
    status["active"] = provider_active(home / "config.yaml")
    try:
        status["data_dir"] = str(read_settings(home).memory_config(home).data_dir)
    except Exception as exc:  # noqa: BLE001 - status reports what it cannot read
        status["config_error"] = str(exc)
    _emit(args, status, lambda: "\n".join(f"{k}: {v}" for k, v in status.items()))
    return 0


def provider_active(config_yaml: Path) -> bool | str:
    """Whether ``config.yaml`` names our provider (``memory.provider``). Read with PyYAML when it is installed,
    else by its lines (Hermes' own config is simple YAML); ``"unknown (...)"`` when the file cannot be read, so an
    active provider is never reported inactive."""
    from hermes_memory_agents.hermes_settings import PROVIDER_NAME, load_yaml_config

    try:
        import yaml  # noqa: F401 - only whether it is there
    except ImportError:
        try:
            return _names_provider(config_yaml.read_text(encoding="utf-8-sig")) if config_yaml.exists() else False
        except (OSError, UnicodeDecodeError) as exc:
            return f"unknown (cannot read {config_yaml}: {exc})"
    try:
        memory = load_yaml_config(config_yaml).get("memory") or {}
    except Exception as exc:  # noqa: BLE001 - reported, never taken for "inactive"
        return f"unknown ({exc})"
    return isinstance(memory, dict) and memory.get("provider") == PROVIDER_NAME


def _names_provider(text: str) -> bool:
    """``memory:`` then, indented under it, ``provider: hermes_memory`` (quoted or not, a comment after it)."""
    from hermes_memory_agents.hermes_settings import PROVIDER_NAME

    in_memory = False
    for line in text.splitlines():
        bare = line.split(" #", 1)[0].rstrip()
        if not bare.strip() or bare.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            in_memory = bare.startswith("memory:")
            if in_memory and bare.split(":", 1)[1].strip().startswith("{"):  # memory: {provider: x}
                return re.search(rf"provider:\s*['\"]?{PROVIDER_NAME}['\"]?\s*[,}}]", bare) is not None
            continue
        if in_memory and re.fullmatch(rf"\s+provider:\s*['\"]?{PROVIDER_NAME}['\"]?", bare):
            return True
    return False


# ---------------------------------------------------------------------- registration
def register(subparsers: Any, common: argparse.ArgumentParser | None = None) -> None:
    """Add ``mcp`` and ``hermes-agent`` to the ``hermes-memory`` sub-commands (the ``hermes_memory.cli`` entry
    point). ``common``, the parent parser of every shared option, is accepted for the entry point's signature; each
    command takes only the shared options it uses, from the same table (:func:`hermes_memory_core.cli_parent`)."""
    from hermes_memory_core import cli_parent

    p = subparsers.add_parser(
        "mcp", parents=[cli_parent(*MCP_OPTIONS)], help="serve one user's memory over MCP (stdio or streamable HTTP)",
        description="Serve the memory tools hermes_memory_search, hermes_memory_remember and hermes_memory_forget "
        "for one user over MCP: stdio (for desktop and coding agents) or streamable HTTP on 127.0.0.1. Needs "
        'pip install "hermes-memory-layer[mcp]".')
    p.add_argument("--user", required=True, help="the user whose memory is served (exact: case and spaces count)")
    p.add_argument("--session", default=None, help="session id of short-term memories (default: one per run)")
    p.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio", help="default: stdio")
    p.add_argument("--port", type=int, default=DEFAULT_HTTP_PORT,
                   help=f"port of streamable HTTP on 127.0.0.1 (default {DEFAULT_HTTP_PORT})")
    p.add_argument("--caller", default="hermes-memory-mcp", help="name the access log records for permanent reads")
    p.add_argument("--no-read-permanent", action="store_true", help="do not return permanent facts")
    p.add_argument("--write-permanent", action="store_true",
                   help="let hermes_memory_remember store first-person facts in the permanent tier")
    p.add_argument("--token-file", default=None,
                   help="streamable HTTP: file holding the bearer token clients must send (created 0600 with a new "
                   "random token if missing; default <data-dir>/hermes.mcp-token)")
    p.add_argument("--max-sessions", type=int, default=32,
                   help="streamable HTTP: most MCP sessions open at once (default 32)")
    p.set_defaults(func=cmd_mcp, loggers=LOGGERS)

    p = subparsers.add_parser(
        "hermes-agent", parents=[cli_parent(*STATUS_OPTIONS)],
        help="install Hermes Memory as Hermes Agent's memory provider",
        description="install: write the memory provider plugin hermes_memory into <hermes home>/plugins/ (where "
        "hermes-agent finds it); uninstall: remove it; status: show where it is, whether config.yaml activates it "
        "and where its data lives (set in Hermes' config.yaml: memory.hermes_memory.data_dir).")
    p.add_argument("action", choices=["install", "uninstall", "status"], help="what to do")
    p.add_argument("--hermes-home", default=None, help="Hermes' home (default: $HERMES_HOME, else ~/.hermes)")
    p.add_argument("--force", action="store_true", help="install over a folder of that name not written by us")
    p.set_defaults(func=cmd_hermes_agent, loggers=LOGGERS)


def common_parent() -> argparse.ArgumentParser:
    """The parent parser of every shared ``hermes-memory`` option: the core's one table
    (:func:`hermes_memory_core.cli_parent`)."""
    from hermes_memory_core import cli_parent

    return cli_parent()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hermes_memory_agents``: this package's ``hermes-memory`` commands, whether or not the installed
    distribution registered its entry points. Returns the exit code (2 for a Hermes Memory error, 130 for Ctrl-C,
    each one line on stderr)."""
    import logging

    from hermes_memory_core import HermesMemoryError

    parser = argparse.ArgumentParser(prog="hermes-memory", description="Hermes Memory for agents: MCP and Hermes Agent.")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    logging.basicConfig(format="hermes-memory: %(levelname)s %(name)s: %(message)s")
    for name in ("hermes_memory", *LOGGERS):
        logging.getLogger(name).setLevel(args.log_level.upper())
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print(f"hermes-memory: interrupted during {args.command}", file=sys.stderr)
        return 130
    except HermesMemoryError as exc:
        print(f"hermes-memory: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
