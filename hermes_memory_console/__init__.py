"""Hermes Memory console: see and fix what an agent remembers, in a browser (``hermes-memory console``).

A web console served from this package by Python's own HTTP server on 127.0.0.1 with a one-time token: a user's
memories by tier and kind, search, a memory's history, edit into a new version, delete (one or in bulk, with a
preview), forget a user, a recall inspector and the store's health; in English and Chinese; read-only beside a
running app (``--read-only``). Every script and style is package data: nothing is fetched from elsewhere, no Node.
It uses only the public names of :mod:`hermes_memory_core` (docs/console.md).

Example::

    from hermes_memory_core import Caller, MemoryProvider
    from hermes_memory_console import ConsoleServer

    with MemoryProvider(cfg, caller=Caller.admin("console")) as mem, ConsoleServer(mem) as console:
        print(console.url)   # open it in a browser
"""

from hermes_memory_console.api import ConsoleAPI
from hermes_memory_console.server import HOST, ConsoleServer

__all__ = ["HOST", "ConsoleAPI", "ConsoleServer"]
