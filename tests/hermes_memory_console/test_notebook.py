"""Jupyter views: lists of memories, hits and versions as one table, and the growth plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_memory_console.notebook import growth_plot, table
from hermes_memory_core import InvalidInputError, MemoryItem, MemoryProvider
from tests.conftest import ADMIN, make_config
from tests.fakes import HashingEmbedder


def test_tables_and_growth(tmp_path: Path) -> None:
    with MemoryProvider(make_config(tmp_path / "s"), embedder=HashingEmbedder(), caller=ADMIN) as mem:
        mem.add_many([MemoryItem("The user likes <b>tea</b>", user_id="u", created_at=1_750_000_000),
                      MemoryItem("用户喜欢咖啡", user_id="u", created_at=1_750_086_400),
                      MemoryItem("other user", user_id="v", created_at=1_750_086_400)])
        fact = mem.add("I live in Hangzhou", user_id="u", memory_type="permanent")
        mem.update(fact, "I live in Shanghai", user_id="u", version_note="moved")
        records = table(mem.list_memories(user_id="u"), "u")
        page = records._repr_html_()
        assert len(records) == 3 and "&lt;b&gt;tea&lt;/b&gt;" in page and "<caption>u</caption>" in page
        assert "other user" not in page
        hits = table(mem.search("tea", user_id="u"))
        assert list(hits.rows[0])[:2] == ["score", "confidence"]
        versions = table(mem.history(fact))
        assert [r["note"] for r in versions.rows] == ["", "moved"]
        assert "(none)" in table([])._repr_html_()
        with pytest.raises(InvalidInputError, match="memories, hits or versions"):
            table(["text"])  # type: ignore[list-item]
        import matplotlib

        matplotlib.use("Agg")
        ax = growth_plot(mem, "u")
        heights = sorted(p.get_height() for p in ax.patches if p.get_height())
        assert sum(heights) == 3 and "user u" in ax.get_title()
