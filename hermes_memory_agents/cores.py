"""One open core per data directory per process.

An embedded store is held by one :class:`~hermes_memory_core.MemoryProvider` at a time (a second one in the same
process would find the directory locked), while a host may build many memory providers: the Hermes Agent
gateway builds one per chat session. :func:`acquire` hands every one of them the same open core and
:func:`release` closes it when the last one lets go.

The key is the resolved data directory. A later :func:`acquire` with a different configuration for a directory
that is already open gets the open core and a warning in the log: a directory has one configuration at a time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hermes_memory_core import MemoryConfig, MemoryProvider

__all__ = ["acquire", "open_count", "release"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Entry:
    provider: MemoryProvider
    config: MemoryConfig
    users: int


_lock = threading.Lock()
_open: dict[str, _Entry] = {}


def _key(config: MemoryConfig) -> str:
    return str(Path(config.data_dir).expanduser().resolve())


def acquire(config: MemoryConfig, factory: Callable[[MemoryConfig], MemoryProvider] | None = None) -> MemoryProvider:
    """The process's open core for ``config.data_dir``, opened now if none is.

    Args:
        config: The store's configuration.
        factory: Opens a core (default ``MemoryProvider(config)``); tests pass one with a shared embedder.

    Raises:
        StoreLockedError: Another process holds the directory (nothing is registered).
        HermesMemoryError: Any other reason the core cannot open.
    """
    key = _key(config)
    with _lock:
        entry = _open.get(key)
        if entry is not None and entry.provider.closed:  # closed behind our back: open afresh
            del _open[key]
            entry = None
        if entry is None:
            provider = (factory or MemoryProvider)(config)
            entry = _open[key] = _Entry(provider, config, 0)
        elif entry.config != config:
            log.warning("hermes_memory: %s is already open in this process with another configuration; "
                        "using the open store", key)
        entry.users += 1
        return entry.provider


def release(provider: MemoryProvider) -> None:
    """Give back a core from :func:`acquire` (once per acquire); the last release closes it. Releasing a core
    this module does not hold does nothing."""
    with _lock:
        for key, entry in list(_open.items()):
            if entry.provider is provider:
                entry.users -= 1
                if entry.users <= 0:
                    del _open[key]
                    provider.close()
                return


def open_count() -> int:
    """How many cores are open through this module (for tests and status output)."""
    with _lock:
        return len(_open)
