from pathlib import Path

import pytest

from hermes_memory_core import ConfigError, MemoryConfig


def test_defaults_are_embedded_and_offline() -> None:
    cfg = MemoryConfig()
    assert cfg.vector_backend == "edge"
    assert cfg.embedding_model == "multilingual-e5-small"
    assert cfg.vector_dim == 384 and cfg.ring_size == 12


def test_every_field_is_described() -> None:
    assert all(MemoryConfig().describe().values())


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(ConfigError, match="vector_dimm"):
        MemoryConfig.from_mapping({"vector_dimm": 384})
    with pytest.raises(ConfigError):
        MemoryConfig.from_mapping({"ranking": {"relevance": 1}})


def test_collection_must_be_an_identifier() -> None:
    with pytest.raises(ConfigError):
        MemoryConfig.from_mapping({"collection": "x; DROP TABLE"})


def test_server_backend_needs_url() -> None:
    with pytest.raises(ConfigError, match="qdrant_url"):
        MemoryConfig.from_mapping({"vector_backend": "qdrant"})


def test_toml_then_env_then_overrides(tmp_path: Path) -> None:
    path = tmp_path / "hermes.toml"
    path.write_text('[hermes_memory]\nvector_dim = 512\nring_size = 10\n[hermes_memory.ranking]\ndense_weight = 0.5\n')
    cfg = MemoryConfig.from_toml(path)
    assert cfg.vector_dim == 512 and cfg.ranking.dense_weight == 0.5
    env = {"HERMES_MEMORY_RING_SIZE": "20", "HERMES_MEMORY_RANKING__KEYWORD_WEIGHT": "0.25", "OTHER": "x"}
    cfg = MemoryConfig.load(path, environ=env, data_dir=str(tmp_path))
    assert cfg.ring_size == 20 and cfg.ranking.keyword_weight == 0.25 and cfg.vector_dim == 512
    assert cfg.data_dir == tmp_path
    assert MemoryConfig.from_env({"HERMES_MEMORY_COLLECTION": "mine"}).collection == "mine"


def test_bad_toml_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("vector_dim = [")
    with pytest.raises(ConfigError):
        MemoryConfig.from_toml(path)
    with pytest.raises(ConfigError):
        MemoryConfig.from_toml(tmp_path / "missing.toml")


def test_metadata_url_must_be_postgresql_and_schema_an_identifier() -> None:
    ok = MemoryConfig.from_mapping({"metadata_url": "postgresql://u:pw@db:5432/x", "metadata_schema": "agents_1"})
    assert "pw" not in repr(ok) and ok.metadata_url is not None
    with pytest.raises(ConfigError, match="postgresql://"):
        MemoryConfig.from_mapping({"metadata_url": "mysql://db/x"})
    with pytest.raises(ConfigError):
        MemoryConfig.from_mapping({"metadata_url": "postgresql://db/x", "metadata_schema": "x; DROP TABLE y"})
    env = MemoryConfig.from_env({"HERMES_MEMORY_METADATA_URL": "postgresql://db/x"})
    assert env.metadata_url is not None and env.metadata_url.get_secret_value() == "postgresql://db/x"


def test_unreachable_postgres_is_a_typed_error_naming_the_server_without_password(tmp_path: Path) -> None:
    from hermes_memory_core import BackendUnavailableError, MemoryProvider
    from hermes_memory_core.embedding import load_embedder

    cfg = MemoryConfig(data_dir=tmp_path, metadata_url="postgresql://me:hunter2@127.0.0.1:1/x")  # type: ignore[arg-type]
    with pytest.raises(BackendUnavailableError, match=r"127\.0\.0\.1:1") as info:
        MemoryProvider(cfg, embedder=load_embedder("multilingual-e5-small"))
    assert "hunter2" not in str(info.value)
