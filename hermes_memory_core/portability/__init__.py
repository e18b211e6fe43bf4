"""Export a store to a self-contained bundle and restore it anywhere (docs/design.md#portability).

- :mod:`~hermes_memory_core.portability.bundle` — the format, signatures, and checking a bundle before anything
  is written;
- :mod:`~hermes_memory_core.portability.rows` — rows in and out of bundle files (a bundle's file is always rebuilt
  from rows, never copied; deleted memories and other users' rows never travel);
- :mod:`~hermes_memory_core.portability.export` — writing a bundle;
- :mod:`~hermes_memory_core.portability.restore` — lock, verify, stage, swap.

A bundle depends on no engine's snapshot format (qdrant-client's local mode has none), so one made from the
embedded engine restores into a Qdrant server and PostgreSQL and back. It holds no absolute path and never the key.
"""

from hermes_memory_core.portability.bundle import BUNDLE_FILES, FORMAT, FORMAT_VERSION, verify_bundle
from hermes_memory_core.portability.export import export_bundle
from hermes_memory_core.portability.restore import restore_bundle

__all__ = ["BUNDLE_FILES", "FORMAT", "FORMAT_VERSION", "export_bundle", "restore_bundle", "verify_bundle"]
