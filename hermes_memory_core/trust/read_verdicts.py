"""The read-time guard's verdicts, judged once per content.

Every memory that may reach a prompt is judged again when it is read (:func:`~hermes_memory_core.rendering.
prompt_safe`): the injection guard runs over what was written before it knew a shape. Its verdict depends only on
the text (and a conversation line's speaker) and on the guard's rules, which do not change while a
process runs — yet recall judged every returned memory on every call, several times a turn (68% of a recall's time
at 1k memories). The verdicts are kept here, per process, in a bounded LRU keyed by the kind of judgement and a
digest of the text: the guard runs once per content, the filter stays exactly as strict (same function, same
verdict), and a memory whose text changes (an update) is a new key.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TypeVar

from hermes_memory_core.lru import BoundedLRU
from hermes_memory_core.trust.injection import (
    check_memory_write,
    conversation_line_allowed,
    conversation_lines_allowed,
    sanitize_summary,
)
from hermes_memory_core.trust.redaction import Redactor

__all__ = ["MAX_VERDICTS", "clear", "line_allowed", "lines_allowed", "memory_allowed", "shown_summary", "stats"]

#: Verdicts of single texts kept (about 200 bytes each, so at most about 13 MiB): one per conversation line of a
#: 50k-line store, so recall at that size reads verdicts instead of judging lines again (at 32k, shared with the
#: turns' verdicts, a 16k-line store had already pushed its first lines' verdicts out).
MAX_VERDICTS = 65_536
#: Verdicts of whole turns kept apart (archiving asks for the turns still in a session's buffer, recent ones): they
#: never push a line's verdict out.
MAX_TURN_VERDICTS = 4_096

_T = TypeVar("_T")
_verdicts: OrderedDict[tuple[str, bytes], object] = OrderedDict()
_lock = threading.Lock()
_counts = {"hits": 0, "misses": 0}
_turns: BoundedLRU[bytes, tuple[bool, ...]] = BoundedLRU(MAX_TURN_VERDICTS)


def _key(kind: str, text: str) -> tuple[str, bytes]:
    return kind, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _keep(key: tuple[str, bytes], verdict: object) -> None:
    with _lock:
        _verdicts[key] = verdict
        _verdicts.move_to_end(key)
        while len(_verdicts) > MAX_VERDICTS:
            _verdicts.popitem(last=False)


def _judged(kind: str, text: str, judge: Callable[[str], _T]) -> _T:
    key = _key(kind, text)
    with _lock:
        if key in _verdicts:
            _verdicts.move_to_end(key)
            _counts["hits"] += 1
            return _verdicts[key]  # type: ignore[return-value]
        _counts["misses"] += 1
    verdict = judge(text)  # outside the lock: two readers of one new text may both judge it, never wrongly
    _keep(key, verdict)
    return verdict


def line_allowed(text: str, role: str = "user") -> bool:
    """:func:`~hermes_memory_core.trust.injection.conversation_line_allowed` for a line of a conversation, judged
    once per (speaker, text)."""
    return _judged(f"line:{role}", text, lambda t: conversation_line_allowed(t, role))


def lines_allowed(lines: Sequence[tuple[str, str]]) -> list[bool]:
    """:func:`~hermes_memory_core.trust.injection.conversation_lines_allowed` for the ``(role, text)`` messages of
    one turn, judged once per turn: archiving judges the turns still in a session's buffer each time it runs."""
    key = _key("turn", "\x1e".join(f"{role}\x1f{text}" for role, text in lines))[1]
    allowed = list(_turns.get_or_compute(key, lambda: tuple(conversation_lines_allowed(list(lines)))))
    for (role, text), ok in zip(lines, allowed, strict=True):
        if ok:  # allowed in its turn, so allowed alone (the turn only refuses more): what a reader of it will ask
            _keep(_key(f"line:{role}", " ".join(text.split())), True)
    return allowed


def memory_allowed(text: str) -> bool:
    """Whether a memory that is not a conversation line may reach a prompt (the guard, as for a tool's write:
    privilege claims pass, as from a system of record), judged once per text."""
    return _judged("memory", text, lambda t: check_memory_write(t, "tool").allow_long_term)


def shown_summary(text: str, redactor: Redactor | None = None) -> str:
    """:func:`~hermes_memory_core.trust.injection.sanitize_summary` of a running summary, once per text; with
    ``redactor`` the sanitized summary is also redacted whole (PII joined across its chunks; unchanged when nothing
    is found), once per text and redactor kinds — a session's view showed the same summary every turn and redacted
    it again each time (a quarter of a middleware turn's own cost)."""
    shown = _judged("summary", text, sanitize_summary)
    if redactor is None or not shown:
        return shown

    def redacted(t: str) -> str:
        result = redactor.redact(t)
        return result.text if result.found else t

    return _judged("redacted summary:" + ",".join(redactor.kinds), shown, redacted)


def clear() -> None:
    """Forget every verdict (tests; a process never needs it: the rules do not change while it runs)."""
    with _lock:
        _verdicts.clear()
        _counts.update(hits=0, misses=0)
    _turns.clear()


def stats() -> dict[str, int]:
    """Verdicts held (of single texts; ``turns``: of whole turns), and how many lookups found one (``hits``) or ran
    the guard (``misses``) since :func:`clear`, turns included."""
    with _lock:
        return {"held": len(_verdicts), "turns": len(_turns), "hits": _counts["hits"] + _turns.hits,
                "misses": _counts["misses"] + _turns.misses}
