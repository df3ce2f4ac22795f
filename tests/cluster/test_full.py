"""Full and nearly full: Ceph's own full ratios, and the host disk under the cluster folder.

Either way the writers stop with ClusterFull (which flag, which OSDs, what to do) instead of
waiting, `cephlab status` shows it, nothing acknowledged is lost, and freeing space (deleting
objects; freeing the host disk, then `cephlab up`) brings writes back. Each test starts its own
one-OSD cluster ("fu-<pid>-...") in a folder of its own and leaves no daemon, mount or loop
device behind.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cephlab import Cluster, ClusterFull
from cephlab.backends.native import daemons, paths
from cephlab.backends.native import lifecycle as native
from cephlab.cluster import checksums, full
from cephlab.core import diskspace, mounts, proc
from cephlab.core.poll import poll_until
from cephlab.helpers.lab import LabSession

pytestmark = pytest.mark.cluster
ROOT = Path(__file__).resolve().parents[2]
MIB = 1024 ** 2
# Longer than any write or check takes, shorter than librados' 60 s op timeout: a writer that
# waited for the op timeout instead of answering would fail these bounds.
ANSWER_S = 30
FILL_S = 180                    # writing until the cluster is full
IMAGE_MIB = 3500                # the loop file system: `up` wants ~3 GiB free for one OSD
# How far above the OSD's usage at the start its full ratio goes. Deleting every object does not
# bring the usage back to the start: BlueStore's RocksDB keeps what the writes and deletes put
# in it until it compacts. A CI run (2026-11-28) ended 18 MB above the start with both pools
# emptied, past a 16 MiB margin, so its flags never cleared; 64 MiB leaves room for that.
FULL_MIB = 64


def bounded(seconds, fn, *args, **kwargs):
    """fn(*args, **kwargs) in a thread: its result or its exception, or a failure naming fn when
    it is still blocked after `seconds` (a hang, not an answer)."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:      # handed to the test's thread
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{getattr(fn, '__name__', fn)} still blocked after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def cephlab(*args):
    """The `cephlab` command as a learner runs it: (exit code, stdout + stderr)."""
    out = subprocess.run([sys.executable, "-m", "cephlab.cli", *args], capture_output=True,
                         text=True, timeout=300, cwd=ROOT)
    return out.returncode, out.stdout + out.stderr


def where(c):
    return ["--name", c.name, "--dir", str(c.dir)]


def live_processes_naming(conf):
    return [p for p in proc.pids() if daemons.is_ours(p, conf)]


def write_until_full(c, pool, size, manifest, prefix):
    """Checksummed batches into `pool` until ClusterFull (returned); acknowledged objects go
    into `manifest`, including those of the batch that stopped."""
    for batch in range(10_000):
        try:
            manifest.update(checksums.write_objects(c, pool, 8, size, prefix=f"{prefix}{batch}",
                                                    threads=4))
        except ClusterFull as e:
            manifest.update(e.written)
            return e
    raise AssertionError(f"pool {pool} never filled")


@pytest.fixture
def fu_cluster(tmp_path):
    """start(suffix, dir=None): a one-OSD cluster "fu-<pid>-<suffix>" (folder under tmp_path);
    taken down at the end, failed test or not, and checked to leave no daemon."""
    if not paths.find_binary("ceph-mon"):
        pytest.skip("Ceph is not installed (bash cephlab/bootstrap.sh setup)")
    started = []

    def start(suffix, dir=None):
        c = Cluster.start(name=f"fu-{os.getpid()}-{suffix}", dir=dir or tmp_path / suffix,
                          osds=1, progress=False)
        started.append(c)
        return c
    yield start
    for c in started:
        c.client.close()
        native.down(c.name, dir=c.dir)
        assert live_processes_naming(c.dir / "ceph.conf") == []
        assert not c.dir.exists()


# -- Ceph's full ratios ---------------------------------------------------------------------------
def test_full_ratio_stops_writes_with_a_clear_error_and_deleting_brings_them_back(fu_cluster):
    c = fu_cluster("ratio")
    lab = LabSession("fu", min_osds=1, cluster=c)
    keep = lab.replicated_pool("keep", size=1, pg_num=8)
    fill = lab.replicated_pool("fill", size=1, pg_num=8)
    kept = checksums.write_objects(c, keep, 16, 64 * 1024, prefix="keep")
    assert not c.full_state().full

    # FULL_MIB more than the OSD holds now fill it: 8 GiB block file, ratios from the lab
    osd = poll_until(lambda: next((o for o in c.osd_df() if o["kb"]), None), 30, "osd.0 reports its size")
    size, used = osd["kb"] * 1024, osd["kb_used"] * 1024
    lab.set_full_ratios(nearfull=(used + FULL_MIB / 2 * MIB) / size,
                        backfillfull=(used + FULL_MIB * 3 / 4 * MIB) / size, full=(used + FULL_MIB * MIB) / size)
    filled = {}
    e = bounded(FILL_S, write_until_full, c, fill, MIB, filled, "f")
    assert filled, "nothing was acknowledged before the cluster filled"
    assert {"OSD_FULL", "POOL_FULL"} <= set(e.flags) and e.osds == (0,) and e.pool == fill
    text = str(e)
    assert "[OSD_FULL, POOL_FULL]" in text and "osd.0" in text and "past the full ratio" in text
    assert "lab.cleanup()" in text and "delete" in text
    assert "set-full-ratio" not in text           # the way out is freeing space, not the ratio

    # every writer answers at once now, not after librados' op timeout
    with pytest.raises(ClusterFull):
        bounded(ANSWER_S, checksums.put, c, fill, "late", b"x" * 4096)
    with pytest.raises(ClusterFull, match="rados bench"):
        bounded(ANSWER_S, c.rados_bench, fill, 5, block_size=MIB)
    with pytest.raises(ClusterFull):
        with c.ioctx(keep) as io:        # any pool on the full OSD
            bounded(ANSWER_S, io.write_full, "late", b"x")

    state = lab.full_state()
    assert state.full and state.full_osds == (0,) and fill in state.full_pools
    code, out = cephlab("status", *where(c))
    assert code == 0, out
    stopped = [line for line in out.splitlines() if line.strip().startswith("writes stop to pool(s)")]
    assert "OSD_FULL" in out and "full: osd.0" in out, out
    assert len(stopped) == 1 and keep in stopped[0] and fill in stopped[0], out

    # reads work while full: everything acknowledged is there
    assert checksums.verify_objects(c, fill, filled) == []
    # deletes work while full, and free the space
    with c.ioctx(fill) as io:
        for name in filled:
            bounded(ANSWER_S, io.remove_object, name)
    poll_until(lambda: not c.full_state().full, 60, "the full flags cleared", interval=1,
               describe=lambda: f"{c.full_state()}; {c.ceph('df', 'detail')}")
    after = checksums.write_objects(c, keep, 8, 64 * 1024, prefix="after")
    assert checksums.verify_objects(c, keep, {**kept, **after}) == []
    code, out = cephlab("status", *where(c))
    assert "OSD_FULL" not in out and "writes stop" not in out, out

    # a benchmark that fills the pool as it runs is stopped, not left waiting (for a minute's
    # run that would be until its 5-minute limit); its objects go even while full
    with pytest.raises(ClusterFull, match="rados bench"):
        bounded(ANSWER_S, c.rados_bench, fill, 60, block_size=MIB, threads=4)
    assert sorted(live_processes_naming(c.dir / "ceph.conf")) == sorted(c.pids().values())  # bench gone
    bounded(ANSWER_S, c.bench_cleanup, fill)
    poll_until(lambda: not c.full_state().full, 60, "the full flags cleared", interval=1,
               describe=lambda: f"{c.full_state()}; {c.ceph('df', 'detail')}")
    assert checksums.verify_objects(c, keep, {**kept, **after}) == []

    lab.cleanup()                       # restores the ratios, deletes the pools, waits for clean
    assert c.full_state().ratios["full"] == pytest.approx(0.95)
    assert c.health() == "HEALTH_OK"


# -- the host disk ----------------------------------------------------------------------------------
@pytest.fixture
def small_fs(tmp_path):
    """A fresh ext4 file system of IMAGE_MIB on a loop device (root only); unmounted and its loop
    device detached at the end, whatever happened."""
    if os.geteuid() != 0:
        pytest.skip("mounting a loop file system needs root")
    image, point = tmp_path / "fs.img", tmp_path / "mnt"
    point.mkdir()
    subprocess.run(["truncate", "-s", f"{IMAGE_MIB}M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-m", "0", str(image)], check=True)   # no root reserve
    subprocess.run(["mount", "-o", "loop", str(image), str(point)], check=True)
    try:
        yield point
    finally:
        mounts.unmount_all(str(point))
        mounts.detach_loops(image)      # waits for the kernel's asynchronous auto-clear
        assert mounts.mounts_under(str(point)) == [] and mounts.loop_devices(image) == []
        image.unlink()                  # ~130 MiB written into it; pytest keeps its last runs


@pytest.fixture
def filler(small_fs):
    """fill(leave): files that take the small file system's space but for `leave` bytes, as
    other programs on a learner's disk would; removed again before the cluster goes down (its
    `down` needs a little space too)."""
    files = []

    def fill(leave):
        path = small_fs / f"filler-{len(files)}"
        files.append(path)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        try:
            want = diskspace.host_disk(small_fs).free - leave
            if want > 8 * MIB:      # fallocate needs a few blocks of its own: leave them ...
                os.posix_fallocate(fd, 0, want - 8 * MIB)
            os.lseek(fd, 0, os.SEEK_END)
            chunk = b"\0" * MIB     # ... then write until exactly `leave` is left
            while diskspace.host_disk(small_fs).free > leave + len(chunk):
                os.write(fd, chunk)
            if leave == 0:
                try:
                    while True:
                        os.write(fd, b"\0" * 4096)
                except OSError:
                    pass                # ENOSPC: nothing left
            os.fsync(fd)
        finally:
            os.close(fd)

    def free():
        for path in files:
            path.unlink(missing_ok=True)
    fill.free = free
    yield fill
    free()


def test_full_host_disk_stops_writes_and_up_repairs_the_osd_it_stopped(small_fs, fu_cluster, filler):
    c = fu_cluster("host", dir=small_fs / "c")
    pool = c.create_replicated_pool("fu-data", size=1, pg_num=8)
    acked = checksums.write_objects(c, pool, 16, 256 * 1024, prefix="before")
    assert c.full_state().host.level == "ok"

    # something else takes the disk but for a few MiB above what the lab keeps free
    filler(diskspace.FULL_BYTES + 24 * MIB)
    e = bounded(FILL_S, write_until_full, c, pool, MIB, acked, "host")
    assert full.HOST_FLAG in e.flags
    assert "osd.0" in c.pids()          # the lab stopped writing before an OSD ran out of space
    assert "host disk is full" in str(e) and "`cephlab up`" in str(e) and "Free space" in str(e)
    code, out = cephlab("status", *where(c))
    assert code == 0 and "host disk:" in out and "FULL:" in out, out

    # ... then all of it, and a client that does not look (a shell's `rados put`) writes: the
    # OSD's write into its sparse block file fails with ENOSPC and the OSD stops
    filler(0)
    raw = c.client.handle.open_ioctx(pool)
    raw.aio_write_full("unchecked", os.urandom(16 * MIB))
    poll_until(lambda: "osd.0" not in c.pids(), 60, "osd.0 stopped by ENOSPC", interval=0.5)
    with pytest.raises(ClusterFull) as caught:
        bounded(ANSWER_S, checksums.put, c, pool, "late", b"x" * 4096)
    e = caught.value
    assert e.osds == (0,) and "osd.0 stopped with ENOSPC" in str(e), str(e)
    code, out = cephlab("status", *where(c))
    assert "osd.0" in out and "NOT RUNNING" in out and "FULL:" in out, out

    # `up` on a still-full disk says so and keeps the cluster (no recreate, no data lost)
    code, out = cephlab("up", *where(c), "--osds", "1")
    assert code != 0 and "host disk is (nearly) full" in out, out
    assert (c.dir / "osd" / "0" / "block").exists()

    filler.free()
    code, out = cephlab("up", *where(c), "--osds", "1")
    assert code == 0 and "repaired" in out, out
    assert "osd.0" in c.pids()
    raw.close()
    assert checksums.verify_objects(c, pool, acked) == []      # every acknowledged object
    after = checksums.write_objects(c, pool, 8, 256 * 1024, prefix="after")
    assert checksums.verify_objects(c, pool, after) == []
    assert not c.full_state().full
