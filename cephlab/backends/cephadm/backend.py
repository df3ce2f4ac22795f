"""The cephadm cluster whose hosts are systemd containers (vagrant/containers/) behind the
Backend interface: daemons are containers inside the node containers, managed by `ceph orch`;
a crash or a host stop goes through `podman exec <host> systemctl ...`."""
from __future__ import annotations

from pathlib import Path

from cephlab.backends.base import ClusterView, OrchestratorBackend
from cephlab.backends.cephadm import lifecycle


class CephadmBackend(OrchestratorBackend):
    name = "cephadm"
    title = "cephadm container"
    summary = "cephadm on container hosts (vagrant/containers: root and podman, no virtualization)"
    not_running_hint = "start one with `cephlab up --backend cephadm` (root, podman)"
    lifecycle = lifecycle

    def take_down(self, destroy: bool) -> None:
        lifecycle.down(quiet=False)

    def down_message(self, name: str, folder: Path, stopped: list[str], keep: bool,
                     destroy: bool) -> str:
        return ("cephadm container cluster: node containers, network, loop devices and folders "
                "removed (the built images stay cached)")

    def node_command(self, cluster: ClusterView, host: str, command: str) -> str:
        return lifecycle.node_command(host, command)

    def stop_host(self, cluster: ClusterView, host: str) -> None:
        lifecycle.stop_host(host)

    def start_host(self, cluster: ClusterView, host: str) -> None:
        lifecycle.start_host(host)


BACKEND = CephadmBackend()
