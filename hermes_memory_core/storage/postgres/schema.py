"""What a Hermes Memory PostgreSQL schema may hold, checked at open, and the lock that tells a restore it is in use.

- **Schema**: the tables our migrations create and nothing that runs by itself — no trigger on them, no rule, no
  view, no table of anyone else's in the store's schema (a trigger there would act with the store's rights on every
  write of every process).
- **In use**: every open store holds a shared session-level advisory lock keyed by its schema; a restore needs the
  exclusive one, so it cannot replace rows other processes are using (advisory locks are per database, like the
  schema).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from hermes_memory_core.storage.postgres.migrations import MIGRATIONS

__all__ = ["expected_tables", "schema_problems", "store_lock_key"]


def expected_tables() -> set[str]:
    """The tables our migrations create (read from their DDL, so a new migration's tables are known at once)."""
    pattern = re.compile(r"CREATE\s+(?:UNLOGGED\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)
    names = {m.group(1).lower() for _name, ddl in MIGRATIONS for m in pattern.finditer(ddl)}
    return names | {"schema_migrations"}


def schema_problems(raw: Any, schema: str) -> list[str]:
    """What in ``schema`` our migrations did not create ([] when it holds exactly ours)."""
    problems: list[str] = []
    kinds = {"r": "table", "p": "table", "v": "view", "m": "materialized view", "f": "foreign table"}
    tables = expected_tables()
    for name, kind in raw.execute(
        "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
        (schema,),
    ).fetchall():
        if kinds[kind] != "table" or name not in tables:
            problems.append(f"unexpected {kinds[kind]} {name!r}")
    for name, table in raw.execute(
        "SELECT t.tgname, c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND NOT t.tgisinternal",
        (schema,),
    ).fetchall():
        problems.append(f"unexpected trigger {name!r} on {table}")
    for name, table in raw.execute(
        "SELECT rulename, tablename FROM pg_rules WHERE schemaname = %s", (schema,)
    ).fetchall():
        problems.append(f"unexpected rule {name!r} on {table}")
    return problems


def store_lock_key(schema: str) -> int:
    """The advisory-lock key of one store (a positive 63-bit number derived from its schema name)."""
    return int.from_bytes(hashlib.sha256(b"hermes-memory/store\x00" + schema.encode()).digest()[:8], "big") >> 1
