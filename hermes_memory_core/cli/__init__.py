"""The ``hermes-memory`` command line: the demo (the main job), everyday memory commands and store administration.

Every command takes the shared options of :mod:`hermes_memory_core.cli.options` that it uses: ``--data-dir``
(default ``./hermes_data``), ``--config FILE`` (TOML), ``--embedding-model``, ``--key-file FILE`` (the encryption
key of the permanent tier, when it is not the store's own ``hermes.key``), ``--json`` and ``--log-level``.
Commands that only read (``search``, ``recall``, ``get``, ``list``, ``history``, ``stats``, ``export``,
``doctor``) and those that change an existing memory (``update``, ``delete``) refuse a folder that holds no store
and create nothing there. Content to store comes as an argument, ``-`` (standard input) or ``--file PATH``.
Errors are one line on stderr (exit status 2), a mistyped command or option gets "did you mean", Ctrl-C is one
line and exit status 130, and a closed pipe (``hermes-memory demo | head -1``) ends the command quietly.
"""

from __future__ import annotations

from hermes_memory_core.cli.app import build_parser, main
from hermes_memory_core.cli.options import cli_parent, options_table

__all__ = ["build_parser", "cli_parent", "main", "options_table"]
