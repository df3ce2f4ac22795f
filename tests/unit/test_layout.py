"""The repository keeps the layout DEVELOPERS.md fixes, and its two commands stay wired up."""
import os
import stat
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TOP_LEVEL = ["labs", "models", "cephlab", "vagrant", "data", "solutions", "tests", "bench",
             "environment.yml", "pyproject.toml", "README.md", ".ci/run"]


def test_top_level_layout():
    missing = [p for p in TOP_LEVEL if not (ROOT / p).exists()]
    assert missing == []


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme
    commands = [line.strip() for line in ci.splitlines()
                if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))]
    assert commands == ["make test"]
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
