"""Shared helpers for the Vagrant checks: the tools they run, and a clean environment for them."""
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VAGRANT_DIR = ROOT / "vagrant"
APT_HINT = "sudo apt-get install vagrant vagrant-libvirt ruby shellcheck (make setup does it)"


def need(tool):
    """The tool's path; skip with the install command when it cannot be found."""
    path = shutil.which(tool)
    if not path:
        pytest.skip(f"{tool} is not installed: {APT_HINT}")
    return path


@pytest.fixture(scope="module")
def vagrant_env(tmp_path_factory):
    """Environment for `vagrant`: its home and the export folder (the ssh key), shared by a module."""
    tmp = tmp_path_factory.mktemp("vagrant")
    env = {**os.environ, "VAGRANT_HOME": str(tmp / "vagrant-home"),
           "CEPHLAB_VAGRANT_EXPORT": str(tmp / "export"), "VAGRANT_CHECKPOINT_DISABLE": "1"}
    env.pop("CEPHLAB_VAGRANT_SETTINGS", None)
    env.pop("VAGRANT_DEFAULT_PROVIDER", None)
    return env
