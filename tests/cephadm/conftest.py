"""The container cephadm cluster (vagrant/containers/up.sh) for tests/cephadm, once a session.

It runs whenever it can: as root with podman (what `make test` installs), so CI brings it up,
tests it, runs labs 01, 08 and 11 on it and takes it down. CEPHLAB_CEPHADM_TESTS=0 skips it
(a few minutes and ~2 GiB of RAM); without root or podman it skips and says why.

    sudo .venv/bin/pytest tests/cephadm -o addopts="-ra -p tests.notebook_plugin"

CEPHLAB_CEPHADM_KEEP=1 leaves the cluster up at the end (a second session then reuses it:
up.sh checks what is there and goes on). The tests reach the cluster from this machine with
the exported ceph.conf and keyring, through the `ceph` and `rados` programs.
"""
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cephlab.cluster.api import Cluster
from cephlab.core.run import run

ROOT = Path(__file__).resolve().parents[2]
UP = ROOT / "vagrant" / "containers" / "up.sh"
DOWN = ROOT / "vagrant" / "containers" / "down.sh"
UP_TIMEOUT_S = 3600


def _skip_reason() -> str:
    if os.environ.get("CEPHLAB_CEPHADM_TESTS") == "0":
        return "CEPHLAB_CEPHADM_TESTS=0: the container cephadm cluster is skipped"
    if os.geteuid() != 0:
        return "tests/cephadm start privileged node containers: run them as root"
    for program, package in (("podman", "podman"), ("ceph", "ceph-common"), ("rados", "ceph-common")):
        if shutil.which(program) is None:
            return f"{program} is missing: apt-get install {package}"
    return ""


@contextmanager
def cluster_up(export: Path, **env: str) -> Iterator[Path]:
    """up.sh with this export folder (and `env`, e.g. another release's suite and state folder),
    yield the folder; down.sh at the end, also when up.sh failed, unless CEPHLAB_CEPHADM_KEEP=1."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    env = dict(os.environ, CEPHLAB_CEPHADM_EXPORT=str(export), **env)
    try:
        run(["bash", UP], what="vagrant/containers/up.sh", timeout=UP_TIMEOUT_S, env=env, show=True)
        yield export
    finally:
        if os.environ.get("CEPHLAB_CEPHADM_KEEP") != "1":
            run(["bash", DOWN], what="vagrant/containers/down.sh", timeout=600, env=env,
                show=True, check=False)


@pytest.fixture(scope="package")
def cephadm_export():
    """Bring the cluster up (up.sh), yield the export folder; down.sh at the end."""
    export = Path(os.environ.get("CEPHLAB_CEPHADM_EXPORT")
                  or ROOT / "vagrant" / ".export-containers")
    with cluster_up(export) as folder:
        yield folder


class Ceph:
    """`ceph` and `rados` against the exported configuration."""

    def __init__(self, export: Path):
        self.export = export
        self.info = json.loads((export / "cluster.json").read_text())
        self.base = ["-c", str(export / "ceph.conf"), "-k", str(export / "keyring")]

    def __call__(self, *args: str, timeout: float = 120) -> str:
        return run(["ceph", *self.base, "--connect-timeout", "30", *args],
                   what="ceph " + " ".join(args), timeout=timeout).stdout

    def json(self, *args: str, timeout: float = 120):
        return json.loads(self(*args, "--format", "json", timeout=timeout))

    def rados(self, *args: str, input: bytes | None = None) -> bytes:
        return run(["rados", *self.base, *args], what="rados " + " ".join(args), timeout=120,
                   input=input, text=False).stdout


@pytest.fixture(scope="package")
def ceph(cephadm_export) -> Ceph:
    return Ceph(cephadm_export)


@pytest.fixture(scope="package")
def cluster(cephadm_export) -> Cluster:
    """The same cluster through the lab's API (Cluster.connect(backend="cephadm"))."""
    c = Cluster.connect(backend="cephadm", dir=cephadm_export)
    yield c
    c.close()
