"""The Python snippets of docs/langchain.md run as a user would paste them; here a recording scripted model replaces
the page's own, to check what each request carried."""

from __future__ import annotations

import itertools
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from langchain_hermes_memory.middleware import MEMORY_BLOCK_START
from tests.langchain_hermes_memory.scripted import ScriptedChatModel, tool_call

README = Path(__file__).resolve().parents[2] / "docs" / "langchain.md"


def _langchain_snippets() -> list[str]:
    """The agent section's blocks after the one defining its models, then the chain section's block."""
    text = README.read_text(encoding="utf-8")
    agents = text[text.index("\n## Agents:") : text.index("\n## LangChain 1.x chains")]
    chains = text[text.index("\n## LangChain 1.x chains") : text.index("\n## Plan for LangChain 2.0")]
    models, *rest = re.findall(r"```python\n(.*?)```", agents, flags=re.S)
    assert "ScriptedChatModel" in models and "SCRIPTED" in models
    (chain,) = re.findall(r"```python\n(.*?)```", chains, flags=re.S)
    # the chain block defines its own scripted model; the test's model stands in for it (the block's own store is
    # opened beside the agent section's, still open, as when the page is pasted top to bottom)
    chain = "\n".join(line for line in chain.splitlines() if not line.startswith("model = "))
    return [*rest, chain]


@pytest.mark.real_model  # the snippets open a store on the default (real) embedding model
def test_readme_langchain_section_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snippets = _langchain_snippets()
    assert len(snippets) == 4
    try:
        import langmem  # noqa: F401 - installed with the dev extra
    except ImportError:
        snippets = [code for code in snippets if "langmem" not in code]
    monkeypatch.chdir(tmp_path)  # the snippets use ./hermes_data and ./hermes_chat_data
    model = ScriptedChatModel()
    model.say(tool_call("manage_memory", {"content": "I live in Hangzhou and work remotely"}, "c1"), "Noted.",
              "You live in Hangzhou.", "Noted: Python.")
    # memory work has its own model (the page's memory_model); it is not called in these few turns
    memory_model = GenericFakeChatModel(messages=itertools.cycle(['{"type": "long_term", "reason": "scripted"}']))
    scope: dict[str, Any] = {"model": model, "memory_model": memory_model}
    stores = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # RunnableWithMessageHistory warns by design
            for code in snippets:
                exec(compile(code, str(README), "exec"), scope)
                stores.append(scope.get("mem"))
        system = ScriptedChatModel.system_text(model.requests[2])  # the question asked in thread t2
        assert MEMORY_BLOCK_START in system and "Hangzhou" in system
        store = scope["store"]
        assert [i.key for i in store.search(("memories", "alice"), query="她主要用什么编程语言？", limit=1)] == ["lang"]
        assert store.list_namespaces(prefix=("memories",), max_depth=2) == [("memories", "alice")]
        if "langmem_tools" in scope:
            assert "window seats" in str(store.search(("memories", "alice"), query="seat preference")[0].value)
        assert model.requests[-1][-1].content == "我平时写 Python 比较多"
    finally:
        for mem in {id(m): m for m in stores if m is not None}.values():
            mem.close()
