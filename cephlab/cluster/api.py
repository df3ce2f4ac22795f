"""The Python face of a lab cluster, used by notebooks and tests.

    from cephlab import Cluster
    c = Cluster.connect()              # or Cluster.start(name="lab", osds=4)
    c.health()                         # "HEALTH_OK"
    with c.resources() as r:
        r.replicated_pool("demo", size=3)
        c.rados_bench("demo", 10)

Pools live in cephlab/cluster/pools.py, tuning in cephlab/cluster/tuning.py, measurements in
cephlab/cluster/measure.py and fault injection in cephlab/cluster/faults.py (mixed into Cluster).
"""
from __future__ import annotations

import os
from pathlib import Path

from cephlab.backends.native import daemons
from cephlab.backends.native import lifecycle as native
from cephlab.backends.native import paths
from cephlab.core.errors import ClusterError, ClusterNotRunning, SetupError
from cephlab.cluster.faults import Faults
from cephlab.cluster.measure import Measuring
from cephlab.cluster.pools import Pools
from cephlab.cluster.tuning import Tuning

__all__ = ["Cluster", "ClusterError", "ClusterNotRunning", "SetupError"]

START_HINT = "start one with `cephlab up` in a terminal (or `make lab`), or Cluster.start()"


class Cluster(Pools, Tuning, Measuring, Faults):
    """A running lab cluster: commands, pools, tuning, measurements, faults."""

    def __init__(self, dir, state):
        self.dir = Path(dir)
        self.state = state
        self.name = state["name"]
        self.client = native.client_for(self.dir)
        self._tunings = []

    # -- life cycle --------------------------------------------------------------------------
    @classmethod
    def connect(cls, name=None, dir=None, backend=None):
        """The running cluster `name` (default $CEPHLAB_NAME, else "lab"; folder `dir`);
        ClusterNotRunning says how to start one.

        backend="vagrant" (or $CEPHLAB_BACKEND=vagrant): the cephadm VMs of vagrant/, through the
        ceph.conf and keyring `vagrant up` exported (`dir`: that folder; see cephlab/backends/vagrant/lifecycle.py).
        """
        if (backend or os.environ.get("CEPHLAB_BACKEND") or "native") == "vagrant":
            from cephlab.backends.vagrant import lifecycle as vagrant
            return vagrant.connect(cls, dir)
        name = name or os.environ.get("CEPHLAB_NAME", "lab")
        d = paths.cluster_dir(name, dir)
        state = native.load_state(d)
        if state is None:
            raise ClusterNotRunning(f"no lab cluster named {name!r} (looked in {d}); {START_HINT}")
        if state.get("status") != "ready" or not daemons.running_pid(d, "mon.a"):
            raise ClusterNotRunning(f"lab cluster {name!r} in {d} is not running; "
                                    f"`cephlab up{'' if name == 'lab' else ' --name ' + name}` "
                                    "restarts it")
        return cls(d, state)

    @classmethod
    def start(cls, name="lab", osds=3, objectstore="bluestore", mds=False, dir=None, progress=True):
        """Start (or repair, or just find) cluster `name`, as `cephlab up` does."""
        d, state, _ = native.up(name, osds, objectstore, mds, dir, progress)
        return cls(d, state)

    def stop(self, keep=False):
        """Stop every daemon of this cluster (by PID); remove its folder unless keep.

        A Vagrant cluster is only halted (`cephlab down --backend vagrant --destroy` removes it).
        """
        self.client.close()
        if not self.local_daemons:
            from cephlab.backends.vagrant import lifecycle as vagrant
            return vagrant.down(destroy=False)
        return native.down(self.name, self.dir, keep)

    def close(self):
        self.client.close()

    def __repr__(self):
        return f"Cluster(name={self.name!r}, dir='{self.dir}', osds={self.state['osds']})"

    @property
    def local_daemons(self):
        """True when the daemons run on this machine, so /proc/<pid> of an OSD can be read here.

        False on the Vagrant backend (daemons in VMs): labs use perf counters instead and say so.
        """
        return self.state.get("backend", "native") == "native"

    @property
    def conf(self):
        return str(self.dir / "ceph.conf")

    @property
    def keyring(self):
        return str(self.dir / "keyring")

    def env(self):
        """Environment variables that make `ceph`, `rados`, `rbd` and `fio` use this cluster."""
        return {"CEPH_CONF": self.conf}

    def pids(self):
        """{daemon: pid} of the daemons running now (e.g. {"osd.0": 1234}); {} when not local."""
        if not self.local_daemons:
            return {}
        names = native.all_daemons(native.load_state(self.dir) or self.state)
        return {n: p for n in names if (p := daemons.running_pid(self.dir, n))}

    # -- commands ------------------------------------------------------------------------------
    def ceph(self, *args, timeout=30, inbuf=b""):
        """Run `ceph <args>` and return its parsed JSON, e.g. c.ceph("osd", "tree")."""
        return self.client.ceph(args, inbuf=inbuf, timeout=timeout)

    def status(self):
        return self.client.mon("status")

    def health(self):
        """"HEALTH_OK", "HEALTH_WARN" or "HEALTH_ERR"."""
        return self.status()["health"]["status"]

    def health_detail(self):
        return self.client.mon("health", detail="detail")

    def df(self):
        """{pool: {stored, used, max_avail, objects}} in bytes, from `ceph df detail`."""
        out = self.client.mon("df", detail="detail")
        return {p["name"]: {"stored": p["stats"]["stored"], "used": p["stats"]["bytes_used"],
                            "max_avail": p["stats"]["max_avail"], "objects": p["stats"]["objects"]}
                for p in out["pools"]}

    def osd_df(self):
        """One dict per OSD (id, kb, kb_used, utilization, pgs, ...) from `ceph osd df`."""
        return self.client.mgr("osd df")["nodes"]

    def pg_states(self):
        """{state: count}, e.g. {"active+clean": 32}."""
        pgmap = self.status()["pgmap"]
        return {s["state_name"]: s["count"] for s in pgmap.get("pgs_by_state", [])}
