"""The stores open in this process, found by key, and closed at interpreter exit.

Adapters re-attach deserialised objects to an open store by its key (:func:`get`). At interpreter exit every store
still open is closed (:func:`close_all`, registered with :mod:`atexit`): a script that never calls ``close()``
still has its buffered access records written, its background work finished and — on a store one process opens at
a time — its open sessions ended, so what the user said in them is classified by the host model their surface
was given, in the process that holds it. ``atexit`` runs while background threads still run, so no close waits
on a lock a thread frozen by the interpreter's finalisation holds.

A process stopped by ``SIGTERM`` (``docker stop``, ``systemctl stop``, ``kill``) runs no ``atexit``: Python's default
action for the signal ends it at once. While a store is open, a ``SIGTERM`` the application left at its default first
closes the open stores — on a thread of its own, for at most :data:`SIGTERM_GRACE` seconds, further ``SIGTERM`` signals
ignored meanwhile — and then takes the default action (the process ends as the signal ends it, whatever the
application's own ``except`` clauses would catch): the sessions are ended by this process's model as at a plain exit.
A handler the application set is never replaced, and only the main thread can set one (a store opened elsewhere
leaves the signal as it is). A process killed outright (``SIGKILL``, ``os._exit``, a power cut) ends nothing: the next
process that opens the store for writing ends its sessions, with the rules when it was given no model.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
import weakref
from types import FrameType
from typing import Protocol, TypeVar

__all__ = ["SIGTERM_GRACE", "add", "close_all", "get"]


class _Closable(Protocol):
    def close(self) -> None: ...


P = TypeVar("P", bound=_Closable)
_OPEN: weakref.WeakValueDictionary[str, _Closable] = weakref.WeakValueDictionary()


def add(store_key: str, provider: _Closable) -> None:
    """Register an open provider under its store key (held weakly: a provider nothing else holds goes away), and
    have a default ``SIGTERM`` close the open stores before it ends the process (see the module docstring)."""
    _OPEN[store_key] = provider
    _close_on_sigterm()


#: Seconds a ``SIGTERM`` waits for the open stores to close before the process ends (``docker stop`` waits 10).
SIGTERM_GRACE = 8.0


def _terminate(signum: int, frame: FrameType | None) -> None:
    """Close the open stores, then end the process as ``signum`` ends it by default."""
    signal.signal(signum, signal.SIG_IGN)  # a second SIGTERM while closing does not cut the close short
    closer = threading.Thread(target=close_all, name="hermes-memory-close-on-sigterm", daemon=True)
    closer.start()
    closer.join(SIGTERM_GRACE)  # on its own thread: a lock the interrupted code holds cannot stall the exit for good
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _close_on_sigterm() -> None:
    """Have ``SIGTERM`` close the open stores first, when it is at Python's default and this is the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return
    with contextlib.suppress(ValueError, OSError, AttributeError):  # a platform or an embedding without the signal
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminate)


def get(store_key: str) -> _Closable | None:
    """The provider registered under ``store_key``, if it is still alive."""
    return _OPEN.get(store_key)


def close_all() -> None:
    """Close every provider still open (each close is idempotent; one that fails does not keep the others open)."""
    for provider in list(_OPEN.values()):
        with contextlib.suppress(Exception):
            provider.close()


atexit.register(close_all)
