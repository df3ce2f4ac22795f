"""Bad arguments and a missing Ceph give one clear line saying what to do (no cluster needed)."""
import os
import subprocess
import sys

import pytest

from cephlab.backends.native import lifecycle as native
from cephlab.core.errors import SetupError


def cephlab_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "cephlab.cli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=60)


@pytest.mark.parametrize("args, message", [
    (["--osds", "0"], "--osds: must be from 1 to 16, got 0"),
    (["--osds", "three"], "--osds: must be a whole number"),
    (["--objectstore", "foo"], "invalid choice: 'foo'"),
    (["--name", "a/b"], "bad cluster name 'a/b'"),
])
def test_bad_arguments(args, message, tmp_path):
    out = cephlab_cli("up", *args, env={"CEPHLAB_DIR": str(tmp_path)})
    assert out.returncode == 2
    assert message in out.stderr
    assert list(tmp_path.iterdir()) == []          # nothing created


def test_missing_ceph_binaries(tmp_path):
    out = cephlab_cli("up", "--name", "nobin", env={"CEPHLAB_BIN_DIR": str(tmp_path / "bin"),
                                                     "CEPHLAB_DIR": str(tmp_path)})
    assert out.returncode == 1
    assert "Ceph is not installed" in out.stderr
    assert "sudo apt-get install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-base fio" in out.stderr
    assert not (tmp_path / "nobin").exists()


def test_missing_ceph_on_path(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CEPHLAB_BIN_DIR"}
    env.update(PATH=str(tmp_path), CEPHLAB_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "cephlab.cli", "up"], capture_output=True,
                         text=True, env=env, timeout=60)
    assert out.returncode == 1 and "not found on PATH" in out.stderr


def test_refuses_a_folder_that_is_not_a_cluster(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(SetupError, match="not a cephlab cluster folder"):
        native.up("x", dir=tmp_path, progress=False)
    with pytest.raises(SetupError, match="not a cephlab cluster folder"):
        native.down("x", dir=tmp_path)
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_api_argument_errors(tmp_path):
    with pytest.raises(SetupError, match="osds must be an integer from 1 to 16"):
        native.up("x", osds=0, dir=tmp_path / "x", progress=False)
    with pytest.raises(SetupError, match="objectstore must be one of bluestore, filestore"):
        native.up("x", objectstore="foo", dir=tmp_path / "x", progress=False)


def test_down_of_a_cluster_that_does_not_exist_is_harmless(tmp_path):
    out = cephlab_cli("down", "--name", "ghost", env={"CEPHLAB_DIR": str(tmp_path)})
    assert out.returncode == 0 and "nothing was running" in out.stdout
