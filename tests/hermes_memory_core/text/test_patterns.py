"""A table of patterns compiles each under its name, once, with the flags given."""

from __future__ import annotations

import re

from hermes_memory_core.text.patterns import compile_table


def test_each_pattern_is_compiled_under_its_name() -> None:
    table = compile_table({"digits": r"\d+", "word": r"[a-z]+"})
    assert list(table) == ["digits", "word"]
    assert table["digits"].findall("a1b22") == ["1", "22"]
    assert table["word"].fullmatch("abc") is not None and table["word"].fullmatch("ABC") is None


def test_flags_apply_to_every_pattern() -> None:
    table = compile_table({"word": r"[a-z]+", "x": r"x"}, re.IGNORECASE)
    assert table["word"].fullmatch("ABC") is not None
    assert all(p.flags & re.IGNORECASE for p in table.values())
