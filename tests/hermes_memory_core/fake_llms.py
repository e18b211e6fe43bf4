"""Scripted stand-ins for a host LLM (tests only): each answers by the kind of prompt it gets."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable


class ScriptedLLM:
    """Answers summary / compression / classification / normalisation prompts with scripted text.

    Args:
        classify: content -> JSON answer (default: long_term).
        normalize: content -> sentence.
    """

    def __init__(
        self,
        classify: Callable[[str], str] | None = None,
        normalize: Callable[[str], str] | None = None,
    ) -> None:
        self.calls: list[str] = []
        self._lock = threading.Lock()
        self._classify = classify or (lambda c: json.dumps({"type": "long_term", "reason": "scripted", "key": None}))
        self._normalize = normalize or (lambda c: "NORM: " + c)
        self.summaries = 0

    def complete(self, prompt: str) -> str:
        with self._lock:
            self.calls.append(prompt)
        content = prompt.rsplit("\n\n", 1)[-1].split("\n", 1)[-1]
        if "running memory of a conversation" in prompt:
            with self._lock:
                self.summaries += 1
                n = self.summaries
            return f"LLM-SUMMARY-{n}: goal kept, facts confirmed, items open." + " detail" * 30
        if "Compress these running-summary notes" in prompt:
            return "LLM-COMPRESSED: tight points."
        if "memory classifier" in prompt:
            return self._classify(content)
        if "Rewrite the user's statement" in prompt:
            return self._normalize(content)
        return ""

    async def acomplete(self, prompt: str) -> str:
        return self.complete(prompt)


class FixedLLM:
    """Always answers the same text (garbage JSON, an empty answer, ...)."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    def complete(self, prompt: str) -> str:
        return self.answer

    async def acomplete(self, prompt: str) -> str:
        return self.answer


class RaisingLLM:
    def complete(self, prompt: str) -> str:
        raise RuntimeError("model backend is down")

    async def acomplete(self, prompt: str) -> str:
        raise RuntimeError("model backend is down")


class SlowLLM:
    def __init__(self, seconds: float, answer: str = '{"type": "permanent", "reason": "slow", "key": "x"}') -> None:
        self.seconds, self.answer = seconds, answer

    def complete(self, prompt: str) -> str:
        time.sleep(self.seconds)
        return self.answer

    async def acomplete(self, prompt: str) -> str:
        import asyncio

        await asyncio.sleep(self.seconds)
        return self.answer
