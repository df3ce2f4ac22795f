"""What a cluster backend is: the one interface the cluster API uses to reach daemons and hosts.

A backend knows how a cluster's daemons run (processes of this machine, containers in VMs,
containers in container "hosts") and therefore how to start, stop and kill them, and whether
their /proc can be read here. Everything above the backends (the `Cluster` API, the lab helpers,
the CLI) reaches one only through `cephlab.backends.get(name)` and the methods below; none asks
which backend it is.

A backend works on a *handle*: the folder holding the cluster's ceph.conf and client.admin
keyring, and the cluster's state (a dict with at least "name", "backend", "status" and "osds";
"osds" may be None for "ask the cluster"). `ClusterView` is what a method gets of the Cluster
object: those two plus the Ceph command client, so `ceph orch ...` is one call away.

OrchestratorBackend holds what every cephadm-managed backend shares (daemons are containers
managed with `ceph orch daemon stop|start|redeploy`, the conf comes from an export folder).
"""
from __future__ import annotations

import json
import logging
import shutil
from abc import ABC, abstractmethod
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from cephlab.backends.settings import load_settings
from cephlab.core import folders, releases
from cephlab.core.commands import CephClient
from cephlab.core.errors import ClusterError, ClusterNotRunning
from cephlab.core.lock import cluster_lock
from cephlab.core.poll import poll_until

log = logging.getLogger(__name__)
State = dict[str, Any]


class ClusterView(Protocol):
    """The part of a Cluster a backend may use."""

    dir: Path
    state: State
    client: CephClient

    def ceph(self, *args: str, timeout: float = 30, inbuf: bytes = b"") -> Any: ...

    def release(self) -> releases.Release: ...


class Unsupported(ClusterError):
    """The backend cannot do this (e.g. read /proc of daemons inside VMs)."""


class Backend(ABC):
    """One way of running a Ceph cluster for the labs."""

    name: str = ""
    #: True when the daemons are processes of this machine, so /proc/<pid> can be read here.
    local_daemons: bool = False
    #: seconds to wait for a daemon to go up or down (containers in VMs take longer).
    daemon_timeout_s: float = 60.0
    #: True when cephadm manages the daemons (`ceph orch` works; hosts and containers).
    orchestrated: bool = False
    #: a line for `--backend` help texts.
    summary: str = ""
    #: how messages name a cluster of this kind ("Vagrant cluster lab"); "" for the native one.
    title: str = ""

    # -- life cycle -----------------------------------------------------------------------------
    @abstractmethod
    def up(self, name: str, dir: str | Path | None, *, osds: int = 3,
           objectstore: str = "bluestore", mds: bool = False,
           progress: bool = True) -> tuple[Path, State, str]:
        """Create, repair or find the cluster; (folder, state, "created"|"repaired"|"running")."""

    @abstractmethod
    def connect(self, name: str, dir: str | Path | None) -> tuple[Path, State]:
        """(folder, state) of the running cluster; ClusterNotRunning says how to start one."""

    @abstractmethod
    def down(self, name: str, dir: str | Path | None, *, keep: bool = False,
             destroy: bool = False) -> list[str]:
        """Stop (keep: keep its data) or remove the cluster; what was stopped. Always finishes."""

    def up_message(self, name: str, folder: Path, what: str) -> str:
        """What `cephlab up` says once the cluster runs ("" when the progress said it)."""
        return ""

    def down_message(self, name: str, folder: Path, stopped: list[str], keep: bool,
                     destroy: bool) -> str:
        """What `cephlab down` says it did."""
        what = f"stopped {len(stopped)} daemons" if stopped else "nothing was running"
        return f"cluster {name}: {what}; " + (f"kept {folder}" if keep else f"removed {folder}")

    @abstractmethod
    def folder(self, name: str, dir: str | Path | None) -> Path:
        """Where the cluster's ceph.conf, keyring and scratch space (tmp/) are, running or not."""

    def ready(self) -> tuple[bool, str]:
        """(True, "") when a cluster of this backend is there to connect to, else (False, why)."""
        return True, ""

    def client(self, folder: Path) -> CephClient:
        """A client.admin connection through the folder's ceph.conf and keyring."""
        return CephClient(folder / "ceph.conf", folder / "keyring",
                          ceph_bin=shutil.which("ceph") or "ceph")

    def settings(self) -> dict[str, Any]:
        """The settings the cluster was built from (vagrant/settings.yml for cephadm clusters)."""
        return {}

    def node_command(self, cluster: ClusterView, host: str, command: str) -> str:
        """Run a shell command as root on a host; its output."""
        raise Unsupported(f"the {self.name} backend has no hosts to log in to")

    def env(self, cluster: ClusterView) -> dict[str, str]:
        """Environment that makes `ceph`, `rados`, `rbd` and fio use this cluster."""
        return {"CEPH_CONF": str(cluster.dir / "ceph.conf")}

    # -- daemons ----------------------------------------------------------------------------------
    @abstractmethod
    def daemons(self, cluster: ClusterView) -> list[str]:
        """Every daemon the cluster should have, e.g. ["mon.a", "mgr.x", "osd.0"]."""

    def pids(self, cluster: ClusterView) -> dict[str, int]:
        """{daemon: pid} of the daemons running on this machine ({} where none are local)."""
        return {}

    def daemon_pid(self, cluster: ClusterView, daemon: str) -> int | None:
        """The PID of one daemon running on this machine (None: not running, or not local)."""
        return self.pids(cluster).get(daemon)

    @abstractmethod
    def stop_daemon(self, cluster: ClusterView, daemon: str, *, kill: bool = False) -> None:
        """Stop one daemon politely, or kill it (SIGKILL: a crash); it is not restarted."""

    @abstractmethod
    def start_daemon(self, cluster: ClusterView, daemon: str) -> None:
        """Start a stopped daemon again from its data (nothing when it runs)."""

    def add_osd(self, cluster: ClusterView) -> int:
        """Create and start one more OSD; its id."""
        raise Unsupported(f"the {self.name} backend cannot add an OSD from the lab")

    def forget_osd(self, cluster: ClusterView, osd_id: int) -> State:
        """After `osd purge`: drop the OSD's data and its place in the state; the new state."""
        raise Unsupported(f"the {self.name} backend cannot remove an OSD from the lab "
                          "(use `ceph orch osd rm`)")

    def log_hint(self, cluster: ClusterView, daemon: str) -> str:
        """Where to look when a daemon misbehaves (a log file, or a command)."""
        return f"`ceph log last 20` and the daemon's log on its host ({daemon})"

    # -- hosts ------------------------------------------------------------------------------------
    def stop_host(self, cluster: ClusterView, host: str) -> None:
        """Shut one host down cleanly (all its daemons stop)."""
        raise Unsupported(f"the {self.name} backend has a single host")

    def start_host(self, cluster: ClusterView, host: str) -> None:
        """Start a stopped host again; its daemons come back."""
        raise Unsupported(f"the {self.name} backend has a single host")

    # -- status -----------------------------------------------------------------------------------
    def status_lines(self, cluster: ClusterView) -> list[str]:
        """Lines `cephlab status` prints about where and how the daemons run."""
        return [f"  {d}" for d in self.daemons(cluster)]


ACTION_RETRY_S = 10.0    # how often a `ceph orch daemon` action is asked for again


class OrchestratorBackend(Backend):
    """A cephadm cluster: daemons are containers on hosts, managed through `ceph orch`; the host
    talks to it through a ceph.conf and keyring exported to a folder."""

    daemon_timeout_s = 300.0          # a daemon container starting in a VM or a nested node on a busy host
    orchestrated = True
    not_running_hint = "start it with `cephlab up --backend <name>`"

    # the kind's lifecycle module: export_dir() -> Path and up(quiet=...) -> Path
    lifecycle: ModuleType

    def export_dir(self, dir: str | Path | None = None) -> Path:
        """The folder the cluster's ceph.conf, keyring and cluster.json are exported to."""
        return folders.expand(dir) if dir else self.lifecycle.export_dir()

    def bring_up(self, quiet: bool) -> Path:
        """Hosts, cephadm, OSDs and HEALTH_OK; the export folder."""
        return self.lifecycle.up(quiet=quiet)

    def up(self, name: str, dir: str | Path | None, *, osds: int = 3,
           objectstore: str = "bluestore", mds: bool = False,
           progress: bool = True) -> tuple[Path, State, str]:
        if (osds, objectstore, mds) != (3, "bluestore", False):
            log.warning(f"note: --osds, --objectstore and --mds are for the native cluster; the {self.title} "
                        "cluster's OSDs come from vagrant/settings.yml (nodes x osd_disks, BlueStore)")
        # one lock per kind of cluster (the VMs or containers are the same whatever --dir says)
        with cluster_lock(self.export_dir(), "cephlab up", name=f"the {self.title} cluster",
                          doing="starting it"):
            d = self.bring_up(quiet=not progress)
        return (*self.connect(name, d), "created")

    def down(self, name: str, dir: str | Path | None, *, keep: bool = False,
             destroy: bool = False) -> list[str]:
        with cluster_lock(self.export_dir(), "cephlab down", name=f"the {self.title} cluster",
                          doing="taking it down"):
            self.take_down(destroy=destroy)
        return []

    @abstractmethod
    def take_down(self, destroy: bool) -> None:
        """Stop the cluster (destroy: remove its hosts too); the caller holds its lock."""

    def settings(self) -> dict[str, Any]:
        return load_settings()

    def folder(self, name: str, dir: str | Path | None) -> Path:
        return self.export_dir(dir)

    def up_message(self, name: str, folder: Path, what: str) -> str:
        return f"the {self.title} cluster is up; ceph.conf and keyring are in {folder}"

    def down_message(self, name: str, folder: Path, stopped: list[str], keep: bool,
                     destroy: bool) -> str:
        return (f"{self.title} cluster: " + ("removed" if destroy else
                f"stopped (`cephlab up --backend {self.name}` starts it again)"))

    def ready(self) -> tuple[bool, str]:
        d = self.export_dir()
        if not (d / "ceph.conf").is_file():
            return False, f"no exported ceph.conf in {d}"
        return True, ""

    def connect(self, name: str, dir: str | Path | None) -> tuple[Path, State]:
        d = self.export_dir(dir)
        folders.look(d)                 # FolderUnusable: a file, a path too long, ...
        if not (d / "ceph.conf").is_file() or not (d / "keyring").is_file():
            raise ClusterNotRunning(f"no {self.title} cluster exported in {d}: "
                                    f"{self.not_running_hint}")
        try:
            meta = json.loads((d / "cluster.json").read_text())
        except (OSError, ValueError):
            meta = {}
        (d / "tmp").mkdir(exist_ok=True)
        return d, {"name": meta.get("name", self.name), "backend": self.name, "status": "ready",
                   "fsid": meta.get("fsid"), "nodes": meta.get("nodes", {}), "osds": None}

    def daemons(self, cluster: ClusterView) -> list[str]:
        return sorted(f"{d['daemon_type']}.{d['daemon_id']}"
                      for d in cluster.ceph("orch", "ps", timeout=60))

    def daemon_host(self, cluster: ClusterView, daemon: str) -> str:
        """The host a daemon runs on (from `ceph orch ps`)."""
        for d in cluster.ceph("orch", "ps", timeout=60):
            if f"{d['daemon_type']}.{d['daemon_id']}" == daemon:
                return d["hostname"]
        raise ClusterError(f"{daemon} is not among the daemons of `ceph orch ps`")

    def stop_daemon(self, cluster: ClusterView, daemon: str, *, kill: bool = False) -> None:
        if not kill:                # systemd stops the daemon's container
            self._orch_action(cluster, daemon, "stop", "stopped")
            return
        # SIGKILL the container's unit, then keep systemd from restarting it (a crash that stays).
        unit = f"ceph-{cluster.state['fsid']}@{daemon}.service"
        self.node_command(cluster, self.daemon_host(cluster, daemon),
                          f"sh -c 'systemctl kill --signal=SIGKILL {unit}; systemctl stop {unit}'")

    def start_daemon(self, cluster: ClusterView, daemon: str) -> None:
        self._orch_action(cluster, daemon, "start", "running")

    def _orch_action(self, cluster: ClusterView, daemon: str, action: str, status: str) -> None:
        """`ceph orch daemon <action>`, asked again until `ceph orch ps` shows `status`.

        cephadm only schedules the action for its serve loop, and Pacific clears a daemon's
        scheduled action after running the one before: an action asked for while the loop still
        runs the previous one on the same daemon (a start right after a stop) is dropped. A lab
        stops a daemon on purpose, PGs degraded or not, as Pacific and Reef do: where cephadm
        first asks ok-to-stop, with --force (Release.orch_stop_needs_force)."""
        asks = [0]
        force = ["--force"] if action == "stop" and cluster.release().orch_stop_needs_force else []

        def done() -> bool:
            kind, _, ident = daemon.partition(".")       # Pacific's `orch ps` has no --daemon_name
            rows = cluster.ceph("orch", "ps", "--daemon_type", kind, "--daemon_id", ident, "--refresh",
                                timeout=60)
            if asks[0] and any(r.get("status_desc") == status for r in rows):
                return True
            cluster.ceph("orch", "daemon", action, daemon, *force)
            asks[0] += 1
            return False
        poll_until(done, self.daemon_timeout_s, f"cephadm: {daemon} {status}", interval=ACTION_RETRY_S,
                   hint="ceph orch ps; ceph log last cephadm")

    def add_osd(self, cluster: ClusterView) -> int:
        raise Unsupported(f"the {self.title} cluster makes one OSD per disk: raise osd_disks in "
                          "vagrant/settings.yml, then bring the cluster up again")

    def status_lines(self, cluster: ClusterView) -> list[str]:
        try:
            daemons = cluster.ceph("orch", "ps", timeout=60)
        except ClusterError as e:    # a cluster without cephadm (or its mgr is restarting)
            return [f"daemons: unknown ({e})"]
        lines = [f"conf in {cluster.dir}", "daemons (cephadm containers):"] if daemons else []
        for d in sorted(daemons, key=lambda d: (d["hostname"], d["daemon_type"])):
            lines.append(f"  {d['hostname']:10s} {d['daemon_type']}.{d['daemon_id']:14s} "
                         f"{d.get('status_desc', '?')}")
        return lines
