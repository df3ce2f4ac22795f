"""The repo2docker files in .binder/ (Binder, JupyterHub images) agree with the rest of the set-up:
the same Python packages as environment.yml, the same Ceph packages as cephlab/bootstrap.sh, a
postBuild that links the rados/rbd bindings and a start step that runs `cephlab up` first."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.setup.programs import listed_packages

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / ".binder"
# repo2docker makes its own conda environment, so the venv module is the one lab package it skips
NOT_ON_BINDER = {"python3-venv"}
# repo2docker builds on Ubuntu 22.04 (buildpack-deps:jammy), whose python3 is 3.10: python3-rados
# and python3-rbd from apt.txt exist only for that version.
UBUNTU_PYTHON = "3.10"


def _pip(path):
    env = yaml.safe_load(path.read_text())
    return next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d), env


def apt_txt():
    lines = (BINDER / "apt.txt").read_text().splitlines()
    return [p for p in (line.partition("#")[0].strip() for line in lines) if p]


def test_binder_environment_mirrors_environment_yml():
    ours, env = _pip(BINDER / "environment.yml")
    theirs, _ = _pip(ROOT / "environment.yml")
    # conda runs pip from the environment file's folder: the repository is one level up
    assert ours == [("-e .." if s == "-e ." else s) for s in theirs]
    assert "-e .." in ours
    assert f"python={UBUNTU_PYTHON}" in env["dependencies"]


def test_bootstrap_lists_are_parsed():
    assert {"ceph-mon", "ceph-osd", "fio", "python3-rados", "fuse3"} <= listed_packages("lab")
    assert {"chromium", "vagrant", "shellcheck"} <= listed_packages("test")


def test_a_learner_gets_no_test_tools():
    """`make lab` installs packages-lab.txt only: no browser, no Vagrant for a learner."""
    assert not listed_packages("lab") & listed_packages("test")


def test_apt_txt_has_every_lab_package_of_bootstrap():
    runtime = [p for p in listed_packages("lab") if p not in NOT_ON_BINDER]
    assert sorted(apt_txt()) == sorted(runtime)


def test_scripts_are_executable_and_pass_shellcheck():
    for name in ("postBuild", "start"):
        path = BINDER / name
        assert os.access(path, os.X_OK), f".binder/{name} must be executable (chmod +x; git keeps the bit)"
        subprocess.run(["bash", "-n", str(path)], check=True)
    if shutil.which("shellcheck"):
        r = subprocess.run(["shellcheck", str(BINDER / "postBuild"), str(BINDER / "start")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout


def _fake_cephlab(tmp_path, exit_code):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cephlab").write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\nexit {exit_code}\n')
    (bin_dir / "cephlab").chmod(0o755)
    return {**os.environ, "HOME": str(tmp_path), "PATH": f"{bin_dir}:{os.environ['PATH']}"}


@pytest.mark.parametrize("up_exit", [0, 1])
def test_start_runs_cephlab_up_then_the_server(tmp_path, up_exit):
    """A failed `cephlab up` is reported but the notebook server still starts."""
    env = _fake_cephlab(tmp_path, up_exit)
    r = subprocess.run([str(BINDER / "start"), "echo", "server started"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    assert (tmp_path / "calls").read_text().split() == ["up", "--osds", "4", "--quiet"]   # lab 08 needs 4
    assert r.stdout.rstrip().endswith("server started")
    assert ("did not start" in r.stderr) == (up_exit != 0)


def test_postbuild_links_the_system_rados_bindings(tmp_path):
    """Here (Debian 12) the system Python is 3.11, so run postBuild with that interpreter."""
    code = "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"
    suffix = subprocess.run(["/usr/bin/python3", "-c", code],
                            capture_output=True, text=True).stdout.strip()
    if not Path(f"/usr/lib/python3/dist-packages/rados{suffix}").exists():
        pytest.skip("python3-rados is not installed (bash cephlab/bootstrap.sh setup)")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to("/usr/bin/python3")
    env = {**os.environ, "CEPHLAB_SITE_DIR": str(tmp_path), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    r = subprocess.run([str(BINDER / "postBuild")], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for module in ("rados", "rbd"):
        link = tmp_path / f"{module}{suffix}"
        assert link.is_symlink() and link.resolve().is_file()
    # the linked module imports with nothing but that folder on the path (-S: no site-packages)
    r = subprocess.run(["/usr/bin/python3", "-S", "-c", "import sys; sys.path.insert(0, sys.argv[1]);"
                        "import rados; print(rados.__file__)", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith(str(tmp_path)), r.stderr


def test_postbuild_explains_a_python_mismatch(tmp_path):
    """With a Python whose rados build is not installed, postBuild stops and says what to align."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text("#!/bin/sh\necho .cpython-39-x86_64-linux-gnu.so\n")
    (bin_dir / "python").chmod(0o755)
    env = {**os.environ, "CEPHLAB_SITE_DIR": str(tmp_path), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    r = subprocess.run([str(BINDER / "postBuild")], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "python=" in r.stderr and "python3-rados" in r.stderr
