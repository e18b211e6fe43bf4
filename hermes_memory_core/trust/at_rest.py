"""Content at rest: which tiers are sealed (AES-256-GCM) and how their keyword tokens stay searchable.

:class:`SealingCodec` is the :class:`~hermes_memory_core.storage.metadata.RowCodec` the engine hands its metadata
store. Content of a sealed tier is stored as ``enc:v1:<base64(nonce|ciphertext)>`` with the memory id as
associated data (a ciphertext cannot be moved to another row); its keyword-index tokens are keyed hashes, so the
index holds no plaintext and queries still match (the search side adds the hashes of its terms). Content of other
tiers is kept as given.
"""

from __future__ import annotations

from collections.abc import Sequence

from hermes_memory_core.errors import ConsistencyError, EncryptionKeyError
from hermes_memory_core.text.terms import document_terms
from hermes_memory_core.text.tokenizer import tokenize
from hermes_memory_core.trust.encryption import ENC_PREFIX, ContentCipher

__all__ = ["SealingCodec"]


class SealingCodec:
    """Seals the content of ``sealed_tiers`` with ``cipher``; opens whatever it finds sealed.

    Args:
        cipher: The store's cipher, or None while no key exists (then sealing raises; unsealed content opens).
        sealed_tiers: Tier names whose content is encrypted at rest.
    """

    def __init__(self, cipher: ContentCipher | None, sealed_tiers: Sequence[str]) -> None:
        self.cipher = cipher
        self.sealed_tiers = frozenset(sealed_tiers)

    def seal(self, memory_id: str, memory_type: str, text: str) -> str:
        if memory_type not in self.sealed_tiers:
            return text
        if self.cipher is None:
            raise ConsistencyError(f"{memory_type} memories need the encryption key; it is not loaded")
        return self.cipher.encrypt(text, memory_id)

    def open(self, memory_id: str, stored: str) -> str:
        if not stored.startswith(ENC_PREFIX):
            return stored
        if self.cipher is None:
            raise EncryptionKeyError("this store's memories are encrypted and no key is loaded")
        return self.cipher.decrypt(stored, memory_id)

    def index_tokens(self, memory_type: str, text: str) -> list[str]:
        tokens = document_terms(text)
        if memory_type in self.sealed_tiers and self.cipher is not None:
            return [self.cipher.token_hash(t) for t in tokens]
        return tokens

    def context_tokens(self, text: str) -> list[str]:
        return tokenize(text)

    def query_terms(self, terms: Sequence[str]) -> list[str]:
        """A keyword query's terms plus their keyed hashes (so sealed memories match too), de-duplicated."""
        out = list(dict.fromkeys(terms))
        if self.cipher is not None:
            out += [self.cipher.token_hash(t) for t in out]
        return out
