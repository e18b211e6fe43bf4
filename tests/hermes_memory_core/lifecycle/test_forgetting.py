"""forget(): expire the scene of closed sessions, fade the stale unimportant profile, never touch facts."""

from __future__ import annotations

from hermes_memory_core import MemoryProvider, MemoryType, NotFoundError

DAY = 86_400
T0 = 1_700_000_000


def _setup(mem: MemoryProvider) -> dict[str, str]:
    ids = {
        "st_closed": mem.add("scene of a closed session", user_id="u", session_id="old", memory_type="short_term",
                             created_at=T0),
        "st_open": mem.add("scene of the open session", user_id="u", session_id="new", memory_type="short_term",
                           created_at=T0 + 99 * DAY),
        "lt_stale_low": mem.add("likes polka", user_id="u", importance=0.1, created_at=T0),
        "lt_stale_mid": mem.add("likes jazz", user_id="u", importance=0.4, created_at=T0 + 60 * DAY),
        "lt_fresh": mem.add("likes rock", user_id="u", importance=0.1, created_at=T0 + 99 * DAY),
        "lt_important": mem.add("needs wheelchair access", user_id="u", importance=0.9, created_at=T0),
        "perm": mem.add("born in 1990", user_id="u", memory_type="permanent", importance=0.1, created_at=T0),
    }
    mem.engine.sessions.append("u", "old", [], [], T0)
    from hermes_memory_core.storage.sessions import Message

    mem.engine.sessions.append("u", "old", [Message("user", "x")], [True], T0)
    mem.engine.sessions.append("u", "new", [Message("user", "y")], [True], T0 + 99 * DAY)
    return ids


def test_dry_run_reports_and_changes_nothing(mem: MemoryProvider) -> None:
    ids = _setup(mem)
    before = mem.stats().as_dict()
    report = mem.forget(dry_run=True, now=T0 + 100 * DAY)
    assert report.expired_short_term == [ids["st_closed"]]
    assert report.expired_long_term == [ids["lt_stale_low"]]
    assert report.downgraded == [ids["lt_stale_mid"]]
    assert report.protected == 1
    after = mem.stats().as_dict()
    assert {k: v for k, v in before.items() if k != "disk_bytes"} == {k: v for k, v in after.items() if k != "disk_bytes"}


def test_forget_applies_and_never_touches_permanent_or_important(mem: MemoryProvider) -> None:
    ids = _setup(mem)
    mem.forget(now=T0 + 100 * DAY)
    for gone in ("st_closed", "lt_stale_low"):
        try:
            mem.get(ids[gone])
            raise AssertionError(f"{gone} should be expired")
        except NotFoundError:
            pass
        assert mem.history(ids[gone])  # soft: history stays
    assert mem.get(ids["lt_stale_mid"]).memory_type is MemoryType.SHORT_TERM
    long_hits = mem.search("jazz", user_id="u", memory_types=["long_term"], now=T0 + 100 * DAY)
    assert ids["lt_stale_mid"] not in {h.id for h in long_hits}
    short_hits = mem.search("jazz", user_id="u", memory_types=["short_term"], now=T0 + 100 * DAY)
    assert short_hits[0].id == ids["lt_stale_mid"]
    for kept in ("st_open", "lt_fresh", "lt_important", "perm"):
        mem.get(ids[kept])
    assert mem.get(ids["perm"]).memory_type is MemoryType.PERMANENT
    assert mem.forget(dry_run=True, now=T0 + 100 * DAY).as_dict()["expired_long_term"] == 0


def test_use_keeps_a_memory_fresh(mem: MemoryProvider) -> None:
    mid = mem.add("likes polka", user_id="u", importance=0.1, created_at=T0)
    mem.engine.parts.clock = lambda: T0 + 95 * DAY  # type: ignore[method-assign]
    mem.search("polka", user_id="u", now=T0 + 95 * DAY)
    mem.flush()
    assert mid not in mem.forget(dry_run=True, now=T0 + 100 * DAY).expired_long_term


def test_stats_warns_past_threshold(mem: MemoryProvider) -> None:
    mem.config.warn_user_memories = 2
    for i in range(3):
        mem.add(f"m{i}", user_id="big")
    mem.add("m", user_id="small")
    warnings = mem.stats().warnings
    assert len(warnings) == 1 and "'big'" in warnings[0]
