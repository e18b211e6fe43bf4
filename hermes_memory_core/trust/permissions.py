"""Who may read or change permanent memory: denied by default, every access logged.

A :class:`Caller` names the code acting on the store and what it may do with the permanent tier. Pass one to
``MemoryProvider(caller=...)`` (the default for every call) or per call (``get(..., caller=...)``). Without a
caller, permanent memories are invisible to search, listing and export, and reading, writing or changing one raises
:class:`~hermes_memory_core.errors.PermissionDeniedError`. Long- and short-term memories need no permission.

The user is the authority on themselves: ``remember`` and ``recall`` — the operations a chat surface runs for one
user — act by default as :meth:`Caller.for_user` of the user they name, so what a user says about themselves is
stored as a fact and recalled for them, and no one else's facts are touched. A provider given an explicit caller
uses it for those too. A tool result (``source="tool"``) never writes a permanent fact on the user's authority.
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
        user_id: When set, the permissions hold for this user's memories only (see :meth:`for_user`).
    """

    name: str
    read_permanent: bool = False
    write_permanent: bool = False
    user_id: str | None = None

    @classmethod
    def admin(cls, name: str = "admin") -> Caller:
        """A caller with every permission."""
        return cls(name, True, True)

    @classmethod
    def for_user(cls, user_id: str, *, write_permanent: bool = True) -> Caller:
        """The user themselves, or a surface that serves only them (a chat session, an agent bound to them): may read
        — and, unless ``write_permanent=False``, write — that user's permanent facts and no one else's."""
        return cls(f"user:{user_id}", True, write_permanent, user_id)

    def may(self, user_id: str, write: bool) -> bool:
        """Whether this caller may read (or with ``write`` change) a permanent memory of ``user_id``."""
        if self.user_id is not None and self.user_id != user_id:
            return False
        return self.write_permanent if write else self.read_permanent


#: The default caller: no permanent permissions.
ANONYMOUS = Caller("anonymous")
#: The store's own lifecycle (promotion of evicted turns).
LIFECYCLE = Caller("hermes-lifecycle", True, True)
