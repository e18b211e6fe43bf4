"""A session's writes can hold back their background work (a chat turn writes the user's message, then recalls for
it: the archiving runs after the recall, while the model answers); nothing written is less durable."""

from __future__ import annotations

import asyncio

import pytest

from hermes_memory_core import MemoryProvider


def _kept(mem: MemoryProvider) -> int:
    """Conversation memories kept so far (the background's work done)."""
    mem.flush()
    return int(mem.stats().by_type.get("short_term", 0))


def test_held_writes_are_archived_when_the_block_ends(mem: MemoryProvider) -> None:
    s = mem.session("ana", "trip")
    with s.holding_background():
        s.add_messages([("user", "I am flying to Lisbon on Friday."), ("assistant", "Have a good trip.")])
        s.add_messages([("user", "My sister lives in Porto.")])
        assert _kept(mem) == 0  # held: nothing archived yet, though the first turn is complete
        assert [m.content for m in s.view().messages][:1] == ["I am flying to Lisbon on Friday."]  # shown meanwhile
    assert _kept(mem) >= 1  # the block ended: the completed turn is kept
    hits = mem.recall("Where am I flying to?", user_id="ana")
    assert any("Lisbon" in h.content for h in hits)


def test_nested_holds_release_at_the_outermost_and_on_error(mem: MemoryProvider) -> None:
    s = mem.session("ana", "trip")
    held: list[int] = []

    def failing_turn() -> None:
        with s.holding_background():
            with mem.session("ana", "trip").holding_background():  # another handle on the same session
                s.add_messages([("user", "I am allergic to peanuts."), ("assistant", "Noted.")])
            held.append(_kept(mem))  # the outer hold still stands
            raise RuntimeError("the turn failed")

    with pytest.raises(RuntimeError):
        failing_turn()
    assert held == [0]
    assert _kept(mem) >= 1


def test_a_first_turn_still_ends_the_users_other_sessions_at_once(mem: MemoryProvider) -> None:
    old = mem.session("ana", "monday")
    old.add_messages([("user", "I adopted a cat named Miso."), ("assistant", "Lovely.")])
    new = mem.session("ana", "tuesday")
    with new.holding_background():
        new.add_messages([("user", "What is my cat called?")])
        hits = mem.recall("What is my cat called?", user_id="ana")  # waits for the other session to end
        assert any("Miso" in h.content for h in hits), [h.content for h in hits]


def test_other_sessions_are_not_held(mem: MemoryProvider) -> None:
    with mem.session("ana", "trip").holding_background():
        other = mem.session("ana", "work")
        other.add_messages([("user", "I start at the bank on Monday."), ("assistant", "Good luck.")])
        other.add_messages([("user", "I will commute by bike.")])
        assert _kept(mem) >= 1


def test_async_twin(mem: MemoryProvider) -> None:
    s = mem.session("ana", "trip")

    async def turn() -> int:
        async with s.aholding_background():
            await s.aadd_messages([("user", "I play the cello."), ("assistant", "Nice.")])
            await s.aadd_messages([("user", "Since I was ten.")])
            return _kept(mem)

    assert asyncio.run(turn()) == 0
    assert _kept(mem) >= 1
