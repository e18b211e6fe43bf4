"""The background worker's settle wait: a search waits (bounded) for the jobs that keep a user's turns."""

from __future__ import annotations

import threading
from collections.abc import Hashable

from hermes_memory_core.lifecycle.worker import BackgroundWorker


def _blocking_worker() -> tuple[BackgroundWorker, threading.Event, list[Hashable]]:
    release = threading.Event()
    done: list[Hashable] = []

    def run(job: Hashable) -> None:
        if job == ("archive", "alice"):
            release.wait(10)
        done.append(job)

    return BackgroundWorker(run), release, done


def test_settle_waits_for_a_running_matching_job_and_gives_up_at_its_bound() -> None:
    worker, release, done = _blocking_worker()
    worker.submit(("archive", "alice"))
    alice = lambda job: isinstance(job, tuple) and job[1] == "alice"  # noqa: E731
    assert worker.settle(alice, 0.05) is False  # still running: the wait is bounded
    release.set()
    assert worker.settle(alice, 10) is True
    assert ("archive", "alice") in done
    worker.close()


def test_settle_ignores_jobs_of_other_users() -> None:
    worker, release, _ = _blocking_worker()
    worker.submit(("archive", "alice"))
    worker.submit(("archive", "bob"))
    assert worker.settle(lambda job: isinstance(job, tuple) and job[1] == "carol", 0.01) is True
    release.set()
    worker.close()


def test_settle_from_the_worker_thread_returns_at_once() -> None:
    answers: list[bool] = []
    worker: BackgroundWorker

    def run(job: Hashable) -> None:
        answers.append(worker.settle(lambda _job: True, 5))

    worker = BackgroundWorker(run)
    worker.submit("job")
    worker.drain()
    assert answers == [False]
    worker.close()
