"""Permanent memory needs a caller with permission; denied by default; every access logged."""

from __future__ import annotations

import pytest

from hermes_memory_core import Caller, MemoryProvider, PermissionDeniedError

READER = Caller("support-bot", read_permanent=True)


@pytest.fixture
def anon(config, embedder):  # type: ignore[no-untyped-def]
    with MemoryProvider(config, embedder=embedder) as mem:  # no caller: anonymous
        yield mem


def test_denied_by_default(anon: MemoryProvider) -> None:
    admin = Caller.admin("setup")
    fact = anon.add("The user is allergic to peanuts", user_id="u", memory_type="permanent", caller=admin)
    pref = anon.add("The user likes peanuts in salads", user_id="u")
    with pytest.raises(PermissionDeniedError):
        anon.add("I am allergic to cats", user_id="u", memory_type="permanent")
    with pytest.raises(PermissionDeniedError):
        anon.get(fact)
    with pytest.raises(PermissionDeniedError):
        anon.history(fact)
    with pytest.raises(PermissionDeniedError):
        anon.update(fact, "changed")
    with pytest.raises(PermissionDeniedError):
        anon.delete(fact)
    third = Caller("anonymous")  # a third party's caller: no permanent permission
    with pytest.raises(PermissionDeniedError):
        anon.search("peanuts", user_id="u", memory_types=["permanent"], caller=third)
    assert [h.id for h in anon.search("peanuts allergy", user_id="u", top_k=10, caller=third)] == [pref]  # no error
    # a call about one user serves that user (their own facts, by default); a third party's caller sees nothing
    assert all(h.id != fact for h in anon.recall("what am I allergic to?", user_id="u", caller=third))
    assert fact in [h.id for h in anon.recall("what am I allergic to?", user_id="u")]
    assert fact in [h.id for h in anon.search("peanuts allergy", user_id="u", top_k=10)]
    assert all(h.id != fact for h in anon.recall("what am I allergic to?", user_id="someone-else"))
    with pytest.raises(PermissionDeniedError):
        anon.export(anon.data_dir.parent / "b", caller=third)
    assert anon.get(fact, caller=admin).version == 1  # nothing was changed
    actions = [(a, d) for a, _at, d in anon.engine.metadata.access.access_log(fact)]
    assert actions.count(("permanent_denied", "anonymous")) == 4  # get, history, update, delete
    assert ("permanent_write", "setup") in actions and ("permanent_read", "setup") in actions


def test_read_only_caller(anon: MemoryProvider) -> None:
    fact = anon.add("用户对青霉素过敏", user_id="u", memory_type="permanent", caller=Caller.admin("setup"))
    assert anon.get(fact, caller=READER).content == "用户对青霉素过敏"
    assert anon.recall("我对什么过敏？", user_id="u", caller=READER)[0].id == fact
    with pytest.raises(PermissionDeniedError):
        anon.update(fact, "x", caller=READER)
    anon.flush()
    log = anon.engine.metadata.access.access_log(fact)
    assert ("permanent_read", "support-bot") in [(a, d) for a, _at, d in log]
    assert ("search", "support-bot") in [(a, d) for a, _at, d in log]
    assert ("permanent_denied", "support-bot") in [(a, d) for a, _at, d in log]


def test_remember_without_write_permission_keeps_facts_out(anon: MemoryProvider) -> None:
    res = anon.remember("我对花生过敏", user_id="u", session_id="s", caller=Caller("anonymous"))
    assert res.memory_type.value == "long_term" and "may not write permanent" in res.reason
    tool = anon.remember("我对花生过敏", user_id="u", session_id="s", source="tool")  # not the user's own word
    assert tool.memory_type.value != "permanent"
    assert anon.remember("我对花生过敏", user_id="u").memory_type.value == "permanent"  # the user, by default
    assert anon.remember("我对花生过敏", user_id="u", caller=Caller.admin("app")).memory_type.value == "permanent"


def test_a_refusal_says_what_to_pass(anon: MemoryProvider) -> None:
    """A refused read or write names the caller to pass instead: the user's own or an admin, and for a caller bound
    to another user, the user it is bound to."""
    fact = anon.add("The user is allergic to peanuts", user_id="u", memory_type="permanent", caller=Caller.admin())
    with pytest.raises(PermissionDeniedError, match=r"pass caller=Caller\.for_user\(user_id\) or Caller\.admin\(\)"):
        anon.history(fact)  # the owner is not named to a caller that may not read the memory
    with pytest.raises(PermissionDeniedError, match=r"pass caller=Caller\.for_user\('u'\)"):
        anon.add("I am allergic to cats", user_id="u", memory_type="permanent")
    with pytest.raises(PermissionDeniedError, match="it is bound to user 'v'"):
        anon.get(fact, caller=Caller.for_user("v"))
