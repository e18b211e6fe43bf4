"""One turn context for every surface: summary, recall minus what the session shows, no fillers, one renderer."""

from __future__ import annotations

from hermes_memory_core import MEMORY_BLOCK_START, MemoryProvider, TurnContext, aturn_context, turn_context


def test_a_turn_context_is_empty_when_memory_has_nothing(mem: MemoryProvider) -> None:
    ctx = turn_context(mem, "hello", user_id="u")
    assert isinstance(ctx, TurnContext) and not ctx and ctx.block == "" and ctx.hits == () and ctx.tokens == 0


def test_a_turn_context_shows_recall_rendered_once(mem: MemoryProvider) -> None:
    mem.add("The user's favourite editor is Helix", user_id="u", memory_type="long_term")
    ctx = turn_context(mem, "Which editor is my favourite?", user_id="u")
    assert ctx and ctx.block.startswith(MEMORY_BLOCK_START) and "Helix" in ctx.block
    assert [h.content for h in ctx.hits] == ["The user's favourite editor is Helix"] and ctx.tokens > 0
    assert str(ctx) == ctx.block


def test_the_session_s_own_lines_and_fillers_stay_out(mem: MemoryProvider) -> None:
    old = mem.session("u", "monday")
    old.add_messages([("user", "My cat Mochi loves tuna."), ("assistant", "Noted.")])
    old.close()
    mem.flush()
    now = mem.session("u", "tuesday")
    now.add_messages([("user", "Mochi the cat knocked over a plant today."), ("assistant", "Oh no!")])
    ctx = turn_context(mem, "What does my cat Mochi love?", user_id="u", session_id="tuesday")
    said = [h.content for h in ctx.hits]
    # what the user said comes back once (a remark about the cat is no pet fact: the line itself)
    assert said.count("My cat Mochi loves tuna.") + said.count("The user's cat Mochi loves tuna.") == 1, said
    assert "Noted." not in said and "Noted." not in ctx.block  # a filler says nothing
    assert "knocked over a plant" not in ctx.block  # the session shows that line already


async def test_the_async_twin_gives_the_same_context(mem: MemoryProvider) -> None:
    mem.add("The user's favourite editor is Helix", user_id="u", memory_type="long_term")
    sync = turn_context(mem, "Which editor is my favourite?", user_id="u")
    assert (await aturn_context(mem, "Which editor is my favourite?", user_id="u")).block == sync.block
