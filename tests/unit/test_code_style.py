"""Habits that keep cephlab/ readable and checked: ruff (pyproject [tool.ruff]) is clean on the
whole project, and mypy (pyproject [tool.mypy]) passes on cephlab/ and models/.
Each check has a negative control, so a check that silently checks nothing fails here."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.lint       # make check runs ruff and mypy itself and skips these
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(tool: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / tool), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_ruff_is_clean():
    out = _run("ruff", "check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-1000:]


def test_ruff_catches_an_unused_import(tmp_path):
    (tmp_path / "bad.py").write_text("import os\n")
    out = _run("ruff", "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
               str(tmp_path / "bad.py"))
    assert out.returncode == 1 and "F401" in out.stdout


def test_mypy_passes_on_the_cluster_api_and_backends():
    out = _run("mypy")          # incremental: make check, run just before in CI, leaves the cache warm
    assert out.returncode == 0, out.stdout[-3000:]
    files = out.stdout.rsplit("in ", 1)[-1]
    assert int(files.split()[0]) >= 90, out.stdout          # it checked cephlab/ and models/


def test_mypy_catches_a_wrong_type(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int) -> str:\n    return x\n")
    out = _run("mypy", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"), str(bad))
    assert out.returncode == 1 and "Incompatible return value" in out.stdout
