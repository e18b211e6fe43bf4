"""Short-term memory as the adapters see it: a session's running summary plus its last turns.

Writes are durable when ``add_messages`` returns (one transaction). Every write is told to the store's
:class:`SessionEvents` (``written``: the session's first turn, and whether it holds more than ``ring_size`` turns),
which keeps the completed turns as conversation memories, summarises the oldest ones and promotes what the user
said in them, in the background, on the host's model when one was given; ``close()`` (``ended``) and a new session
of the same user (``began``) do the same for the turns still buffered. ``flush()`` waits for that work.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.errors import InvalidInputError
from hermes_memory_core.llm import LLM
from hermes_memory_core.lru import BoundedLRU
from hermes_memory_core.tokens import count_message_tokens, count_tokens
from hermes_memory_core.trust.read_verdicts import shown_summary
from hermes_memory_core.trust.redaction import RedactionResult, Redactor
from hermes_memory_core.types import MemoryHit, Message
from hermes_memory_core.validation import check_json, check_session_id, check_text, check_user_id, typed_arguments

log = logging.getLogger("hermes_memory.session")

__all__ = ["CUT_NOTE", "USER_ROLES", "MessageLike", "SessionEvents", "SessionMemory", "SessionView", "Sessions"]

#: Roles whose message opens a new turn; ``assistant``, ``tool``, ``system`` ... join the current one.
USER_ROLES = frozenset({"user", "human"})
#: What ``add_messages`` accepts: a :class:`Message`, a ``{"role", "content", "data"}`` mapping or a pair.
MessageLike = Message | Mapping[str, Any] | tuple[str, str]
#: Sessions whose own model is remembered for background work (least recently opened ones fall back to the
#: provider's model).
_MAX_SESSION_LLMS = 1024
#: Texts whose redaction a session write keeps (the messages of the last few writes).
_REDACTED_TEXTS = 64


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class RedactingOnce(Redactor):
    """The session writes' redactor: each text redacted once. A write reads the stored last message and the new ones
    together, then redacts the new ones' contents and payloads; the redactor keeps the last
    ``_REDACTED_TEXTS`` texts' results, and knows a text it gave back as already redacted (redaction is idempotent:
    a placeholder holds nothing a detector finds), so the stored message and a new one's redacted form are not
    redacted again. Same results as :class:`Redactor`; texts are kept by digest (the process keeps no text it was
    asked to redact); thread-safe (a lost entry is only redacted again)."""

    def __init__(self, kinds: tuple[str, ...] | list[str]) -> None:
        super().__init__(kinds)
        self._done: BoundedLRU[tuple[bytes, frozenset[str] | None], RedactionResult] = BoundedLRU(_REDACTED_TEXTS)

    def redact(self, text: str, only: frozenset[str] | None = None) -> RedactionResult:
        key = (_digest(text), only)
        done = self._done.get(key)
        if done is not None:
            return done
        result = super().redact(text, only)
        self._done.put(key, result)
        if result.changed:  # its redacted form is known redacted (idempotent)
            self._done.put((_digest(result.text), only), RedactionResult(result.text, {}))
        return result


@dataclass(frozen=True, slots=True)
class SessionView:
    """What a prompt gets from short-term memory.

    Attributes:
        summary: The running summary of evicted turns ("" when none).
        turns: The buffered turns, oldest first, each a list of messages.
        session_id: The session.
    """

    summary: str
    turns: list[list[Message]]
    session_id: str | None = None

    @property
    def messages(self) -> list[Message]:
        return [m for turn in self.turns for m in turn]

    def holds(self, hit: MemoryHit) -> bool:
        """Whether ``hit`` is a conversation memory of a turn this view still shows (a prompt that carries the
        turns needs no copy of them among its recalled memories)."""
        if not hit.is_conversation or hit.session_id != self.session_id or not self.turns:
            return False
        turn = hit.metadata.get("turn")
        return isinstance(turn, int) and turn >= self.turns[0][0].turn

    def without_held(self, hits: list[MemoryHit]) -> list[MemoryHit]:
        """``hits`` without those the view holds (see :meth:`holds`)."""
        return [h for h in hits if not self.holds(h)]


def _as_message(m: MessageLike, max_chars: int) -> Message:
    """One validated message: role and content text, data a JSON object of at most four bytes per allowed character,
    nested at most :data:`~hermes_memory_core.validation.MAX_JSON_DEPTH` deep. A content longer than ``max_chars``
    (``max_message_chars``) does not fail the turn: it is kept cut to ``max_chars``, ending with :data:`CUT_NOTE`
    (the strings of its payload too), and a warning is logged. Runs of invisible characters are dropped first
    (:data:`_INVISIBLE_RUN`): a flood costs no later reader."""
    role: Any
    content: Any
    data: Any
    if isinstance(m, Message):
        role, content, data = m.role, m.content, m.data
    elif isinstance(m, tuple) and len(m) == 2:
        role, content, data = m[0], m[1], {}
    elif isinstance(m, Mapping):
        raw = m.get("data") or {}
        if not isinstance(raw, Mapping):
            raise InvalidInputError(f"message data must be a mapping, got {type(raw).__name__}")
        role, content, data = m.get("role"), m.get("content"), dict(raw)
    else:
        raise InvalidInputError(f"a message is a Message, a mapping or a (role, content) pair, got {type(m).__name__}")
    role = check_text(role, "role").strip().lower()
    if not role or len(role) > 64:
        raise InvalidInputError("message role must be 1-64 characters")
    text = _INVISIBLE_RUN.sub("", check_text(content, "message content"))
    if len(text) > max_chars:  # one long message never fails its turn: it is kept cut, and says so
        log.warning("hermes_memory: a %s message of %d characters was kept cut to max_message_chars (%d)", role,
                    len(text), max_chars)
        data = _clip(data, max_chars)
        text = _clip(text, max_chars)
    return Message(role, text, check_json(dict(data) if isinstance(data, Mapping) else data, "message data",
                                          4 * max_chars))


def _clip(value: Any, max_chars: int) -> Any:
    """``value`` with every string longer than ``max_chars`` cut to it, ending with :data:`CUT_NOTE`."""
    if isinstance(value, str):
        if len(value) <= max_chars:
            return value
        note = CUT_NOTE.format(n=len(value))
        return value[: max(0, max_chars - len(note))] + note[: max_chars]
    if isinstance(value, Mapping):
        return {k: _clip(v, max_chars) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clip(v, max_chars) for v in value]
    return value


#: A run of four or more invisible characters (format characters, variation selectors, tag characters): a flood
#: that would cost every later reader (the guard, the keyword index, the embedder) its time. Dropped from a message
#: before it is stored; one or a few (an emoji's joiner, a bidi mark) stay.
_INVISIBLE_RUN = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff"
                            "\U000e0000-\U000e007f\U000e0100-\U000e01ef]{4,}")
#: How a message cut to ``max_message_chars`` ends (``n``: its length as sent).
CUT_NOTE = " … [cut: the message had {n} characters]"


class SessionEvents(Protocol):
    """What the short-term room tells the background lifecycle about its sessions (implemented by
    :class:`~hermes_memory_core.lifecycle.background.BackgroundLifecycle`)."""

    def written(self, user_id: str, session_id: str, *, opened: bool, overflowing: bool) -> None:
        """Messages were written to the session; ``opened``: they hold its first turn (its user left the others);
        ``overflowing``: it holds more than ``ring_size`` turns now."""

    def began(self, user_id: str, session_id: str) -> None:
        """The user is in this session (which holds no turn yet): their other sessions end."""

    def ended(self, user_id: str, session_id: str) -> None:
        """The session was closed."""

    def undo(self, user_id: str, session_id: str, turns: list[list[Message]]) -> None:
        """The user takes these buffered turns back (before they are dropped): what was kept of them is erased."""

    def wait(self) -> None:
        """Block until the background work told so far is done."""


class Sessions:
    """The short-term room: session handles, the model each session brought, and what it tells of its sessions.

    Args:
        parts: The open store's shared parts.
        events: Told of every write, first turn, close and undo (:class:`SessionEvents`).
    """

    def __init__(self, parts: StoreParts, events: SessionEvents) -> None:
        self.parts = parts
        self.store = parts.sessions
        #: Reads a turn's messages together (a number split across two): the engine's kinds, or None without PII.
        self.redactor = RedactingOnce(parts.config.redact_kinds) if parts.config.redact_pii else None
        self.events = events
        self._llms: OrderedDict[tuple[str, str], LLM] = OrderedDict()
        self._lock = threading.Lock()
        # sessions whose writes' background work waits (:meth:`SessionMemory.holding_background`): how many holds
        # each has, and whether a write came in meanwhile (True: it made the session overflow)
        self._holds: dict[tuple[str, str], int] = {}
        self._held: dict[tuple[str, str], bool] = {}

    def written(self, user_id: str, session_id: str, *, opened: bool, overflowing: bool) -> None:
        """Tell :class:`SessionEvents` of a write, now or, while the session is held, when its hold ends (a first
        turn's ``began`` is told now: the sessions its user left end, and a recall waits for them)."""
        key = (user_id, session_id)
        with self._lock:
            held = key in self._holds
            if held:
                self._held[key] = self._held.get(key, False) or overflowing
        if not held:
            self.events.written(user_id, session_id, opened=opened, overflowing=overflowing)
        elif opened:
            self.events.began(user_id, session_id)

    @contextmanager
    def held(self, user_id: str, session_id: str) -> Iterator[None]:
        """Hold back the background work of the session's writes until the block ends (see
        :meth:`SessionMemory.holding_background`)."""
        key = (user_id, session_id)
        with self._lock:
            self._holds[key] = self._holds.get(key, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._holds[key] -= 1
                last = not self._holds[key]
                if last:
                    del self._holds[key]
                wrote, overflowing = (key in self._held, self._held.pop(key, False)) if last else (False, False)
            if wrote:
                self.events.written(user_id, session_id, opened=False, overflowing=overflowing)

    def open(self, user_id: str, session_id: str, llm: LLM | None = None) -> SessionMemory:
        """A handle on one session (validated ids); ``llm`` serves its background work from now on."""
        self.parts.need_open()
        uid = check_user_id(user_id)
        sid = check_session_id(session_id)
        if sid is None:
            raise InvalidInputError("session_id is required")
        if llm is not None:
            with self._lock:
                self._llms[(uid, sid)] = llm
                self._llms.move_to_end((uid, sid))
                while len(self._llms) > _MAX_SESSION_LLMS:
                    self._llms.popitem(last=False)
        return SessionMemory(self, uid, sid, llm)

    def llm_for(self, user_id: str, session_id: str | None) -> LLM | None:
        """The model the session brought, if it is still remembered."""
        if session_id is None:
            return None
        with self._lock:
            return self._llms.get((user_id, session_id))

    def overflowing(self) -> list[tuple[str, str]]:
        """Sessions holding more than ``ring_size`` turns (work a previous process left undone)."""
        return self.store.overflowing(self.parts.config.ring_size)


@typed_arguments
class SessionMemory:
    """A session's short-term memory. Get one with :meth:`MemoryProvider.session`.

    Attributes:
        user_id: Owner.
        session_id: Session.
        llm: The host's model for this session's summaries and promotions (None: the provider's, or the rules).
    """

    def __init__(self, sessions: Sessions, user_id: str, session_id: str, llm: LLM | None = None) -> None:
        self._sessions = sessions
        self._parts = sessions.parts
        self.user_id = user_id
        self.session_id = session_id
        self.llm = llm

    def add_messages(self, messages: Iterable[MessageLike]) -> None:
        """Append messages (a ``user`` message opens a turn). Durable on return; never waits for an LLM."""
        if not isinstance(messages, Iterable) or isinstance(messages, str | bytes | Mapping | Message):
            raise InvalidInputError(f"add_messages takes an iterable of messages, got {type(messages).__name__}")
        msgs = [_as_message(m, self._parts.config.max_message_chars) for m in messages]
        if not msgs:
            return
        self._parts.need_open()
        store = self._sessions.store
        if self._parts.config.redact_session_messages:
            msgs = self._redacted_together(msgs)
        turns = store.append(self.user_id, self.session_id, msgs, [m.role in USER_ROLES for m in msgs],
                             self._parts.now())
        overflowing = store.turn_count(self.user_id, self.session_id) > self._parts.config.ring_size
        self._sessions.written(self.user_id, self.session_id, opened=turns[0] == 0, overflowing=overflowing)

    @contextmanager
    def holding_background(self) -> Iterator[None]:
        """While in this block, the background work this session's writes start (keeping their turns as conversation
        memories, summarising the oldest) waits; it is started when the block ends (the outermost, where blocks nest),
        error or not. A chat turn writes the user's message and then recalls for it: held, that work runs while the
        model answers instead of beside the recall. Nothing is less durable: ``add_messages`` is durable on return,
        and a process that ends inside the block keeps those turns when the store next opens, as it keeps any turn
        not archived yet. A recall in the block still shows the held turns (they are in the session's buffer), and a
        session's first turn still ends the user's other sessions at once."""
        with self._sessions.held(self.user_id, self.session_id):
            yield

    @asynccontextmanager
    async def aholding_background(self) -> AsyncIterator[None]:
        """Async twin of :meth:`holding_background`."""
        with self._sessions.held(self.user_id, self.session_id):
            yield

    def _redacted_together(self, msgs: list[Message]) -> list[Message]:
        """The messages redacted (:meth:`_redacted`), and read together with their neighbours — the session's last
        stored message included — so a number or credential split across two messages is caught in both (the stored
        one is rewritten)."""
        store = self._sessions.store
        last = store.last_message(self.user_id, self.session_id)
        texts = ([last[2].content] if last else []) + [m.content for m in msgs]
        redactor = self._sessions.redactor
        joined = redactor.redact_joined(texts) if redactor is not None and len(texts) > 1 else texts
        out = [self._redacted(m, joined[i + (1 if last else 0)]) for i, m in enumerate(msgs)]
        if last is not None and joined[0] != last[2].content:
            turn, index, message = last
            store.rewrite_message(self.user_id, self.session_id, turn, index, joined[0],
                                  _swap(message.data, message.content, joined[0]))
        return out

    def _redacted(self, message: Message, content: str | None = None) -> Message:
        """The message with PII redacted in its content and in every string of its adapter payload."""
        redactor = self._sessions.redactor

        def redact(text: str) -> str:
            return text if redactor is None else redactor.redact(text).text

        def walk(value: Any) -> Any:
            if isinstance(value, str):
                return redact(value)
            if isinstance(value, Mapping):
                return {k: walk(v) for k, v in value.items()}
            if isinstance(value, list | tuple):
                return [walk(v) for v in value]
            return value

        data = message.data if content is None else _swap(message.data, message.content, content)
        return Message(message.role, redact(message.content if content is None else content), walk(data),
                       message.created_at, message.turn)

    def view(self, all_turns: bool = False, *, summary: bool = True) -> SessionView:
        """The running summary and the last ``ring_size`` turns (every buffered turn with ``all_turns``: a turn
        waiting for its summary included). The summary is checked whole as it goes into a prompt: sentences the
        injection guard flags (alone, or with a neighbour: an attack split across turns or chunks) are left out, and
        PII joined across chunks is redacted (with ``redact_summaries``). ``summary=False``: the turns only (the
        view's summary is ""), for a caller that only asks which messages the session holds."""
        self._parts.need_open()
        store = self._sessions.store
        chunks = store.chunks(self.user_id, self.session_id) if summary else []
        turns = store.turns(self.user_id, self.session_id)
        if not all_turns:
            turns = turns[-self._parts.config.ring_size :]
        redactor = self._parts.redactor if self._parts.config.redact_summaries else None
        shown = shown_summary(" ".join(c.text for c in chunks), redactor) if chunks else ""  # once per text
        return SessionView(shown, turns, self.session_id)

    def begin(self) -> None:
        """The user is in this session now. While it holds no turn, the user's other sessions are ended in the
        background as its first turn would end them (each once), so a question read before the first message is
        written — LlamaIndex's context chat engines call ``get`` before ``put`` — finds their facts already
        (``recall`` waits a bounded time for that work). Nothing happens once the session has a turn."""
        self._parts.need_open()
        if not self._sessions.store.turn_count(self.user_id, self.session_id):
            self._sessions.events.began(self.user_id, self.session_id)

    def clear(self, undo: bool = False) -> None:
        """Drop the buffer, the summary and pending promotions of this session (stored memories stay). With
        ``undo`` the user takes the buffered turns back: the conversation memories already kept from them are
        erased too, completely."""
        self._parts.need_open()
        if undo:  # an archive of these turns in flight lands first, then goes with them
            self._sessions.events.wait()
            self._sessions.events.undo(self.user_id, self.session_id,
                                       self._sessions.store.turns(self.user_id, self.session_id))
        self._sessions.store.clear(self.user_id, self.session_id)

    def close(self) -> None:
        """End the session: in the background its buffered turns are kept as conversation memories and what the
        user said in them is promoted (profile, facts); ``forget()`` will expire its other short-term memories. The
        buffer stays, so a session that goes on keeps its context (its turns are not archived twice)."""
        self._parts.need_open()
        self._sessions.store.close_session(self.user_id, self.session_id, self._parts.now())
        self._sessions.events.ended(self.user_id, self.session_id)

    def context_tokens(self) -> int:
        """cl100k_base tokens the summary and the buffered turns put into a prompt."""
        view = self.view()
        tokens = count_message_tokens((m.role, m.content) for m in view.messages)
        return tokens + (count_tokens(view.summary) + 4 if view.summary else 0)

    def flush(self) -> None:
        """Wait until the store's background summaries and promotions are done."""
        self._sessions.events.wait()

    async def aadd_messages(self, messages: Iterable[MessageLike]) -> None:
        """Async twin of :meth:`add_messages`."""
        plain = isinstance(messages, Iterable) and not isinstance(messages, str | bytes | Mapping | Message)
        await asyncio.to_thread(self.add_messages, list(messages) if plain else messages)

    async def aview(self, all_turns: bool = False) -> SessionView:
        """Async twin of :meth:`view`."""
        return await asyncio.to_thread(self.view, all_turns)

    async def abegin(self) -> None:
        """Async twin of :meth:`begin`."""
        await asyncio.to_thread(self.begin)

    async def aclear(self, undo: bool = False) -> None:
        """Async twin of :meth:`clear`."""
        await asyncio.to_thread(self.clear, undo)

    async def aclose(self) -> None:
        """Async twin of :meth:`close`."""
        await asyncio.to_thread(self.close)

    async def acontext_tokens(self) -> int:
        """Async twin of :meth:`context_tokens`."""
        return await asyncio.to_thread(self.context_tokens)

    async def aflush(self) -> None:
        """Async twin of :meth:`flush`."""
        await asyncio.to_thread(self.flush)


def _swap(value: Any, old: str, new: str) -> Any:
    """``value`` (an adapter payload) with every string equal to ``old`` (or holding it) carrying ``new`` instead."""
    if old == new:
        return value
    if isinstance(value, str):
        return value.replace(old, new) if old and old in value else value
    if isinstance(value, Mapping):
        return {k: _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_swap(v, old, new) for v in value]
    return value
