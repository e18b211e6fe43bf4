"""What the Hermes Agent provider needs for the hooks Hermes added after 0.19 (0.21.x, released through its
repository): the recall indicator, the fail-closed pre-compression checkpoint and the typed setup fields.

Hermes' contract (``agent/memory_provider.py`` and ``agent/memory_manager.py`` of its repository), as this package
meets it:

* ``recall_status()`` is called right after ``prefetch`` on the turn's thread; it describes the LAST prefetch only
  (None when it injected nothing) as a ``RecallStatus(provider_label, count, glyph)``, from which Hermes prints
  "recalled N memories". Inside a Hermes that defines ``RecallStatus`` its own class is returned, else
  :class:`RecallStatus` here, with the same fields.
* ``pre_compress_checkpoint_api_version = 2`` promises that every ``on_pre_compress`` that returns has durably
  stored the evidence it was handed (the messages compression is about to discard), and that it raises when it
  could not — with ``compression.checkpoint_required`` Hermes then keeps the uncompressed transcript. Hermes hands a
  version-2 provider the normalised evidence messages and, when the hook accepts it, ``require_checkpoint``.
* Setup fields may carry ``type`` (``text``, ``integer``, ``number``, ``boolean``), ``minimum``, ``maximum`` and
  ``step``, which Hermes' Desktop and dashboard render as typed inputs; older Hermes ignores them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hermes_memory_core import HermesMemoryError, SessionMemory

__all__ = [
    "CHECKPOINT_API_VERSION",
    "LABEL",
    "CheckpointLedger",
    "PreCompressCheckpointError",
    "RecallStatus",
    "config_schema",
    "conversation",
    "recall_status",
]

#: The pre-compression checkpoint contract this provider meets (Hermes' ``PRE_COMPRESS_CHECKPOINT_API_VERSION``).
CHECKPOINT_API_VERSION = 2
#: How Hermes' recall indicator names this provider.
LABEL = "Hermes Memory"
#: The roles whose words are kept (tool calls and results are not stored, as in ``sync_turn``).
ROLES = ("user", "assistant")


class PreCompressCheckpointError(HermesMemoryError):
    """The evidence Hermes was about to compress away could not be stored: Hermes keeps the transcript."""


@dataclass(frozen=True, slots=True)
class RecallStatus:
    """What the last prefetch injected (the fields of Hermes' own ``RecallStatus``)."""

    provider_label: str
    count: int
    glyph: str = "🧠"


def recall_status(count: int) -> Any:
    """The recall indicator for ``count`` injected memories: Hermes' ``RecallStatus`` where it has one."""
    try:
        from agent.memory_provider import RecallStatus as HermesRecallStatus
    except ImportError:
        return RecallStatus(LABEL, count)
    return HermesRecallStatus(provider_label=LABEL, count=count)


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of an OpenAI-style list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text") or "") for p in content
                         if isinstance(p, Mapping) and p.get("type") in ("text", "input_text") and p.get("text"))
    return ""


def conversation(messages: Iterable[Any]) -> list[tuple[str, str]]:
    """``(role, text)`` of the user and assistant messages that carry words (tool calls and results left out)."""
    out = []
    for m in messages or ():
        if isinstance(m, Mapping) and m.get("role") in ROLES:
            text = _text(m.get("content"))
            if text.strip():
                out.append((str(m["role"]), text))
    return out


def _key(role: str, text: str) -> tuple[str, str]:
    return role, " ".join(text.split())


class CheckpointLedger:
    """Which messages of each session this provider has stored, so a checkpoint stores only what is missing and a
    turn the checkpoint already stored is not stored again when Hermes' background worker syncs it later.

    Counts, not sets: a user may say "yes" twice. Not thread-safe on its own (the provider holds its lock).
    """

    def __init__(self) -> None:
        self._stored: dict[str, Counter[tuple[str, str]]] = {}
        self._ahead: dict[str, Counter[tuple[str, str]]] = {}

    def knows(self, session_id: str) -> bool:
        """Whether this process has counted messages of ``session_id``."""
        return session_id in self._stored

    def seed(self, session_id: str, held: Iterable[tuple[str, str]]) -> None:
        """Count what the store's buffer already holds of a session this process has not stored in yet (a resumed
        session); a session already known keeps its counts."""
        if session_id not in self._stored:
            self._stored[session_id] = Counter(_key(r, t) for r, t in held)

    def _seed_from(self, session: SessionMemory) -> str:
        if not self.knows(session.session_id):
            self.seed(session.session_id, [(m.role, m.content) for m in session.view(all_turns=True).messages])
        return session.session_id

    def synced(self, session: SessionMemory, batch: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The messages of a synced turn of ``session`` still to store (those a checkpoint stored first are dropped,
        once each); records them as stored."""
        sid = self._seed_from(session)
        ahead, stored = self._ahead.setdefault(sid, Counter()), self._stored[sid]
        out = []
        for role, text in batch:
            key = _key(role, text)
            if ahead[key] > 0:
                ahead[key] -= 1
                continue
            stored[key] += 1
            out.append((role, text))
        return out

    def missing(self, session_id: str, evidence: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The evidence messages not stored yet. Call :meth:`checkpointed` once they are stored."""
        budget = Counter(self._stored.get(session_id, Counter()))
        out = []
        for role, text in evidence:
            key = _key(role, text)
            if budget[key] > 0:
                budget[key] -= 1
            else:
                out.append((role, text))
        return out

    def checkpointed(self, session_id: str, messages: list[tuple[str, str]]) -> None:
        """``messages`` were stored ahead of their turn's sync."""
        for role, text in messages:
            key = _key(role, text)
            self._stored.setdefault(session_id, Counter())[key] += 1
            self._ahead.setdefault(session_id, Counter())[key] += 1

    def said_ahead(self, session: SessionMemory, role: str, text: str) -> None:
        """Store one message of a turn before the turn's sync (the user's, when it is said), counted so the sync
        does not store it again.

        Raises:
            HermesMemoryError: The store refused the write (nothing is counted).
        """
        sid = self._seed_from(session)
        session.add_messages([(role, text)])
        self.checkpointed(sid, [(role, text)])

    def checkpoint(self, session: SessionMemory, messages: Iterable[Any]) -> None:
        """Store the user and assistant messages of ``messages`` (Hermes' evidence) that ``session``'s buffer does
        not hold yet, in one transaction (durable on return).

        Raises:
            PreCompressCheckpointError: The store refused the write.
        """
        sid = self._seed_from(session)
        missing = self.missing(sid, conversation(messages))
        if missing:
            try:
                session.add_messages(missing)
            except HermesMemoryError as exc:
                raise PreCompressCheckpointError(f"the checkpoint before compression failed: {exc}") from exc
            self.checkpointed(sid, missing)

    def forget(self, session_id: str) -> None:
        """The session's buffer was emptied (its end, an undo): nothing of it is counted any more."""
        self._stored.pop(session_id, None)
        self._ahead.pop(session_id, None)


def config_schema(data_dir_default: str) -> list[dict[str, Any]]:
    """The fields ``hermes memory setup`` (and Hermes' Desktop and dashboard) ask for, typed. Defaults are strings
    where 0.19's setup shows them in a prompt or a picker; ``ProviderSettings.from_mapping`` reads either form."""
    return [
        {"key": "data_dir", "description": "Directory of the memory store", "type": "text",
         "default": data_dir_default},
        {"key": "config_file", "description": "Optional TOML file with a [hermes_memory] table (embedding model, "
         "server mode, ranking)", "type": "text", "default": ""},
        {"key": "prefetch_top_k", "description": "Memories recalled before each turn (1-20)", "type": "integer",
         "minimum": 1, "maximum": 20, "step": 1, "default": 5},
        {"key": "mirror_builtin_writes", "description": "Mirror Hermes' built-in memory tool into long-term memory",
         "type": "boolean", "default": "true", "choices": ["true", "false"]},
    ]
