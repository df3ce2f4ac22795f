"""Driving vagrant/containers/ (up.sh, down.sh): the same provisioning as the Vagrant VMs, with
the hosts as systemd containers on a private podman network (no virtualization needed).

The scripts hold the container specifics; this module runs them with the one runner and knows
where their export folder is. Settings: vagrant/settings.yml (CEPHLAB_VAGRANT_SETTINGS), with
the CEPHLAB_CEPHADM_* overrides the scripts document.
"""
from __future__ import annotations

import os
from pathlib import Path

from cephlab.core import run
from cephlab.core.errors import ClusterError
from cephlab.core.project import VAGRANT_DIR

SCRIPTS = VAGRANT_DIR / "containers"
INSTALL_HINT = "sudo apt-get install podman (and run as root: the node containers are privileged)"
UP_TIMEOUT_S = 3 * 3600        # an uncached image build on a slow mirror, then HEALTH_OK


def export_dir() -> Path:
    """Where up.sh puts ceph.conf, keyring and cluster.json for the host."""
    return Path(os.environ.get("CEPHLAB_CEPHADM_EXPORT") or VAGRANT_DIR / ".export-containers")


def _script(name: str, quiet: bool, timeout: float) -> None:
    log = None
    if quiet:
        export_dir().mkdir(parents=True, exist_ok=True)
        log = export_dir().parent / f".cephadm-{name}.log"
    try:
        run.run(["bash", str(SCRIPTS / f"{name}.sh")], what=f"vagrant/containers/{name}.sh",
                timeout=timeout, show=not quiet, log=log, hint=INSTALL_HINT)
    except run.CommandFailed as e:
        raise ClusterError(f"{e}; the script's last lines say what to do; "
                           "`cephlab down --backend cephadm` removes what was made") from e


def up(quiet: bool = False) -> Path:
    """Images (cached), network, node containers, node.sh / cluster.sh, HEALTH_OK, the export."""
    _script("up", quiet, UP_TIMEOUT_S)
    d = export_dir()
    if not (d / "ceph.conf").is_file():
        raise ClusterError(f"vagrant/containers/up.sh finished but exported no ceph.conf to {d}")
    return d


def down(quiet: bool = False) -> None:
    """Remove the node containers, their network, loop devices and folders (images stay cached)."""
    _script("down", quiet, 600)


def node_command(host: str, command: str, timeout: float = 300) -> str:
    """Run a shell command as root in one node container; its output."""
    return run.run(["podman", "exec", host, "sh", "-c", command], what=f"`{command}` on {host}",
                   timeout=timeout, hint=INSTALL_HINT).stdout


def stop_host(host: str) -> None:
    """A clean shutdown of one host: systemd in the node stops the Ceph daemons' units."""
    node_command(host, "systemctl stop ceph.target", timeout=300)


def start_host(host: str) -> None:
    """The host's Ceph daemons start again (their units were stopped, not removed)."""
    node_command(host, "systemctl start ceph.target", timeout=300)
