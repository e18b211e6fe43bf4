"""What the front door says about running the tests and about Python holds: the tests marked slow by measurement
exist, the test commands use the parallel workers ``[dev]`` installs, the supported Pythons are the same in
pyproject.toml and docs/installation.md, and the code cites no document a reader of the repository cannot open."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from tests.conftest import MEASURED_SLOW

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
INSTALLATION = (ROOT / "docs" / "installation.md").read_text(encoding="utf-8")
PACKAGES = ("hermes_memory_core", "langchain_hermes_memory", "llama_index_hermes_memory", "hermes_memory_agents")


def test_every_test_marked_slow_by_measurement_exists() -> None:
    for key in MEASURED_SLOW:
        path, name = key.split("::")
        function = name.split("[", 1)[0]
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert function in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, key


def test_the_test_commands_use_two_workers_that_dev_installs() -> None:
    assert any(re.match(r"pytest-xdist\b", d) for d in PROJECT["optional-dependencies"]["dev"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for text in (readme, INSTALLATION, (ROOT / ".ci" / "run").read_text(encoding="utf-8")):
        commands = re.findall(r"^HF_HUB_OFFLINE=1 (?:\.venv/bin/)?python -m pytest(?: .*)?$", text, flags=re.M)
        whole = [c for c in commands if c.split("#")[0].rstrip().endswith(("pytest -n 2", "tests", "-n 2 tests"))]
        assert whole and all(" -n 2" in c for c in whole), commands


def test_the_supported_pythons_are_the_same_everywhere() -> None:
    listed = sorted(c.rsplit(" ", 1)[1] for c in PROJECT["classifiers"]
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    said = re.search(r"Python ([\d.]+), ([\d.]+) and ([\d.]+) are supported", INSTALLATION)
    assert said is not None and list(said.groups()) == listed
    assert PROJECT["requires-python"] == f">={listed[0]}"
    # the floor's reason, as the page gives it: the standard library's tomllib and enum.StrEnum (3.11)
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "hermes_memory_core").rglob("*.py"))
    assert "import tomllib" in source and "enum.StrEnum" in source
    assert "`tomllib`, `enum.StrEnum`" in INSTALLATION


def test_code_cites_no_document_outside_the_repository() -> None:
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"\bthe seed\b|\bseed's\b|seeds/", text, flags=re.I), path.relative_to(ROOT)
