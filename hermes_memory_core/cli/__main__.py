"""``python -m hermes_memory_core.cli``: the ``hermes-memory`` command without the installed script."""

from hermes_memory_core.cli.app import main

raise SystemExit(main())
