"""Hermes Memory as Hermes Agent's external memory provider (``memory.provider: hermes_memory``).

:class:`HermesAgentProvider` implements every method of hermes-agent 0.19's ``agent.memory_provider.MemoryProvider``,
and the optional hooks Hermes added after it (0.21.x, from its repository: :mod:`hermes_memory_agents.hermes_hooks`),
without importing Hermes Agent: this package does not depend on it (its exact pins clash with ours). Hermes loads
:mod:`hermes_memory_agents.hermes_plugin`, which subclasses Hermes' base class with this one; the folder
``hermes-memory hermes-agent install`` writes into ``$HERMES_HOME/plugins/hermes_memory/`` hands that over.

What each hook does (Hermes' ``MemoryManager`` calls them and catches what they raise):

=====================  ==============================================================================================
``is_available``        False only when the settings cannot be read (``unavailable_reason`` says what to fix); opens
                        nothing.
``initialize``          Opens the store under ``<hermes_home>/hermes_memory`` (or the configured ``data_dir``),
                        shared by every provider of the process for that directory. The user is ``<platform>:<id>``
                        when Hermes passes a platform user id (gateway), else the profile name. Only
                        ``agent_context == "primary"`` writes. A locked store (another process holds it) or a bad
                        configuration disables the provider with one warning line; Hermes keeps running.
``initialize_for_inspection``  For ``hermes memory status`` and the like: reads the settings and binds the user and
                        context, so ``system_prompt_block`` and ``get_tool_schemas`` answer, without opening the store
                        (nothing is created or written; tools answer with an error).
``system_prompt_block`` One paragraph: whose memory this is and how to use the tools.
``prefetch``            The gated recall of the user's message as the core's memory lines (``- [date · the user
                        said] …``, ``- [fact · date] …``: quoted, guarded): nothing for greetings and fillers; what
                        was said in earlier sessions and the profile, plus permanent facts for identity,
                        configuration and compliance questions.
``recall_status``       How many memories the last ``prefetch`` injected (None when none): Hermes' "recalled N
                        memories" line.
``queue_prefetch``      Nothing: recall runs on the next message itself in ``prefetch`` (milliseconds), so there is
                        nothing worth precomputing from this one.
``sync_turn``           Appends the turn to the session's buffer (one SQLite transaction). Summaries of overflowing
                        turns and promotion of what the user said run in the core's background worker.
``on_turn_start``       Notes the user's message (a permanent write must quote it) and stores it in the session's
                        buffer then, at the time it was said (``sync_turn`` later stores the rest of the turn).
``on_pre_compress``     Checkpoint (contract version 2, fail-closed): the evidence messages not stored yet are
                        written to the session's buffer (one SQLite transaction) before it returns; it raises when they
                        cannot be (or when this context does not write and Hermes requires the checkpoint). Returns the
                        session's running summary, so Hermes' compressor keeps it.
``on_session_end``      The core's session end: the turns still buffered become conversation memories and what
                        the user said in them is classified and stored (the injection guard decides what may become
                        a permanent fact; a repeated statement is one memory), then the buffer is emptied and
                        everything flushed.
``on_session_switch``   Rebinds to the new session id; leaving a session ends it as above. ``rewound`` (an
                        ``/undo``) drops the buffered turns unpromoted, so nothing the user took back is stored.
``on_memory_write``     Mirrors Hermes' built-in ``memory`` tool: ``add`` stores the entry as a long-term memory
                        tagged ``hermes-<target>``; ``replace``/``remove`` find it by its ``old_text``. The core's
                        injection guard runs on it; a refused entry is logged and not mirrored.
``on_delegation``       Keeps the subagent's task and result in the session buffer (summarised, never promoted).
``get_tool_schemas``    The three tools of :mod:`hermes_memory_agents.tools` (none when disabled; only the search
                        tool in a context that does not write).
``handle_tool_call``    Runs them; results and errors are JSON strings.
``get_config_schema``   The fields ``hermes memory setup`` asks for, typed (``type``, ``minimum``, ``maximum``,
                        ``step``); ``save_config`` writes them to ``config.yaml``
                        under ``memory.hermes_memory``.
``backup_paths``        The data directory (and key file) when they live outside ``HERMES_HOME``.
``shutdown``            Flushes and lets go of the shared store (the last holder closes it).
=====================  ==============================================================================================

Permanent tier: the provider reads it (its caller holds ``read_permanent``) and writes it only from what the user
said: promotion of the user's turns, or a ``hermes_memory_remember`` whose content is a statement the user made
about themselves (:mod:`hermes_memory_agents.provenance`: one first-person clause of their message, not quoted,
reported, negated, hypothetical or pasted). Prefetch drops recalled memories the guard flags (read-time filter).
Tool output, the assistant's words and Hermes' built-in memory never reach it.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hermes_memory_agents import cores
from hermes_memory_agents.hermes_hooks import (
    CHECKPOINT_API_VERSION,
    CheckpointLedger,
    PreCompressCheckpointError,
    config_schema,
    recall_status,
)
from hermes_memory_agents.hermes_settings import (
    DATA_DIR_NAME,
    PROVIDER_NAME,
    ProviderSettings,
    default_hermes_home,
    load_yaml_config,
    read_settings,
    write_yaml_config,
)
from hermes_memory_agents.provenance import own_statement
from hermes_memory_agents.tools import SEARCH, MemoryTools, ToolScope, normalize_words
from hermes_memory_core import (
    Caller,
    ConfigError,
    HermesMemoryError,
    InjectionRejectedError,
    MemoryConfig,
    MemoryProvider,
    MemoryType,
    memory_lines,
    prompt_safe_summary,
    turn_context,
)

__all__ = [
    "DATA_DIR_NAME",
    "PROVIDER_NAME",
    "HermesAgentProvider",
    "ProviderSettings",
    "default_hermes_home",
    "load_yaml_config",
    "read_settings",
    "user_for",
]

log = logging.getLogger(__name__)

#: Characters of a delegated task and of its result kept in the session buffer.
DELEGATION_CHARS = (500, 2000)
#: The tag of mirrored built-in memory entries (plus ``hermes-<target>``).
BUILTIN_TAG = "hermes-builtin"


def user_for(kwargs: Mapping[str, Any]) -> str:
    """Whose memory a Hermes session uses: ``<platform>:<user_id>`` when Hermes passes a platform user id (the
    gateway; the platform keeps ids of different platforms apart), else the profile name (``agent_identity``),
    else ``default``."""
    uid = str(kwargs.get("user_id") or "").strip()
    if uid:
        platform = str(kwargs.get("platform") or "").strip()
        return f"{platform}:{uid}" if platform else uid
    return str(kwargs.get("agent_identity") or "").strip() or "default"


class HermesAgentProvider:
    """Hermes Memory behind Hermes Agent's ``MemoryProvider`` interface (see the module docstring for each hook).

    Hermes builds it with no arguments (through ``register(ctx)``) and reads its settings from ``config.yaml`` in
    ``initialize``; programs and tests may pass them.

    Args:
        settings: The ``memory.hermes_memory`` settings; None reads them from ``config.yaml`` in ``initialize``.
        core_factory: Opens the store from its configuration (default ``MemoryProvider(config)``).
    """

    #: Hermes' fail-closed pre-compression checkpoint (see ``on_pre_compress``); a provider that does not write (a
    #: context other than primary, or disabled) says 1 (best effort) instead, so Hermes does not count on it.
    pre_compress_checkpoint_api_version = CHECKPOINT_API_VERSION

    def __init__(
        self,
        settings: ProviderSettings | Mapping[str, Any] | None = None,
        *,
        core_factory: Callable[[MemoryConfig], MemoryProvider] | None = None,
    ) -> None:
        self._given = settings if isinstance(settings, ProviderSettings) or settings is None else (
            ProviderSettings.from_mapping(settings))
        self._settings = self._given or ProviderSettings()
        self._factory = core_factory
        self._lock = threading.RLock()
        self._memory: MemoryProvider | None = None
        self._tools: MemoryTools | None = None
        self.disabled_reason: str | None = None
        self.user_id = ""
        self.session_id = ""
        self.agent_context = "primary"
        self.hermes_home: Path | None = None
        self._ended: set[str] = set()
        self._turn_message = ""
        self._delegations: list[str] = []
        self._quoted: dict[str, list[str]] = {}  # user message (normalised) -> the clauses a tool write stored
        self._recalled: int | None = None  # memories the last prefetch injected
        self._ledger = CheckpointLedger()
        self._inspecting = False
        self._unavailable = ""

    # ------------------------------------------------------------------ identity
    @property
    def name(self) -> str:
        """``hermes_memory``."""
        return PROVIDER_NAME

    def is_available(self) -> bool:
        """Whether the settings can be read (``config.yaml``'s ``memory.hermes_memory`` and the ``config_file`` it
        names): the store is local and needs no credentials. Opens nothing; whether the store opens is known in
        ``initialize``, which disables the provider with a warning if it does not."""
        home = self.hermes_home or default_hermes_home()
        try:
            (self._given or read_settings(home)).memory_config(home)
        except HermesMemoryError as exc:
            self._unavailable = (f"hermes_memory cannot read its settings: {exc}; fix memory.{PROVIDER_NAME} in "
                                 f"{home / 'config.yaml'} (or the config_file it names)")
            return False
        self._unavailable = ""
        return True

    def unavailable_reason(self) -> str:
        """Why this provider is not usable, in one line that says what to fix ("" when it is)."""
        if self.disabled_reason:
            return self.disabled_reason
        return "" if self.is_available() else self._unavailable

    @property
    def memory(self) -> MemoryProvider | None:
        """The shared store, once initialised (None when disabled or shut down)."""
        return self._memory

    @property
    def writes(self) -> bool:
        """Whether this provider writes (a primary agent context, and initialised)."""
        return self._memory is not None and self.agent_context == "primary"

    # ------------------------------------------------------------------ lifecycle
    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Open the store for a session. ``kwargs`` are Hermes' (``hermes_home``, ``platform``,
        ``agent_context``, ``agent_identity``, ``user_id``, ``warning_callback``, ...); unknown ones are ignored.
        Never raises for an unusable store: the provider is disabled with one warning line instead."""
        with self._lock:
            home = self._bind(session_id, kwargs)
            try:
                self._settings = self._given or read_settings(home)
                config = self._settings.memory_config(home)
                self._memory = cores.acquire(config, self._factory)
            except Exception as exc:  # noqa: BLE001 - any store that does not open: Hermes runs on without it
                self._disable(f"{type(exc).__name__}: {exc}", kwargs.get("warning_callback"))
                return
            caller = Caller(f"hermes-agent:{self.user_id}", read_permanent=True, write_permanent=False)
            read_only = None if self.agent_context == "primary" else (
                f"hermes_memory is read-only in a {self.agent_context!r} agent context")
            self._tools = MemoryTools(self._memory, ToolScope(
                user_id=self.user_id, caller=caller, session_id=self.session_id, read_only=read_only,
                user_words=self._quotes_user,
            ))
            if not self.writes:  # a checkpoint here stores nothing: Hermes must not count on one
                self.pre_compress_checkpoint_api_version = 1

    def initialize_for_inspection(self, session_id: str, **kwargs: Any) -> None:
        """Bind the user and context and read the settings, without opening the store (nothing is created or
        written): ``system_prompt_block`` and ``get_tool_schemas`` answer as after ``initialize``; prefetch and
        writes do nothing, tools answer with an error. Unreadable settings disable it as ``initialize`` would."""
        with self._lock:
            home = self._bind(session_id, kwargs)
            self._inspecting = True
            try:
                self._settings = self._given or read_settings(home)
                self._settings.memory_config(home)
            except Exception as exc:  # noqa: BLE001 - reported as initialize reports it
                self._disable(f"{type(exc).__name__}: {exc}", kwargs.get("warning_callback"))

    def _bind(self, session_id: str, kwargs: Mapping[str, Any]) -> Path:
        """Let go of any store, and bind to Hermes' home (returned), the session, the user and the agent context."""
        self.shutdown()
        given = kwargs.get("hermes_home")
        home = self.hermes_home = Path(given).expanduser() if given else default_hermes_home()
        self.session_id = str(session_id or "default")
        self.user_id = user_for(kwargs)
        self.agent_context = str(kwargs.get("agent_context") or "primary")
        self.disabled_reason = None
        self._inspecting = False
        self._recalled = None
        self._ended.clear()
        self.__dict__.pop("pre_compress_checkpoint_api_version", None)  # back to the class's promise
        return home

    def _disable(self, reason: str, callback: Any = None) -> None:
        line = " ".join(f"hermes_memory is disabled for this session: {reason}".split())
        self.disabled_reason = line
        self.pre_compress_checkpoint_api_version = 1  # it stores nothing: Hermes must not count on a checkpoint
        if callable(callback):
            try:
                callback(line)
                return
            except Exception:  # noqa: BLE001 - fall back to the log
                pass
        log.warning("%s", line)

    def shutdown(self) -> None:
        """Flush and let go of the shared store (the last provider holding it closes it). Idempotent."""
        with self._lock:
            memory, self._memory, self._tools = self._memory, None, None
            if memory is None:
                return
            try:
                if not memory.closed:
                    memory.flush()
            finally:
                cores.release(memory)

    # ------------------------------------------------------------------ prompt and recall
    def system_prompt_block(self) -> str:
        """How the model should use this memory (empty when disabled)."""
        if self.disabled_reason or (self._memory is None and not self._inspecting):
            return ""
        lines = [
            "# Hermes Memory",
            (
                f"Long-term memory of user {self.user_id!r}: the current session, a long-term profile (preferences, "
                "habits) and permanent facts. Memories relevant to each message are recalled for you before the turn."
            ),
            (
                "Use hermes_memory_search to look up something specific, hermes_memory_remember to keep what the user "
                "asks you to remember (tier 'permanent' only for a hard fact quoted in the user's own words), and "
                "hermes_memory_forget to delete a wrong memory by its id."
            ),
        ]
        if self.agent_context != "primary":
            lines.append(f"This is a {self.agent_context} context: memory is read-only.")
        return "\n".join(lines)

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        """The gated recall of ``query`` as plain lines, best first (empty for greetings, fillers, no match, or
        when disabled)."""
        self._recalled = None
        memory = self._memory
        if memory is None or not query or not query.strip():
            return ""
        self._turn_message = query
        context = turn_context(memory, query, user_id=self.user_id, session_id=session_id or self.session_id,
                               top_k=self._settings.prefetch_top_k, caller=self._caller(), include_summary=False)
        lines = memory_lines(context.hits)
        self._recalled = len(context.hits) if lines else None
        return lines

    def recall_status(self) -> Any:
        """What the last ``prefetch`` injected, for Hermes' "recalled N memories" line: a ``RecallStatus`` (Hermes'
        own class where it has one), or None when it injected nothing."""
        count = self._recalled
        return recall_status(count) if count else None

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        """Nothing to do: ``prefetch`` recalls on the next message itself, within milliseconds."""

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        """Note the user's message (what a permanent ``hermes_memory_remember`` must quote) and store it now, at the
        time it was said (``sync_turn`` stores the rest of the turn; a write that fails here is left to it)."""
        memory = self._memory
        self._turn_message = message if isinstance(message, str) else self._turn_message
        if memory is None or not self.writes or not isinstance(message, str) or not message.strip():
            return
        with self._lock:
            try:
                self._ledger.said_ahead(memory.session(self.user_id, self.session_id), "user", message)
            except HermesMemoryError as exc:
                log.warning("the user's message was not stored as its turn started (%s); the sync stores it", exc)

    # ------------------------------------------------------------------ writes
    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        """Append the completed turn to the session buffer; returns after one SQLite transaction (Hermes calls it
        on its background worker). Tool calls and results in ``messages`` are not stored."""
        memory = self._memory
        if memory is None or not self.writes:
            return
        sid = session_id or self.session_id
        with self._lock:
            batch: list[tuple[str, str]] = []
            if isinstance(user_content, str) and user_content.strip():
                batch.append(("user", user_content))
            batch.extend(("tool", note) for note in self._delegations)
            self._delegations.clear()
            if isinstance(assistant_content, str) and assistant_content.strip():
                batch.append(("assistant", assistant_content))
            batch = self._ledger.synced(memory.session(self.user_id, sid), batch)  # a checkpoint's: not twice
            if not batch:
                return
            memory.session(self.user_id, sid).add_messages(batch)
            if sid in self._ended:  # a turn of a session that already ended: extract it now
                self._end(sid)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        """End the current session: store what the user said in its buffered turns, empty the buffer, close the
        session and flush (see the module docstring). Later turns of the same session start a new buffer."""
        if not self.writes:
            return
        with self._lock:
            self._end(self.session_id)
            self._ended.add(self.session_id)

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        """Rebind to ``new_session_id``; a session left behind is ended (as ``on_session_end``). ``rewound``
        (same id, transcript cut back) drops the buffered turns without storing them."""
        if not new_session_id:
            return
        with self._lock:
            old = self.session_id
            if self.writes:
                if rewound and new_session_id == old:
                    self._memory.session(self.user_id, old).clear(undo=True)  # type: ignore[union-attr]
                    self._ledger.forget(old)
                elif new_session_id != old and old not in self._ended:
                    self._end(old)
            self.session_id = new_session_id
            self._ended.discard(new_session_id)
            if self._tools is not None:
                self._tools.scope.session_id = new_session_id
            if self._memory is not None:
                self._memory.flush()

    def _end(self, sid: str) -> None:
        """End session ``sid``: its buffered turns become conversation memories and what the user said in them is
        promoted (the core's session end, on the lifecycle's classifier and guard); once that is done the buffer is
        emptied (later turns of the same session start a new one) and everything flushed."""
        memory = self._memory
        if memory is None:
            return
        session = memory.session(self.user_id, sid)
        session.close()
        memory.flush()  # the archive and the promotions of this session's turns, before the buffer goes
        session.clear()
        self._quoted.clear()
        memory.flush()

    def on_pre_compress(self, messages: list[dict[str, Any]], *, require_checkpoint: bool = False) -> str:
        """Checkpoint the evidence, then return the session's running summary for Hermes' compression prompt ("" when
        there is none yet).

        The user and assistant messages of ``messages`` (the evidence Hermes is about to compress away) that this
        store does not hold yet — a turn still queued on Hermes' worker — are appended to the session's buffer in one
        transaction before this returns; their turn's later ``sync_turn`` does not store them again.

        Raises:
            PreCompressCheckpointError: They could not be stored, or ``require_checkpoint`` is set and this provider
                does not write (disabled, or not a primary context).
        """
        memory = self._memory
        if memory is None or not self.writes:
            if require_checkpoint:
                raise PreCompressCheckpointError(self.disabled_reason or f"hermes_memory stores nothing in a "
                                                 f"{self.agent_context!r} context: no checkpoint was written")
            return ""
        with self._lock:
            self._ledger.checkpoint(memory.session(self.user_id, self.session_id), messages)
        memory.flush()
        summary = prompt_safe_summary(memory.session(self.user_id, self.session_id).view().summary)
        return f"Running summary of earlier turns (Hermes Memory): {summary}" if summary else ""

    def on_memory_write(
        self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None
    ) -> None:
        """Mirror one committed write of Hermes' built-in ``memory`` tool (``add``, ``replace``, ``remove`` on
        target ``memory`` or ``user``) as a long-term memory tagged ``hermes-builtin`` and ``hermes-<target>``."""
        memory = self._memory
        if memory is None or not self.writes or not self._settings.mirror_builtin_writes:
            return
        meta = metadata or {}
        tag = f"hermes-{target or 'memory'}"
        old_text = str(meta.get("old_text") or "")
        with self._lock:
            try:
                self._mirror(memory, action, tag, content, old_text, target)
            except InjectionRejectedError as exc:  # the core's guard refused it: Hermes' entry is not mirrored
                log.warning("hermes_memory: a built-in memory %s was not mirrored: %s", action, exc)

    def _mirror(self, memory: MemoryProvider, action: str, tag: str, content: str, old_text: str, target: str) -> None:
        """One built-in write, mirrored (``add``/``update`` run the core's injection guard)."""
        if action == "add" and content.strip():
            memory.add(content, user_id=self.user_id, session_id=self.session_id,
                       memory_type=MemoryType.LONG_TERM, tags=[BUILTIN_TAG, tag],
                       metadata={"source": "hermes_builtin", "target": target})
        elif action == "replace" and content.strip():
            found = self._find_mirrored(tag, old_text)
            if found is None:
                memory.add(content, user_id=self.user_id, session_id=self.session_id,
                           memory_type=MemoryType.LONG_TERM, tags=[BUILTIN_TAG, tag],
                           metadata={"source": "hermes_builtin", "target": target})
            else:
                memory.update(found, content, version_note="replaced by Hermes' memory tool",
                              user_id=self.user_id, caller=self._caller())
        elif action == "remove":
            found = self._find_mirrored(tag, old_text or content)
            if found is not None:
                memory.delete(found, reason="removed by Hermes' memory tool", user_id=self.user_id,
                              caller=self._caller())

    def _find_mirrored(self, tag: str, text: str) -> str | None:
        """The newest mirrored entry with ``tag`` whose content contains ``text`` (Hermes' own matching rule)."""
        needle = normalize_words(text)
        if not needle or self._memory is None:
            return None
        offset, match = 0, None
        while True:
            page = self._memory.list_memories(user_id=self.user_id, tags=[tag], limit=500, offset=offset,
                                              caller=self._caller())
            match = next((r.id for r in reversed(page) if needle in normalize_words(r.content)), match)
            if len(page) < 500:
                return match
            offset += 500

    def on_delegation(self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any) -> None:
        """Keep a subagent's task and result with the current turn (buffer and summary only, never promoted)."""
        if not self.writes:
            return
        task_chars, result_chars = DELEGATION_CHARS
        with self._lock:
            self._delegations.append(f"Delegated to a subagent: {str(task)[:task_chars]}\n"
                                     f"Result: {str(result)[:result_chars]}")

    # ------------------------------------------------------------------ tools
    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """The three memory tools in the OpenAI function format: none when disabled, only
        ``hermes_memory_search`` once initialised in a context that does not write."""
        if self.disabled_reason:
            return []
        schemas = MemoryTools.schemas()
        if (self._memory is not None or self._inspecting) and self.agent_context != "primary":
            return [s for s in schemas if s["name"] == SEARCH]
        return schemas

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Run a memory tool; the result or ``{"error": ...}`` as a JSON string."""
        tools = self._tools
        if tools is None:
            reason = self.disabled_reason or ("hermes_memory was opened for inspection only" if self._inspecting
                                              else "hermes_memory is not initialised")
            return json.dumps({"error": reason}, ensure_ascii=False)
        return tools.call(tool_name, args)

    # ------------------------------------------------------------------ setup and backup
    def get_config_schema(self) -> list[dict[str, Any]]:
        """The fields ``hermes memory setup`` asks for, typed for Hermes' Desktop and dashboard (no secrets: the store
        is local)."""
        return config_schema(f"$HERMES_HOME/{DATA_DIR_NAME}")

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Write the settings to ``<hermes_home>/config.yaml`` under ``memory.hermes_memory`` (other keys kept).

        The file is replaced atomically and keeps its mode (a ``0600`` file stays ``0600``; a new one is ``0600``).

        Raises:
            ConfigError: The values are invalid, or the file cannot be written; the file is left as it was.
        """
        path = Path(hermes_home) / "config.yaml"
        data = load_yaml_config(path)
        memory = data.setdefault("memory", {})
        if not isinstance(memory, dict):
            raise ConfigError(f"memory in {path} must be a mapping")
        stored = memory.get(PROVIDER_NAME)
        current: dict[str, Any] = stored if isinstance(stored, dict) else {}
        settings = ProviderSettings.from_mapping({**current, **values})
        memory[PROVIDER_NAME] = settings.as_config_values()
        write_yaml_config(path, data)

    def backup_paths(self) -> list[str]:
        """The data directory and key file when they live outside ``HERMES_HOME`` (``hermes backup`` walks only
        Hermes' home). Reads the configuration only; works before ``initialize``."""
        home = self.hermes_home or default_hermes_home()
        try:
            settings = self._given or read_settings(home)
            config = settings.memory_config(home)
        except HermesMemoryError:
            return []
        resolved_home = home.expanduser().resolve()
        out: list[str] = []
        for path in (Path(config.data_dir), config.encryption_key_file):
            if path is None:
                continue
            full = Path(path).expanduser().resolve()
            if full != resolved_home and resolved_home not in full.parents and str(full) not in out:
                out.append(str(full))
        return out

    # ------------------------------------------------------------------ helpers
    def _caller(self) -> Caller:
        return self._tools.scope.caller if self._tools is not None else Caller(f"hermes-agent:{self.user_id}", True)

    def _quotes_user(self, content: str) -> bool:
        """Whether ``content`` is a statement the user made about themselves in this session (the current message
        or a buffered user message; see :mod:`hermes_memory_agents.provenance`: not a quotation, not negated, not
        part of a pasted document). The clause it quotes is not extracted again at the session's end; the rest of
        that message still is."""
        found = own_statement(content, self._user_texts())
        if found is None:
            return False
        self._quoted.setdefault(normalize_words(found.message), []).append(content)
        return True

    def _user_texts(self) -> list[str]:
        """The user's words so far: the current message and the user messages of the buffered turns."""
        texts = [self._turn_message] if self._turn_message else []
        memory = self._memory
        if memory is not None:
            view = memory.session(self.user_id, self.session_id).view()
            texts.extend(m.content for m in view.messages if m.role == "user")
        return texts
