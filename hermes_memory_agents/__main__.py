"""``python -m hermes_memory_agents mcp|hermes-agent ...``: the same commands as ``hermes-memory``."""

from hermes_memory_agents.cli import main

raise SystemExit(main())
