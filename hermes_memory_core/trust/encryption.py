"""Encryption at rest of permanent memories: AES-256-GCM, one key per store.

- Content of permanent memories (current row and every version) is stored as ``enc:v1:<base64(nonce|ciphertext)>``
  with the memory id as associated data, so a ciphertext cannot be moved to another row.
- Their keyword-index tokens are keyed hashes (HMAC-SHA256 with a key derived from the same key), so the
  keyword index holds no plaintext either, and queries still match.
- The key comes from, in order: ``MemoryConfig.encryption_key`` (also ``HERMES_MEMORY_ENCRYPTION_KEY``), the
  file ``encryption_key_file``, or ``<data_dir>/hermes.key`` — created for a new store when no key is configured
  (convenient for local use; in production keep the key outside the data directory). Keys are 32 bytes, given
  as base64 or hex. Export bundles never contain the key.
- A check value in the store detects a wrong key at open time; ``rotate`` re-encrypts everything in one
  transaction.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from hermes_memory_core.errors import EncryptionKeyError

__all__ = ["ENC_PREFIX", "SID_PREFIX", "ContentCipher", "decode_key", "generate_key", "read_key_file", "write_key_file"]

ENC_PREFIX = "enc:v1:"
#: Prefix of a deterministically sealed identifier (:meth:`ContentCipher.seal_id`).
SID_PREFIX = "sid:v1:"
_CHECK_PLAINTEXT = b"hermes-memory key check v1"
_CHECK_AAD = b"hermes-memory/key-check"


def generate_key() -> bytes:
    """A fresh random 32-byte key."""
    return secrets.token_bytes(32)


def decode_key(text: str) -> bytes:
    """A 32-byte key from base64 (standard or url-safe) or hex text."""
    raw = text.strip()
    candidates = []
    if len(raw) == 64:
        with contextlib.suppress(ValueError):
            candidates.append(bytes.fromhex(raw))
    for decoder in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            candidates.append(decoder(raw + "=" * (-len(raw) % 4)))
        except (binascii.Error, ValueError):
            continue
    for key in candidates:
        if len(key) == 32:
            return key
    raise EncryptionKeyError("an encryption key must be 32 bytes, given as base64 or hex (64 hex characters)")


def read_key_file(path: Path) -> bytes:
    try:
        return decode_key(path.read_text(encoding="ascii"))
    except FileNotFoundError as exc:
        raise EncryptionKeyError(f"encryption key file not found: {path}") from exc
    except UnicodeDecodeError as exc:
        raise EncryptionKeyError(f"encryption key file {path} is not a base64/hex key") from exc
    except OSError as exc:
        raise EncryptionKeyError(f"cannot read the encryption key file {path}: {exc.strerror or exc}") from exc


def write_key_file(path: Path, key: bytes) -> None:
    """Write a key file readable by the owner only, atomically and durably (the file and its folder are fsynced).

    Raises:
        EncryptionKeyError: The file cannot be written (the message says why); nothing is left half-written.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(base64.b64encode(key).decode("ascii") + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise EncryptionKeyError(f"cannot write the key file {path}: {exc.strerror or exc}") from exc


class ContentCipher:
    """AES-256-GCM for content and HMAC-SHA256 for keyword tokens, from one 32-byte key."""

    def __init__(self, key: bytes) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if len(key) != 32:
            raise EncryptionKeyError("an encryption key must be 32 bytes")
        self._aead = AESGCM(key)
        self._token_key = hashlib.sha256(b"hermes-memory/token-hmac\x00" + key).digest()
        self.key_id = hashlib.sha256(b"hermes-memory/key-id\x00" + key).hexdigest()[:16]

    def encrypt(self, plaintext: str, aad: str) -> str:
        nonce = secrets.token_bytes(12)
        sealed = self._aead.encrypt(nonce, plaintext.encode("utf-8"), aad.encode("utf-8"))
        return ENC_PREFIX + base64.b64encode(nonce + sealed).decode("ascii")

    def decrypt(self, token: str, aad: str) -> str:
        from cryptography.exceptions import InvalidTag

        if not token.startswith(ENC_PREFIX):
            return token
        try:
            blob = base64.b64decode(token[len(ENC_PREFIX) :])
            return self._aead.decrypt(blob[:12], blob[12:], aad.encode("utf-8")).decode("utf-8")
        except (InvalidTag, ValueError, binascii.Error) as exc:
            raise EncryptionKeyError(
                "cannot decrypt a permanent memory: the encryption key is wrong, or the data was altered"
            ) from exc

    def seal_id(self, identifier: str, purpose: str, scope: str | None = None) -> str:
        """``identifier`` sealed deterministically: the same identifier, purpose and scope always give the same
        value, so a sealed id is its own lookup key (equal ids stay equal, nothing else about them shows), and
        :meth:`open_id` gives it back for display. AES-256-GCM with a synthetic nonce (an HMAC of the identifier
        under the token key, as in SIV): a nonce repeats only with its plaintext.

        ``scope`` (a user id, say) enters the synthetic nonce only: the same identifier under two scopes seals to
        two unrelated values (nobody without the key can tell they are equal), and either opens without knowing
        the scope. ``None`` is the unscoped form (stores sealed before scopes existed)."""
        data = identifier.encode("utf-8", "surrogatepass")
        if scope is None:
            material = purpose.encode("utf-8") + b"\x00" + data
        else:
            owner = scope.encode("utf-8", "surrogatepass")
            material = b"scoped\x00" + purpose.encode("utf-8") + b"\x00" + len(owner).to_bytes(4, "big") + owner + data
        nonce = hmac.new(self._token_key, material, hashlib.sha256).digest()[:12]
        sealed = self._aead.encrypt(nonce, data, purpose.encode("utf-8"))
        return SID_PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode("ascii").rstrip("=")

    def open_id(self, sealed: str, purpose: str) -> str:
        """The identifier of a :meth:`seal_id` value (other values come back as they are).

        Raises:
            EncryptionKeyError: It was sealed under another key, or altered.
        """
        from cryptography.exceptions import InvalidTag

        if not sealed.startswith(SID_PREFIX):
            return sealed
        body = sealed[len(SID_PREFIX) :]
        try:
            blob = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            return self._aead.decrypt(blob[:12], blob[12:], purpose.encode("utf-8")).decode("utf-8", "surrogatepass")
        except (InvalidTag, ValueError, binascii.Error) as exc:
            raise EncryptionKeyError("cannot open a sealed session id: the encryption key is wrong, or the data was "
                                     "altered") from exc

    @property
    def token_key(self) -> bytes:
        """The HMAC key of keyed hashes (tokens, tags, lookups), derived from the content key."""
        return self._token_key

    def token_hash(self, token: str) -> str:
        return "k" + hmac.new(self._token_key, token.encode("utf-8"), hashlib.sha256).hexdigest()[:20]

    def check_value(self) -> str:
        nonce = secrets.token_bytes(12)
        return base64.b64encode(nonce + self._aead.encrypt(nonce, _CHECK_PLAINTEXT, _CHECK_AAD)).decode("ascii")

    def verify(self, check_value: str) -> bool:
        from cryptography.exceptions import InvalidTag

        try:
            blob = base64.b64decode(check_value)
            return self._aead.decrypt(blob[:12], blob[12:], _CHECK_AAD) == _CHECK_PLAINTEXT
        except (InvalidTag, ValueError, binascii.Error):
            return False
