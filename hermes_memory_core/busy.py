"""A bounded wait for a store that another holder keeps busy.

A reader's open transaction (a ``sqlite3`` shell, a backup, another process's long query) can keep a write-ahead
log from being emptied or deleted rows from being rewritten. The store then tries again after a growing pause,
for at most :data:`BUSY_WAIT_S` seconds in all, taking its lock for each try and never across a pause, so other
writes go on meanwhile. After that the last :class:`~hermes_memory_core.errors.StoreBusyError` goes to the caller,
which reports what is left (an erasure stays recorded; ``reconcile()`` or the next open finishes it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from hermes_memory_core.errors import StoreBusyError

__all__ = ["BUSY_WAIT_S", "retry_while_busy"]

#: Longest a store waits, in all, for another holder to let go of what it must rewrite, in seconds.
BUSY_WAIT_S = 2.0

T = TypeVar("T")


def retry_while_busy(attempt: Callable[[], T], wait: float = BUSY_WAIT_S) -> T:
    """Run ``attempt`` until it returns, retrying while it raises ``StoreBusyError``, for ``wait`` seconds at most.

    ``attempt`` takes whatever lock it needs itself: none is held while this waits. Pauses start at 10 ms and
    double up to 250 ms. Any other exception goes through at once.

    Raises:
        StoreBusyError: The last try's, once ``wait`` seconds have passed (at once when ``wait`` is 0).
    """
    deadline, pause = time.monotonic() + wait, 0.01
    while True:
        try:
            return attempt()
        except StoreBusyError:
            if time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)
