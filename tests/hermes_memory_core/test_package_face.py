"""The package face: what ``import hermes_memory_core`` costs, and the string kinds that are enums."""

from __future__ import annotations

import subprocess
import sys

import hermes_memory_core
from hermes_memory_core.storage.metadata import AccessRecord, Erasure, LifecycleRow
from hermes_memory_core.types import AccessAction, ErasureKind, MemoryType, Message


def test_importing_the_package_loads_no_command_line_machinery() -> None:
    code = (
        "import sys, hermes_memory_core;"
        "bad=[m for m in sys.modules if m == 'argparse' or m.startswith('hermes_memory_core.cli')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_command_line_helpers_are_still_public_names() -> None:
    from hermes_memory_core.cli.options import cli_config, cli_parent

    assert hermes_memory_core.cli_parent is cli_parent
    assert hermes_memory_core.cli_config is cli_config
    from hermes_memory_core.cli.common import user_hint

    assert hermes_memory_core.cli_user_hint is user_hint


def test_message_lives_in_the_value_types_and_the_store_hands_out_the_same_class() -> None:
    from hermes_memory_core.storage.sessions import Message as StoredMessage

    assert hermes_memory_core.Message is Message is StoredMessage
    assert Message.__module__ == "hermes_memory_core.types"


def test_erasure_kind_is_an_enum_that_still_reads_and_writes_as_its_string() -> None:
    erasure = Erasure("user", "u1")  # a kind recorded as a string (an older store's row) reads as the enum
    assert erasure.kind is ErasureKind.USER
    assert erasure.kind == "user" and f"{erasure.kind}" == "user"
    assert Erasure(ErasureKind.MEMORY, "u1", "m1").kind is ErasureKind.MEMORY


def test_row_tiers_and_access_actions_are_enums() -> None:
    row = LifecycleRow("m1", "u1", None, "short_term", 0.5, 1, None)
    assert row.memory_type is MemoryType.SHORT_TERM and row.memory_type == "short_term"
    assert AccessRecord("m1", "u1", 1, "search").action is AccessAction.SEARCH
