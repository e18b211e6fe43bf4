"""What Hermes Agent loads: :class:`HermesMemoryProvider`, a subclass of Hermes' own ``MemoryProvider``, and
``register(ctx)``.

Importing this module imports ``agent.memory_provider`` from Hermes Agent, so only Hermes imports it: through the
plugin folder ``hermes-memory hermes-agent install`` writes (hermes-agent 0.19 scans
``$HERMES_HOME/plugins/<name>/__init__.py`` and calls ``register(ctx)``), or through the entry point
``hermes_memory`` of the group ``hermes_agent.memory_providers`` (hermes-agent 0.20 and later). The rest of this
package never imports Hermes Agent.
"""

from __future__ import annotations

from typing import Any

from agent.memory_provider import MemoryProvider

from hermes_memory_agents.hermes_agent import HermesAgentProvider

__all__ = ["HermesMemoryProvider", "register"]


class HermesMemoryProvider(HermesAgentProvider, MemoryProvider):
    """Hermes Memory as Hermes Agent's memory provider ``hermes_memory`` (see
    :class:`~hermes_memory_agents.hermes_agent.HermesAgentProvider` for every hook)."""


def register(ctx: Any) -> None:
    """Hermes' plugin entry: hand over one provider (Hermes builds one per agent; they share the store)."""
    ctx.register_memory_provider(HermesMemoryProvider())
