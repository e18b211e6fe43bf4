"""``SessionMemory``: one user's session as the adapters see it — a running summary plus the last turns.

Writes are durable when ``add_messages`` returns (one SQLite transaction). Summaries of overflowing turns and
promotion of what they held run in the provider's background worker, on the host's LLM when one was given;
``flush()`` waits for that work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_memory_core.short_term.store import Message
from hermes_memory_core.tokens import count_message_tokens, count_tokens
from hermes_memory_core.validation import check_session_id, check_text, check_user_id

if TYPE_CHECKING:
    from hermes_memory_core.llm import LLM
    from hermes_memory_core.provider import MemoryProvider

__all__ = ["SessionMemory", "SessionView"]


@dataclass(frozen=True, slots=True)
class SessionView:
    """What a prompt gets from short-term memory.

    Attributes:
        summary: The running summary of evicted turns ("" when none).
        turns: The last ``ring_size`` turns, oldest first, each a list of messages.
    """

    summary: str
    turns: list[list[Message]]

    @property
    def messages(self) -> list[Message]:
        return [m for turn in self.turns for m in turn]


def _as_message(m: Message | Mapping[str, Any] | tuple[str, str]) -> Message:
    if isinstance(m, Message):
        role, content, data = m.role, m.content, m.data
    elif isinstance(m, tuple):
        role, content, data = m[0], m[1], {}
    else:
        role, content, data = m.get("role"), m.get("content"), dict(m.get("data") or {})
    role = check_text(role, "role").strip().lower()
    if not role:
        from hermes_memory_core.errors import InvalidInputError

        raise InvalidInputError("message role is empty")
    return Message(role, check_text(content, "message content"), data)


class SessionMemory:
    """A session's short-term memory. Get one with :meth:`MemoryProvider.session`.

    Args:
        provider: The store.
        user_id: Owner.
        session_id: Session.
        llm: The host's model for summaries and promotion (deterministic fallbacks when None).
    """

    def __init__(self, provider: MemoryProvider, user_id: str, session_id: str, llm: LLM | None = None) -> None:
        self.provider = provider
        self.user_id = check_user_id(user_id)
        sid = check_session_id(session_id)
        if sid is None:
            from hermes_memory_core.errors import InvalidInputError

            raise InvalidInputError("session_id is required")
        self.session_id = sid
        self.llm = llm
        if llm is not None:
            provider._register_llm(self.user_id, self.session_id, llm)

    def add_messages(self, messages: Iterable[Message | Mapping[str, Any] | tuple[str, str]]) -> None:
        """Append messages (a ``user`` message opens a turn). Durable on return; never waits for an LLM."""
        msgs = [_as_message(m) for m in messages]
        if not msgs:
            return
        self.provider._need_open()
        self.provider.sessions.append(self.user_id, self.session_id, msgs, self.provider._now())
        if self.provider.sessions.turn_count(self.user_id, self.session_id) > self.provider.config.ring_size:
            self.provider._submit_compaction(self.user_id, self.session_id)

    def view(self) -> SessionView:
        """The running summary and the last ``ring_size`` turns."""
        self.provider._need_open()
        chunks = self.provider.sessions.chunks(self.user_id, self.session_id)
        turns = self.provider.sessions.turns(self.user_id, self.session_id)
        return SessionView(" ".join(c.text for c in chunks), turns[-self.provider.config.ring_size :])

    def clear(self) -> None:
        """Drop the buffer, the summary and pending promotions of this session (stored memories stay)."""
        self.provider._need_open()
        self.provider.sessions.clear(self.user_id, self.session_id)

    def close(self) -> None:
        """Mark the session closed: ``forget()`` will expire its short-term memories."""
        self.provider.sessions.close_session(self.user_id, self.session_id, self.provider._now())

    def context_tokens(self) -> int:
        """cl100k_base tokens the summary and the buffered turns put into a prompt."""
        view = self.view()
        tokens = count_message_tokens((m.role, m.content) for m in view.messages)
        return tokens + (count_tokens(view.summary) + 4 if view.summary else 0)

    def flush(self) -> None:
        """Wait until this provider's background summaries and promotions are done."""
        self.provider.flush()

    async def aadd_messages(self, messages: Iterable[Message | Mapping[str, Any] | tuple[str, str]]) -> None:
        """Async twin of :meth:`add_messages`."""
        await asyncio.to_thread(self.add_messages, list(messages))

    async def aview(self) -> SessionView:
        """Async twin of :meth:`view`."""
        return await asyncio.to_thread(self.view)

    async def aclear(self) -> None:
        """Async twin of :meth:`clear`."""
        await asyncio.to_thread(self.clear)

    async def acontext_tokens(self) -> int:
        """Async twin of :meth:`context_tokens`."""
        return await asyncio.to_thread(self.context_tokens)

    async def aflush(self) -> None:
        """Async twin of :meth:`flush`."""
        await asyncio.to_thread(self.flush)
