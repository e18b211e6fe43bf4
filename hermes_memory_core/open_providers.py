"""The stores open in this process, found by key, and closed at interpreter exit.

Adapters re-attach deserialised objects to an open store by its key (:func:`get`). At interpreter exit every store
still open is closed (:func:`close_all`, registered with :mod:`atexit`): a script that never calls ``close()``
still has its buffered access records written, its background work finished and — on a store one process opens at
a time — its open sessions ended, so what the user said in them is classified by the host model their surface
was given, in the process that holds it. ``atexit`` runs while background threads still run, so no close waits
on a lock a thread frozen by the interpreter's finalisation holds.

A process stopped by ``SIGTERM`` (``docker stop``, ``systemctl stop``, ``kill``) runs no ``atexit`` by default:
Python's default action for the signal ends it at once. While a store is open, a ``SIGTERM`` the application left at
its default is turned into a normal exit (``SystemExit(143)``, the status the signal gives), so the sessions are
ended by this process's model as at a plain exit. A handler the application set is never replaced, and only the
main thread can set one (a store opened elsewhere leaves the signal as it is). A process killed outright
(``SIGKILL``, ``os._exit``, a power cut) ends nothing: the next process that opens the store for writing ends its
sessions, with the rules when it was given no model.
"""

from __future__ import annotations

import atexit
import contextlib
import signal
import threading
import weakref
from types import FrameType
from typing import Protocol, TypeVar

__all__ = ["add", "close_all", "get"]


class _Closable(Protocol):
    def close(self) -> None: ...


P = TypeVar("P", bound=_Closable)
_OPEN: weakref.WeakValueDictionary[str, _Closable] = weakref.WeakValueDictionary()


def add(store_key: str, provider: _Closable) -> None:
    """Register an open provider under its store key (held weakly: a provider nothing else holds goes away), and
    make a default ``SIGTERM`` a normal exit (see the module docstring)."""
    _OPEN[store_key] = provider
    _exit_on_sigterm()


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds the main thread: atexit closes the stores, then the process exits


def _exit_on_sigterm() -> None:
    """Make ``SIGTERM`` a normal exit when it is at Python's default and this is the main thread."""
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
