"""What tests/container shares: the lab's image, built once per test session the way `make image`
builds it (test_image.py checks it, test_hub.py spawns it for a class), and removed at the end.

CEPHLAB_TEST_IMAGE=<tag of an image already built> uses that image instead (no build, kept).
"""
from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import pytest

from cephlab.core import run

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "container"
TAG = os.environ.get("CEPHLAB_TEST_IMAGE") or "localhost/ceph-storage-lab:ci"
# the image's Debian, as container/build.sh builds it by default (Debian 13, Reef)
SUITE = os.environ.get("CEPHLAB_IMAGE_SUITE", "trixie")
_spec = importlib.util.spec_from_file_location("cephlab_seccomp", ROOT / "container" / "seccomp.py")
assert _spec is not None and _spec.loader is not None
seccomp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seccomp)
SECCOMP = ARTIFACTS / "seccomp.json"
if any(p.is_file() for p in seccomp.PROFILES):
    seccomp.write(SECCOMP)
# What every `podman run` of the image adds to the README's line: this machine's hard limits are
# below podman's defaults (1048576 open files), so the run would fail without --ulimit; and the
# profile that lets libaio call io_pgetevents (container/seccomp.py), which the README's podman
# line has too.
ULIMITS = ["--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768",
           "--security-opt", f"seccomp={SECCOMP}"]


def podman(*args: str, timeout: float = 600, check: bool = True) -> run.CommandResult:
    """podman through the project's one runner: a failure names the step and shows its output."""
    return run.run(["podman", *args], what=f"podman {args[0]}", timeout=timeout, check=check)


def _dangling() -> set[str]:
    return set(podman("images", "-q", "--filter", "dangling=true", check=False).stdout.split())


@pytest.fixture(scope="session")
def image(tmp_path_factory):
    """The image's tag is TAG; the fixture's value: {phase: seconds} of the build."""
    times: dict = {}
    if os.environ.get("CEPHLAB_TEST_IMAGE"):
        times["image"] = f"{TAG} (given, not built)"
        yield times
        return
    state = tmp_path_factory.mktemp("base")
    dangling_before = _dangling()
    t0 = time.monotonic()
    run.run(["bash", ROOT / "vagrant/provision/build-image.sh", "--base-only"], what="the Debian base image",
            env={**os.environ, "CEPHLAB_STATE": str(state), "CEPHLAB_SUITE": SUITE}, timeout=900)
    times["base image"] = round(time.monotonic() - t0, 1)
    t0 = time.monotonic()
    build = run.run(["bash", ROOT / "container/build.sh"], what="make image", check=False,
                    env={**os.environ, "CEPHLAB_IMAGE": TAG, "CEPHLAB_IMAGE_SUITE": SUITE}, timeout=1800)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    times["image build"] = round(time.monotonic() - t0, 1)
    times["image size MB"] = round(int(podman("image", "inspect", "--format", "{{.Size}}", TAG).stdout) / 1e6)
    yield times
    podman("rmi", "-f", TAG, check=False)
    # the build's own intermediate stage ("venv": ~0.7 GB, new each build) is left untagged; the
    # "os" stage stays as the next build's cache. Only images this build left dangling go.
    left = sorted(_dangling() - dangling_before)
    if left:
        podman("rmi", "-f", *left, check=False)
