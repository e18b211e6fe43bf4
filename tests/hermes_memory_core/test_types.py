"""One serialisation of records and hits. Outcomes are string enums: they compare equal to, print as and serialise as their values, and the access log
stores the value (not the member name) on both metadata backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_memory_core import (
    AccessAction,
    Caller,
    MemoryHit,
    MemoryProvider,
    MemoryRecord,
    MemoryType,
    PermissionDeniedError,
    RememberAction,
)
from hermes_memory_core.types import HIT_FIELDS, RECORD_FIELDS
from tests.conftest import BACKENDS, make_config
from tests.fakes import HashingEmbedder


def test_outcomes_read_as_their_values() -> None:
    assert [str(a) for a in RememberAction] == ["added", "duplicate", "versioned", "kept_apart", "skipped", "rejected"]
    assert json.dumps({"action": RememberAction.KEPT_APART, "tier": MemoryType.PERMANENT}) == \
        '{"action": "kept_apart", "tier": "permanent"}'
    assert f"{RememberAction.DUPLICATE}: [{MemoryType.LONG_TERM}]" == "duplicate: [long_term]"
    assert RememberAction("versioned") is RememberAction.VERSIONED and AccessAction("search") is AccessAction.SEARCH


@pytest.mark.parametrize("backend", BACKENDS)
def test_remember_and_access_log_carry_enum_values(tmp_path: Path, backend: str) -> None:
    with MemoryProvider(make_config(tmp_path / "s", backend), embedder=HashingEmbedder()) as mem:
        first = mem.remember("I am allergic to peanuts", user_id="u")
        again = mem.remember("I am allergic to peanuts", user_id="u")
        assert type(first.action) is RememberAction and first.action == "added" and again.action == "duplicate"
        fact = mem.add("The user's blood type is O", user_id="u", memory_type="permanent", caller=Caller.admin("a"))
        with pytest.raises(PermissionDeniedError):
            mem.get(fact, caller=Caller("anonymous"))
        mem.get(fact, caller=Caller.admin("a"))
        actions = {a for a, _at, _d in mem.engine.metadata.access.access_log(fact)}
        assert actions == {"add", "permanent_write", "permanent_denied", "permanent_read"}
        assert {AccessAction(a) for a in actions} == {AccessAction.ADD, AccessAction.PERMANENT_WRITE,
                                                      AccessAction.PERMANENT_DENIED, AccessAction.PERMANENT_READ}


def _record() -> MemoryRecord:
    return MemoryRecord("m1", "u", "s", "The user likes tea", MemoryType.LONG_TERM, 0.6, 2, 100, 200, None, 3,
                        ("drink",), {"source": "explicit"})


def test_one_serialisation_of_records_and_hits() -> None:
    rec = _record()
    full = rec.to_dict()
    assert tuple(full) == RECORD_FIELDS and full["memory_type"] == "long_term" and type(full["memory_type"]) is str
    assert full["tags"] == ["drink"] and full["metadata"] == {"source": "explicit"}
    full["metadata"]["x"] = 1  # a copy: the record is untouched
    assert rec.metadata == {"source": "explicit"}
    hit = MemoryHit(rec, 0.123456, 0.5, dense_score=0.98765, dialogue=True)
    assert tuple(hit.to_dict()) == HIT_FIELDS
    shown = hit.to_dict(("score", "id", "dense_score", "keyword_score"), score_digits=4)
    assert list(shown.items()) == [("score", 0.1235), ("id", "m1"), ("dense_score", 0.9877), ("keyword_score", None)]
    assert hit.to_dict(("score",))["score"] == 0.123456
    with pytest.raises(ValueError, match="unknown fields"):
        rec.to_dict(("id", "score"))


def test_values_render_as_escaped_tables_in_jupyter() -> None:
    from hermes_memory_core import MemoryHit, MemoryRecord, MemoryType, MemoryVersion, StoreStats

    rec = MemoryRecord(id="m1", user_id="u<1>", session_id="s", content="<script>x</script> 咖啡",
                       memory_type=MemoryType.PERMANENT, importance=0.5, access_count=0, created_at=0,
                       updated_at=86_400, expires_at=None, version=2, tags=("a", "b"))
    page = rec._repr_html_()
    assert page.startswith("<table>") and "&lt;script&gt;x&lt;/script&gt; 咖啡" in page and "<script>" not in page
    assert "1970-01-02 00:00" in page and "a, b" in page and "u&lt;1&gt;" in page
    hit = MemoryHit(record=rec, score=0.123456, relevance=0.5, dense_score=None, keyword_score=1.0)
    assert "<th>score</th>" in hit._repr_html_() and "0.1235" in hit._repr_html_()
    ver = MemoryVersion(memory_id="m1", version=1, content="old & gone", created_at=0, note="moved")
    assert "old &amp; gone" in ver._repr_html_() and "moved" in ver._repr_html_()
    stats = StoreStats(total_active=1, by_type={"permanent": 1}, by_user={"u": 1}, vector_points=1, versions=2,
                       deleted=0, disk_bytes=10, warnings=["too <big>"])
    assert "by tier" in stats._repr_html_() and "too &lt;big&gt;" in stats._repr_html_()
