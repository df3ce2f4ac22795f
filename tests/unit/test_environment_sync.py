"""environment.yml (conda/Binder) must list exactly the Python dependencies of pyproject.toml."""
import re
from pathlib import Path

import tomllib
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _normalise(spec):
    name, rest = re.match(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*(.*)$", spec).groups()
    return name.lower().replace("_", "-") + rest.replace(" ", "")


def pyproject_specs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs += extra
    return sorted(_normalise(s) for s in specs)


def environment_specs():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    return sorted(_normalise(s) for s in pip if not s.startswith("-e"))


def test_environment_yml_mirrors_pyproject():
    assert environment_specs() == pyproject_specs()


def test_environment_yml_installs_the_lab_itself():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    assert "-e ." in pip


def test_python_version_within_pyproject_range():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    minor = int(python.split("=")[1].split(".")[1])
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert minor >= int(requires.split(".")[1])
