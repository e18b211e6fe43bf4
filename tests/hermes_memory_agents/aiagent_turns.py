"""Two turns of a real Hermes ``AIAgent`` against a canned model server; prints a JSON report.

Run by test_hermes_integration.py in its own process (an AIAgent sets process-wide state)::

    python aiagent_turns.py BASE_URL [RUNTIME_DIR]

``HERMES_HOME`` must hold the installed plugin and ``memory.provider: hermes_memory``. ``RUNTIME_DIR`` holds the
hermes-agent requirements this environment lacks; it is appended to ``sys.path`` so our own packages win.
"""

from __future__ import annotations

import json
import sys

if len(sys.argv) > 2 and sys.argv[2]:
    sys.path.append(sys.argv[2])

from run_agent import AIAgent

agent = AIAgent(base_url=sys.argv[1], api_key="test", model="canned-model", quiet_mode=True,
                skip_context_files=True, max_iterations=5, session_id="sess-1", enabled_toolsets=["memory"])
manager = agent._memory_manager
first = agent.run_conversation("Please remember: I am allergic to peanuts")
second = agent.run_conversation("What am I allergic to?", conversation_history=first["messages"])
agent.shutdown_memory_provider(second["messages"])
print(json.dumps({
    "providers": [type(p).__name__ for p in manager.providers] if manager else [],
    "tools": [t["function"]["name"] for t in agent.tools],
    "final": [first["final_response"], second["final_response"]],
}))
