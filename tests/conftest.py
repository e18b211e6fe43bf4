"""Shared fixtures. Every test runs offline (HF_HUB_OFFLINE=1 is forced here)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_memory_core import Caller, MemoryConfig, MemoryProvider
from hermes_memory_core.embedding import Embedder, load_embedder
from hermes_memory_core.storage.sql.base import SQLMetadataStore
from tests.fakes import Clock, HashingEmbedder

#: The encryption key of test stores (32 bytes, base64), so bundles restore into other test directories.
TEST_KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
#: Tests act as the application's operator: full permanent-tier permissions (denial is tested on its own).
ADMIN = Caller.admin("tests")


#: A PostgreSQL server for the server-mode tests (``eval "$(.ci/postgres.sh start /tmp/hm-pg)"`` starts a
#: throw-away one and exports it); without it those tests are skipped.
POSTGRES_URL = os.environ.get("HERMES_TEST_POSTGRES_URL")
#: A Qdrant server for the server-mode tests; without it they use qdrant-client's in-process ``:memory:`` mode.
QDRANT_URL = os.environ.get("QDRANT_URL")
NEEDS_POSTGRES = pytest.mark.skipif(
    not POSTGRES_URL,
    reason='needs PostgreSQL: run eval "$(.ci/postgres.sh start /tmp/hm-pg)" first (sets HERMES_TEST_POSTGRES_URL)',
)
#: ``backend`` values of :func:`make_config`: the embedded defaults, and PostgreSQL + qdrant-client.
BACKENDS = [
    pytest.param("embedded", id="embedded"),
    pytest.param("server", id="server", marks=[NEEDS_POSTGRES, pytest.mark.server]),
]
_SCHEMAS: list[str] = []


def fresh_schema() -> str:
    """A new PostgreSQL schema name for one test store (dropped at the end of the test session)."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    _SCHEMAS.append(name)
    return name


def open_sql_store(backend: str, tmp_path: Path) -> SQLMetadataStore:
    """A bare SQL metadata store of ``backend`` (one of :data:`BACKENDS`), opened: SQLite in ``tmp_path`` for
    "embedded", else PostgreSQL at ``POSTGRES_URL`` in a fresh schema."""
    from hermes_memory_core.storage.postgres.store import PostgresMetadataStore
    from hermes_memory_core.storage.sqlite.store import SQLiteMetadataStore

    if backend == "embedded":
        made: SQLMetadataStore = SQLiteMetadataStore(tmp_path / "m.sqlite")
    else:
        assert POSTGRES_URL
        made = PostgresMetadataStore(POSTGRES_URL, fresh_schema(), pool_size=2)
    made.open()
    return made


def make_config(path: Path, backend: str = "embedded", **overrides: object) -> MemoryConfig:
    """A test store config with the shared test key.

    Args:
        path: The data directory.
        backend: ``"embedded"`` (SQLite + Qdrant Edge) or ``"server"`` (PostgreSQL in a fresh schema +
            qdrant-client: the server at ``QDRANT_URL``, else ``:memory:``).
    """
    if backend == "server":
        if not POSTGRES_URL:
            pytest.skip("needs PostgreSQL (HERMES_TEST_POSTGRES_URL)")
        overrides.setdefault("metadata_url", POSTGRES_URL)
        overrides.setdefault("metadata_schema", fresh_schema())
        overrides.setdefault("vector_backend", "qdrant")
        overrides.setdefault("qdrant_url", QDRANT_URL or ":memory:")
        overrides.setdefault("collection", f"c_{uuid.uuid4().hex[:12]}")
    overrides.setdefault("encryption_key", TEST_KEY)
    return MemoryConfig(data_dir=path, **overrides)  # type: ignore[arg-type]


@pytest.fixture(scope="session", autouse=True)
def _drop_test_schemas() -> Iterator[None]:
    yield
    if POSTGRES_URL and _SCHEMAS:
        import psycopg

        with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
            for name in _SCHEMAS:
                conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """A fast, deterministic, lexical embedder for unit tests (see ``tests/fakes.py``)."""
    return HashingEmbedder()


@pytest.fixture(scope="session")
def real_embedder() -> Embedder:
    """The real default (bilingual) embedder, loaded once per test session; tests using it are ``real_model``."""
    return load_embedder("multilingual-e5-small")


#: Tests that take over 10 s on 2 cores but carry no ``slow`` marker in their own file (``--durations=40`` of the
#: fast subset, ``-n 2``, 2026-12-02): they leave the fast subset and still run in the whole suite. A key without
#: ``[...]`` covers every parameter of the test.
MEASURED_SLOW = {
    "tests/hermes_memory_core/faults/test_disk_full.py::test_writing_until_the_disk_is_full_is_an_error_and_loses_nothing",
    "tests/hermes_memory_core/lifecycle/test_erasure.py::test_a_purge_killed_midway_is_completed[swap]",
    "tests/hermes_memory_core/faults/test_read_only.py::test_read_only_flag_on_a_writable_folder_changes_no_byte[killed-shard]",
}


def needs_postgres(item: pytest.Item) -> bool:
    """Whether a test is skipped without ``HERMES_TEST_POSTGRES_URL`` (it carries :data:`NEEDS_POSTGRES`)."""
    return any(m.name == "skipif" and "HERMES_TEST_POSTGRES_URL" in str(m.kwargs.get("reason", ""))
               for m in item.iter_markers())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that use the real model say so: the ``real_model`` marker (``-m "not real_model"`` skips them). Every
    test that needs PostgreSQL carries the ``server`` marker, so ``pytest -m server`` runs all of them. The tests of
    :data:`MEASURED_SLOW` carry ``slow``."""
    for item in items:
        if "real_embedder" in getattr(item, "fixturenames", ()) or item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.real_model)
        if item.nodeid in MEASURED_SLOW or item.nodeid.split("[", 1)[0] in MEASURED_SLOW:
            item.add_marker(pytest.mark.slow)
        if needs_postgres(item) and item.get_closest_marker("server") is None:
            item.add_marker(pytest.mark.server)


@pytest.fixture
def config(tmp_path: Path) -> MemoryConfig:
    return make_config(tmp_path / "store")


@pytest.fixture
def mem(config: MemoryConfig, embedder: Embedder) -> Iterator[MemoryProvider]:
    provider = MemoryProvider(config, embedder=embedder, caller=ADMIN)
    try:
        yield provider
    finally:
        provider.close()


@pytest.fixture
def real_mem(config: MemoryConfig, real_embedder: Embedder) -> Iterator[MemoryProvider]:
    """A provider on the real bilingual model, for assertions about what the model understands."""
    provider = MemoryProvider(config, embedder=real_embedder, caller=ADMIN)
    try:
        yield provider
    finally:
        provider.close()


@pytest.fixture(params=BACKENDS)
def clocked_real_store(request: pytest.FixtureRequest, tmp_path: Path,
                       real_embedder: Embedder) -> Iterator[tuple[MemoryProvider, Clock]]:
    """A store opened as a new user opens one (no caller, no LLM) on the real model, with a clock the test moves
    (``clock.now += 7 * 86_400``: a week later), on each metadata backend."""
    clock = Clock()
    provider = MemoryProvider(make_config(tmp_path / "store", request.param), embedder=real_embedder, clock=clock)
    try:
        yield provider, clock
    finally:
        provider.close()
