"""Ctrl-C while the ``hermes-memory`` command starts: one line and exit status 130, not Python's traceback.

The console script imports this package before :func:`hermes_memory_core.cli.main` runs (about 0.6 s on an idle
machine: numpy, the storage engines, the text tables), and a Ctrl-C then printed a traceback from inside an import.
Imported first by the package, this module installs — only when the process was started as the command and SIGINT
has Python's own handler (not ignored, as in a background job) — a handler that says so in one line and exits 130:
nothing was opened or written yet. :func:`ready` (the first thing ``main`` does) puts Python's handler back, so from
then on Ctrl-C is ``KeyboardInterrupt`` and ``main`` reports it as before.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

__all__ = ["COMMAND", "ready"]

#: The console script's name.
COMMAND = "hermes-memory"


def _interrupted(signum: int, frame: FrameType | None) -> None:
    os.write(2, f"{COMMAND}: interrupted while starting; nothing was written\n".encode())
    os._exit(130)


def ready() -> None:
    """Python's own Ctrl-C handler back, when the one of this module is in place (``main`` starts)."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _started_as_command() -> bool:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name in (COMMAND, f"{COMMAND}.exe") and threading.current_thread() is threading.main_thread()


if _started_as_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted)
