"""Export bundles and restore: self-contained, verified before anything is written, same answers after."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hermes_memory_core import BundleError, MemoryProvider
from hermes_memory_core.portability import BUNDLE_FILES, verify_bundle
from tests.conftest import ADMIN, make_config

QUERIES = ["Which language does the user prefer?", "咖啡", "where does the user live", "marathon"]


@pytest.fixture
def bundle(mem: MemoryProvider, tmp_path: Path) -> Path:
    mid = mem.add("用户主用 Python，避免 Java", user_id="u1", tags=["lang"], metadata={"k": 1})
    mem.add("我喜欢喝美式咖啡", user_id="u1", memory_type="permanent")
    mem.add("The user lives in Berlin", user_id="u1", session_id="s1")
    mem.add("The user runs a marathon in autumn", user_id="u2")
    gone = mem.add("to be deleted", user_id="u1")
    mem.update(mid, "用户主用 Go，不再用 Java", version_note="switched")
    mem.delete(gone, reason="asked")
    path = tmp_path / "bundle"
    mem.export(path)
    return path


def test_bundle_layout_and_manifest(bundle: Path, mem: MemoryProvider) -> None:
    assert sorted(p.name for p in bundle.iterdir()) == sorted([*BUNDLE_FILES, "manifest.json"])
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["format_version"] == 1 and manifest["vector_dim"] == 384
    assert manifest["embedding_model"] == mem.embedder.model_id
    # the deleted memory is left out: its content, version, tags and log never travel
    assert manifest["counts"] == {"memories_active": 4, "memories_deleted": 0, "versions": 5, "points": 4,
                                  "deleted_left_out": 1}
    assert set(manifest["files"]) == set(BUNDLE_FILES) and all(len(f["sha256"]) == 64 for f in manifest["files"].values())
    text = b"".join(p.read_bytes() for p in bundle.iterdir())
    assert str(mem.data_dir.resolve()).encode() not in text and str(bundle.parent).encode() not in text


def test_restore_answers_the_same(bundle: Path, mem: MemoryProvider, embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with MemoryProvider.restore(bundle, make_config(tmp_path / "elsewhere"), embedder=embedder, caller=ADMIN) as other:
        for user in ("u1", "u2"):
            for q in QUERIES:
                a = [(h.id, round(h.score, 6)) for h in mem.search(q, user_id=user, top_k=5)]
                b = [(h.id, round(h.score, 6)) for h in other.search(q, user_id=user, top_k=5)]
                assert a == b, q
        assert other.stats().deleted == 0  # soft-deleted memories do not travel
        mid = next(h.id for h in other.search("Go", user_id="u1") if "Go" in h.content)
        assert len(other.history(mid)) == 2


def test_restore_into_qdrant_client_backend(bundle: Path, mem: MemoryProvider, embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cfg = make_config(tmp_path / "srv", vector_backend="qdrant", qdrant_url=":memory:")
    with MemoryProvider.restore(bundle, cfg, embedder=embedder, caller=ADMIN) as other:
        for q in QUERIES:
            assert [h.id for h in mem.search(q, user_id="u1")] == [h.id for h in other.search(q, user_id="u1")]


def _copy(bundle: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "copy"
    shutil.copytree(bundle, dst)
    return dst


def _assert_rejected_and_untouched(bundle: Path, tmp_path: Path, embedder, match: str) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "target"
    with pytest.raises(BundleError, match=match):
        MemoryProvider.restore(bundle, make_config(target), embedder=embedder)
    assert not target.exists() or not any(target.iterdir())


def test_wrong_checksum(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    raw = bytearray((b / "points.jsonl").read_bytes())
    raw[5] ^= 1
    (b / "points.jsonl").write_bytes(bytes(raw))
    _assert_rejected_and_untouched(b, tmp_path, embedder, "sha256")


def test_missing_file(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    (b / "vectors.npy").unlink()
    _assert_rejected_and_untouched(b, tmp_path, embedder, "missing")


def test_truncated_file(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    data = (b / "metadata.sqlite").read_bytes()
    (b / "metadata.sqlite").write_bytes(data[: len(data) // 2])
    _assert_rejected_and_untouched(b, tmp_path, embedder, "bytes")


def _edit_manifest(b: Path, **changes: object) -> None:
    m = json.loads((b / "manifest.json").read_text())
    m.update(changes)
    (b / "manifest.json").write_text(json.dumps(m))


def test_other_dimension(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    _edit_manifest(b, vector_dim=768)
    _assert_rejected_and_untouched(b, tmp_path, embedder, "768")


def test_newer_format(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    _edit_manifest(b, format_version=99)
    _assert_rejected_and_untouched(b, tmp_path, embedder, "newer")


def test_other_model(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    _edit_manifest(b, embedding_model="someone/else")
    _assert_rejected_and_untouched(b, tmp_path, embedder, "someone/else")


def test_path_traversal_in_manifest(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    m = json.loads((b / "manifest.json").read_text())
    m["files"]["../../etc/passwd"] = m["files"].pop("points.jsonl")
    (b / "manifest.json").write_text(json.dumps(m))
    _assert_rejected_and_untouched(b, tmp_path, embedder, "exactly")


def test_no_manifest_means_half_written(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    (b / "manifest.json").unlink()
    _assert_rejected_and_untouched(b, tmp_path, embedder, "manifest")


def test_non_empty_target_needs_overwrite(bundle: Path, mem: MemoryProvider, embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "busy"
    with MemoryProvider(make_config(target), embedder=embedder) as other:
        other.add("existing data", user_id="x")
    with pytest.raises(BundleError, match="not empty"):
        MemoryProvider.restore(bundle, make_config(target), embedder=embedder)
    with MemoryProvider(make_config(target), embedder=embedder) as other:
        assert other.stats().total_active == 1  # untouched
    with MemoryProvider.restore(bundle, make_config(target), overwrite=True, embedder=embedder) as other:
        assert other.stats().total_active == 4 and other.stats().by_user.get("x") is None


def test_export_refuses_non_empty_target(mem: MemoryProvider, tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(BundleError):
        mem.export(tmp_path / "full")


def test_verify_is_read_only(bundle: Path) -> None:
    before = {p.name: p.read_bytes() for p in bundle.iterdir()}
    verify_bundle(bundle, 384)
    assert before == {p.name: p.read_bytes() for p in bundle.iterdir()}


def test_altered_manifest_value_is_refused(bundle: Path, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    b = _copy(bundle, tmp_path)
    _edit_manifest(b, hermes_memory_version="9.9.9")  # an informational field: still covered by the digest
    _assert_rejected_and_untouched(b, tmp_path, embedder, "own sha256")
