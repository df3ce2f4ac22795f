"""`make setup` and `make lab` print what a learner needs and real errors, nothing else (issue 47
item 8): no setuptools note from pip, no JupyterLab start-up chatter or deprecation warning, no Jupyter
news box over the notebooks, and a learner's .venv without the test tools.

cephlab/bootstrap.sh runs here in a copy of its folder layout whose .venv/bin/python, cephlab and
jupyter only write down how they were called: no pip, no cluster, no server, a second or so.
JupyterLab reading cephlab/jupyter/ is checked with JupyterLab's own config readers, and a real
start of `make lab` without a cluster with tests/setup/test_lab_start.py."""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "cephlab" / "jupyter"
NEWS_PLUGIN = "@jupyterlab/apputils-extension:announcements"
FAKE = """#!/usr/bin/env bash
env="PYTHONWARNINGS=${PYTHONWARNINGS:-} | JUPYTER_CONFIG_PATH=${JUPYTER_CONFIG_PATH:-}"
printf '%s\\n' "$(basename "$0") $* | $env" >> "$FAKE_LOG"
"""


# -- JupyterLab's settings ----------------------------------------------------------------------
def test_the_lab_settings_turn_off_the_news_box_and_the_start_up_noise():
    page = json.loads((SETTINGS / "labconfig" / "page_config.json").read_text())
    assert page["disabledExtensions"] == {NEWS_PLUGIN: True}
    server = json.loads((SETTINGS / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["log_level"] == server["LabApp"]["log_level"] == "WARN"
    # notebook_shim reads every server setting on start, the deprecated ServerApp.token too
    assert server["ServerApp"]["jpserver_extensions"] == {"notebook_shim": False}


def test_jupyter_reads_the_lab_settings_from_the_config_path(tmp_path, monkeypatch):
    """What bootstrap.sh and container/start.sh set (JUPYTER_CONFIG_PATH) is where JupyterLab looks."""
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path))     # no ~/.jupyter of whoever runs the tests
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(SETTINGS))
    from jupyter_server.serverapp import ServerApp
    from jupyterlab_server.config import get_page_config

    assert NEWS_PLUGIN in get_page_config([], None, logging.getLogger("test"))["disabledExtensions"]
    app = ServerApp()
    app.load_config_file()
    assert app.log_level == logging.WARN and app.jpserver_extensions.get("notebook_shim") is False
    assert app.config.LabApp.log_level == "WARN"


def test_the_image_starts_its_servers_with_the_lab_settings():
    start = (ROOT / "container" / "start.sh").read_text()
    exports = re.findall(r'^export JUPYTER_CONFIG_PATH="\$COURSE/cephlab/jupyter[^\n]*"$', start, re.M)
    assert len(exports) == 1
    assert start.index(exports[0]) < start.index('"$@" &'), "set before the command starts"
    assert "ServerApp.token" not in start    # deprecated: IdentityProvider.token, or JUPYTER_TOKEN


# -- bootstrap.sh in a copy of its layout with fake programs -------------------------------------
@pytest.fixture
def layout(tmp_path):
    """A folder laid out like the project for bootstrap.sh, with a .venv of fakes (not yet stamped)."""
    if shutil.which("dpkg-query") is None:
        pytest.skip("bootstrap.sh needs a Debian system (dpkg-query)")
    root = tmp_path / "lab"
    (root / "cephlab").mkdir(parents=True)
    shutil.copy2(ROOT / "cephlab" / "bootstrap.sh", root / "cephlab" / "bootstrap.sh")
    for name in ("packages-lab.txt", "packages-test.txt", "pip-drop.txt", "pip-drop-lab.txt"):
        (root / "cephlab" / name).write_text("# nothing\n")
    (root / "pyproject.toml").write_text('[project]\nname = "fake"\n')
    (root / "constraints.txt").write_text("fake==1\n")
    (root / "container").mkdir()
    (root / "container" / "class-hub.sh").write_text("HUB_PROXY_VERSION=1\n")
    (root / ".venv" / "hub-proxy").mkdir(parents=True)
    (root / ".venv" / "hub-proxy" / ".version-1").touch()
    for name in ("python", "cephlab", "jupyter"):
        fake = root / ".venv" / "bin" / name
        fake.parent.mkdir(parents=True, exist_ok=True)
        fake.write_text(FAKE)
        fake.chmod(0o755)
    return root


def bootstrap(root, *args, **env):
    """bash cephlab/bootstrap.sh ARGS in root: (its output, the fakes' calls since the last run)."""
    log = root / "calls.log"
    log.unlink(missing_ok=True)
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONWARNINGS", "JUPYTER_CONFIG_PATH", "CEPHLAB_NO_CLUSTER")}
    run = subprocess.run(["bash", str(root / "cephlab" / "bootstrap.sh"), *args], capture_output=True, text=True,
                         env={**clean, "FAKE_LOG": str(log), **env}, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    calls = log.read_text().splitlines() if log.exists() else []
    return run.stdout + run.stderr, calls


def pip_installs(calls):
    return [c.split(" | ")[0] for c in calls if c.startswith("python -m pip install") and " -e " in c]


def test_setup_gives_a_learner_no_test_tools_and_the_tests_their_own(layout):
    _, calls = bootstrap(layout, "setup")
    assert pip_installs(calls) == [f"python -m pip install -q --ignore-installed -c {layout}/constraints.txt "
                                   f"-e {layout}"]
    assert (layout / ".venv" / ".cephlab-stamp").read_text().split()[1] == "lab"
    out, calls = bootstrap(layout, "setup")
    assert (out, calls) == ("", []), "a second `make setup` does nothing and says nothing"
    _, calls = bootstrap(layout, "setup", "--test")
    assert pip_installs(calls) == [f"python -m pip install -q --ignore-installed -c {layout}/constraints.txt "
                                   f"-e {layout}[test]"]
    assert (layout / ".venv" / ".cephlab-stamp").read_text().split()[1] == "test"
    assert bootstrap(layout, "setup") == ("", []), "a .venv with the test tools serves the labs as it is"


def test_a_venv_stamped_before_the_two_sizes_counts_as_having_the_test_tools(layout):
    bootstrap(layout, "setup", "--test")
    stamp = layout / ".venv" / ".cephlab-stamp"
    stamp.write_text(stamp.read_text().split()[0] + "\n")     # the stamp as every .venv had it before
    assert bootstrap(layout, "setup", "--test") == ("", [])


def test_pip_runs_with_the_filter_for_setuptools_editable_note(layout):
    _, calls = bootstrap(layout, "setup")
    install = next(c for c in calls if c.startswith("python -m pip install") and " -e " in c)
    assert "PYTHONWARNINGS=ignore:Editable installation.:UserWarning |" in install
    upgrade = next(c for c in calls if "--upgrade pip" in c)
    assert "PYTHONWARNINGS= |" in upgrade, "only the project's install is filtered"


@pytest.mark.parametrize("no_cluster", [False, True])
def test_make_lab_starts_jupyterlab_on_labs_with_the_lab_settings(layout, no_cluster):
    bootstrap(layout, "setup")
    env = {"CEPHLAB_NO_CLUSTER": "1"} if no_cluster else {}
    out, calls = bootstrap(layout, "lab", "--port=9999", **env)
    cluster = [c.split(" | ")[0] for c in calls if c.startswith("cephlab")]
    assert cluster == ([] if no_cluster else ["cephlab up --osds 4"])
    jupyter = [c for c in calls if c.startswith("jupyter")]
    assert len(jupyter) == 1
    command, _, config_path = jupyter[0].split(" | ")
    assert command.startswith(f"jupyter lab --notebook-dir={layout}/labs --ServerApp.ip=127.0.0.1")
    assert command.endswith("--port=9999") and "ServerApp.token" not in command
    assert config_path == f"JUPYTER_CONFIG_PATH={layout}/cephlab/jupyter"
    lines = out.splitlines()
    assert len(lines) == 1 and "opening JupyterLab on labs/" in lines[0], "set up already: one line, then JupyterLab"


# -- pip's warning filter against setuptools' own note -------------------------------------------
def bootstrap_pip_filter() -> str:
    got = subprocess.run(["bash", "-c", f'source <(grep "^PIP_WARNINGS=" {ROOT}/cephlab/bootstrap.sh); '
                                        'printf %s "$PIP_WARNINGS"'],
                         capture_output=True, text=True, env={"PATH": os.environ["PATH"]}, check=True)
    return got.stdout


NOTE_AND_A_REAL_WARNING = """
import warnings
from setuptools.command.editable_wheel import _TopLevelFinder
_TopLevelFinder(None, "ceph-storage-lab").__exit__(None, None, None)    # its "Editable installation." note
warnings.warn("a real problem", UserWarning)
"""


@pytest.mark.parametrize("filtered", [False, True])
def test_the_filter_drops_setuptools_editable_note_and_nothing_else(filtered):
    """The note as the setuptools of this .venv emits it; without the filter it shows (the control)."""
    editable = pytest.importorskip("setuptools.command.editable_wheel")
    if not hasattr(editable, "_TopLevelFinder"):
        pytest.skip("this setuptools has no _TopLevelFinder: check which note its editable install prints")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    if filtered:
        env["PYTHONWARNINGS"] = bootstrap_pip_filter()
    run = subprocess.run([sys.executable, "-c", NOTE_AND_A_REAL_WARNING], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "a real problem" in run.stderr
    assert ("Please be careful with folders" in run.stderr) is not filtered, run.stderr


def test_venv_makes_only_the_python_environment(layout):
    _, calls = bootstrap(layout, "venv")
    assert pip_installs(calls)[0].endswith(f"-e {layout}")
    _, calls = bootstrap(layout, "venv", "--test")
    assert pip_installs(calls)[0].endswith(f"-e {layout}[test]")


def test_the_learners_makefile_sets_up_without_the_test_tools():
    from cephlab.course.student_release import learner_makefile

    learner = learner_makefile((ROOT / "Makefile").read_text())
    commands = [line.strip() for line in learner.splitlines() if line.startswith("\t")]
    assert commands == ["bash cephlab/bootstrap.sh lab", "bash cephlab/bootstrap.sh setup"]
