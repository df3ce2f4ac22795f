"""A PostgreSQL server on Ceph and one on the local disk, for lab 10 (database on Ceph).

    pool = bench_pool(lab, size=3, pg_num=32)     # the lab's pool ("rbd" where rbd-fuse takes no options)
    bench = DatabaseBench(cluster, pool)          # root only: loop device + mount (see below)
    bench.setup()                                 # RBD image -> ext4, two servers, pgbench tables
    bench.fsync_ms("ceph"), bench.fsync_ms("local")        # one 8 KiB WAL-like write + fdatasync
    bench.pgbench("ceph", clients=8, transactions=256)     # {"tps", "latency_ms", "wall_s", ...}
    bench.close()                                 # stop servers, unmount, remove the work folder

How the Ceph side is built, and why. This machine's kernel has no rbd/nbd/ceph modules, so the
RBD image is exposed as a file by rbd-fuse (librbd in user space), a loop device turns that file
into a block device, and ext4 on it holds the data directory -- the same stack a VM with an RBD
disk has (a local file system over a replicated block device). An fdatasync in PostgreSQL
becomes an ext4 flush, then a loop flush, then fsync on the rbd-fuse file, which librbd turns
into a flush that waits for every replica's acknowledgement.

Who runs the server. PostgreSQL refuses to run as root. As root (the lab VM, CI) the servers run
as the `postgres` user that Debian's postgresql package creates, through `runuser`; their work
folder is under /var/tmp (disk-backed, unlike a tmpfs /tmp, and reachable by that user, unlike
/root). Loop devices and mount need root, so a learner without root (a shared JupyterHub) cannot
build the Ceph side this way: the lab says so and stops; CephFS through ceph-fuse (needs an MDS
and user_allow_other in /etc/fuse.conf) would be the non-root route.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import time
from pathlib import Path

from cephlab.core import mounts, proc, run, teardown
from cephlab.core.errors import ClusterError, SetupError, match_or_raise
from cephlab.core.poll import poll_until
from cephlab.helpers.latency import fsync_latencies_ms

WORK_ROOT = Path(os.environ.get("CEPHLAB_DB_WORK", "/var/tmp"))
DB_USER = "postgres"
PG_OPTIONS = {                      # durable commits, no checkpoint or autovacuum during the runs
    "listen_addresses": "''", "port": "5432", "fsync": "on", "synchronous_commit": "on",
    "wal_sync_method": "fdatasync", "shared_buffers": "32MB", "max_connections": "40",
    "checkpoint_timeout": "30min", "max_wal_size": "1GB", "autovacuum": "off",
}
INSTALL_HINT = run.install_hint("pg_ctl")


def pg_bin_dir():
    """Folder with initdb, pg_ctl and pgbench: $CEPHLAB_PG_BIN, else Debian's newest
    /usr/lib/postgresql/N/bin, else wherever pg_ctl is on PATH."""
    if os.environ.get("CEPHLAB_PG_BIN"):
        return Path(os.environ["CEPHLAB_PG_BIN"])
    # Debian names each installed major version's folder by its number; other folders are not one.
    versions = {int(m.group(1)): p for p in glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")
                if (m := re.search(r"/(\d+)/bin/pg_ctl$", p))}
    if versions:
        return Path(versions[max(versions)]).parent
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl:
        return Path(pg_ctl).resolve().parent
    raise SetupError(f"PostgreSQL is not installed (no pg_ctl found): {INSTALL_HINT}")


RBD_FUSE_POOL = "rbd"                # the pool rbd-fuse maps when it is given no -p


def bench_pool(lab, **kw) -> str:
    """The lab's pool for the database image, made through `lab` (so its clean-up removes it):
    "<prefix>db", or, where the release's rbd-fuse takes no options (cephlab.core.releases),
    the pool named rbd that rbd-fuse maps by default, which must not exist yet (it would be
    someone else's: an unfinished run of this lab is undone when its LabSession starts)."""
    if lab.cluster.release().rbd_fuse_takes_options:
        return lab.replicated_pool("db", application=None, **kw)
    if RBD_FUSE_POOL in lab.cluster.pools():
        raise SetupError(f"on Ceph {lab.cluster.release().name} rbd-fuse maps only the pool named "
                         f"{RBD_FUSE_POOL!r} (it crashes when given -p), and that pool exists already "
                         "and is not this lab's. Rename it (`ceph osd pool rename rbd my-rbd`) or run "
                         "the lab on another cluster")
    return lab.resources.replicated_pool(RBD_FUSE_POOL, application=None, **kw)


def rbd_fuse_args(release, conf, pool, mountpoint) -> tuple[list[str], dict | None]:
    """(arguments, env) that make rbd-fuse show `pool`'s images in `mountpoint` on `release`."""
    if release.rbd_fuse_takes_options:
        return ["-c", str(conf), "-p", pool, str(mountpoint)], None
    if pool != RBD_FUSE_POOL:
        raise SetupError(f"rbd-fuse of Ceph {release.name} maps only the pool {RBD_FUSE_POOL!r}, "
                         f"not {pool!r}: make the pool with database.bench_pool(lab)")
    return [str(mountpoint)], {**os.environ, "CEPH_CONF": str(conf)}


def why_not_here() -> str:
    """Why the Ceph side cannot be built in this process ("" when it can): it mounts ext4 on an
    RBD image through a loop device, which needs root. Lab 10 skips its measurement on it."""
    if os.geteuid() == 0:
        return ""
    return ("the Ceph side of this lab mounts ext4 on an RBD image through a loop device, which "
            "needs root: on your own machine, start the lab as root (`sudo make lab`) and run this "
            "notebook again. In the course's container image, or on a hub without root, this part "
            "cannot run; the model part and the exercises above still do")


class DatabaseBench:
    """Two PostgreSQL servers with pgbench tables: one on an RBD image, one on the local disk."""

    def __init__(self, cluster, pool, image="pgdata", size_mib=512):
        reason = why_not_here()
        if reason:
            raise ClusterError(reason)
        self.cluster, self.pool, self.image, self.size_mib = cluster, pool, image, size_mib
        self.bin = pg_bin_dir()
        self.work = work_folder(cluster.name)
        self.rbd_dir, self.mnt = self.work / "rbd", self.work / "mnt"
        self.data = data_folders(self.work)
        self.sock = {name: self.work / f"sock-{name}" for name in self.data}
        self.loop = None

    # -- building and removing ------------------------------------------------------------
    def setup(self, scale=1):
        """Make the RBD image an ext4 mount, create one database, copy it to both places,
        start both servers. Removes what an unfinished earlier run left first."""
        remove_leftovers(self.work, self.bin)
        self._delete_image()
        for d in (self.rbd_dir, self.mnt, self.work / "local", *self.sock.values()):
            d.mkdir(parents=True, exist_ok=True)
        self.cluster.create_rbd_image(self.pool, self.image, self.size_mib)
        self._mount_rbd()
        self._create_database(scale)
        for name in self.data:
            self.start(name)

    def _mount_rbd(self):
        args, env = rbd_fuse_args(self.cluster.release(), self.cluster.conf, self.pool, self.rbd_dir)
        run.run(["rbd-fuse", *args], env=env, what="rbd-fuse")
        image_file = self.rbd_dir / self.image
        poll_until(image_file.exists, 10, f"rbd-fuse showing {self.pool}/{self.image} in {self.rbd_dir}",
                   interval=0.1)
        self.loop = run.run(["losetup", "--find", "--show", str(image_file)], what="losetup").stdout.strip()
        run.run(["mkfs.ext4", "-q", "-F", "-E", "nodiscard,lazy_itable_init=1,lazy_journal_init=1",
                 self.loop], what="mkfs.ext4")
        run.run(["mount", self.loop, str(self.mnt)], what="mount")

    def _create_database(self, scale):
        """initdb + pgbench tables once on the local disk, then an exact copy on Ceph (faster
        than doing it twice); syncfs so no dirty page cache is left to flush during the runs."""
        local = self.data["local"]
        local.mkdir(mode=0o700)
        for d in (local, self.work / "local", *self.sock.values()):
            shutil.chown(d, DB_USER, DB_USER)
        self._as_db(["initdb", "-N", "-A", "trust", "-U", DB_USER, "-D", str(local)], "initdb")
        self.start("local")
        self._as_db(["pgbench", "-q", "-i", "-s", str(scale), *self._conn("local"), "postgres"],
                    "pgbench -i")
        self.stop("local")
        run.run(["cp", "-a", str(local), str(self.data["ceph"])], what="copying the database to Ceph")
        run.run(["sync", "-f", str(self.mnt)], what="sync")
        run.run(["sync", "-f", str(local)], what="sync")

    def close(self):
        """Stop both servers, unmount, detach, unmount rbd-fuse, delete the work folder and image."""
        remove_leftovers(self.work, self.bin)
        self._delete_image()

    def _delete_image(self):
        try:
            self.cluster.delete_rbd_image(self.pool, self.image)
        except Exception:       # not there (or the pool is gone): nothing to remove
            pass

    # -- servers ------------------------------------------------------------------------------
    def _as_db(self, args, what, timeout=120):
        cmd = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", DB_USER, "--", *cmd]
        return run.run(cmd, what=what, timeout=timeout, cwd="/").stdout

    def _conn(self, name):
        return ["-h", str(self.sock[name]), "-p", PG_OPTIONS["port"], "-U", DB_USER]

    def start(self, name):
        opts = " ".join(f"-c {k}={v}" for k, v in PG_OPTIONS.items())
        opts += f" -c unix_socket_directories={self.sock[name]}"
        log = self.sock[name] / "server.log"
        self._as_db(["pg_ctl", "-D", str(self.data[name]), "-l", str(log), "-w", "-o", opts,
                     "start"], f"starting PostgreSQL ({name}; log {log})")

    def stop(self, name):
        self._as_db(["pg_ctl", "-D", str(self.data[name]), "-m", "fast", "-w", "stop"],
                    f"stopping PostgreSQL ({name})")

    # -- measuring ---------------------------------------------------------------------------
    def fsync_ms(self, name, writes=100):
        """Mean ms per 8 KiB write + fdatasync in the data directory's file system."""
        lat = fsync_latencies_ms(self.data[name].parent, count=writes, size=8192, preallocate=True)
        return sum(lat) / len(lat)

    def pgbench(self, name, clients, transactions=256, script="simple-update", seconds=None):
        """Run about `transactions` transactions in total over `clients` connections (seed 002's
        fixed batch: each client runs ceil(transactions / clients)), or, with `seconds`, as many as
        the clients finish in that time (a point of a sweep then lasts long enough for a moment of
        a shared host to weigh little in it, however fast the storage).

        Returns {"clients", "transactions", "tps", "latency_ms", "wall_s"}: tps and latency as
        pgbench reports them (connection set-up excluded), wall_s the whole run.
        """
        per_client = -(-transactions // clients)
        length = ["-T", str(seconds)] if seconds else ["-t", str(per_client)]
        t0 = time.monotonic()
        out = self._as_db(["pgbench", "-n", "-b", script, "-c", str(clients),
                           "-j", str(min(clients, 2)), *length, *self._conn(name),
                           "postgres"], f"pgbench on {name}", timeout=600)
        wall = time.monotonic() - t0
        done = parse_pgbench(out)
        return {"clients": clients, "transactions": done.pop("transactions") if seconds else per_client * clients,
                **done, "wall_s": wall}

    def single_client_rounds(self, rounds=3, transactions=256):
        """`rounds` rounds of (8 KiB write + fdatasync, then one client's pgbench batch) on each side,
        local then Ceph in every round, so both sides of a round meet the same moment of a shared
        host; the model takes each side's median, which a single busy moment cannot move.

        Returns one dict per round and side: {"round", "storage", "flush_ms", "latency_ms", "tps"}.
        """
        out = []
        for i in range(1, rounds + 1):
            for name in ("local", "ceph"):
                flush = self.fsync_ms(name)
                one = self.pgbench(name, 1, transactions)
                out.append({"round": i, "storage": name, "flush_ms": flush,
                            "latency_ms": one["latency_ms"], "tps": one["tps"]})
        return out


def parse_pgbench(out):
    """{"tps", "latency_ms", "transactions"} from pgbench's summary; ParseError (naming pgbench,
    showing its output) when a line is missing."""
    tps = match_or_raise(r"tps = ([\d.]+)", out, "pgbench", "the transactions per second (tps = ...)")
    lat = match_or_raise(r"latency average = ([\d.]+) ms", out, "pgbench",
                         "the mean latency (latency average = ... ms)")
    done = match_or_raise(r"number of transactions actually processed: (\d+)", out, "pgbench",
                          "the count of transactions (number of transactions actually processed: ...)")
    return {"tps": float(tps.group(1)), "latency_ms": float(lat.group(1)), "transactions": int(done.group(1))}


def data_folders(work):
    """{"local", "ceph"}: where DatabaseBench keeps each server's data under its work folder."""
    work = Path(work)
    return {"local": work / "local" / "pgdata", "ceph": work / "mnt" / "pgdata"}


def work_folder(cluster_name):
    """Where DatabaseBench keeps the servers' folders and mounts for the cluster of that name."""
    return WORK_ROOT / f"cephlab-{cluster_name}-lab10"


def remove_leftovers_of(cluster):
    """remove_leftovers for this cluster's work folder (call it before deleting the pool)."""
    remove_leftovers(work_folder(cluster.name))


def remove_leftovers(work, bin_dir=None):
    """Undo what a DatabaseBench left in `work`: servers, mount, loop device, rbd-fuse, files.

    Each step that fails is reported in one line (teardown.attempt) and the next one still runs,
    so `cephlab down` reaches its daemons whatever state lab 10 left."""
    work = Path(work)
    if not work.exists():
        return
    # DatabaseBench's two data folders, named, not searched for: a glob would walk into the
    # rbd-fuse mount, which raises ENOTCONN once rbd-fuse is gone (and then nothing else ran)
    for data in data_folders(work).values():
        teardown.attempt(f"stop PostgreSQL in {data}", _stop_server, data / "postmaster.pid", bin_dir)
    mnt, rbd_dir = work / "mnt", work / "rbd"
    # mounted or not by /proc/mounts: os.path.ismount says False for a dead FUSE mount
    mounted = set(mounts.mounts_under(str(work) + "/"))
    if str(mnt) in mounted:
        teardown.attempt(f"unmount {mnt}", teardown.unmount, mnt, fuse=False, remove=False)
    mounts.detach_loops(str(rbd_dir) + "/")             # by losetup's list: rbd-fuse may be dead
    if str(rbd_dir) in mounted:
        teardown.attempt(f"unmount rbd-fuse at {rbd_dir}", teardown.unmount, rbd_dir, remove=False)
    shutil.rmtree(work, ignore_errors=True)


def _stop_server(pid_file: Path, bin_dir: str | os.PathLike | None = None) -> None:
    """pg_ctl stop -m immediate; when that fails, SIGKILL the postmaster (its backends follow),
    but only while its command line still names this data folder (never a recycled PID). A stale
    postmaster.pid (no server runs) needs nothing; an unreadable one (its mount is dead) is
    replaced by the postmaster found by its command line."""
    data = pid_file.parent
    try:
        if not pid_file.exists():
            return
    except OSError:                         # ENOTCONN: the data folder's mount died
        for stray in _postmasters_of(data):
            teardown.kill(stray)
            teardown.report(f"{data} is on a dead mount; killed its postmaster {stray}")
        return
    try:
        pg_ctl = str(Path(bin_dir or pg_bin_dir()) / "pg_ctl")
        cmd = [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]
        teardown.run(["runuser", "-u", DB_USER, "--", *cmd] if os.geteuid() == 0 else cmd, cwd="/")
    except (ClusterError, OSError, teardown.StepFailed) as e:
        pid = _postmaster_pid(pid_file)
        if pid is None:
            return
        teardown.kill(pid)
        teardown.report(f"pg_ctl could not stop {data} ({teardown.reason(e)}); killed its postmaster {pid}")


def _postmasters_of(data: Path) -> list[int]:
    """PostgreSQL servers started with `-D data` (by their command line)."""
    found = []
    for pid in proc.pids():
        args = proc.cmdline(pid)
        if args and Path(args[0]).name == "postgres" and str(data) in args:
            found.append(pid)
    return found


def _postmaster_pid(pid_file: Path) -> int | None:
    """The running postmaster of this data folder, or None."""
    try:
        pid = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if str(pid_file.parent) in proc.cmdline(pid) else None

