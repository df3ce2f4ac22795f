""".ci/run's second half (CEPHLAB_CHECK_PASSED=1 make test) drops exactly what `make check` has
just run: the pure tests of tests/unit and tests/models, not their oracle tests (make check skips
those: they need crushtool), and nothing of another folder."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = ["tests/models/test_pgs.py", "tests/unit/test_bare_suites.py", "tests/setup/test_programs.py"]


def _collected(*args: str, passed: str = "0") -> set[str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "--co", "-o", "addopts=",
                          "-p", "no:cacheprovider", *args, *FILES], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "CEPHLAB_CHECK_PASSED": passed})
    return {line for line in out.stdout.splitlines() if "::" in line}


def test_after_make_check_only_the_oracle_tests_of_the_checked_folders_remain():
    every = _collected()
    oracle = _collected("-m", "oracle")
    other = {i for i in every if i.startswith("tests/setup/")}
    assert oracle and other and len(every) > len(oracle) + len(other)   # the sample has all three kinds
    assert _collected(passed="1") == oracle | other


def test_the_deselected_folders_are_the_ones_make_check_runs():
    """tests/conftest.py's CHECKED_FOLDERS and bootstrap.sh's PURE_TESTS name the same folders: a
    folder added to one only would be skipped in CI without make check running it."""
    import re

    from tests.conftest import CHECKED_FOLDERS
    line = re.search(r"^PURE_TESTS=\((.*?)\)", (ROOT / "cephlab" / "bootstrap.sh").read_text(), re.M)
    assert line and tuple(line[1].split()) == CHECKED_FOLDERS


def _item(path: str, name: str = "", lab: str = ""):
    from types import SimpleNamespace
    return SimpleNamespace(path=ROOT / path, originalname=name, callspec=SimpleNamespace(params={"lab": lab}))


def test_solutions_the_cephadm_cluster_runs_on_the_hosts_release_are_not_run_natively_too(monkeypatch):
    """tests/conftest.solutions_on_cephadm: the native nbval cells of exactly the labs whose
    solution tests/cephadm runs under nbval, and none when that cluster cannot be built here or
    holds another release than the host's (CEPHLAB_CEPHADM_SUITE)."""
    from types import SimpleNamespace

    import tests.cephadm.conftest as cephadm
    from tests.conftest import solutions_on_cephadm
    config = SimpleNamespace(rootpath=ROOT)
    native = [_item("solutions/01-redundancy.ipynb"), _item("solutions/08-failure-and-recovery.ipynb"),
              _item("solutions/02-placement.ipynb"), _item("labs/01-redundancy/01-redundancy.ipynb")]
    on_cephadm = [_item("tests/cephadm/test_labs.py", "test_solution_under_nbval", "01-redundancy"),
                  _item("tests/cephadm/test_labs.py", "test_student_version_runs_top_to_bottom",
                        "08-failure-and-recovery")]
    items = native + on_cephadm
    monkeypatch.delenv("CEPHLAB_CEPHADM_SUITE", raising=False)
    monkeypatch.setattr(cephadm, "_skip_reason", lambda: "")
    assert solutions_on_cephadm(config, items) == [native[0]]      # 08's student run is not its solution
    assert solutions_on_cephadm(config, native) == []               # tests/cephadm not selected
    monkeypatch.setenv("CEPHLAB_CEPHADM_SUITE", "trixie")
    assert solutions_on_cephadm(config, items) == []
    monkeypatch.delenv("CEPHLAB_CEPHADM_SUITE")
    monkeypatch.setattr(cephadm, "_skip_reason", lambda: "tests/cephadm start privileged node containers")
    assert solutions_on_cephadm(config, items) == []
