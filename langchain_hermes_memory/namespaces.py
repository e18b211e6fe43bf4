"""How LangGraph store namespaces map onto Hermes users: one owner per namespace, never two.

A LangGraph namespace is a tuple of labels (``("memories", "alice")``); a Hermes memory belongs to exactly one
``user_id`` and every core read is scoped to one user. :class:`NamespacePolicy` decides, for every namespace, the
Hermes user that owns it:

- **User namespaces** match one of the policy's templates, e.g. ``("memories", "{user_id}")`` (LangMem's default
  shape; any ``{name}`` label marks the user's position, so ``("memories", "{langgraph_user_id}")`` works as
  written in LangMem's docs). The label at that position *is* the Hermes user id, and the namespace may go deeper
  (``("memories", "alice", "profile")`` also belongs to ``alice``). A template label ``"*"`` matches any label.
- **Shared namespaces** match no template (``("users",)``, ``("filesystem",)``): they belong to one application
  scope, stored under the reserved user id :data:`SHARED_USER_ID`, which is never recalled for a person.
  ``shared=False`` rejects them instead.

A *search prefix* must name one owner: ``("memories", "alice")`` is Alice's, ``("users",)`` is the shared scope,
but ``("memories",)`` or ``()`` would span every user and raise :class:`HermesNamespaceError` — the store never
answers one query from several users' memories. To walk all users, list the namespaces and search each.

Reserved ids contain a period, which LangGraph forbids in namespace labels, so no namespace can name them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from langgraph.store.base import InvalidNamespaceError

from hermes_memory_core import InvalidInputError, is_reserved_user_id

__all__ = [
    "DEFAULT_USER_NAMESPACES",
    "REGISTRY_USER_ID",
    "RESERVED_USER_IDS",
    "SHARED_USER_ID",
    "HermesNamespaceError",
    "NamespacePolicy",
    "check_labels",
    "check_user_id",
    "digest",
]

#: Hermes user that owns the namespaces naming no user (the application's shared scope).
SHARED_USER_ID = "langgraph.store"
#: Hermes user that holds the store's namespace registry (one entry per namespace ever written).
REGISTRY_USER_ID = "langgraph.store.namespaces"
#: User ids the store keeps for itself; the middleware and the tools refuse them as a person's id.
RESERVED_USER_IDS = frozenset({SHARED_USER_ID, REGISTRY_USER_ID})
#: LangMem's namespace shape: ``("memories", user_id)``.
DEFAULT_USER_NAMESPACES: tuple[tuple[str, ...], ...] = (("memories", "{user_id}"),)

_PLACEHOLDER = re.compile(r"^\{\w+\}$")
_MAX_USER_ID = 256  # the core's limit


class HermesNamespaceError(InvalidInputError, InvalidNamespaceError):
    """A namespace is malformed, names no owner, or spans several users (nothing was read or written)."""


def digest(labels: Iterable[str]) -> str:
    """A short stable fingerprint of a label sequence (unambiguous: labels are JSON-encoded)."""
    return hashlib.sha256(json.dumps(list(labels), ensure_ascii=False).encode()).hexdigest()[:32]


def check_labels(namespace: Sequence[object], what: str = "namespace") -> tuple[str, ...]:
    """LangGraph's label rules: strings, non-empty, no period, no NUL."""
    if not isinstance(namespace, (tuple, list)):
        raise HermesNamespaceError(f"{what} must be a tuple of strings, got {type(namespace).__name__}")
    for label in namespace:
        if not isinstance(label, str):
            raise HermesNamespaceError(f"{what} {tuple(namespace)!r}: labels must be strings, got {label!r}")
        if not label:
            raise HermesNamespaceError(f"{what} {tuple(namespace)!r}: labels cannot be empty")
        if "." in label or "\x00" in label:
            raise HermesNamespaceError(f"{what} {tuple(namespace)!r}: label {label!r} contains '.' or NUL")
    return tuple(namespace)


def check_user_id(user_id: object, where: str) -> str:
    """A person's Hermes user id as the middleware and the tools accept it (not one the store reserves)."""
    if not isinstance(user_id, str) or not user_id.strip():
        raise InvalidInputError(f"{where}: the user id must be a non-empty string, got {user_id!r}")
    if user_id in RESERVED_USER_IDS or is_reserved_user_id(user_id):
        raise InvalidInputError(f"{where}: user id {user_id!r} is reserved by HermesStore")
    if len(user_id) > _MAX_USER_ID:
        raise InvalidInputError(f"{where}: the user id is longer than {_MAX_USER_ID} characters")
    return user_id


@dataclass(frozen=True, slots=True)
class _Template:
    labels: tuple[str, ...]
    position: int  # index of the user label

    def matches(self, namespace: tuple[str, ...]) -> bool:
        """The namespace is this template or goes deeper under it."""
        if len(namespace) < len(self.labels):
            return False
        return all(self._fits(i, namespace[i]) for i in range(len(self.labels)))

    def compatible(self, prefix: tuple[str, ...]) -> bool:
        """Some namespace starting with ``prefix`` matches this template."""
        return all(self._fits(i, label) for i, label in enumerate(prefix[: len(self.labels)]))

    def _fits(self, i: int, label: str) -> bool:
        t = self.labels[i]
        return i == self.position or t == "*" or t == label


class NamespacePolicy:
    """Decides the Hermes user that owns a namespace (see the module docstring).

    Args:
        user_namespaces: Templates of per-user namespaces; each has exactly one ``{name}`` label (the user).
        shared: Keep namespaces that match no template in the shared scope (else they are rejected).

    Raises:
        HermesNamespaceError: A template is empty, has no or several ``{name}`` labels, or breaks the label rules.
    """

    def __init__(self, user_namespaces: Sequence[Sequence[str]] = DEFAULT_USER_NAMESPACES, *, shared: bool = True):
        if isinstance(user_namespaces, (str, bytes)) or (
            user_namespaces and all(isinstance(x, str) for x in user_namespaces)
        ):
            raise HermesNamespaceError(
                "user_namespaces is a sequence of templates, e.g. [('memories', '{user_id}')], not one template"
            )
        templates: list[_Template] = []
        for raw in user_namespaces:
            labels = check_labels(tuple(raw), "user namespace template")
            slots = [i for i, label in enumerate(labels) if _PLACEHOLDER.match(label)]
            if len(slots) != 1:
                raise HermesNamespaceError(
                    f"user namespace template {labels!r} needs exactly one '{{user_id}}' label, found {len(slots)}"
                )
            templates.append(_Template(labels, slots[0]))
        self.templates: tuple[_Template, ...] = tuple(templates)
        self.shared = shared

    def __repr__(self) -> str:
        return f"NamespacePolicy({[t.labels for t in self.templates]!r}, shared={self.shared})"

    def owner(self, namespace: tuple[str, ...]) -> str:
        """The Hermes user that owns items in ``namespace``.

        Raises:
            HermesNamespaceError: Two templates name different users, the user label is not a valid id, or the
                namespace matches no template while shared namespaces are off.
        """
        users = {namespace[t.position] for t in self.templates if t.matches(namespace)}
        if len(users) > 1:
            raise HermesNamespaceError(f"namespace {namespace!r} matches templates naming different users {sorted(users)}")
        if users:
            return _valid_user(namespace, users.pop())
        if not self.shared:
            raise HermesNamespaceError(
                f"namespace {namespace!r} names no user (templates {[t.labels for t in self.templates]!r}) and "
                "shared namespaces are off"
            )
        return SHARED_USER_ID

    def search_owner(self, prefix: tuple[str, ...]) -> str:
        """The one Hermes user that owns every namespace starting with ``prefix``.

        Raises:
            HermesNamespaceError: The prefix could reach namespaces of several users (or of a user and the shared
                scope).
        """
        owners: set[str] = set()
        for t in self.templates:
            if not t.compatible(prefix):
                continue
            if t.position >= len(prefix):
                raise HermesNamespaceError(
                    f"search prefix {prefix!r} spans the namespaces of every user (template {t.labels!r}); "
                    f"search one user's namespace, e.g. {t.labels[: t.position + 1]!r} with the user's id"
                )
            owners.add(prefix[t.position])
        if not any(t.matches(prefix) for t in self.templates):
            if not owners:
                return self.owner(prefix)
            if self.shared or len(owners) > 1:  # e.g. ("memories", "alice") under ("memories", "{user_id}", "facts")
                scope = "the shared scope and " if self.shared else ""
                raise HermesNamespaceError(f"search prefix {prefix!r} spans {scope}users {sorted(owners)}; make it longer")
            return _valid_user(prefix, owners.pop())
        if len(owners) != 1:
            raise HermesNamespaceError(f"search prefix {prefix!r} spans users {sorted(owners)}")
        return self.owner(prefix)


def _valid_user(namespace: tuple[str, ...], user: str) -> str:
    if not user.strip() or len(user) > _MAX_USER_ID:
        raise HermesNamespaceError(f"namespace {namespace!r}: {user!r} is not a valid user id")
    if is_reserved_user_id(user):  # the store's own data: no namespace label may stand for it
        raise HermesNamespaceError(f"namespace {namespace!r}: {user[:40]!r} is a reserved user id")
    return user
