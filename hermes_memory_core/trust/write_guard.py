"""One injection guard for every write path that stores user or model text.

``remember`` and promotion judge content with :func:`~hermes_memory_core.trust.injection.check_memory_write`
(which also decides the tier). Every other path that stores text as it is given — ``MemoryProvider.add``,
``add_many`` and ``update``, the LangGraph store's ``put``, the Hermes Agent memory mirror, a restored bundle —
calls :func:`guard_texts`: content the guard flags (an instruction to the assistant, an unbacked privilege claim, a
request to reveal protected data) is refused with :class:`~hermes_memory_core.errors.InjectionRejectedError`
before anything is written.

**The opt-out** is explicit and per call: ``trusted=True`` on ``add``/``add_many``/``update`` and
``MemoryProvider.restore`` skips this check, for bulk imports of data the operator has already vetted (a
migration from another memory system, a backup of one's own store). Nothing else skips it.
"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_memory_core.errors import InjectionRejectedError
from hermes_memory_core.trust.injection import _REASONS, find_injection

__all__ = ["guard_text", "guard_texts", "injection_reason"]


def injection_reason(content: str) -> str | None:
    """Why the guard refuses ``content`` as a stored memory (one line), or None when it may be stored."""
    found = find_injection(content, "user")
    if found is None:
        return None
    return f"{_REASONS[found.category]} ({found.rule}: {found.evidence[:60]!r})"


def guard_text(content: str, what: str = "content") -> None:
    """Refuse ``content`` when the guard flags it.

    Raises:
        InjectionRejectedError: One line naming ``what`` and the flagged class; nothing has been written.
    """
    reason = injection_reason(content)
    if reason is not None:
        raise InjectionRejectedError(f"{what} refused by the {reason}; nothing was stored (trusted imports may "
                                     "pass trusted=True)")


def guard_texts(texts: Iterable[str], what: str = "item") -> None:
    """Every text judged (``what`` numbered from 0) before anything is written: a batch with refused items is
    refused whole with **one error naming every refused item** and why (never just the first, and never a silent
    partial write), so the caller can drop exactly those and send the rest again.

    Raises:
        InjectionRejectedError: ``"items 3, 10 refused by the injection guard: item 3: … ; item 10: …; nothing was
            stored …"``.
    """
    refused = [(i, reason) for i, text in enumerate(texts) if (reason := injection_reason(text)) is not None]
    if not refused:
        return
    if len(refused) == 1:
        i, reason = refused[0]
        raise InjectionRejectedError(f"{what} {i} refused by the {reason}; nothing was stored (trusted imports may "
                                     "pass trusted=True)")
    names = ", ".join(str(i) for i, _r in refused)
    shown = "; ".join(f"{what} {i}: {reason}" for i, reason in refused[:20])
    more = f"; and {len(refused) - 20} more" if len(refused) > 20 else ""
    raise InjectionRejectedError(f"{what}s {names} refused ({len(refused)} of the batch): {shown}{more}; nothing was "
                                 "stored: send the batch again without them (trusted imports may pass trusted=True)")
