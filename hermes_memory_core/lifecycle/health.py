"""Whether the host model's classifications can be read: a model that never answers in a usable form (a small
local model, a scripted chat model) keeps everything short-term, and this makes that visible.

Counted per process, per (user, session), for model classifications only (the rule classifier is always
usable): once a session has at least :data:`MIN_CLASSIFICATIONS` of them and more than half were unusable, one
warning is logged for that session and :meth:`ClassifierHealth.warnings` lists it in ``stats().warnings``. The
counts start at zero with each process (nothing is written to the store).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

__all__ = ["MIN_CLASSIFICATIONS", "ClassifierHealth"]

logger = logging.getLogger("hermes_memory")

#: Classifications of one session before its share of unusable answers is judged.
MIN_CLASSIFICATIONS = 3


@dataclass(slots=True)
class _Tally:
    total: int = 0
    unusable: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    warned: bool = False


class ClassifierHealth:
    """Counts usable and unusable model classifications per (user, session), in this process. Thread-safe."""

    def __init__(self, min_classifications: int = MIN_CLASSIFICATIONS) -> None:
        self.min_classifications = min_classifications
        self._tallies: dict[tuple[str, str | None], _Tally] = {}
        self._lock = threading.Lock()

    def record(self, user_id: str, session_id: str | None, usable: bool, reason: str = "") -> None:
        """Count one model classification; log once when most of the session's were unusable."""
        with self._lock:
            tally = self._tallies.setdefault((user_id, session_id), _Tally())
            tally.total += 1
            if not usable:
                tally.unusable += 1
                tally.reasons[reason] = tally.reasons.get(reason, 0) + 1
            if tally.warned or not self._failing(tally):
                return
            tally.warned = True
            line = self._line(user_id, session_id, tally)
        logger.warning("hermes_memory: %s", line)

    def warnings(self) -> list[str]:
        """One line per session whose model classifications were mostly unusable."""
        with self._lock:
            return [self._line(u, s, t) for (u, s), t in self._tallies.items() if self._failing(t)]

    def counts(self, user_id: str, session_id: str | None) -> tuple[int, int]:
        """``(classifications, unusable)`` of one session so far in this process."""
        with self._lock:
            tally = self._tallies.get((user_id, session_id), _Tally())
            return tally.total, tally.unusable

    def _failing(self, tally: _Tally) -> bool:
        return tally.total >= self.min_classifications and 2 * tally.unusable > tally.total

    @staticmethod
    def _line(user_id: str, session_id: str | None, tally: _Tally) -> str:
        where = f"session {session_id!r} of user {user_id!r}" if session_id else f"user {user_id!r} (no session)"
        why = max(tally.reasons, key=tally.reasons.__getitem__) if tally.reasons else "unknown"
        return (
            f"{tally.unusable} of {tally.total} classifier answers of the model in {where} were unusable (most often: "
            f"{why}), so the rule classifier decided that content instead of the model; use a model that answers "
            "the classification prompt with JSON (or none: the rules alone)"
        )
