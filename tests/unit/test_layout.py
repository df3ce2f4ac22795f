"""The repository keeps the layout README.md's "Layout" section describes, and its two commands
(README.md's "Set-up and the two commands") stay wired up."""
import os
import re
import stat
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TOP_LEVEL = ["labs", "models", "cephlab", "vagrant", "data", "solutions", "tests", "bench",
             "environment.yml", "pyproject.toml", "README.md", ".ci/run"]


def test_top_level_layout():
    missing = [p for p in TOP_LEVEL if not (ROOT / p).exists()]
    assert missing == []


def test_ci_runs_the_fast_loop_then_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make check" in readme
    # each command less its leading VAR=value settings (make test is told make check passed)
    commands = [re.sub(r"^(\w+=\S*\s+)*", "", line.strip()) for line in ci.splitlines()]
    make_lines = [c for c in commands if c.startswith("make ")]
    assert make_lines == ["make check", "make test"], "CI: the fast loop first, then the README's command"
    assert "CEPHLAB_CHECK_PASSED=1 make test" in ci, "make test deselects only after make check passed"
    assert os.stat(ROOT / ".ci" / "run").st_mode & stat.S_IXUSR


def test_every_data_table_has_a_source_column():
    import csv
    tables = sorted((ROOT / "data").glob("*.csv"))
    assert tables, "data/ holds no CSV tables"
    for path in tables:
        lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
        rows = list(csv.DictReader(lines))
        assert rows, f"{path.name} has no rows"
        assert "source" in rows[0], f"{path.name} has no source column"
        assert all(r["source"].strip() for r in rows), f"{path.name} has a row without a source"


def test_venv_is_ignored_by_git():
    assert ".venv/" in (ROOT / ".gitignore").read_text().split()
