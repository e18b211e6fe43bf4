"""Plan for LangChain 2.0: this test fails as soon as an installed langchain-core (or langchain, langgraph) marks as
deprecated a name the adapters or the LangChain docs import, so the next move is seen in CI, not discovered by
users (docs/langchain.md#plan-for-langchain-20).

A name counts as deprecated when it carries ``__deprecated__`` (PEP 702, langchain-core's ``@deprecated``), its
docstring says so (``!!! deprecated`` / ``.. deprecated::``), or its own code calls ``warn_deprecated`` when used
(``RunnableWithMessageHistory``'s constructor does).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("langchain_core", "langchain", "langgraph")
#: Deprecations known and planned for: the history adapter keeps the card's base class while langchain-core 1.x
#: ships it; the chain example of docs/langchain.md shows the 1.x chain path and says it warns.
KNOWN = {
    "langchain_core.chat_history.BaseChatMessageHistory",
    "langchain_core.runnables.history.RunnableWithMessageHistory",
}


def imported_names() -> dict[str, set[str]]:
    """``{"module.Name": {where it is imported}}`` for every ``from <framework> import Name`` of the adapters and of
    the Python blocks of the LangChain docs."""
    sources = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
               for p in sorted((ROOT / "langchain_hermes_memory").glob("*.py"))]
    for page in (ROOT / "docs" / "langchain.md", ROOT / "README.md"):
        for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)):
            sources.append((f"{page.relative_to(ROOT).as_posix()} block {i + 1}", code))
    found: dict[str, set[str]] = {}
    for where, text in sources:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FRAMEWORKS:
                for alias in node.names:
                    found.setdefault(f"{node.module}.{alias.name}", set()).add(where)
    return found


def is_deprecated(obj: object) -> bool:
    if getattr(obj, "__deprecated__", None):
        return True
    doc = inspect.getdoc(obj) or ""
    if re.search(r"^\s*(!!! deprecated|\.\. deprecated::)", doc, flags=re.M):
        return True
    if not callable(obj):
        return False
    try:
        source = inspect.getsource(obj.__init__ if inspect.isclass(obj) else obj)  # type: ignore[misc]
    except (OSError, TypeError):
        return False
    return re.search(r"warn_deprecated\(\s*(since=)?[\"']", source) is not None and "is deprecated" in source


NAMES = imported_names()


def test_the_scan_sees_the_adapters_and_the_docs() -> None:
    assert "langchain_core.chat_history.BaseChatMessageHistory" in NAMES
    assert "langchain.agents.middleware.AgentMiddleware" in NAMES
    assert any("docs/langchain.md" in w for w in NAMES["langchain_core.runnables.history.RunnableWithMessageHistory"])


def test_the_detector_sees_both_kinds_of_marking() -> None:
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.messages import HumanMessage
    from langchain_core.runnables.history import RunnableWithMessageHistory

    assert is_deprecated(BaseChatMessageHistory) and is_deprecated(RunnableWithMessageHistory)
    assert not is_deprecated(HumanMessage)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_no_name_we_use_is_newly_deprecated(name: str) -> None:
    module, _, attr = name.rpartition(".")
    obj = getattr(importlib.import_module(module), attr)  # gone in a new release: this fails too
    if name in KNOWN:
        assert is_deprecated(obj), f"{name} is no longer deprecated: drop it from KNOWN"
    else:
        assert not is_deprecated(obj), (
            f"{name} (used in {sorted(NAMES[name])}) is now deprecated by the installed release: plan the move "
            "(docs/langchain.md#plan-for-langchain-20)")
