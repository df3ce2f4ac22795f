"""The provisioning scripts: shellcheck-clean, strict mode, executable, and the steps the issue
asks for (chrony, podman, lvm2, cephadm, bootstrap, host add, OSD spec, health gate, offline)."""
import os
import re
import subprocess

import pytest

from .conftest import ROOT, VAGRANT_DIR, need

# the project's scripts, not those of what they build (vagrant/.tcg holds a Debian root file system)
SCRIPTS = sorted(p for p in VAGRANT_DIR.rglob("*.sh")
                 if not any(part.startswith(".") for part in p.relative_to(VAGRANT_DIR).parts))


def test_scripts_exist():
    names = {p.name for p in SCRIPTS}
    assert {"lib.sh", "node.sh", "cluster.sh", "build-image.sh", "health.sh",
            "up-and-check.sh", "releases.sh"} <= names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck(script):
    need("shellcheck")
    out = subprocess.run(["shellcheck", "-x", "--severity=style", str(script)], cwd=script.parent,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_strict_mode_and_executable(script):
    text = script.read_text()
    if script.name == "releases.sh":     # sourced by both libraries: functions only, no side effects
        assert not re.search(r"^(set|source|exec|mkdir|cd) ", text, re.M)
        return
    if script.name in ("lib.sh", "common.sh"):          # sourced, not run
        assert "set -euo pipefail" in text
        return
    assert os.access(script, os.X_OK), f"{script.name} is not executable"
    sources_strict = re.search(r'source "\$\(dirname "\$\{BASH_SOURCE\[0\]\}"\)/(lib|common)\.sh"', text)
    assert "set -euo pipefail" in text or sources_strict


def test_node_packages():
    text = (VAGRANT_DIR / "provision" / "node.sh").read_text()
    packages = re.search(r"PACKAGES=\(([^)]*)\)", text).group(1).split()
    assert {"chrony", "podman", "lvm2", "cephadm"} <= set(packages)


def test_cluster_steps_in_order():
    text = (VAGRANT_DIR / "provision" / "cluster.sh").read_text()
    calls = [line.strip() for line in text.splitlines()[-16:] if line and not line.startswith(" ")]
    order = ["choose_image", "bootstrap", "reach_nodes", "distribute_image", "add_hosts",
             "services", "failure_domain"]
    assert [c for c in calls if c in order] == order
    assert calls.index("distribute_image") < calls.index("add_hosts")   # image before daemons
    assert any("health.sh" in c for c in calls)
    assert "ceph orch host add" in text and "--ssh-private-key" in text
    assert "--single-host-defaults" not in text      # it would make the failure domain osd


def test_node_sh_rejects_unknown_steps(tmp_path):
    """Runs node.sh for real with a made-up step: it must refuse before touching anything."""
    if os.geteuid() != 0:
        pytest.skip("node.sh needs root (it refuses otherwise)")
    env = {**os.environ, "CEPHLAB_NODES": "ceph1=192.168.56.11", "CEPHLAB_LOGGING": "1"}
    out = subprocess.run(["bash", str(VAGRANT_DIR / "provision" / "node.sh"), "reboot_everything"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "unknown step reboot_everything" in out.stderr


def test_up_and_check_help():
    out = subprocess.run(["bash", str(VAGRANT_DIR / "up-and-check.sh"), "--help"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "Expected duration" in out.stdout and "set -euo" not in out.stdout


def test_make_target():
    assert "vagrant/up-and-check.sh" in (ROOT / "Makefile").read_text()
