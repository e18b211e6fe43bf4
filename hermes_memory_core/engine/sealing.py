"""The store's identity and its content at rest: the recorded model and dimension, the key, the at-rest policy and
key rotation.

A store remembers the model and dimension it was built with; reopening with others is an error. Content of sealed
tiers is sealed by the :class:`~hermes_memory_core.trust.at_rest.SealingCodec` the metadata store holds; when
``encrypt_at_rest`` changes, or the key is rotated, everything sealed is re-sealed in one transaction and the vector
payloads' keyed-hash tags follow.
"""

from __future__ import annotations

from pathlib import Path

from hermes_memory_core.engine.parts import StoreParts
from hermes_memory_core.errors import DimensionMismatchError
from hermes_memory_core.storage.read_only import read_only_error
from hermes_memory_core.storage.vectors import retag_points
from hermes_memory_core.text.language import language_of
from hermes_memory_core.trust.at_rest import reseal_for_policy

__all__ = ["Sealing"]


class Sealing:
    """Identity, key and at-rest policy of one store."""

    def __init__(self, parts: StoreParts) -> None:
        self._parts = parts

    def load_identity(self) -> None:
        """Check the store's recorded model and dimension, load its key, and finish a pending index rebuild."""
        parts = self._parts
        metadata = parts.metadata
        self._check_store_identity()
        parts.codec.cipher = parts.keys.load(metadata)
        if parts.read_only:
            return
        if metadata.get_meta("language_backfill") == "1":  # set by the migration that added languages
            while batch := metadata.records.missing_languages(1000):
                metadata.records.set_languages([(mid, language_of(text)) for mid, text in batch])
            metadata.set_meta("language_backfill", "0")
        if metadata.get_meta("keyword_index_rebuild") == "1":  # set by a migration or a server bundle
            metadata.keywords.repair_keyword_index()
            metadata.set_meta("keyword_index_rebuild", "0")

    def _check_store_identity(self) -> None:
        """A store remembers the model and dimension it was built with; reopening with others is an error."""
        parts = self._parts
        config, metadata, model_id = parts.config, parts.metadata, parts.embedder.model_id
        stored_dim = metadata.get_meta("vector_dim")
        stored_model = metadata.get_meta("embedding_model")
        if stored_dim is None:
            metadata.set_meta("vector_dim", str(config.vector_dim))
            metadata.set_meta("embedding_model", model_id)
            metadata.set_meta("collection", config.collection)
            return
        if int(stored_dim) != config.vector_dim:
            raise DimensionMismatchError(
                f"the store at {parts.location} was built with vector_dim={stored_dim} but the configuration says "
                f"vector_dim={config.vector_dim}"
            )
        if stored_model != model_id:
            raise DimensionMismatchError(
                f"the store at {parts.location} was embedded with {stored_model!r}; the configured model is "
                f"{model_id!r}. Vectors of two models are not comparable: use the original model "
                "or export and re-import into a new store."
            )

    def apply_at_rest_policy(self) -> None:
        """Re-seal the store once when ``encrypt_at_rest`` differs from what it was written with; then no old
        plaintext is left in the keyword index, the files or the vector payloads."""
        parts = self._parts
        with parts.write_lock:
            if reseal_for_policy(parts.metadata, parts.sessions, parts.codec, parts.config.encrypt_at_rest,
                                 self.ensure_key) \
                    and (parts.vectors.count() or parts.metadata.lifecycle.counts()["versions"]):  # else a new, empty store
                parts.metadata.keywords.optimize_keyword_index()  # merges away index entries of the old form
                self.refresh_payload_tags(rewrite=True)

    def refresh_payload_tags(self, rewrite: bool = False) -> None:
        """Bring the tags and session ids in vector payloads to the codec's current form (after a re-seal or a key
        rotation)."""
        parts = self._parts
        records = [rec for batch in parts.metadata.records.iter_active() for rec in batch]
        tags = {rec.id: parts.codec.tag_keys(rec.memory_type.value, rec.tags) for rec in records}
        sessions = {rec.id: parts.codec.session_key(rec.user_id, rec.session_id) for rec in records}
        retag_points(parts.vectors, tags, rewrite, sessions)

    @property
    def key_file(self) -> Path | None:
        """The file that holds the encryption key, or None when the key comes from the config or environment."""
        keys = self._parts.keys
        return keys.key_file if keys.uses_file else None

    def ensure_key(self) -> None:
        """Before the first sealed write: create the key (file) and the store's check value if needed."""
        parts = self._parts
        if parts.read_only:
            raise read_only_error(parts.location, "write sealed memories", parts.read_only_reason)
        parts.codec.cipher = parts.keys.ensure(parts.metadata, parts.codec.cipher)

    def rotate_key(self, new_key: bytes, save_to: Path | None = None) -> None:
        """Re-seal everything sealed under ``new_key`` in one transaction (the caller checked permission); the new
        key is durably handed over first (see :meth:`KeyManager.rotate`)."""
        parts = self._parts
        with parts.write_lock:
            self.ensure_key()
            parts.codec = parts.keys.rotate(parts.metadata, parts.sessions, parts.codec, new_key, save_to)
            parts.metadata.codec = parts.codec
            parts.hot.clear()
            self.refresh_payload_tags()  # keyed-hash tags follow the key
