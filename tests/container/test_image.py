"""The lab's OCI image (container/): built from the student release on Debian 13 (Reef), started
as a learner would start it, labs 00 and 06 run in it top to bottom (lab 01 runs in it under the
hub, test_hub.py; lab 09 under Docker, test_docker.py), stopped; nothing of it is left.

It runs whenever it can: as root with podman (what `make test` installs). The Debian base image
comes from vagrant/provision/build-image.sh --base-only (debootstrap: no registry is needed).
Times and sizes go to test-artifacts/container/times.json and are printed (pytest -s).

    sudo .venv/bin/pytest tests/container -o addopts="-ra"
"""
from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from cephlab.core import releases
from cephlab.core.poll import poll_until
from tests.notebook_plugin import STUDENT_RAN_ELSEWHERE

from .conftest import ARTIFACTS, ROOT, SUITE, TAG, ULIMITS, podman
from .lab_http import answers, status_url

NAME = f"cephlab-image-test-{os.getpid()}"
# The labs the image runs in CI (issue 48: at least 00, 01, 06 and 09): 01 in test_hub.py (four
# containers of it at once, under the hub), 09 in test_docker.py (FUSE under Docker), 00 and 06 here
# CEPHLAB_IMAGE_LABS="all" (or "00 03 ...") runs other labs instead, e.g. every lab once by hand:
#   CEPHLAB_IMAGE_LABS=all sudo .venv/bin/pytest tests/container/test_image.py -s -o addopts=-ra
LABS: tuple[str, ...] = ("00-welcome", "06-capacity")
_chosen = os.environ.get("CEPHLAB_IMAGE_LABS", "").split()
if _chosen:
    _all = sorted(p.name for p in (ROOT / "solutions").glob("[0-9][0-9]-*.py"))
    LABS = tuple(n[:-3] for n in _all if _chosen == ["all"] or n[:2] in _chosen)


def _skip_reason() -> str:
    if os.geteuid() != 0:
        return "tests/container build images with rootful podman: run them as root"
    if shutil.which("podman") is None:
        return "podman is missing: apt-get install podman (make test installs it)"
    return ""


pytestmark = pytest.mark.skipif(bool(_skip_reason()), reason=_skip_reason() or "-")


@pytest.fixture(scope="module")
def running(image):
    """A container of the image, started as the README says (FUSE device, a work volume)."""
    volume = f"{NAME}-work"
    t0 = time.monotonic()
    podman("run", "-d", "--name", NAME, *ULIMITS, "-p", "127.0.0.1::8888", "--device", "/dev/fuse",
           "--cap-add", "SYS_ADMIN", "-v", f"{volume}:/home/learner/work",
           "-v", f"{ROOT / 'tests/setup/run_notebook.py'}:/tmp/run_notebook.py:ro",
           "-e", "JUPYTER_TOKEN=cephlab-ci", TAG)
    port = podman("port", NAME, "8888").stdout.strip().rsplit(":", 1)[-1]
    url = status_url(port, "cephlab-ci")
    poll_until(lambda: answers(url), 300, "JupyterLab answering in the container", interval=1,
               hint=f"see: podman logs {NAME}")
    image["start to JupyterLab s"] = round(time.monotonic() - t0, 1)
    try:
        yield image
    finally:
        podman("rm", "-f", "-t", "10", NAME, check=False)     # after a failed test: nothing left
        podman("volume", "rm", "-f", volume, check=False)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "times.json").write_text(json.dumps(image, indent=1))
        print("\n" + json.dumps(image, indent=1))


def in_container(*cmd, timeout=900, user="learner"):
    return podman("exec", "-u", user, NAME, *cmd, timeout=timeout, check=False)


def test_the_image_has_no_solution_and_no_hidden_test(image):
    found = podman("run", "--rm", *ULIMITS, "--entrypoint", "bash", TAG, "-c",
                   "cd /opt/ceph-storage-lab && ls -d solutions tests bench book .ci 2>/dev/null; "
                   "grep -rlE '# (BEGIN SOLUTION|HIDDEN|BEGIN TESTS)' labs || true").stdout.split()
    assert found == []


def test_the_image_is_its_debian_with_its_ceph_and_no_test_tools(image):
    """Debian 13 has Reef (cephlab/core/releases.py); a learner's .venv has no test extras and no
    Playwright (cephlab/pip-drop-lab.txt); the build left no apt cache or package lists."""
    out = podman("run", "--rm", *ULIMITS, "--entrypoint", "bash", TAG, "-c",
                 ". /etc/os-release; echo $VERSION_CODENAME; ceph --version; "
                 "ls /var/cache/apt/archives/*.deb /var/lib/apt/lists/*Packages* 2>/dev/null | wc -l; "
                 "python -c 'import importlib.util as u; print([m for m in (\"pytest\", \"playwright\", "
                 "\"hypothesis\") if u.find_spec(m)])'").stdout.splitlines()
    major = next(r.major for r in releases.TABLE.values() if r.debian == SUITE)
    assert out[0] == SUITE and f"ceph version {major}." in out[1], out
    assert out[2:] == ["0", "[]"], out


def test_a_hub_can_spawn_the_image(running):
    """KubeSpawner and DockerSpawner run jupyterhub-singleuser in it (container/z2jh-values.yaml)."""
    version = in_container("jupyterhub-singleuser", "--version")
    assert version.returncode == 0 and version.stdout.startswith("5."), version.stdout + version.stderr


def test_the_cluster_is_up_as_the_learner_and_listens_on_loopback_only(running):
    status = in_container("cephlab", "status")
    assert status.returncode == 0 and "HEALTH_OK" in status.stdout, status.stdout + status.stderr
    keyring = in_container("stat", "-c", "%U %a", "/home/learner/.local/state/cephlab/lab/keyring")
    assert keyring.stdout.split() == ["learner", "600"], keyring.stdout + keyring.stderr
    # every daemon's listening socket (the container has no ss: /proc/net/tcp, 0100007F = 127.0.0.1)
    listen = in_container("bash", "-c", "awk '$4 == \"0A\" {print $2}' /proc/net/tcp /proc/net/tcp6")
    addrs = {a.split(":")[0] for a in listen.stdout.split()}
    jupyter = {a for a in listen.stdout.split() if a.endswith(":22B8")}     # 8888: JupyterLab's own
    assert addrs - {a.split(":")[0] for a in jupyter} <= {"0100007F", "0" * 24 + "01000000"}, listen.stdout


@pytest.mark.parametrize("lab", LABS)
def test_lab_runs_top_to_bottom_in_the_image(running, lab):
    t0 = time.monotonic()
    out = in_container("python", "/tmp/run_notebook.py", f"/home/learner/work/labs/{lab}/{lab}.ipynb",
                       f"/tmp/{lab}.executed.ipynb")
    running[f"lab {lab[:2]} s"] = round(time.monotonic() - t0, 1)
    # what one learner's container holds after the lab (cluster + JupyterLab): the sizing figures
    stats = podman("stats", "--no-stream", "--format", "{{.MemUsage}} | {{.CPU}}", NAME, check=False)
    running[f"after lab {lab[:2]}: memory | CPU since start"] = stats.stdout.strip()
    assert out.returncode == 0, out.stdout[:6000] + out.stderr[-2000:]   # the first errors: the rest follow from them
    STUDENT_RAN_ELSEWHERE[lab] = "in the image (tests/container)"   # tests/notebooks need not run it again


def test_stop_takes_the_cluster_down_and_leaves_nothing(running):
    t0 = time.monotonic()
    podman("stop", "-t", "60", NAME)
    running["stop s"] = round(time.monotonic() - t0, 1)
    out = podman("logs", NAME)
    logs = out.stdout + out.stderr
    assert "cluster lab: stopped" in logs and "removed /home/learner/.local/state/cephlab/lab" in logs, logs[-2000:]
    podman("rm", NAME)
    assert podman("ps", "-a", "--filter", f"name={NAME}", "--format", "{{.Names}}").stdout.strip() == ""
