"""Who may read or change permanent memory: denied by default, every access logged.

A :class:`Caller` names the code acting on the store and what it may do with the permanent tier. Pass one to
``MemoryProvider(caller=...)`` (the default for every call) or per call (``get(..., caller=...)``). Without a
caller, permanent memories are invisible to search and recall, and reading, writing or changing one raises
:class:`~hermes_memory_core.errors.PermissionDeniedError`. Long- and short-term memories need no permission.
The background lifecycle (promotion of evicted turns) acts as :data:`LIFECYCLE`, guarded by the injection defense.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ANONYMOUS", "LIFECYCLE", "Caller"]


@dataclass(frozen=True, slots=True)
class Caller:
    """An identity with permanent-tier permissions.

    Attributes:
        name: Recorded in the access log for every permanent access.
        read_permanent: May read permanent memories (search, recall, get, history, export).
        write_permanent: May add, update and delete permanent memories.
    """

    name: str
    read_permanent: bool = False
    write_permanent: bool = False

    @classmethod
    def admin(cls, name: str = "admin") -> Caller:
        """A caller with every permission."""
        return cls(name, True, True)


#: The default caller: no permanent permissions.
ANONYMOUS = Caller("anonymous")
#: The store's own lifecycle (promotion of evicted turns).
LIFECYCLE = Caller("hermes-lifecycle", True, True)
