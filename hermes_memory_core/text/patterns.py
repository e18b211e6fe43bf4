"""Tables of regular expressions: a module's patterns kept as data (name → pattern), compiled once by one helper."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["compile_table"]


def compile_table(table: Mapping[str, str], flags: int = 0) -> dict[str, re.Pattern[str]]:
    """Every pattern of ``table`` compiled once, under its name (``flags`` apply to each)."""
    return {name: re.compile(pattern, flags) for name, pattern in table.items()}
