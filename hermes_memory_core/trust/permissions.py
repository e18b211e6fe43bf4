"""Who may read or change permanent memory: denied by default, every access logged.

A :class:`Caller` names the code acting on the store and what it may do with the permanent tier. Pass one to
``MemoryProvider(caller=...)`` (the default for every call) or per call (``get(..., caller=...)``). Long- and
short-term memories need no permission.

The user is the authority on themselves: a call about one user — ``remember``, ``recall``, ``search``,
``list_memories``, ``get``/``history`` with ``user_id``, ``export(user_id=...)``: what a surface bound to that user
runs — acts by default as :meth:`Caller.for_user` of the user it names, so what a user says about themselves is
stored as a fact and read back for them, and no one else's facts are touched. A call bound to no user (``get`` by
id alone, a whole-store export of several users' facts) has no permanent permission without a caller: it raises
:class:`~hermes_memory_core.errors.PermissionDeniedError`. A provider given an explicit caller uses it for every
call, and a caller bound to one user reads no other user's facts (:meth:`Caller.toward`). A tool result
(``source="tool"``) never writes a permanent fact on the user's authority.
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

    def toward(self, user_id: str) -> Caller:
        """This caller as it reads ``user_id``'s memories: itself when its permissions hold for that user, else the
        same name with no permanent permission (a caller bound to another user reads none of this user's facts)."""
        if self.user_id is None or self.user_id == user_id:
            return self
        return Caller(self.name, False, False, self.user_id)

    def may(self, user_id: str, write: bool) -> bool:
        """Whether this caller may read (or with ``write`` change) a permanent memory of ``user_id``."""
        if self.user_id is not None and user_id is not None and self.user_id != user_id:
            return False
        return self.write_permanent if write else self.read_permanent

    def refusal(self, doing: str, user_id: str | None = None) -> str:
        """The one-line reason this caller is refused ``doing`` ("read permanent memory <id>"), with what to pass
        instead: a caller for the user (or an admin) where this one holds no permission, the user it is bound to
        where it is bound to another."""
        if self.user_id is not None and user_id is not None and self.user_id != user_id:
            hint = f"it is bound to user {self.user_id!r}"
        else:
            whose = f"Caller.for_user({user_id!r})" if user_id is not None else "Caller.for_user(user_id)"
            hint = f"pass caller={whose} or Caller.admin()"
        return f"caller {self.name!r} may not {doing} ({hint})"


#: The default caller: no permanent permissions.
ANONYMOUS = Caller("anonymous")
#: The store's own lifecycle (promotion of evicted turns).
LIFECYCLE = Caller("hermes-lifecycle", True, True)
