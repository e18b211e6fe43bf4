"""Async twins of the facade's sync operations, with the same typed signature.

Every public operation is implemented once, synchronously (SQLite, the vector engine and the embedders are
synchronous); its ``a``-prefixed twin runs it in a worker thread, so async callers never block their event loop.
One direction everywhere: async calls sync, never the other way round.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

__all__ = ["async_twin"]

P = ParamSpec("P")
R = TypeVar("R")


def async_twin(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """An ``async def`` with ``fn``'s signature that runs ``fn`` in a worker thread.

    Used in a class body as ``aadd = async_twin(add)``: type checkers and ``inspect.signature`` see ``add``'s
    parameters, and the docstring says whose twin it is. A classmethod's twin is
    ``arestore = classmethod(async_twin(restore))``.
    """
    fn = getattr(fn, "__func__", fn)  # a classmethod object in a class body: its function

    @functools.wraps(fn)
    async def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(fn, *args, **kwargs)

    twin.__doc__ = f"Async twin of :meth:`{fn.__name__}` (same arguments; runs it in a worker thread)."
    twin.__name__ = twin.__qualname__ = "a" + fn.__name__
    return twin
