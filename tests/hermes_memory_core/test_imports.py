import hermes_memory_core

EXPECTED = {
    "BackendUnavailableError", "BundleError", "CallableLLM", "Caller", "ConfigError", "ConsistencyError",
    "ContentTooLongError", "DimensionMismatchError", "EmbeddingError", "EmptyContentError", "EncryptionKeyError", "ErasureReport",
    "ForgetReport", "HermesMemoryError", "InvalidIdError", "InvalidInputError", "LLM", "MemoryConfig", "MemoryHit",
    "MemoryItem", "MemoryProvider", "MemoryRecord", "MemoryType", "MemoryVersion", "Message", "NotFoundError",
    "PermissionDeniedError", "RankingConfig", "ReconcileReport", "RememberResult", "RememberAction", "AccessAction", "SessionMemory", "SessionView",
    "StorageFullError", "StoreBusyError", "StoreClosedError", "StoreLockedError", "StoreStats", "UnknownMemoryTypeError", "__version__", "needs_permanent",
    "should_recall", "ExtractiveSummarizer", "LLMSummarizer", "Summarizer", "Redactor", "RedactionResult",
    "WriteVerdict", "check_memory_write", "others_words", "is_reserved_user_id", "reserved_user_ids", "CONVERSATION_KIND", "MEMORY_BLOCK_START", "MEMORY_BLOCK_END",
    "memory_line", "memory_lines", "render_memory_block", "prompt_safe", "prompt_safe_hits", "prompt_safe_summary", "shown_hit", "WITHHELD_NOTE", "cli_parent", "cli_config", "cli_user_hint", "ReadOnlyStoreError", "InjectionRejectedError",
    "TurnContext", "turn_context", "aturn_context", "holds_no_answer", "says_something", "answering",
    "search_answers", "asearch_answers",
}


def test_all_is_pinned() -> None:
    assert set(hermes_memory_core.__all__) == EXPECTED
    for name in hermes_memory_core.__all__:
        assert hasattr(hermes_memory_core, name)


def test_core_imports_no_framework() -> None:
    import subprocess
    import sys

    code = (
        "import sys, hermes_memory_core, hermes_memory_core.cli, hermes_memory_core.portability;"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('langchain_core','langchain','llama_index')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_errors_share_one_base() -> None:
    for name in hermes_memory_core.__all__:
        obj = getattr(hermes_memory_core, name)
        if isinstance(obj, type) and name.endswith("Error"):
            assert issubclass(obj, hermes_memory_core.HermesMemoryError)
