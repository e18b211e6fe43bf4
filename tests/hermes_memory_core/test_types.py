"""Outcomes are string enums: they compare equal to, print as and serialise as their values, and the access log
stores the value (not the member name) on both metadata backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_memory_core import AccessAction, Caller, MemoryProvider, MemoryType, PermissionDeniedError, RememberAction
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
        actions = {a for a, _at, _d in mem.engine.metadata.access_log(fact)}
        assert actions == {"add", "permanent_write", "permanent_denied", "permanent_read"}
        assert {AccessAction(a) for a in actions} == {AccessAction.ADD, AccessAction.PERMANENT_WRITE,
                                                      AccessAction.PERMANENT_DENIED, AccessAction.PERMANENT_READ}
