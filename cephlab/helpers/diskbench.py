"""The disk under a lab cluster, and the CPU its daemons burn (lab 03, disk IOPS).

    dev = fio_file(c.dir / "tmp", iodepth=16, seconds=3)          # raw device: 4 KiB randwrite
    wal = fio_file(c.dir / "tmp", iodepth=1, fdatasync=True)      # each write made durable
    with cpu_meter(c) as cpu:                                     # CPU seconds while it runs
        r = c.rados_bench(pool, 5, threads=16, cleanup=False)
    cpu["osd_s"], cpu["client_s"], cpu["wall_s"], cpu["host_busy"]
    against_base(mine, r, threads=4, prediction=(1.0, 0.25))     # a run vs the 16-thread one

The OSDs of a native lab cluster keep their BlueStore "devices" as plain files in the cluster's
folder, so fio on a file in the same folder measures the device they write to. CPU time comes
from /proc/<pid>/stat (utime + stime of each OSD) and getrusage(RUSAGE_CHILDREN) (tools this
process ran and waited for, e.g. rados bench), so it needs Cluster.local_daemons.
"""
from __future__ import annotations

import contextlib
import resource
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd

from cephlab.cluster.measure import _json_in, parse_fio
from cephlab.core import proc, run
from cephlab.core.errors import ClusterError


def fio_file(folder, rw="randwrite", bs=4096, iodepth=16, seconds=3, size_mib=32,
             fdatasync=False):
    """fio on a temporary file in `folder`: direct I/O (O_DIRECT, libaio), `bs`-byte ops.

    fdatasync=True calls fdatasync after every write (how a write-ahead log makes each commit
    durable); the file is deleted afterwards. Returns a measure.BenchResult (IOPS, ms).
    fio first writes the whole file (its "layout"), so size_mib sets the set-up time: 32 MiB
    takes ~1 s, 256 MiB ~15 s on a busy 2-core machine.
    """
    if not shutil.which("fio"):
        raise ClusterError(f"fio is not installed: {run.install_hint('fio')}")
    work = Path(tempfile.mkdtemp(prefix="fio-dev-", dir=folder))
    cmd = ["fio", "--name=dev", f"--filename={work / 'data'}", f"--size={size_mib}M",
           f"--rw={rw}", f"--bs={bs}", f"--iodepth={iodepth}", "--direct=1",
           "--ioengine=libaio", f"--runtime={seconds}", "--time_based",
           "--output-format=json"]
    if fdatasync:
        cmd.append("--fdatasync=1")
    try:
        try:
            out = run.run(cmd, what=f"fio on {folder}", timeout=seconds * 5 + 60).stdout
        except run.CommandFailed as e:
            raise ClusterError(f"{e}; is the folder on a file system that supports O_DIRECT "
                               "(not tmpfs)?") from e
        return parse_fio(_json_in(out, "fio"), rw, bs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def process_cpu_seconds(pid):
    """User + system CPU seconds process `pid` has used so far (all its threads)."""
    return proc.cpu_seconds(pid)


def children_cpu_seconds():
    """CPU seconds of every child process this one has waited for (e.g. rados bench)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def host_cpu_seconds():
    """(busy, total) CPU seconds of the whole host since boot, summed over cores (/proc/stat)."""
    return proc.host_cpu_seconds()


def _osd_cpu(cluster):
    total = 0.0
    for name, pid in cluster.pids().items():
        if name.startswith("osd."):
            with contextlib.suppress(OSError):
                total += process_cpu_seconds(pid)
    return total


@contextlib.contextmanager
def cpu_meter(cluster):
    """CPU used while the block runs: {"osd_s", "client_s", "wall_s", "host_busy"}.

    osd_s: CPU seconds of all OSD processes; client_s: of the tools run (and waited for) in the
    block; host_busy: fraction of all cores busy (any process, so other work on the host counts).
    """
    if not cluster.local_daemons:
        raise ClusterError("cpu_meter reads /proc of the OSD processes: it needs a native lab "
                           "cluster (the daemons of a Vagrant cluster run in VMs)")
    out: dict[str, float] = {}
    osd0, child0, (busy0, total0), t0 = (_osd_cpu(cluster), children_cpu_seconds(),
                                         host_cpu_seconds(), time.monotonic())
    yield out
    busy1, total1 = host_cpu_seconds()
    out.update(osd_s=_osd_cpu(cluster) - osd0, client_s=children_cpu_seconds() - child0,
               wall_s=time.monotonic() - t0,
               host_busy=min(1.0, (busy1 - busy0) / max(total1 - total0, 1e-9)))  # ticks/HZ rounding


def against_base(result, base, threads: int, base_threads: int = 16,
                 prediction: tuple[object, object] = (None, None)) -> pd.DataFrame:
    """IOPS and mean latency (ms) of a `rados bench` run at `threads` writes in flight next to a
    `base` run at `base_threads`: the base run, the learner's prediction, the saturated model and
    the measurement. `result` and `base` are BenchResults.

    prediction is (IOPS ratio, latency ratio) to the base run, either may be None or `...` (not
    answered yet: shown as blank). The saturated model is a CPU-bound cluster: the cores set the
    IOPS, so they stay at the base run's, and by Little's law the latency scales by
    threads / base_threads.
    """
    def scaled(ratio, value):
        return ratio * value if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) else None

    iops_ratio, latency_ratio = prediction
    return pd.DataFrame(
        {f"{base_threads} threads, measured": [base.iops, base.lat_mean_ms],
         f"{threads} threads: your prediction": [scaled(iops_ratio, base.iops),
                                                  scaled(latency_ratio, base.lat_mean_ms)],
         "saturated model": [base.iops, base.lat_mean_ms * threads / base_threads],
         "measured": [result.iops, result.lat_mean_ms]},
        index=["IOPS", "mean latency ms"])
