"""What a room may be handed: the engine's components, one protocol each, for a room to compose the few it needs.

A room declares the components it uses (``class ForgetStore(WithParts, WithReads, WithWrites, Protocol)``) and is
typed against that, never against :class:`~hermes_memory_core.engine.MemoryEngine`: the type checker then holds it
to those components, and a reader sees at the room's door what it touches.
"""

from __future__ import annotations

from typing import Protocol

from hermes_memory_core.engine.erasure import Eraser
from hermes_memory_core.engine.lookups import Lookups
from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.engine.reads import Reads
from hermes_memory_core.engine.upkeep import Upkeep
from hermes_memory_core.engine.writes import Writes

__all__ = ["WithEraser", "WithLookups", "WithParts", "WithReads", "WithUpkeep", "WithWrites"]


class WithParts(Protocol):
    """Holds the store's shared parts (configuration, clock, session rows, model pool, write lock, state)."""

    @property
    def parts(self) -> StoreParts: ...


class WithLookups(Protocol):
    """Finds memories (search legs, ranking rows, lookups by metadata)."""

    @property
    def lookups(self) -> Lookups: ...


class WithReads(Protocol):
    """Reads memories by id and lists them."""

    @property
    def reads(self) -> Reads: ...


class WithWrites(Protocol):
    """Writes memories."""

    @property
    def writes(self) -> Writes: ...


class WithEraser(Protocol):
    """Erases users and memories completely."""

    @property
    def eraser(self) -> Eraser: ...


class WithUpkeep(Protocol):
    """Repairs, optimises, counts."""

    @property
    def upkeep(self) -> Upkeep: ...
