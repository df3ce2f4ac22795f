"""The cephadm VMs of vagrant/ behind the Backend interface: daemons are containers in VMs,
managed through `ceph orch`; a crash or a host stop goes through `vagrant ssh` / `vagrant halt`."""
from __future__ import annotations

from pathlib import Path

from cephlab.backends.base import ClusterView, OrchestratorBackend
from cephlab.backends.vagrant import lifecycle
from cephlab.core import run
from cephlab.core.errors import ClusterError


class VagrantBackend(OrchestratorBackend):
    name = "vagrant"
    title = "Vagrant"
    summary = "cephadm in the VMs of vagrant/ (needs KVM or VirtualBox)"
    not_running_hint = "start one with `cephlab up --backend vagrant` (or `vagrant up` in vagrant/)"
    lifecycle = lifecycle

    def take_down(self, destroy: bool) -> None:
        lifecycle.down(destroy=destroy)

    def down_message(self, name: str, folder: Path, stopped: list[str], keep: bool,
                     destroy: bool) -> str:
        return "Vagrant cluster: " + ("VMs destroyed, export removed" if destroy else
                                      "VMs halted (`cephlab up --backend vagrant` starts them again)")

    def node_command(self, cluster: ClusterView, host: str, command: str) -> str:
        try:
            return run.run(["vagrant", "ssh", host, "-c", f"sudo {command}"], cwd=lifecycle.VAGRANT_DIR,
                           what=f"`{command}` on {host}", timeout=300,
                           hint=lifecycle.INSTALL_HINT).stdout
        except run.CommandFailed as e:
            raise ClusterError(str(e)) from e

    def stop_host(self, cluster: ClusterView, host: str) -> None:
        """`vagrant halt HOST`: a clean shutdown, its OSDs tell the monitors they stop."""
        lifecycle.vagrant(["halt", host])

    def start_host(self, cluster: ClusterView, host: str) -> None:
        """`vagrant up HOST` (no provisioning): systemd starts its daemons' containers again."""
        lifecycle.vagrant(["up", host, "--no-provision"])


BACKEND = VagrantBackend()
