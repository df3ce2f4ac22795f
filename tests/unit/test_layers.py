"""The layers of cephlab/ import downwards only: a lab helper that imports a backend,
or a backend that imports the cluster API, fails here.

    cli                                    the `cephlab` command
    helpers | display | course             lab helpers, widgets and plots, course tooling
    cluster                                the backend-neutral cluster API (Cluster)
    backends                               native, vagrant, cephadm: one folder each
    core                                   runner, poller, /proc, errors, the Ceph command client

Above the backends, code reaches a backend only through the registry (cephlab.backends.get(name)
and the Backend protocol of cephlab/backends/base.py), never a backend's own modules. Backends
share only base.py and settings.py (vagrant/settings.yml, read by the VM and container backends).
Within a layer, helpers may use display (a helper draws a plot) but not the other way; course
tooling stands alone; one backend never imports another. models/ imports nothing of cephlab.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["core", "backends", "cluster", "display", "helpers", "course", "cli"]
RANK = {"core": 0, "backends": 1, "cluster": 2, "display": 3, "helpers": 4, "course": 3, "cli": 6}
BACKENDS = sorted(p.name for p in (ROOT / "cephlab" / "backends").iterdir() if p.is_dir()
                  and (p / "__init__.py").is_file())
FORBIDDEN_SIDEWAYS = {("display", "helpers"), ("course", "helpers"), ("course", "display"),
                      ("helpers", "course"), ("display", "course")}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cephlab" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in RANK else None


def imports(path: Path, relative_ok: bool = False) -> list[tuple[int, str]]:
    """(line, module) of every import in a file, including those inside functions."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found += [(node.lineno, m) for m in mods]
        elif isinstance(node, ast.ImportFrom) and node.level and not relative_ok:
            raise AssertionError(f"{path}:{node.lineno}: relative import; write `from cephlab...`")
    return found


def module_name(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(parts)


def violations(root: Path = ROOT) -> list[str]:
    out = []
    for path in sorted((root / "cephlab").rglob("*.py")):
        me = module_name(path, root)
        mine = layer_of(me)
        if mine is None:
            continue
        backend = me.split(".")[2] if mine == "backends" and me.count(".") >= 3 else None
        for line, target in imports(path):
            theirs = layer_of(target)
            if theirs is None or theirs == mine and mine != "backends":
                continue
            where = f"{path.relative_to(root)}:{line}"
            if theirs == "backends" and mine != "backends" and target.count(".") >= 2 \
                    and target.split(".")[2] in BACKENDS:
                out.append(f"{where}: {mine} may reach a backend only through cephlab.backends.get()")
            elif RANK[theirs] > RANK[mine] or (mine, theirs) in FORBIDDEN_SIDEWAYS:
                out.append(f"{where}: {mine} may not import {theirs}")
            elif mine == theirs == "backends" and backend and target.count(".") >= 2:
                other = target.split(".")[2]
                if other not in (backend, "base", "settings"):
                    out.append(f"{where}: backend {backend} may not import backend {other}")
    for path in sorted((root / "models").rglob("*.py")):
        for line, target in imports(path, relative_ok=True):
            if target.split(".")[0] == "cephlab":
                out.append(f"{path.relative_to(root)}:{line} imports {target}: models stay pure")
    return list(dict.fromkeys(out))


def test_imports_go_down_the_layers():
    assert violations() == []


def test_the_check_catches_a_helper_that_imports_a_backend(tmp_path):
    """Negative control: a lab helper reaching for the native backend is reported."""
    (tmp_path / "cephlab" / "helpers").mkdir(parents=True)
    (tmp_path / "models").mkdir()
    (tmp_path / "cephlab" / "helpers" / "bad.py").write_text(
        "from cephlab.backends.native import daemons\nfrom cephlab.cluster.api import Cluster\n")
    (tmp_path / "cephlab" / "backends" / "vagrant").mkdir(parents=True)
    (tmp_path / "cephlab" / "backends" / "vagrant" / "x.py").write_text(
        "from cephlab.backends.native import paths\nfrom cephlab.cluster import api\n")
    found = violations(tmp_path)
    assert len(found) == 3, found
    assert "helpers/bad.py:1: helpers may reach a backend only through" in " ".join(found)
    assert "backend vagrant may not import backend native" in " ".join(found)
    assert "backends may not import cluster" in " ".join(found)


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_is_a_folder(layer):
    assert (ROOT / "cephlab" / layer / "__init__.py").is_file()


def test_no_module_sits_outside_the_layers():
    loose = sorted(p.name for p in (ROOT / "cephlab").glob("*.py") if p.name != "__init__.py")
    assert loose == []
