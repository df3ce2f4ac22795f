"""The native mini cluster behind the Backend interface: daemons are local processes, so they
are stopped by PID and their /proc can be read (lifecycle.py does the work)."""
from __future__ import annotations

import shutil
from pathlib import Path

from cephlab.backends.base import Backend, ClusterView, State
from cephlab.backends.native import daemons, lifecycle, paths
from cephlab.core import folders
from cephlab.core.commands import CephClient
from cephlab.core.errors import ClusterNotRunning
from cephlab.core.lock import cluster_lock
from cephlab.core.names import DEFAULT_NAME

START_HINT = "start one with `cephlab up` in a terminal (or `make lab`), or Cluster.start()"


class NativeBackend(Backend):
    name = "native"
    local_daemons = True
    daemon_timeout_s = 60.0
    summary = "the mini cluster on this machine (127.0.0.1, no root)"
    objectstores = lifecycle.OBJECTSTORES

    def up(self, name: str, dir: str | Path | None, *, osds: int = 3,
           objectstore: str = "bluestore", mds: bool = False,
           progress: bool = True) -> tuple[Path, State, str]:
        return lifecycle.up(name, osds, objectstore, mds, dir, progress)

    def connect(self, name: str, dir: str | Path | None) -> tuple[Path, State]:
        d = paths.cluster_dir(name, dir)
        folders.look(d)                 # FolderUnusable: a file, a path too long, ...
        state = lifecycle.load_state(d)
        if state is None:
            raise ClusterNotRunning(f"no lab cluster named {name!r} (looked in {d}); {START_HINT}")
        if state.get("status") != "ready" or not daemons.running_pid(d, "mon.a"):
            raise ClusterNotRunning(f"lab cluster {name!r} in {d} is not running; "
                                    f"`cephlab up{'' if name == DEFAULT_NAME else ' --name ' + name}` "
                                    "restarts it")
        return d, state

    def down(self, name: str, dir: str | Path | None, *, keep: bool = False,
             destroy: bool = False) -> list[str]:
        return lifecycle.down(name, dir, keep)

    def folder(self, name: str, dir: str | Path | None) -> Path:
        return paths.cluster_dir(name, dir)

    def client(self, folder: Path) -> CephClient:
        return lifecycle.client_for(folder)

    def daemons(self, cluster: ClusterView) -> list[str]:
        return lifecycle.all_daemons(lifecycle.load_state(cluster.dir) or cluster.state)

    def pids(self, cluster: ClusterView) -> dict[str, int]:
        return {n: p for n in self.daemons(cluster) if (p := daemons.running_pid(cluster.dir, n))}

    def daemon_pid(self, cluster: ClusterView, daemon: str) -> int | None:
        # Also daemons a lab started beyond the state (lab 09's mds.a).
        return daemons.running_pid(cluster.dir, daemon)

    def stop_daemon(self, cluster: ClusterView, daemon: str, *, kill: bool = False) -> None:
        daemons.stop(cluster.dir, [daemon], graceful=not kill)

    def start_daemon(self, cluster: ClusterView, daemon: str) -> None:
        if not daemons.running_pid(cluster.dir, daemon):
            lifecycle.start_daemon(cluster.dir, daemon)

    def add_osd(self, cluster: ClusterView) -> int:
        with cluster_lock(cluster.dir, "Cluster.add_osd()", doing="adding an OSD"):
            osd_id = lifecycle.create_osd(cluster.dir, cluster.client)
        cluster.state = lifecycle.load_state(cluster.dir)
        return osd_id

    def forget_osd(self, cluster: ClusterView, osd_id: int) -> State:
        with cluster_lock(cluster.dir, "Cluster.remove_osd()", doing="removing an OSD"):
            shutil.rmtree(cluster.dir / "osd" / str(osd_id), ignore_errors=True)
            state = lifecycle.load_state(cluster.dir)
            state["osds"] = [i for i in state["osds"] if i != osd_id]
            lifecycle.save_state(cluster.dir, state)
        return state

    def log_hint(self, cluster: ClusterView, daemon: str) -> str:
        return str(daemons.log_path(cluster.dir, daemon))

    def status_lines(self, cluster: ClusterView) -> list[str]:
        ports = cluster.state["ports"]
        lines = [f"  ports: mon v2 {ports['mon_v2']}, v1 {ports['mon_v1']}, "
                 f"daemons {ports['bind_min']}-{ports['bind_max']}", "daemons:"]
        running = self.pids(cluster)
        for name in self.daemons(cluster):
            pid = running.get(name)
            lines.append(f"  {name:8s} {'pid ' + str(pid) if pid else 'NOT RUNNING'}")
        return lines


BACKEND = NativeBackend()
