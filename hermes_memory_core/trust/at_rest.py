"""Content at rest: which tiers are sealed (AES-256-GCM) and how their keyword tokens, tags and lookups stay usable.

:class:`SealingCodec` is the :class:`~hermes_memory_core.storage.metadata.RowCodec` the engine hands its metadata
store. Everything a sealed memory says about its user is sealed, not only its content:

- **content** (the row and every version): ``enc:v1:<base64(nonce|ciphertext)>`` with the memory id as associated
  data (a ciphertext cannot be moved to another row);
- **metadata and tags** together, in one sealed envelope kept in the metadata column
  (``{"__hermes_sealed__": "enc:v1:…", "fact_key": "k…"}``): the classifier's reason, the topic key and any
  metadata an application gave; the envelope carries, in the clear, only keyed hashes of the *lookup keys*
  (``fact_key``), so "the user's current fact on this topic" is still one indexed query;
- **version notes, delete reasons and the access log's details** of those memories (field-bound associated data);
- **tag rows and vector-payload tags**: keyed hashes (``t…``), so a tag filter still works (the query side adds
  the hashes of the tags it asks for) and no tag is readable;
- **keyword-index tokens**: keyed hashes (``k…``); queries add the hashes of their terms.

With ``encrypt_at_rest="all"`` every tier is sealed this way, and so are session buffers (messages and their adapter
data), running summaries and the promotion queue (bound to their user and session); dialogue memories then lend
their neighbours keyed-hash context tokens. **Session ids** (a LangGraph thread id, say) are sealed too, wherever
they are kept — the session tables, the memory rows and the vector payloads — deterministically per user
(:meth:`~hermes_memory_core.trust.encryption.ContentCipher.seal_id` scoped by the user id): the sealed id is its own
lookup key, so "this user's session's rows" stays one indexed query, two users sharing a thread id hold unrelated
sealed ids (nothing links them without the key), and it opens again for display and export
(:meth:`SealingCodec.session_key` / :meth:`SealingCodec.session_of`). A store sealed before ids were bound to their
user is re-sealed at its next writable open; a read-only open looks its sessions up in the form the store holds
(:func:`adopt_stored_session_ids`). Without a loaded cipher nothing can be sealed (sealing raises) and
plain rows open as they are.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from hermes_memory_core.errors import ConsistencyError, EncryptionKeyError
from hermes_memory_core.text.terms import document_terms
from hermes_memory_core.text.tokenizer import tokenize
from hermes_memory_core.trust.encryption import ENC_PREFIX, SID_PREFIX, ContentCipher
from hermes_memory_core.validation import RESERVED_METADATA_KEY

if TYPE_CHECKING:
    from hermes_memory_core.storage.metadata import MetadataStore
    from hermes_memory_core.storage.sessions import SessionStore

__all__ = ["AT_REST_MODES", "ENVELOPE", "LOOKUP_KEYS", "POLICY_META", "SESSION_ID_FORMS", "SealingCodec",
           "adopt_stored_session_ids", "reseal_for_policy", "sealed_tiers"]

#: Values of ``MemoryConfig.encrypt_at_rest``.
AT_REST_MODES = ("permanent", "all")
#: Key of the sealed part of a sealed memory's metadata column (reserved: applications cannot set it).
ENVELOPE = RESERVED_METADATA_KEY
#: Metadata keys whose value the store must still find by equality: kept beside the envelope as keyed hashes.
LOOKUP_KEYS = ("fact_key", "remark", "subject", "standing")
_ALL_TIERS = ("short_term", "long_term", "permanent")
#: Meta key recording the policy a store's rows were sealed under (``<mode>/<fields version>``).
POLICY_META = "at_rest"
#: Version of what a mode seals: 1 sealed content only, 2 also metadata, tags, notes, reasons and log details, 3
#: (``all`` only) also session ids, 4 (``all`` only) session ids sealed per user.
_FIELDS_VERSION = 2
_FIELDS_VERSION_ALL = 4
#: How rows hold session ids: ``plain`` (as given), ``shared`` (sealed alike for every user: ``all/3``), ``user``
#: (sealed per user: ``all/4``).
SESSION_ID_FORMS = ("plain", "shared", "user")
#: Associated data of sealed session ids.
_SESSION_ID = "session-id"


class _Filtering(Protocol):
    """A search filter's fields :meth:`SealingCodec.seal_filter` rewrites (a dataclass)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def user_id(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...] | None: ...

    @property
    def session_id(self) -> str | None: ...


_Filter = TypeVar("_Filter", bound=_Filtering)


def sealed_tiers(mode: str) -> tuple[str, ...]:
    """The tiers whose memories are sealed under an ``encrypt_at_rest`` mode."""
    if mode not in AT_REST_MODES:
        raise ValueError(f"encrypt_at_rest must be one of {AT_REST_MODES}, got {mode!r}")
    return ("permanent",) if mode == "permanent" else _ALL_TIERS


class SealingCodec:
    """Seals the memories of ``sealed_tiers`` (and, with ``seal_sessions``, session rows) with ``cipher``; opens
    whatever it finds sealed.

    Args:
        cipher: The store's cipher, or None while no key exists (then sealing raises; unsealed rows open).
        sealed_tiers: Tier names whose memories are sealed at rest.
        seal_sessions: Also seal session messages, summaries and queued promotions (``encrypt_at_rest="all"``),
            and session ids per user.

    Attributes:
        session_ids: How :meth:`session_key` writes a session id (one of :data:`SESSION_ID_FORMS`): ``user`` with
            ``seal_sessions``, else ``plain``; a read-only store adopts the form its rows hold.
    """

    def __init__(self, cipher: ContentCipher | None, sealed_tiers: Iterable[str], seal_sessions: bool = False) -> None:
        self.cipher = cipher
        self.sealed_tiers = frozenset(sealed_tiers)
        self.seal_sessions = seal_sessions
        self.session_ids = "user" if seal_sessions else "plain"

    # ------------------------------------------------------------------ helpers
    def _need(self, what: str) -> ContentCipher:
        if self.cipher is None:
            raise ConsistencyError(f"{what} needs the encryption key; it is not loaded")
        return self.cipher

    def _open(self, stored: str, aad: str) -> str:
        if not stored.startswith(ENC_PREFIX):
            return stored
        if self.cipher is None:
            raise EncryptionKeyError("this store's memories are encrypted and no key is loaded")
        return self.cipher.decrypt(stored, aad)

    def _keyed(self, prefix: str, text: str) -> str:
        cipher = self._need("a keyed hash")
        return prefix + hmac.new(cipher.token_key, text.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:20]

    def seals(self, memory_type: str) -> bool:
        """Whether memories of this tier are sealed at rest."""
        return memory_type in self.sealed_tiers

    @staticmethod
    def is_sealed(stored: str) -> bool:
        """Whether a stored value is a ciphertext (not plain text)."""
        return stored.startswith(ENC_PREFIX)

    # ------------------------------------------------------------------ content
    def seal(self, memory_id: str, memory_type: str, text: str) -> str:
        if memory_type not in self.sealed_tiers:
            return text
        return self._need(f"{memory_type} memories").encrypt(text, memory_id)

    def open(self, memory_id: str, stored: str) -> str:
        return self._open(stored, memory_id)

    # ------------------------------------------------------------------ other fields of a memory
    def seal_field(self, memory_id: str, memory_type: str, field: str, text: str) -> str:
        """A text field of a memory kept beside its content (version note, delete reason, log detail)."""
        if memory_type not in self.sealed_tiers or not text:
            return text
        return self._need(f"{memory_type} memories").encrypt(text, f"{memory_id}#{field}")

    def open_field(self, memory_id: str, field: str, stored: str) -> str:
        return self._open(stored, f"{memory_id}#{field}") if stored else stored

    def pack_metadata(self, memory_id: str, memory_type: str, metadata: Mapping[str, Any], tags: Sequence[str]) -> str:
        """The metadata column of a memory: plain JSON, or a sealed envelope of metadata and tags."""
        if memory_type not in self.sealed_tiers:
            return json.dumps(dict(metadata), ensure_ascii=False)
        inner = json.dumps({"metadata": dict(metadata), "tags": list(tags)}, ensure_ascii=False)
        envelope: dict[str, str] = {ENVELOPE: self._need(f"{memory_type} memories").encrypt(inner, f"{memory_id}#metadata")}
        for key in LOOKUP_KEYS:
            if metadata.get(key) is not None:
                envelope[key] = self.lookup_value(memory_type, key, str(metadata[key]))
        return json.dumps(envelope)

    def unpack_metadata(self, memory_id: str, stored: str | None) -> tuple[dict[str, Any], tuple[str, ...] | None]:
        """``(metadata, tags)`` of a metadata column; tags are None when they live in plain tag rows."""
        data = json.loads(stored) if stored else {}
        sealed = data.get(ENVELOPE) if isinstance(data, dict) else None
        if not isinstance(sealed, str) or not sealed.startswith(ENC_PREFIX):
            return (data if isinstance(data, dict) else {}), None
        inner = json.loads(self._open(sealed, f"{memory_id}#metadata"))
        return dict(inner["metadata"]), tuple(inner["tags"])

    def tag_keys(self, memory_type: str, tags: Sequence[str]) -> list[str]:
        """What tag rows and vector payloads hold for a memory's tags (keyed hashes for sealed tiers)."""
        if memory_type not in self.sealed_tiers:
            return list(tags)
        return [self._keyed("t", "tag\x00" + tag) for tag in tags]

    def filter_tags(self, tags: Sequence[str] | None) -> tuple[str, ...] | None:
        """A tag filter's values plus their keyed hashes, so sealed memories match too."""
        if not tags:
            return None if tags is None else tuple(tags)
        out = list(dict.fromkeys(tags))
        if self.cipher is not None and self.sealed_tiers:
            out += [self._keyed("t", "tag\x00" + tag) for tag in tags]
        return tuple(out)

    def seal_filter(self, flt: _Filter) -> _Filter:
        """A search filter in the form the rows hold: its tags with their keyed hashes (:meth:`filter_tags`), its
        session id as stored for its user (:meth:`session_key`)."""
        return dataclasses.replace(flt, tags=self.filter_tags(flt.tags),
                                   session_id=self.session_key(flt.user_id, flt.session_id))

    def lookup_value(self, memory_type: str, key: str, value: str) -> str:
        """What the metadata column holds for a lookup key's value (a keyed hash for sealed tiers)."""
        if memory_type not in self.sealed_tiers or self.cipher is None:
            return value
        return self._keyed("k", f"{key}\x00{value}")

    # ------------------------------------------------------------------ session rows
    def seal_session(self, user_id: str, session_id: str | None, text: str) -> str:
        """A session row's text (message content or data, summary, queued promotion), bound to its session."""
        if not self.seal_sessions:
            return text
        return self._need("session buffers").encrypt(text, f"session#{user_id}#{session_id or ''}")

    def open_session(self, user_id: str, session_id: str | None, stored: str) -> str:
        return self._open(stored, f"session#{user_id}#{session_id or ''}")

    def session_key(self, user_id: str, session_id: str | None) -> str | None:
        """What rows and vector payloads hold for ``user_id``'s session ``session_id``: with ``seal_sessions`` the
        id sealed deterministically under the user (the same user and id always seal the same way, so it is the
        lookup key; another user's same id seals to an unrelated value), else the id (see :attr:`session_ids`)."""
        if session_id is None or self.session_ids == "plain":
            return session_id
        scope = user_id if self.session_ids == "user" else None
        return self._need("session ids").seal_id(session_id, _SESSION_ID, scope)

    def session_of(self, stored: str | None) -> str | None:
        """The session id a row or payload holds (the inverse of :meth:`session_key`, whatever its form; plain ids
        as they are)."""
        if stored is None or not stored.startswith(SID_PREFIX):
            return stored
        if self.cipher is None:
            raise EncryptionKeyError("this store's session ids are encrypted and no key is loaded")
        return self.cipher.open_id(stored, _SESSION_ID)

    # ------------------------------------------------------------------ keyword index
    def index_tokens(self, memory_type: str, text: str) -> list[str]:
        tokens = document_terms(text)
        if memory_type in self.sealed_tiers and self.cipher is not None:
            return [self.cipher.token_hash(t) for t in tokens]
        return tokens

    def context_tokens(self, text: str) -> list[str]:
        tokens = tokenize(text)
        if self.seal_sessions and self.cipher is not None:  # every tier sealed: context words stay hashed too
            return [self.cipher.token_hash(t) for t in tokens]
        return tokens

    def query_terms(self, terms: Sequence[str]) -> list[str]:
        """A keyword query's terms plus their keyed hashes (so sealed memories match too), de-duplicated."""
        out = list(dict.fromkeys(terms))
        if self.cipher is not None:
            out += [self.cipher.token_hash(t) for t in out]
        return out


def reseal_for_policy(
    metadata: MetadataStore, sessions: SessionStore, codec: SealingCodec, mode: str, ensure_key: Callable[[], None]
) -> bool:
    """Re-seal a store once when its rows were written under another policy (another ``encrypt_at_rest`` mode, or
    an older version of what a mode seals): the tiers sealed before or now, and session rows when either mode
    seals them, in one transaction. Returns whether it re-sealed anything.

    Args:
        metadata: The open store, its codec loaded with the key (if any).
        sessions: Its session rows.
        codec: The policy now (the same key opens what was sealed and seals what is due).
        mode: ``encrypt_at_rest`` now.
        ensure_key: Creates the key if there is none yet (needed when sessions are sealed).
    """
    wanted = f"{mode}/{_FIELDS_VERSION_ALL if mode == 'all' else _FIELDS_VERSION}"
    was = metadata.get_meta(POLICY_META) or "permanent/1"
    if was == wanted:
        return False
    old_mode = was.split("/")[0] if was.split("/")[0] in AT_REST_MODES else "all"
    tiers = tuple(sorted(set(sealed_tiers(old_mode)) | codec.sealed_tiers))
    if codec.seal_sessions:
        ensure_key()
    with metadata.atomic():
        metadata.admin.recode(tiers, codec)
        if codec.seal_sessions or old_mode == "all":
            sessions.recode(codec, codec)
        metadata.set_meta(POLICY_META, wanted)
    return True


def adopt_stored_session_ids(metadata: MetadataStore, codec: SealingCodec) -> str:
    """For a store opened read-only (never re-sealed): make ``codec`` look session ids up in the form the rows hold
    (``user`` under the current ``all`` policy, ``shared`` under ``all/3``, ``plain`` before ids were sealed), so
    its sessions are still found. Returns the form adopted."""
    was = metadata.get_meta(POLICY_META) or "permanent/1"
    form = {f"all/{_FIELDS_VERSION_ALL}": "user", "all/3": "shared"}.get(was, "plain")
    codec.session_ids = form
    return form
