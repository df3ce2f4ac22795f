"""CephFS for the labs: add an MDS and a file system to a running lab cluster, mount it with
ceph-fuse, and a small mdtest-like metadata benchmark (create, stat, rename, remove).

    fs = CephFS.ensure(lab)                    # uses the cluster's CephFS, or creates one for the lab
    mnt = fs.mount()                           # a ceph-fuse mount in a temp folder
    result = metadata_bench([mnt], files=200, workers=4, layout="shared")
    fs.close()                                 # unmount; remove what ensure() created

The cluster may already have a CephFS (`cephlab up --mds`): then the lab works in a `labNN-`
folder inside it and leaves the file system alone. Otherwise ensure() creates the pools through
the LabSession (so lab.cleanup() deletes them), a file system named after them and starts mds.a,
whose key every lab cluster has from its creation; close() removes the file system and stops the
MDS before lab.cleanup() deletes the pools.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from cephlab.core import proc, run, teardown
from cephlab.core.errors import ClusterError, json_or_raise
from cephlab.core.mounts import mount_point, unmount, unmount_all  # noqa: F401  (lab 09 uses them)
from cephlab.core.poll import PollTimeout, poll_until

OPS = ("create", "stat", "rename", "remove")


class CephFS:
    """One file system of a lab cluster, its ceph-fuse mounts, and what to undo at the end."""

    def __init__(self, cluster, name, prefix, created=False, started_mds=False):
        self.cluster, self.name, self.prefix = cluster, name, prefix
        self.created, self.started_mds = created, started_mds
        self.mounts = []

    # -- set up ------------------------------------------------------------------------------------
    @staticmethod
    def remove_leftovers(cluster, prefix):
        """Undo an interrupted run of the lab `prefix` ("lab09-"): unmount its ceph-fuse mounts,
        remove its file system and stop an MDS the cluster was not created with. Call it before
        LabSession(), which cannot delete pools that a file system still uses."""
        done = [f"unmounted {point}" for point in unmount_all(str(cluster.dir / "tmp" / f"{prefix}fuse-"))]
        for fs in cluster.ceph("fs", "ls"):
            if fs["name"] == f"{prefix}fs":
                cluster.ceph("fs", "fail", fs["name"])
                cluster.ceph("fs", "rm", fs["name"], "--yes-i-really-mean-it")
                done.append(f"removed file system {fs['name']}")
        if (not cluster.ceph("fs", "ls") and not cluster.state.get("mds")
                and cluster.daemon_pid("mds.a")):
            cluster.stop_daemon("mds.a")
            done.append("stopped mds.a")
        return done

    @classmethod
    def ensure(cls, lab, timeout=60):
        """The cluster's CephFS if it has one with an active MDS, else a new one for this lab."""
        c = lab.cluster
        existing = [fs["name"] for fs in c.ceph("fs", "ls")]
        if existing and active_mds(c):
            return cls(c, existing[0], lab.prefix)
        if existing:
            raise ClusterError(f"the cluster has a file system ({existing[0]}) but no active MDS; "
                               "`cephlab up` restarts a stopped MDS")
        meta = lab.replicated_pool("cephfs-meta", size=min(3, len(c.ceph("osd", "ls"))), pg_num=8,
                                   application="")
        data = lab.replicated_pool("cephfs-data", size=min(3, len(c.ceph("osd", "ls"))), pg_num=8,
                                   application="")
        name = lab.name("fs")
        c.ceph("fs", "new", name, meta, data)
        started = False
        if not c.daemon_pid("mds.a"):
            c.start_daemon("mds.a")
            started = True
        fs = cls(c, name, lab.prefix, created=True, started_mds=started)
        fs.wait_active(timeout)
        return fs

    def wait_active(self, timeout=60):
        poll_until(lambda: active_mds(self.cluster), timeout, f"an active MDS for {self.name}",
                   interval=0.25, hint=f"see {self.cluster.daemon_log('mds.a')}")

    # -- mounts ------------------------------------------------------------------------------------
    def mount(self, timeout=30):
        """Mount the file system with ceph-fuse (one more client session); returns the lab's
        folder inside it (`<mount>/labNN-work`, created if missing)."""
        if not shutil.which("ceph-fuse"):
            raise ClusterError("ceph-fuse is not installed: sudo apt-get install ceph-fuse")
        if not os.access("/dev/fuse", os.R_OK | os.W_OK):
            if os.environ.get("CEPHLAB_IN_CONTAINER"):   # set by the lab's image (container/)
                raise ClusterError("this container has no usable /dev/fuse: stop it and start it again "
                                   "with --device /dev/fuse --cap-add SYS_ADMIN (container/README.md)")
            raise ClusterError("/dev/fuse is not usable by this user: ask an admin to make it readable "
                               "and writable for you (stock Debian makes it mode 0666, open to every "
                               "user), or run the lab where you are root")
        point = Path(tempfile.mkdtemp(prefix=f"{self.prefix}fuse-", dir=self.cluster.dir / "tmp"))
        # the mount is for this user alone: without allow_other, other users of the machine cannot
        # read it, and a user without root needs no user_allow_other in /etc/fuse.conf
        cmd = ["ceph-fuse", "-c", self.cluster.conf, "--id", "admin", "-k", self.cluster.keyring,
               "--client_fs", self.name, "--pid_file=", "--fuse_allow_other=false", str(point)]
        tries = []

        def mounted():
            # a new MDS is active in the fs map a moment before clients are told: retry then
            tries.append(run.run(cmd, timeout=timeout, check=False))
            return tries[-1].returncode == 0 or "no MDS server is up" not in tries[-1].stderr + tries[-1].stdout
        try:
            poll_until(mounted, timeout, f"ceph-fuse mounting {self.name}", interval=1)
        except PollTimeout:
            pass
        proc = tries[-1]
        if proc.returncode != 0:
            point.rmdir()
            raise ClusterError(f"ceph-fuse could not mount {self.name}: "
                               f"{(proc.stderr or proc.stdout).strip()[-400:]}")
        self.mounts.append(point)
        work = point / f"{self.prefix}work"
        work.mkdir(exist_ok=True)
        return work

    def unmount_all(self):
        for point in reversed(self.mounts):
            teardown.attempt(f"unmount {point}", unmount, point)
        self.mounts.clear()

    # -- undo --------------------------------------------------------------------------------------
    def close(self):
        """Remove the lab's folder, unmount, and undo ensure(): fail and remove the file system
        it created and stop the MDS it started (the pools go with lab.cleanup())."""
        if self.mounts:
            shutil.rmtree(self.mounts[0] / f"{self.prefix}work", ignore_errors=True)
        self.unmount_all()
        if self.created:
            self.cluster.ceph("fs", "fail", self.name)
            self.cluster.ceph("fs", "rm", self.name, "--yes-i-really-mean-it")
        if self.started_mds:
            self.cluster.stop_daemon("mds.a")
        self.created = self.started_mds = False


def active_mds(cluster):
    """Names of the MDS daemons in state up:active."""
    fsmap = cluster.ceph("fs", "dump")
    return [info["name"] for fs in fsmap.get("filesystems", [])
            for info in fs["mdsmap"].get("info", {}).values() if info.get("state") == "up:active"]


def admin_socket(path, prefix, timeout=10, **args):
    """One command to a daemon's admin socket (what `ceph daemon` does): JSON in, JSON out.

    The protocol: send the command as JSON and a NUL byte; the daemon answers with a 4-byte
    big-endian length and the payload. Milliseconds, where a `ceph tell` costs a CLI start.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(json.dumps({"prefix": prefix, "format": "json", **args}).encode() + b"\0")
        head = b""
        while len(head) < 4:
            chunk = sock.recv(4 - len(head))
            if not chunk:
                raise ClusterError(f"{path} closed the connection before answering {prefix!r}")
            head += chunk
        size = struct.unpack(">I", head)[0]
        body = b""
        while len(body) < size:
            chunk = sock.recv(size - len(body))
            if not chunk:
                break
            body += chunk
    # A daemon that closes early leaves a cut-off document: say so, with what it sent.
    return json_or_raise(body, f"the admin socket {Path(path).name}", f"the JSON answer to {prefix!r}")


def mds_requests(cluster, name="mds.a"):
    """Client requests the MDS has received so far (perf counter mds.request)."""
    return admin_socket(cluster.dir / "run" / f"{name}.asok", "perf dump")["mds"]["request"]


def mds_cpu_seconds(cluster, name="mds.a"):
    """CPU seconds (user + system, all threads) the MDS process has used so far."""
    pid = cluster.daemon_pid(name)
    if not pid:
        raise ClusterError(f"{name} is not running on this machine")
    return proc.cpu_seconds(pid)


def mds_backlog(cluster, name="mds.a"):
    """What the MDS still has to do for files already removed: {strays, purges in flight, purge
    items journaled}, from its perf counters mds_cache.num_strays, purge_queue.pq_executing and
    purge_queue.pq_item_in_journal (Pacific to Tentacle)."""
    perf = admin_socket(cluster.dir / "run" / f"{name}.asok", "perf dump")
    try:
        return {"strays": perf["mds_cache"]["num_strays"], "purging": perf["purge_queue"]["pq_executing"],
                "journaled": perf["purge_queue"]["pq_item_in_journal"]}
    except KeyError as e:       # a renamed counter must not read as "nothing left to purge"
        raise ClusterError(f"{name}'s perf dump has no counter {e}: this Ceph release renamed it; "
                           "update cephlab.helpers.cephfs.mds_backlog") from None


def wait_mds_idle(cluster, name="mds.a", timeout=60):
    """Wait until the MDS has purged every file removed so far. A removed file becomes a stray
    that the MDS purges seconds later; without this wait that work (no client request) lands
    in the next run's CPU window."""
    poll_until(lambda: not any(mds_backlog(cluster, name).values()), timeout,
               f"{name} purging the files removed so far",
               describe=lambda: ", ".join(f"{k} {v}" for k, v in mds_backlog(cluster, name).items()),
               hint="the MDS may be stuck: look at `ceph fs status` and the MDS's log")


def bench_mds_cpu(cluster, roots, *, files, workers, layout, tag, name="mds.a"):
    """metadata_bench with the MDS's requests counted, and the MDS's CPU seconds over the run:
    (MetadataResult, cpu_s). The run starts once the MDS is idle (wait_mds_idle), so the CPU
    is this run's alone and not the purge of an earlier one."""
    wait_mds_idle(cluster, name)
    cpu = mds_cpu_seconds(cluster, name)
    result = metadata_bench(roots, files=files, workers=workers, layout=layout, tag=tag,
                            counter=lambda: mds_requests(cluster, name))
    return result, mds_cpu_seconds(cluster, name) - cpu


def cpu_pair(first, second) -> tuple[float, float]:
    """Two runs of bench_mds_cpu, each (MetadataResult, MDS CPU s), one after the other:
    (requests second / first, MDS CPU second / first)."""
    (r1, cpu1), (r2, cpu2) = first, second
    return sum(r2.requests.values()) / sum(r1.requests.values()), cpu2 / cpu1


def mds_cpu_pairs(cluster, first: dict, second: dict, pairs: int, tag: str = "pair"):
    """`pairs` times, bench_mds_cpu with the keyword arguments `first` and then `second`:
    [cpu_pair(...)], one tuple per pair. Repeats of a ratio of two CPU windows of a second or
    less, for a median that one disturbed window (a background task of another daemon on a
    small machine) does not move."""
    return [cpu_pair(bench_mds_cpu(cluster, tag=f"{tag}{i}a", **first),
                     bench_mds_cpu(cluster, tag=f"{tag}{i}b", **second)) for i in range(pairs)]


def mds_cpu_table(pairs):
    """mds_cpu_pairs' result as a table: per pair and their median, the requests' and the MDS
    CPU's ratio and the CPU per request, shared over private (1: every request costs alike)."""
    rows = [{"MDS requests, shared / private": r, "MDS CPU, shared / private": cpu,
             "MDS CPU per request, shared / private": cpu / r} for r, cpu in pairs]
    table = pd.DataFrame(rows, index=[f"pair {i + 1}" for i in range(len(rows))])
    table.loc["median"] = table.median()
    return table


# -- the benchmark --------------------------------------------------------------------------------------
@dataclass
class MetadataResult:
    """ops/s and mean latency (s) per operation, for one layout and worker count."""
    layout: str
    workers: int
    files: int
    ops_per_s: dict = field(default_factory=dict)
    latency_s: dict = field(default_factory=dict)
    requests: dict = field(default_factory=dict)    # MDS requests per phase (when counted)

    def requests_per_op(self, op):
        return self.requests[op] / (self.workers * self.files)


def _worker_dirs(roots, workers, layout, tag):
    """Each worker's folder: one shared folder per root, or one folder per worker."""
    dirs = []
    for w in range(workers):
        root = Path(roots[w % len(roots)])
        d = root / (f"{tag}-shared" if layout == "shared" else f"{tag}-w{w}")
        dirs.append(d)
    for d in set(dirs):
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def metadata_bench(roots, files=100, workers=4, layout="shared", tag="md", counter=None):
    """Each of `workers` threads creates, stats, renames and removes `files` empty files, one
    phase at a time (all workers start a phase together), like mdtest's file phases.

    roots: folders to work in (e.g. one per ceph-fuse mount: worker w uses roots[w % len]); with
    several mounts of the same file system, "shared" is one folder on the file system seen by
    every client. layout: "shared" (all workers in one folder, as mdtest's shared-directory
    mode) or "separate" (a folder per worker, mdtest -u). Returns a MetadataResult: ops/s = all
    workers' operations / the phase's wall time; latency = mean time per operation.
    counter: optional callable returning a running count (e.g. lambda: mds_requests(c)); its
    increase over each phase goes to result.requests.
    """
    if layout not in ("shared", "separate"):
        raise ValueError(f"layout must be 'shared' or 'separate', got {layout!r}")
    if files < 1 or workers < 1:
        raise ValueError(f"files and workers must be >= 1, got files={files}, workers={workers}")
    dirs = _worker_dirs(roots, workers, layout, tag)
    result = MetadataResult(layout, workers, files)
    for op in OPS:
        barrier = threading.Barrier(workers + 1)
        spent = [0.0] * workers
        errors: list[OSError] = []

        def work(w, op=op, barrier=barrier, spent=spent, errors=errors):
            names = [dirs[w] / f"f{w}-{i}" for i in range(files)]
            barrier.wait()
            t = time.perf_counter()
            try:
                for p in names:
                    if op == "create":
                        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                    elif op == "stat":
                        os.stat(p)
                    elif op == "rename":
                        os.rename(p, p.with_name(p.name + ".r"))
                    else:
                        os.unlink(p.with_name(p.name + ".r"))
            except OSError as e:
                errors.append(e)
            spent[w] = time.perf_counter() - t

        threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
        for th in threads:
            th.start()
        before = counter() if counter else None
        barrier.wait()
        t0 = time.perf_counter()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t0
        if counter:
            result.requests[op] = counter() - before
        if errors:
            raise ClusterError(f"{op} failed in {layout} folders: {errors[0]}")
        result.ops_per_s[op] = workers * files / wall
        result.latency_s[op] = sum(spent) / (workers * files)
    for d in set(dirs):             # with several mounts, one shared folder has several paths
        try:
            d.rmdir()
        except FileNotFoundError:
            pass
    return result
