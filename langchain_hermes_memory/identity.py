"""Who is talking, and in which thread: read from a LangGraph run the way LangChain 1.x apps pass it.

The user comes from, in order: ``runtime.context.user_id`` (a dataclass, pydantic model or dict context,
``create_agent(..., context_schema=...)`` + ``invoke(..., context=...)``), then ``config["configurable"]["user_id"]``,
then ``config["configurable"]["langgraph_user_id"]`` (LangMem's key). The thread is LangGraph's ``thread_id``
(from the run's execution info, else ``config["configurable"]["thread_id"]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hermes_memory_core import InvalidInputError
from langchain_hermes_memory.namespaces import check_user_id

__all__ = ["current_config", "thread_id_of", "user_id_of"]

_USER_KEYS = ("user_id", "langgraph_user_id")


def current_config() -> Mapping[str, Any]:
    """The config of the running LangGraph node or tool, or ``{}`` outside a run."""
    from langgraph.config import get_config

    try:
        return get_config()
    except RuntimeError:
        return {}


def _context_user(context: Any) -> Any:
    if context is None:
        return None
    if isinstance(context, Mapping):
        return context.get("user_id")
    return getattr(context, "user_id", None)


def user_id_of(context: Any, config: Mapping[str, Any] | None, where: str) -> str:
    """The user id of a run.

    Raises:
        InvalidInputError: No user id was given, or it is not a valid one.
    """
    user = _context_user(context)
    if user is None and config:
        configurable = config.get("configurable") or {}
        user = next((configurable[k] for k in _USER_KEYS if configurable.get(k) is not None), None)
    if user is None:
        raise InvalidInputError(
            f"{where} needs the user's id: pass context={{'user_id': ...}} (or a context_schema with user_id) or "
            "config={'configurable': {'user_id': ...}}"
        )
    return check_user_id(user, where)


def thread_id_of(runtime: Any, config: Mapping[str, Any] | None) -> str | None:
    """The LangGraph thread id of a run, or None when it has none (no checkpointer, no ``thread_id``)."""
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    if thread is None and config:
        thread = (config.get("configurable") or {}).get("thread_id")
    return None if thread is None else str(thread)
