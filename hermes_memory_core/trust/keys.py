"""Where a store's encryption key comes from, how it is checked, created and rotated.

The key comes from, in order: ``MemoryConfig.encryption_key`` (also ``HERMES_MEMORY_ENCRYPTION_KEY``), the file
``encryption_key_file``, or ``<data_dir>/hermes.key`` — created with the first sealed write when no key is
configured. The store keeps a check value (``key_check`` in its meta) that tells a wrong key at open time. A
rotation writes the new key beside the file first (``hermes.key.new``) and moves it into place after the commit,
so a crash in between is recovered at the next open. When the key comes from the configuration or the
environment, a rotation first writes the new key to a file the operator names and reads it back: the only copy of
a key is never just printed or returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_memory_core.errors import EncryptionKeyError, InvalidInputError
from hermes_memory_core.trust.encryption import ContentCipher, decode_key, generate_key, read_key_file, write_key_file

if TYPE_CHECKING:
    from pydantic import SecretStr

    from hermes_memory_core.storage.metadata import MetadataStore
    from hermes_memory_core.storage.sessions import SessionStore
    from hermes_memory_core.trust.at_rest import SealingCodec

__all__ = ["KEY_CHECK", "KEY_FILE", "KeyManager"]

#: Default key file name inside the data directory.
KEY_FILE = "hermes.key"
#: Meta key of the store's key check value.
KEY_CHECK = "key_check"


class KeyManager:
    """The key of one store.

    Args:
        encryption_key: A configured key (base64 or hex), or None.
        key_file: A configured key file, or None (then ``<data_dir>/hermes.key``).
        data_dir: The store's data directory.
    """

    def __init__(self, encryption_key: SecretStr | None, key_file: Path | None, data_dir: Path) -> None:
        self._configured = encryption_key
        self._explicit_file = key_file
        self.key_file = Path(key_file) if key_file is not None else Path(data_dir) / KEY_FILE

    @property
    def uses_file(self) -> bool:
        """True when the key lives in :attr:`key_file` (no key in the config or environment)."""
        return self._configured is None

    @property
    def pending_file(self) -> Path:
        """Where a rotation writes the new key before its commit."""
        return self.key_file.with_name(self.key_file.name + ".new")

    def configured_key(self) -> bytes | None:
        """The configured key, the key file's, or None when neither exists yet."""
        if self._configured is not None:
            return decode_key(self._configured.get_secret_value())
        if self.key_file.exists():
            return read_key_file(self.key_file)
        if self._explicit_file is not None:
            raise EncryptionKeyError(
                f"encryption_key_file {self.key_file} does not exist (give the key file of the store, or the key "
                "itself in HERMES_MEMORY_ENCRYPTION_KEY)"
            )
        return None

    def load(self, metadata: MetadataStore) -> ContentCipher | None:
        """The cipher of a store at open time, checked against its check value (None: no key and nothing sealed).

        Raises:
            EncryptionKeyError: The store holds sealed content and no key is configured, or the key is wrong.
        """
        check = metadata.get_meta(KEY_CHECK)
        key = self.configured_key()
        if key is None:
            if check is not None:
                raise EncryptionKeyError(
                    f"the store at {metadata.location} holds encrypted memories but no key was given: set "
                    "HERMES_MEMORY_ENCRYPTION_KEY (encryption_key), or name the key file with encryption_key_file "
                    "(hermes-memory ... --key-file FILE)"
                )
            return None
        cipher = ContentCipher(key)
        if check is not None and not cipher.verify(check):
            pending = self.pending_file
            if pending.exists() and ContentCipher(read_key_file(pending)).verify(check):
                cipher = ContentCipher(read_key_file(pending))  # a rotation committed but not yet renamed
                pending.replace(self.key_file)
            else:
                raise EncryptionKeyError(
                    f"the configured encryption key is not the key of the store at {metadata.location} (wrong key)"
                )
        return cipher

    def ensure(self, metadata: MetadataStore, cipher: ContentCipher | None) -> ContentCipher:
        """Before the first sealed write: a cipher, creating the default key file if no key is configured, and
        the store's check value."""
        if cipher is None:
            key = generate_key()
            write_key_file(self.key_file, key)
            cipher = ContentCipher(key)
        if metadata.get_meta(KEY_CHECK) is None:
            metadata.set_meta(KEY_CHECK, cipher.check_value())
        return cipher

    def rotate(
        self,
        metadata: MetadataStore,
        sessions: SessionStore,
        codec: SealingCodec,
        new_key: bytes,
        save_to: Path | None = None,
    ) -> SealingCodec:
        """Re-seal every sealed row under ``new_key`` in one transaction; returns the new codec.

        The new key is handed over *before* the commit: written beside the key file (when the key lives in one)
        and to ``save_to`` (required when the key comes from the config or environment), each fsynced and read
        back. If any of that or the commit fails, the store is unchanged and the written copies are removed; after
        the commit the staged key file is moved into place (a crash in between is recovered at the next open).

        Raises:
            InvalidInputError: The key is configured and no ``save_to`` was given.
            EncryptionKeyError: ``save_to`` exists already, or a copy cannot be written or read back.
        """
        from hermes_memory_core.trust.at_rest import SealingCodec

        cipher = ContentCipher(new_key)
        fresh = SealingCodec(cipher, codec.sealed_tiers, codec.seal_sessions)
        written = self._stage_rotation(new_key, save_to)
        try:
            with metadata.atomic():
                metadata.admin.recode(tuple(sorted(codec.sealed_tiers)), fresh)
                if codec.seal_sessions:
                    sessions.recode(codec, fresh)
                metadata.set_meta(KEY_CHECK, cipher.check_value())
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise
        if self.uses_file:
            self.pending_file.replace(self.key_file)
        return fresh

    def _stage_rotation(self, key: bytes, save_to: Path | None) -> list[Path]:
        """Write the new key wherever it must be before the commit; return what was written."""
        if save_to is None and not self.uses_file:
            raise InvalidInputError(
                "the encryption key comes from the configuration or environment: name a file for the new key "
                "(save_to=..., hermes-memory rotate-key --key-out FILE); it is written and checked before the "
                "re-encryption commits"
            )
        targets = ([self.pending_file] if self.uses_file else []) + ([Path(save_to)] if save_to is not None else [])
        if save_to is not None and (Path(save_to).exists() or Path(save_to).is_symlink()):
            raise EncryptionKeyError(f"{save_to} exists; the new key is only written to a new file")
        written: list[Path] = []
        try:
            for path in targets:
                write_key_file(path, key)
                written.append(path)
                if read_key_file(path) != key:
                    raise EncryptionKeyError(f"the new key read back from {path} differs from the key written")
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise
        return written

    def copy_beside(self, data_dir: Path) -> Path | None:
        """Write a key given as a file elsewhere to ``<data_dir>/hermes.key`` when that does not exist yet (after a
        restore: later opens of the store find its key by default). A key from the configuration or environment
        is never written anywhere. Returns the file written, or None."""
        if self._configured is not None or self._explicit_file is None:
            return None
        target = Path(data_dir) / KEY_FILE
        if target.exists() or target.resolve() == self.key_file.resolve():
            return None
        write_key_file(target, read_key_file(self.key_file))
        return target

    @staticmethod
    def new_key() -> bytes:
        """A fresh random 32-byte key."""
        return generate_key()
