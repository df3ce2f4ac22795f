"""constraints.txt pins every Python package of .venv, so a class set up next term gets the versions
that passed CI. `make lock` renews it; the set-up installs with `pip install -c`.

Checked here: every dependency of pyproject.toml (and so of environment.yml, which mirrors it, see
tests/unit/test_environment_sync.py) is pinned to one version that its specifier allows; and the .venv
these tests run in holds exactly the pinned versions (so CI ran what the lock says), less the
packages cephlab/pip-drop.txt removes again, which must be absent."""
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.unit.test_environment_sync import environment_specs, pyproject_specs

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints.txt"


def pins() -> dict[str, str]:
    found = {}
    for line in LOCK.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and re.fullmatch(r"[\w.+!-]+", version), f"constraints.txt: not a pin: {line!r}"
            found[canonicalize_name(name)] = version
    return found


def dropped() -> set[str]:
    lines = (ROOT / "cephlab" / "pip-drop.txt").read_text().splitlines()
    return {canonicalize_name(x.split("#")[0].strip()) for x in lines if x.split("#")[0].strip()}


def test_the_lock_says_how_to_renew_it():
    assert "make lock" in LOCK.read_text().splitlines()[0]
    assert "lock:" in (ROOT / "Makefile").read_text()


@pytest.mark.parametrize("spec", pyproject_specs())
def test_every_dependency_is_pinned_within_its_range(spec):
    requirement = Requirement(spec)
    version = pins().get(canonicalize_name(requirement.name))
    assert version, f"{requirement.name} is not in constraints.txt: run `make lock`"
    assert requirement.specifier.contains(version, prereleases=True), (
        f"constraints.txt pins {requirement.name}=={version}, outside pyproject's {spec}: run `make lock`")


def test_environment_yml_asks_for_what_the_lock_covers():
    assert environment_specs() == pyproject_specs()


@pytest.mark.skipif(Path(sys.prefix) != ROOT / ".venv", reason="not running in the project's .venv")
def test_the_venv_holds_the_pinned_versions():
    wrong = []
    for name, version in pins().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name not in dropped():
                wrong.append(f"{name} missing")
            continue
        if name in dropped():
            wrong.append(f"{name} {installed} (cephlab/pip-drop.txt removes it)")
            continue
        if installed != version:
            wrong.append(f"{name} {installed} (lock: {version})")
    assert not wrong, f".venv differs from constraints.txt: {', '.join(wrong)}; run `make setup`"


def test_the_dropped_packages_are_known_to_the_lock():
    # a name that is not pinned is a typo or a package that no longer comes in: drop the line
    assert dropped() and dropped() <= set(pins())
