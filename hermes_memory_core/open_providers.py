"""The stores open in this process, found by key, and closed at interpreter exit.

Adapters re-attach deserialised objects to an open store by its key (:func:`get`). At interpreter exit every store
still open is closed (:func:`close_all`, registered with :mod:`atexit`): a script that never calls ``close()``
still has its buffered access records written, its background work finished and — on a store one process opens at
a time — its open sessions ended, so what the user said in them is classified by the host model their surface
was given, in the process that holds it. ``atexit`` runs while background threads still run, so no close waits
on a lock a thread frozen by the interpreter's finalisation holds.
"""

from __future__ import annotations

import atexit
import contextlib
import weakref
from typing import Protocol, TypeVar

__all__ = ["add", "close_all", "get"]


class _Closable(Protocol):
    def close(self) -> None: ...


P = TypeVar("P", bound=_Closable)
_OPEN: weakref.WeakValueDictionary[str, _Closable] = weakref.WeakValueDictionary()


def add(store_key: str, provider: _Closable) -> None:
    """Register an open provider under its store key (held weakly: a provider nothing else holds goes away)."""
    _OPEN[store_key] = provider


def get(store_key: str) -> _Closable | None:
    """The provider registered under ``store_key``, if it is still alive."""
    return _OPEN.get(store_key)


def close_all() -> None:
    """Close every provider still open (each close is idempotent; one that fails does not keep the others open)."""
    for provider in list(_OPEN.values()):
        with contextlib.suppress(Exception):
            provider.close()


atexit.register(close_all)
