"""Fuzzing the public API and restore: random text, odd ids, corrupted bundles → only typed errors, and the
stored data stays as it was."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory_core import HermesMemoryError, MemoryProvider
from tests.conftest import ADMIN, make_config

# Text with control characters, lone surrogates, NULs, huge strings, mixed scripts.
nasty_text = st.one_of(
    st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=200),
    st.text(alphabet=st.sampled_from(["\x00", "\ud800", "\udfff", "\u202e", "\t", "\n", "咖", "啡", "a", " ", "\x7f"]),
            max_size=50),
    st.integers(min_value=8_000, max_value=1_100_000).map(lambda n: "x" * n),
    st.just(""),
)
odd_ids = st.one_of(st.text(max_size=60), st.integers(), st.none(), st.binary(max_size=20),
                    st.just("../../etc/passwd"), st.just("00000000-0000-0000-0000-000000000000"))


@pytest.fixture(scope="module")
def store(embedder):  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp, MemoryProvider(make_config(Path(tmp) / "s"), embedder=embedder,
                                                              caller=ADMIN) as mem:
        anchor = mem.add("The user likes green tea", user_id="u")
        yield mem, anchor, Path(tmp)


def _snapshot(mem: MemoryProvider) -> tuple:  # type: ignore[type-arg]
    s = mem.stats()
    return (s.total_active, s.vector_points, s.versions, s.deleted, s.by_user)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(text=nasty_text, user=nasty_text, tier=st.sampled_from(["long_term", "permanent", "short_term", "forever", ""]))
def test_add_and_search_only_raise_typed_errors(store, text, user, tier) -> None:  # type: ignore[no-untyped-def]
    mem, anchor, _ = store
    before = _snapshot(mem)
    try:
        mid = mem.add(text, user_id=user, memory_type=tier)
    except HermesMemoryError:
        assert _snapshot(mem) == before
    else:
        assert mem.get(mid).content  # stored as given (or redacted)
        mem.delete(mid)
    with contextlib.suppress(HermesMemoryError):
        mem.search(text, user_id=user)
    assert mem.get(anchor).content == "The user likes green tea"


@SETTINGS
@given(mid=odd_ids, text=nasty_text)
def test_odd_ids_only_raise_typed_errors(store, mid, text) -> None:  # type: ignore[no-untyped-def]
    mem, _anchor, _ = store
    before = _snapshot(mem)
    for call in (lambda: mem.get(mid), lambda: mem.history(mid), lambda: mem.update(mid, text or "x"),
                 lambda: mem.delete(mid)):
        with pytest.raises(HermesMemoryError):
            call()
    assert _snapshot(mem) == before


@pytest.fixture(scope="module")
def bundle(store):  # type: ignore[no-untyped-def]
    mem, _anchor, tmp = store
    mem.add("用户对青霉素过敏", user_id="u", memory_type="permanent")
    path = tmp / "bundle"
    mem.export(path)
    return path


corruption = st.tuples(
    st.sampled_from(["metadata.sqlite", "vectors.npy", "points.jsonl", "manifest.json"]),
    st.sampled_from(["flip", "truncate", "empty", "delete", "garbage"]),
    st.integers(min_value=0, max_value=10**9),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(c=corruption)
def test_corrupted_bundles_are_refused(bundle, embedder, c) -> None:  # type: ignore[no-untyped-def]
    name, how, pos = c
    with tempfile.TemporaryDirectory() as tmp:
        b = Path(tmp) / "b"
        shutil.copytree(bundle, b)
        f = b / name
        data = f.read_bytes()
        if how == "flip" and data:
            i = pos % len(data)
            f.write_bytes(data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1 :])
        elif how == "truncate":
            f.write_bytes(data[: pos % max(len(data), 1)])
        elif how == "empty":
            f.write_bytes(b"")
        elif how == "delete":
            f.unlink()
        else:
            f.write_bytes(bytes((pos + k) % 256 for k in range(64)))
        target = Path(tmp) / "target"
        with pytest.raises(HermesMemoryError):
            MemoryProvider.restore(b, make_config(target), embedder=embedder)
        assert not target.exists() or not any(target.iterdir())


@pytest.mark.parametrize("evil", ["../../../tmp/evil", "/etc/passwd", "sub/../../x", "metadata.sqlite/.."])
def test_path_traversing_manifest_is_refused(bundle, embedder, tmp_path, evil) -> None:  # type: ignore[no-untyped-def]
    b = tmp_path / "b"
    shutil.copytree(bundle, b)
    manifest = json.loads((b / "manifest.json").read_text())
    manifest["files"][evil] = manifest["files"].pop("points.jsonl")
    (b / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(HermesMemoryError):
        MemoryProvider.restore(b, make_config(tmp_path / "t"), embedder=embedder)
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").iterdir())
