"""What a Hermes Memory SQLite file may hold: exactly the objects its migrations create, nothing else.

A trigger or a view in a store's file runs with the store's rights (a trigger planted in a bundle once copied every
other user's chat messages into an attacker's session), so both a store at open and a bundle before restore are
held to the schema their recorded migrations produce: the same tables with the same columns, the same indexes and
virtual tables, and no trigger, view or object of anyone else's.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Sequence

from hermes_memory_core.storage.sqlite import migrations

__all__ = ["describe", "expected", "is_plain_name", "schema_problems"]

Objects = dict[str, tuple[str, str, object]]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def describe(conn: sqlite3.Connection) -> Objects:
    """Every schema object of a database: name → (type, table, shape), where shape is a table's column list and
    any other object's normalised SQL."""
    out: Objects = {}
    for kind, name, table, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall():
        if kind == "table" and str(name).startswith("sqlite_stat"):
            continue  # the planner's statistics (ANALYZE)
        text = " ".join(str(sql or "").split())
        if kind == "table" and not text.upper().startswith("CREATE VIRTUAL TABLE"):
            shape: object = tuple(
                (r[1], str(r[2]).upper(), r[3], r[5]) for r in conn.execute(f"PRAGMA table_info({_quote(name)})")
            )
        else:
            shape = text
        out[str(name)] = (str(kind), str(table), shape)
    return out


@functools.lru_cache(maxsize=16)
def expected(names: tuple[str, ...]) -> Objects:
    """The objects the named migrations (a prefix of :data:`migrations.MIGRATIONS`) create in an empty file."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrations.apply_pending(conn, names)
        return describe(conn)
    finally:
        conn.close()


def schema_problems(conn: sqlite3.Connection, names: Sequence[str] | None = None) -> list[str]:
    """What differs between a database's schema and what its migrations create ([] when it is exactly ours).

    Args:
        conn: The database.
        names: Its applied migrations (default: read from it); they must be a prefix of ours.
    """
    applied = list(migrations.applied(conn)) if names is None else list(names)
    known = [m.__name__ for m in migrations.MIGRATIONS]
    if set(applied) != set(known[: len(applied)]) or len(set(applied)) != len(applied):
        return [f"its migrations {applied} are not the first ones of this version's {known}"]
    have, want = describe(conn), expected(tuple(known[: len(applied)]))
    problems = [f"unexpected {have[n][0]} {n!r}" for n in sorted(have.keys() - want.keys())]
    problems += [f"missing {want[n][0]} {n!r}" for n in sorted(want.keys() - have.keys())]
    problems += [f"{have[n][0]} {n!r} differs from this version's" for n in sorted(have.keys() & want.keys())
                 if have[n] != want[n]]
    return problems


_SAFE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_plain_name(name: str) -> bool:
    """A table or column name made of letters, digits and underscores (safe to format into SQL)."""
    return bool(_SAFE_NAME.match(name))
