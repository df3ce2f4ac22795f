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
