"""cephlab.helpers.database on the real test cluster: PostgreSQL on ext4 over RBD and on the local disk."""
import os
import statistics
import subprocess
from pathlib import Path

import pytest

from cephlab.helpers import cleanup, database
from cephlab.helpers.latency import fsync_latencies_ms

pytestmark = pytest.mark.cluster


@pytest.fixture
def bench(lab_cluster):
    if os.geteuid() != 0:
        pytest.skip("the Ceph side needs root (loop device and mount)")
    try:
        database.pg_bin_dir()
    except Exception as e:
        pytest.skip(str(e))
    with lab_cluster.resources() as r:
        pool = r.replicated_pool("t_db", size=3, pg_num=8, application=None)
        b = database.DatabaseBench(lab_cluster, pool, size_mib=256)
        try:
            b.setup()
            yield b
        finally:
            b.close()


def test_both_servers_commit_and_ceph_flushes_cost_a_replicated_write(bench, lab_cluster):
    local = statistics.median(fsync_latencies_ms(bench.data["local"].parent, count=50, size=8192, preallocate=True))
    ceph = statistics.median(fsync_latencies_ms(bench.mnt, count=50, size=8192, preallocate=True))
    # a Ceph flush waits for a local flush on every OSD plus the round trips: never faster
    assert ceph > local > 0
    for name in ("local", "ceph"):
        run = bench.pgbench(name, clients=2, transactions=40)
        assert run["transactions"] == 40 and run["tps"] > 0
        # pgbench's latency is Little's law over its run: clients / tps
        assert run["latency_ms"] == pytest.approx(2e3 / run["tps"], rel=0.05)
    assert os.path.ismount(bench.mnt)


def test_close_removes_servers_mounts_and_image(bench, lab_cluster):
    import rbd
    bench.close()
    assert not bench.work.exists() and not os.path.ismount(bench.mnt)
    with lab_cluster.client.handle.open_ioctx(bench.pool) as io:
        assert bench.image not in rbd.RBD().list(io)
    bench.close()       # idempotent: a second clean-up finds nothing to do


def test_down_frees_the_database_mounts_before_the_daemons_stop(bench, lab_cluster):
    """`cephlab down` runs cleanup.free_lab_clients first: a loop device over an rbd-fuse file whose
    cluster is gone hangs every process that touches it (losetup, the file system, df)."""
    assert os.path.ismount(bench.mnt)
    cleanup.free_lab_clients(lab_cluster.name, lab_cluster.dir)
    assert not bench.work.exists()
    assert str(bench.work) not in Path("/proc/mounts").read_text()
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    assert str(bench.work) not in loops


def test_a_dead_rbd_fuse_still_leaves_nothing(bench, lab_cluster):
    """When rbd-fuse dies under lab 10 (a crash, an OOM kill), its mount answers ENOTCONN to every
    look inside: the clean-up must still stop both servers, unmount ext4, detach the loop device
    and unmount rbd-fuse (it once walked into the dead mount looking for postmaster.pid and stopped)."""
    from cephlab.core import proc
    fuse = [pid for pid in proc.pids() if (args := proc.cmdline(pid)) and Path(args[0]).name == "rbd-fuse"
            and any(str(bench.work) in a for a in args)]
    assert len(fuse) == 1, f"rbd-fuse of {bench.work}: {fuse}"
    os.kill(fuse[0], 9)
    with pytest.raises(OSError):
        (bench.work / "rbd" / "pgdata").stat()         # the mount is dead, as after a crash
    cleanup.free_lab_clients(lab_cluster.name, lab_cluster.dir)
    assert not bench.work.exists()
    assert str(bench.work) not in Path("/proc/mounts").read_text()
    loops = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    assert str(bench.work) not in loops
    servers = [pid for pid in proc.pids() if any(str(bench.work) in a for a in proc.cmdline(pid))]
    assert not servers, f"processes of {bench.work} left: {servers}"
