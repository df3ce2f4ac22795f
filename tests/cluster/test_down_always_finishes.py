"""`cephlab down` always finishes (a stuck tear-down leaves mounts that hang every process that
touches them): with fusermount missing, with a busy ceph-fuse mount, and with a daemon that
ignores SIGTERM, it reports what failed in one line, stops every daemon by PID and removes (or
keeps) the folder. Each test starts its own small cluster."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cephlab import Cluster
from cephlab.backends.native import daemons, paths
from cephlab.backends.native import lifecycle as native
from cephlab.helpers import cephfs

pytestmark = pytest.mark.cluster
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_cluster(request):
    """start(suffix, **kw): a cluster of its own ("pytest-<pid>-<suffix>", 1 OSD unless told);
    removed at the end even when the test failed half-way."""
    if not paths.find_binary("ceph-mon"):
        pytest.skip("Ceph is not installed (bash cephlab/bootstrap.sh setup)")
    started = []

    def start(suffix, **kw):
        c = Cluster.start(name=f"pytest-{os.getpid()}-{suffix}", progress=False, **{"osds": 1, **kw})
        started.append(c)
        return c
    yield start
    for c in started:
        c.client.close()
        native.down(c.name)


def mounted_fs(c):
    """A ceph-fuse mount of the cluster's CephFS under its tmp/ (where lab 09 mounts); its lab folder."""
    if not shutil.which("ceph-fuse") or not os.access("/dev/fuse", os.R_OK | os.W_OK):
        pytest.skip("needs ceph-fuse and a usable /dev/fuse")
    work = cephfs.CephFS(c, "cephfs", "labtd-").mount()
    (work / "hello").write_text("still here")
    return work


def cephlab_down(c, *args, env=None):
    return subprocess.run([sys.executable, "-m", "cephlab.cli", "down", "--name", c.name, *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def processes_naming(conf):
    """PIDs of live (non-zombie) processes whose command line names `conf`: daemons and clients."""
    return [int(p.name) for p in Path("/proc").iterdir()
            if p.name.isdigit() and daemons.is_ours(int(p.name), conf)]


def assert_nothing_left(folder, pids, kept=False):
    conf = folder / "ceph.conf"
    assert not [p for p in pids if daemons.is_ours(p, conf)]
    assert processes_naming(conf) == []
    assert [line for line in Path("/proc/mounts").read_text().splitlines()
            if f" {folder}/" in line] == []
    assert folder.exists() == kept


def pids_of(c):
    return list(c.pids().values()) + list(daemons.fuse_clients(c.dir).values())


def path_without(*tools):
    """A folder of links to every program on PATH except `tools` (a PATH where they are missing)."""
    bin_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"cephlab-path-{os.getpid()}"
    shutil.rmtree(bin_dir, ignore_errors=True)
    bin_dir.mkdir()
    for folder in os.environ["PATH"].split(os.pathsep):
        for prog in Path(folder).iterdir() if Path(folder).is_dir() else []:
            link = bin_dir / prog.name
            if prog.name not in tools and not link.exists() and os.access(prog, os.X_OK):
                link.symlink_to(prog)
    return bin_dir


def test_down_without_fusermount_still_unmounts_and_stops_everything(small_cluster):
    if os.geteuid() != 0:
        pytest.skip("without fusermount only root can unmount a FUSE mount (umount)")
    c = small_cluster("dnofuse", mds=True)
    mounted_fs(c)
    pids, folder = pids_of(c), c.dir
    bin_dir = path_without("fusermount", "fusermount3")
    try:
        assert shutil.which("fusermount", path=str(bin_dir)) is None
        assert shutil.which("umount", path=str(bin_dir))
        out = cephlab_down(c, env={"PATH": str(bin_dir)})
    finally:
        shutil.rmtree(bin_dir)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert f"removed {folder}" in out.stdout
    assert_nothing_left(folder, pids)


def test_down_with_a_busy_mount_detaches_it_and_stops_everything(small_cluster):
    c = small_cluster("dbusy", mds=True)
    work = mounted_fs(c)
    holder = subprocess.Popen(["sleep", "300"], cwd=work)        # a shell left inside the mount
    try:
        pids, folder = pids_of(c), c.dir
        t0 = time.monotonic()
        out = cephlab_down(c)
        took = time.monotonic() - t0
        assert out.returncode == 0, out.stderr
        notes = out.stderr.splitlines()
        assert len(notes) == 1 and notes[0].startswith(f"cephlab: {folder}/tmp/labtd-fuse-") \
            and "was busy" in notes[0], out.stderr
        assert took < 60
        assert holder.poll() is None                             # the user's process is left alone
        assert_nothing_left(folder, pids)
    finally:
        holder.kill()
        holder.wait()


def test_down_keep_kills_a_daemon_that_ignores_sigterm(small_cluster, monkeypatch, capfd):
    c = small_cluster("dstop")
    pids, folder = pids_of(c), c.dir
    os.kill(c.pids()["osd.0"], signal.SIGSTOP)                  # a stopped process acts on no SIGTERM
    monkeypatch.setattr(daemons, "GRACE_S", 3)
    t0 = time.monotonic()
    stopped = native.down(c.name, keep=True)
    took = time.monotonic() - t0
    assert sorted(stopped) == ["mgr.x", "mon.a", "osd.0"]
    assert took < 3 + daemons.KILL_WAIT_S + 10
    assert "cephlab: osd.0 did not stop on SIGTERM within 3 s; sending SIGKILL" in capfd.readouterr().err
    assert_nothing_left(folder, pids, kept=True)
    assert (folder / "osd" / "0").is_dir()                       # --keep keeps the data
    native.down(c.name)
    assert not folder.exists()
