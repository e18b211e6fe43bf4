"""Model calls run on a bounded pool owned by each store: a hanging model holds a bounded number of that store's
threads, never another store's, frees every caller at its timeout, and never keeps close() waiting."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from pathlib import Path

import pytest

from hermes_memory_core import MemoryProvider
from hermes_memory_core.embedding import Embedder
from hermes_memory_core.llm import CallableLLM, ModelPool, ask
from tests.conftest import ADMIN, make_config

#: How long a test waits for something that must not hang (a liveness bound, not a performance figure).
_LIVENESS = 60.0


class HangingLLM:
    """A model whose calls block until ``release`` is set; counts the calls it got."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self._lock = threading.Lock()

    def complete(self, prompt: str) -> str:
        with self._lock:
            self.started += 1
        self.release.wait()
        return "too late"

    async def acomplete(self, prompt: str) -> str:
        return self.complete(prompt)


def _in_thread(fn: object) -> threading.Thread:
    thread = threading.Thread(target=fn, daemon=True)  # type: ignore[arg-type]
    thread.start()
    return thread


def test_a_hung_call_frees_its_caller_and_later_calls_are_refused_not_queued() -> None:
    pool = ModelPool(workers=2)
    model = HangingLLM()
    try:
        assert ask(model, "q", 0.05, pool) is None  # timed out: the caller goes on
        assert model.started == 1
        # the model is known to hang: a later call is refused at once, the model is not asked again
        assert ask(model, "q", _LIVENESS, pool) is None
        assert model.started == 1
        with pytest.raises(RuntimeError, match="hangs"):
            pool.call(model.complete, "q", timeout=_LIVENESS)
    finally:
        model.release.set()
        pool.close()


def test_when_the_hung_call_returns_the_pool_serves_again() -> None:
    pool = ModelPool(workers=1)
    model = HangingLLM()
    try:
        assert ask(model, "q", 0.05, pool) is None
        model.release.set()
        ok = CallableLLM(lambda p: "answer")
        # the hung call's thread comes back when the model returns (until then calls are refused at once)
        end = time.monotonic() + _LIVENESS
        while ask(ok, "q", _LIVENESS, pool) is None and time.monotonic() < end:
            time.sleep(0.01)
        assert ask(ok, "q", _LIVENESS, pool) == "answer"
        assert model.started == 1
    finally:
        pool.close()


def test_calls_beyond_the_bound_wait_in_line_and_are_withdrawn_at_their_timeout() -> None:
    pool = ModelPool(workers=1)
    gate = threading.Event()
    ran: list[str] = []

    def slow(tag: str) -> str:
        ran.append(tag)
        gate.wait()
        return tag

    try:
        first = pool.submit(slow, "first", timeout=_LIVENESS)  # holds the only thread, within its timeout
        with pytest.raises(concurrent.futures.TimeoutError):
            pool.call(slow, "second", timeout=0.05)  # waits in line, then gives up
        gate.set()
        assert first.result(timeout=_LIVENESS) == "first"
        assert pool.call(slow, "third", timeout=_LIVENESS) == "third"
        assert ran == ["first", "third"]  # the withdrawn call never ran
    finally:
        gate.set()
        pool.close()


def test_one_pools_hung_model_does_not_block_another_pool() -> None:
    hung, other = ModelPool(workers=1), ModelPool(workers=1)
    model = HangingLLM()
    try:
        stuck = [_in_thread(lambda: ask(model, "q", _LIVENESS, hung)) for _ in range(3)]
        assert ask(CallableLLM(lambda p: "fine"), "q", _LIVENESS, other) == "fine"
        assert all(t.is_alive() for t in stuck)  # still waiting on the hung model (within their timeout)
        hung.close()  # answers whoever waits on the closed pool
        for t in stuck:
            t.join(_LIVENESS)
        assert not any(t.is_alive() for t in stuck)
        assert ask(CallableLLM(lambda p: "fine"), "q", _LIVENESS, hung) is None  # closed: refused at once
    finally:
        model.release.set()
        hung.close()
        other.close()


def test_a_store_with_a_hanging_model_closes_and_another_store_keeps_its_model(tmp_path: Path, embedder: Embedder) -> None:
    model = HangingLLM()
    answers: list[str] = []

    def good(prompt: str) -> str:
        answers.append(prompt)
        return '["花生"]' if "\n\nNote: " in prompt else ""

    cfg = make_config(tmp_path / "a", llm_timeout_seconds=0.2, llm_translation_timeout_seconds=0.2)
    hung = MemoryProvider(cfg, embedder=embedder, caller=ADMIN, llm=model)
    try:
        with MemoryProvider(make_config(tmp_path / "b"), embedder=embedder, caller=ADMIN,
                            llm=CallableLLM(good)) as healthy:
            hung.add_many([{"content": "The user is allergic to peanuts.", "user_id": "u"},
                           {"content": "用户住在杭州。", "user_id": "u"}])
            # searches of the hung store go on without the model (one translation asked, then refused)
            for _ in range(3):
                assert hung.search("Where does the user live?", user_id="u")
            mid = healthy.add("The user is allergic to peanuts.", user_id="u")
            healthy.flush()
            assert healthy.engine.metadata.keywords.xlang_terms(mid) == "花生"  # the other store's model was asked
        closer = _in_thread(hung.close)
        closer.join(_LIVENESS)
        assert not closer.is_alive() and hung.closed
        assert model.started <= 2  # one key-terms call, one translation; every later call refused at once
    finally:
        model.release.set()
        hung.close()
