"""The Python face of a lab cluster, used by notebooks and tests.

    from cephlab import Cluster
    c = Cluster.connect()              # or Cluster.start(name="lab", osds=4)
    c.health()                         # "HEALTH_OK"
    with c.resources() as r:
        r.replicated_pool("demo", size=3)
        c.rados_bench("demo", 10)

Pools live in cephlab/cluster/pools.py, tuning in cephlab/cluster/tuning.py, measurements in
cephlab/cluster/measure.py and fault injection in cephlab/cluster/faults.py (mixed into Cluster).

Why mixins, and how they are typed: notebooks, their executed outputs and the tests call
c.create_replicated_pool(...), c.tuning(), c.rados_bench(...) on the one Cluster object, so that
flat API stays; sub-objects (c.pools.create(...), c.faults.kill_osd(...)) would be a tidier
structure but would change every lab and force executed notebooks to be run again. Instead each
mixin subclasses the ClusterCore protocol (cephlab/cluster/base.py), which declares what the
mixins use of the Cluster (dir, state, name, backend, client, conf, pg_states(), the daemon
methods, ...). mypy then checks every self.<name> in a mixin against it, and refuses to build a
Cluster that lacks one of them; a mixin needing something new from the Cluster declares it there.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cephlab import backends
from cephlab.backends.base import Backend, State
from cephlab.cluster import full
from cephlab.cluster.faults import Faults
from cephlab.cluster.full import Fullness
from cephlab.cluster.measure import Measuring
from cephlab.cluster.pools import Pools
from cephlab.cluster.tuning import Tuning
from cephlab.core import ceph_version, releases, report
from cephlab.core.errors import ClusterError, ClusterFull, ClusterNotRunning, SetupError
from cephlab.core.names import DEFAULT_NAME, default_cluster_name
from cephlab.core.poll import PollTimeout, poll_until

__all__ = ["Cluster", "ClusterError", "ClusterFull", "ClusterNotRunning", "SetupError"]


class Cluster(Pools, Tuning, Measuring, Faults, Fullness):
    """A running lab cluster: commands, pools, tuning, measurements, faults.

    It holds a backend (cephlab/backends: native processes, Vagrant VMs, ...) and asks it for
    everything that depends on where the daemons run; nothing here asks which backend it is.
    """

    def __init__(self, dir: str | Path, state: State, backend: Backend | None = None):
        self.dir = Path(dir)
        self.state = state
        self.name: str = state["name"]
        self.backend = backend or backends.get(state.get("backend", "native"))
        self.client = self.backend.client(self.dir)
        self._tunings = []              # the active tuning() blocks (Tuning)

    # -- life cycle --------------------------------------------------------------------------
    @classmethod
    def connect(cls, name: str | None = None, dir: str | Path | None = None,
                backend: str | None = None) -> Cluster:
        """The running cluster `name` (default $CEPHLAB_NAME, else "lab"; folder `dir`) of
        `backend` (default $CEPHLAB_BACKEND, else "native"); ClusterNotRunning says how to start
        one. backend="vagrant": the cephadm VMs of vagrant/, through the ceph.conf and keyring
        `vagrant up` exported (`dir`: that folder)."""
        report.show_messages_by_default()      # a notebook's first call: its messages show
        b = backends.get(backend)
        name = name or default_cluster_name()
        d, state = b.connect(name, dir)
        cluster = cls(d, state, b)
        if state.get("osds") is None:          # the backend leaves it to the cluster to say
            try:
                state["osds"] = sorted(cluster.client.mon("osd ls"))
            except ClusterError as e:
                cluster.close()
                raise ClusterNotRunning(f"the {b.name} cluster of {d} does not answer ({e}); is "
                                        f"it running? `cephlab up --backend {b.name}` starts "
                                        "it") from e
        return cluster

    @classmethod
    def start(cls, name: str = DEFAULT_NAME, osds: int = 3, objectstore: str = "bluestore",
              mds: bool = False, dir: str | Path | None = None, progress: bool = True,
              backend: str | None = None) -> Cluster:
        """Start (or repair, or just find) cluster `name`, as `cephlab up` does."""
        report.show_messages_by_default()
        b = backends.get(backend)
        d, state, _ = b.up(name, dir, osds=osds, objectstore=objectstore, mds=mds,
                           progress=progress)
        if state.get("osds") is None:
            return cls.connect(name, d, b.name)
        return cls(d, state, b)

    @staticmethod
    def down(name: str = DEFAULT_NAME, dir: str | Path | None = None, backend: str | None = None,
             keep: bool = False, destroy: bool = False) -> list[str]:
        """Take cluster `name` down whether it runs or not (a cluster an interrupted run left):
        the daemons it stopped. keep: keep its folder; destroy (VMs): delete them."""
        return backends.get(backend).down(name, dir, keep=keep, destroy=destroy)

    @staticmethod
    def folder(name: str = DEFAULT_NAME, dir: str | Path | None = None,
               backend: str | None = None) -> Path:
        """The folder of cluster `name` (its ceph.conf, keyring and scratch space tmp/)."""
        return backends.get(backend).folder(name, dir)

    @staticmethod
    def backend_ready(backend: str | None = None, orchestrated: bool = False) -> tuple[bool, str]:
        """(True, "") when a cluster of that backend is there to connect to, else (False, why);
        orchestrated: it must also be a cephadm cluster (`ceph orch`, hosts, containers)."""
        b = backends.get(backend)
        if orchestrated and not b.orchestrated:
            return False, f"the {b.name} cluster has no cephadm orchestrator (CEPHLAB_BACKEND=cephadm or vagrant)"
        return b.ready()

    def stop(self, keep: bool = False) -> list[str]:
        """Stop every daemon of this cluster; remove its folder unless keep.

        A Vagrant cluster is only halted (`cephlab down --backend vagrant --destroy` removes it).
        """
        self.client.close()
        return self.backend.down(self.name, self.dir, keep=keep)

    def close(self) -> None:
        self.client.close()

    def __repr__(self) -> str:
        return f"Cluster(name={self.name!r}, dir='{self.dir}', osds={self.state['osds']})"

    @property
    def local_daemons(self) -> bool:
        """True when the daemons run on this machine, so /proc/<pid> of an OSD can be read here.

        False where daemons run in VMs or container hosts: labs use perf counters instead and
        say so.
        """
        return self.backend.local_daemons

    @property
    def conf(self) -> str:
        return str(self.dir / "ceph.conf")

    @property
    def keyring(self) -> str:
        return str(self.dir / "keyring")

    def env(self) -> dict[str, str]:
        """Environment variables that make `ceph`, `rados`, `rbd` and `fio` use this cluster."""
        return self.backend.env(self)

    # -- daemons -------------------------------------------------------------------------------
    def pids(self) -> dict[str, int]:
        """{daemon: pid} of the daemons running now (e.g. {"osd.0": 1234}); {} when not local."""
        return self.backend.pids(self)

    def daemon_pid(self, daemon: str) -> int | None:
        """The PID of one local daemon ("mds.a"), None when it does not run (or is not local)."""
        return self.backend.daemon_pid(self, daemon)

    def stop_daemon(self, daemon: str, kill: bool = False) -> None:
        """Stop one daemon (kill: SIGKILL, a crash); it stays stopped until start_daemon."""
        self.backend.stop_daemon(self, daemon, kill=kill)
        self._changed()

    def start_daemon(self, daemon: str) -> None:
        """Start a stopped daemon again from its data (nothing when it runs)."""
        self.backend.start_daemon(self, daemon)
        self._changed()

    def daemon_log(self, daemon: str) -> str:
        """Where to look when the daemon misbehaves (its log file, or a command)."""
        return self.backend.log_hint(self, daemon)

    def stop_host(self, host: str) -> None:
        """Shut one host down cleanly (clusters with several hosts)."""
        self.backend.stop_host(self, host)
        self._changed()

    def start_host(self, host: str) -> None:
        self.backend.start_host(self, host)
        self._changed()

    def host_command(self, host: str, command: str) -> str:
        """Run a shell command as root on one host of a multi-host cluster; its output."""
        return self.backend.node_command(self, host, command)

    def settings(self) -> dict:
        """The settings the cluster was built from ({} for the native cluster)."""
        return self.backend.settings()

    def status_lines(self) -> list[str]:
        """What `cephlab status` says about where and how the daemons run."""
        return self.backend.status_lines(self)

    # -- librados ------------------------------------------------------------------------------
    @contextmanager
    def ioctx(self, pool: str) -> Iterator[Any]:
        """A librados I/O context on `pool` (rados.Ioctx: write_full, read, stat, ...), closed
        on leaving the `with` block.

        A write to a full pool raises ClusterFull (which flag, which OSDs, what to do) at once:
        librados would hold it until space is freed, so the context asks for ENOSPC instead
        (Ceph's "full try"; deletes still go through, as they free space)."""
        handle = self._rados()
        with handle.open_ioctx(pool) as io:
            full.full_try(io)
            try:
                yield io
            except Exception as e:
                full.raise_if_full(self, pool, e)
                raise

    def wait_for_latest_osdmap(self) -> None:
        """Let this client see the newest osdmap (a pool made a moment ago, before librbd uses it)."""
        self._rados().wait_for_latest_osdmap()

    def wait_for_mgr_osdmap(self, timeout: float = 30) -> int:
        """Wait until the active mgr holds the monitors' newest OSD map; its epoch back.

        `ceph df` and `ceph osd df` answer from the mgr's copy of the map (its Objecter's,
        src/mgr/ClusterState.h `with_osdmap_and_pgmap`), which arrives a moment after a
        `ceph osd ...` change returns: MAX AVAIL read too soon still uses the old full ratio.
        The mgr's client status reports that copy's epoch (src/client/Client.cc `dump_status`).
        A mgr that does not report it (an answer without `osd_epoch`): its epoch back as 0, no wait."""
        want = int(self.client.mon("osd dump")["epoch"])
        name = self.client.mon("mgr dump")["active_name"]
        seen = [0]                              # the mgr's epoch at the last look

        def mgr_epoch() -> int | None:
            try:
                answer = self.client.send({"prefix": "status"}, ("mgr", name))
            except ClusterError:
                return None
            epoch = answer.get("osd_epoch") if isinstance(answer, dict) else None
            return int(epoch) if epoch is not None else None

        first = mgr_epoch()
        if first is None:
            return 0
        seen[0] = first

        def caught_up() -> bool:
            seen[0] = mgr_epoch() or 0
            return seen[0] >= want
        if first < want:
            poll_until(caught_up, timeout, f"mgr.{name} receiving OSD map epoch {want}",
                       describe=lambda: f"it has epoch {seen[0]}", hint="is the mgr up? `ceph mgr stat`")
        return seen[0]

    def wait_for_df_refresh(self, timeout: float | None = None) -> None:
        """After an OSD map change (a full ratio, say): return once `ceph df` was recomputed
        with the new map, or after `timeout` s (default 3 x mgr_stats_period + 2 s) unchanged.

        The monitors answer `ceph df` from the digest the mgr sends every mgr_stats_period s
        (src/mon/MgrStatMonitor.h `dump_pool_stats`), and the mgr computes each pool's MAX
        AVAIL in it from its own copy of the map.
        Measured on the native cluster (period 1 s): 0.7-2.0 s after the mgr had the map; a
        fixed 2 s wait in lab 06 (CI, 2026-12-02) still read the old ratio. So: wait for the
        mgr's map, then for the next digest that changes what `ceph df` says. A map change that
        leaves `ceph df` as it was ends at the timeout."""
        self.wait_for_mgr_osdmap()
        first = self.client.mon("df", detail="detail")
        if timeout is None:
            timeout = 3 * float(self.client.mon("config get", who="mgr", key="mgr_stats_period")) + 2
        try:
            poll_until(lambda: self.client.mon("df", detail="detail") != first, timeout,
                       "`ceph df` recomputed with the new OSD map", interval=0.1)
        except PollTimeout:
            pass                                # unchanged: the change did not move `ceph df`

    def _rados(self) -> Any:
        handle = self.client.handle
        if handle is None:
            raise SetupError("the Python binding of librados is missing: sudo apt-get install "
                             "python3-rados (make setup installs it)")
        return handle

    # -- commands ------------------------------------------------------------------------------
    def ceph(self, *args: str, timeout: float = 30, inbuf: bytes = b"") -> Any:
        """Run `ceph <args>` and return its parsed JSON, e.g. c.ceph("osd", "tree")."""
        return self.client.ceph(args, inbuf=inbuf, timeout=timeout)

    def status(self) -> dict[str, Any]:
        return self.client.mon("status")

    def release(self) -> releases.Release:
        """The row of cephlab.core.releases for the Ceph the mon runs (what this cluster can do)."""
        if getattr(self, "_release", None) is None:
            version = ceph_version.parse_version(self.client.mon("version")["version"])
            self._release = releases.for_major(version[0])
        return self._release

    def health(self) -> str:
        """"HEALTH_OK", "HEALTH_WARN" or "HEALTH_ERR"."""
        return self.status()["health"]["status"]

    def health_detail(self) -> dict[str, Any]:
        return self.client.mon("health", detail="detail")

    def df(self) -> dict[str, dict[str, int]]:
        """{pool: {stored, used, max_avail, objects}} in bytes, from `ceph df detail`."""
        out = self.client.mon("df", detail="detail")
        return {p["name"]: {"stored": p["stats"]["stored"], "used": p["stats"]["bytes_used"],
                            "max_avail": p["stats"]["max_avail"], "objects": p["stats"]["objects"]}
                for p in out["pools"]}

    def osd_df(self) -> list[dict[str, Any]]:
        """One dict per OSD (id, kb, kb_used, utilization, pgs, ...) from `ceph osd df`."""
        return self.client.mgr("osd df")["nodes"]

    def up_osds(self) -> list[int]:
        """The ids of the OSDs the OSD map has up, from `ceph osd dump`."""
        return [o["osd"] for o in self.ceph("osd", "dump")["osds"] if o["up"]]

    def osd_rotational(self, osd: int) -> bool:
        """Whether an OSD's data device is rotational, as the OSD itself decided (`ceph osd
        metadata`): BlueStore picks its _hdd or _ssd defaults (throttle cost per I/O, deferred
        write size, recovery sleep) from this, not from the CRUSH device class."""
        meta = self.ceph("osd", "metadata", str(osd))
        flag = meta.get("bluestore_bdev_rotational", meta.get("rotational"))
        if flag is None:
            raise ClusterError(f"osd.{osd} reports no rotational flag in `ceph osd metadata`: is it up?")
        return str(flag) == "1"

    def pg_states(self) -> dict[str, int]:
        """{state: count}, e.g. {"active+clean": 32}."""
        pgmap = self.status()["pgmap"]
        return {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])}
