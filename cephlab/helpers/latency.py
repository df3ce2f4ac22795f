"""Timing one write, and the parts a latency model adds up (lab 00, the write path).

    lat = write_latencies_ms(c, pool, count=100)        # client-side ms per 4 KiB write, QD 1
    disk = fsync_latencies_ms(c.dir / "tmp")             # ms per 4 KiB write + fdatasync
    with cpu_time(c) as t:                               # OSD CPU time and run-queue wait
        write_latencies_ms(c, pool, count=100)
    t["cpu_ms"], t["wait_ms"]                            # {daemon: ms} during the block
    model_vs_measured(timing, disk_ms, net_ms)           # per pool size: both models, the run

CPU and wait times come from /proc/<pid>/task/*/schedstat (ns on a CPU, ns runnable but waiting
for one), summed over every thread of the daemon, so they work only where the daemons run on
this machine (Cluster.local_daemons).

model_vs_measured sets the measured median next to the parallel (Ceph's) and the serial
("copies one by one") sum of parts, and says whether the run can tell the two apart: only when
they differ by more than the run's own blur, the run-queue wait per write (an effect neither
model has, which can add up to that much) plus the p10-p90 spread of the writes. On a 2-core
machine with loopback "network" and a flash-backed "disk" it cannot: the two differ by about one
disk commit and one hop, far less than the wait. That is a finding, not a check, so there is no
tolerance: the fan-out itself is shown by the perf counters, exactly.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from cephlab.core import proc
from cephlab.core.errors import ClusterError
from models.writepath import serial_write_latency_ms, write_latency_ms

if TYPE_CHECKING:       # pandas costs ~0.3 s to import, and every `cephlab` command imports this module
    import pandas as pd


def write_latencies_ms(cluster, pool, count=100, size=4096, prefix="lat"):
    """Write `count` objects of `size` bytes one at a time (queue depth 1); ms per write.

    Each write is a new object named f"{prefix}-{i}" (overwritten on a re-run), so the
    numbers include object creation, as a first write of a file would.
    """
    data = os.urandom(size)
    out = []
    with cluster.ioctx(pool) as io:
        io.write_full(f"{prefix}-warmup", data)     # connection set-up is not part of a write
        for i in range(count):
            t0 = time.perf_counter()
            io.write_full(f"{prefix}-{i}", data)
            out.append((time.perf_counter() - t0) * 1e3)
    return out


def fsync_latencies_ms(directory, count=50, size=4096, segment_blocks=16, preallocate=False):
    """Time `count` writes of `size` bytes, each followed by fdatasync, cycling over
    `segment_blocks` blocks of a scratch file in `directory` (put it on the file system under
    test). ms per write.

    preallocate: write and sync the blocks once first, so each timed write overwrites allocated
    blocks and fdatasync has no metadata to add, as a WAL commit into PostgreSQL's preallocated
    16 MiB segments does (lab 10); without it the first writes also allocate (lab 00's disk).
    """
    path = Path(directory) / f"fsync-probe-{os.getpid()}"
    data = os.urandom(size)
    out = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        if preallocate:
            os.pwrite(fd, data * segment_blocks, 0)
            os.fsync(fd)
        for i in range(count):
            t0 = time.perf_counter()
            os.pwrite(fd, data, (i % segment_blocks) * size)
            os.fdatasync(fd)
            out.append((time.perf_counter() - t0) * 1e3)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return out


def schedstat(pid):
    """(ns on a CPU, ns waiting in a run queue) summed over every thread of process `pid`."""
    return proc.schedstat(pid)


def daemon_schedstat(cluster, kind="osd"):
    """{daemon: (cpu_ns, wait_ns)} for the cluster's daemons of `kind` (None: all)."""
    if not cluster.local_daemons:
        raise ClusterError("CPU times come from /proc, which only sees daemons on this machine; "
                           "use a native cluster (`cephlab up`) for this measurement")
    return {name: schedstat(pid) for name, pid in cluster.pids().items()
            if kind is None or name.startswith(kind + ".")}


@contextlib.contextmanager
def cpu_time(cluster, kind="osd"):
    """with cpu_time(c) as t: ...   then t["cpu_ms"] and t["wait_ms"] = {daemon: ms} for the block."""
    before = daemon_schedstat(cluster, kind)
    result: dict[str, dict[str, float]] = {"cpu_ms": {}, "wait_ms": {}}
    yield result
    after = daemon_schedstat(cluster, kind)
    for name in after.keys() & before.keys():
        result["cpu_ms"][name] = (after[name][0] - before[name][0]) / 1e6
        result["wait_ms"][name] = (after[name][1] - before[name][1]) / 1e6


def model_vs_measured(timing, disk_ms, net_ms) -> pd.DataFrame:
    """timing: {pool size: {"median ms", "p10 ms", "p90 ms", "OSD CPU ms per copy",
    "run-queue wait ms per write"}} from lab 00's measurement. A row per size: the parallel and
    serial models (ms), the measured median, the gap (measured - parallel model), the blur (wait
    + p90 - p10) and whether the two models differ by more than it ("tells apart")."""
    import pandas as pd

    rows = {}
    for size, m in sorted(timing.items()):
        args = (net_ms, disk_ms, m["OSD CPU ms per copy"], size)
        model, serial = float(write_latency_ms(*args)), float(serial_write_latency_ms(*args))
        blur = m["run-queue wait ms per write"] + m["p90 ms"] - m["p10 ms"]
        rows[size] = {"model": model, "serial model": serial, "measured": m["median ms"],
                      "gap": m["median ms"] - model, "run-queue wait": m["run-queue wait ms per write"],
                      "models differ by": serial - model, "blur": blur,
                      "tells apart": serial - model > blur}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("size")
