"""Timing one write, and the parts a latency model adds up (lab 00, the write path).

    lat = write_latencies_ms(c, pool, count=100)        # client-side ms per 4 KiB write, QD 1
    disk = fsync_latencies_ms(c.dir / "tmp")             # ms per 4 KiB write + fdatasync
    with write_parts(c) as parts:                        # the OSDs' own averages during the block
        write_latencies_ms(c, pool, count=100)
    parts["commit ms"], parts["subop_w ms"]              # BlueStore's commit, a replica's sub-op
    with cpu_time(c) as t:                               # OSD CPU time and run-queue wait
        ...
    model_vs_measured(timing, net_ms)                    # per pool size: both models, the run

The parts come from each OSD's perf counters, averages kept as (sum, count), so a write's parts
are measured where they happen:
- `bluestore.commit_lat` (Reef and later: `txc_commit_lat`): a BlueStore transaction's time
  from its start to its commit in RocksDB, BlueStore.cc@v18.2.7:12992-12993. For a small write
  that is more than one flush of the disk: the transaction waits for the kv_sync thread, which
  writes a batch of transactions to RocksDB's write-ahead log (a small write's data rides in it as
  a deferred write) and then flushes the device.
- `osd.subop_w_latency`: a replica's time from receiving the primary's sub-op to replying,
  its own commit included, ReplicatedBackend.cc@v18.2.7:97-110.
- `osd.op_w_latency`: the primary's time from receiving the client's write to replying,
  PrimaryLogPG.cc@v18.2.7:4389 and :4416.

CPU and wait times come from /proc/<pid>/task/*/schedstat (ns on a CPU, ns runnable but waiting
for one), summed over every thread of the daemon, so they work only where the daemons run on
this machine (Cluster.local_daemons).

model_vs_measured is models.writepath.measured_parts_latency_ms (write_latency_ms in measured
parts): the disk term is BlueStore's commit at that pool size, a replica's part is its sub-op
time, and what a size-1 write spends outside its commit (client library, messenger, the
primary's op processing) is read from the size-1 pool. The counters give means, so the measured
side is the mean write too.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from cephlab.core import proc
from cephlab.core.errors import ClusterError
from models.writepath import measured_parts_latency_ms

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


# (section, Pacific's name) of the averages write_parts reads; releases.Release.counter renames them
PART_COUNTERS = {"op_w ms": ("osd", "op_w_latency"), "subop_w ms": ("osd", "subop_w_latency"),
                 "commit ms": ("bluestore", "commit_lat")}


def _averages(cluster) -> dict[int, dict[str, tuple[float, int]]]:
    """{osd: {part: (seconds summed, count)}} of every up OSD's PART_COUNTERS."""
    release = cluster.release()
    out = {}
    for osd in cluster.up_osds():
        dump = cluster.perf_dump(osd)
        averages = {part: dump[section][release.counter(name)] for part, (section, name) in PART_COUNTERS.items()}
        out[osd] = {part: (avg["sum"], avg["avgcount"]) for part, avg in averages.items()}
    return out


@contextlib.contextmanager
def write_parts(cluster):
    """with write_parts(c) as parts: ...   then parts = {part: mean ms over every OSD during the
    block, or None when no OSD counted one}, for the parts of PART_COUNTERS, and
    {part}" count" the number of events behind each mean."""
    before = _averages(cluster)
    result: dict[str, float | None] = {}
    yield result
    after = _averages(cluster)
    for part in PART_COUNTERS:
        total = sum(after[o][part][0] - before[o][part][0] for o in after.keys() & before.keys())
        count = sum(after[o][part][1] - before[o][part][1] for o in after.keys() & before.keys())
        result[part] = total / count * 1e3 if count else None
        result[f"{part} count"] = count


def model_vs_measured(timing, net_ms) -> pd.DataFrame:
    """timing: {pool size: {"mean ms", "commit ms", "subop_w ms"}} from lab 00's measurement; size
    1 must be there. A row per size: the measured parts, the parallel (Ceph's) and serial ("copies
    one by one") models of models.writepath.measured_parts_latency_ms, the measured mean write and
    the gap (measured - parallel model). "outside the commit" is read from the size-1 pool: its
    mean write minus its commit minus two hops (at least 0); "outside, this size" is the same
    reading at each size, the mean write minus the two hops and the slower of the commit and a
    replica's round trip: where it grows with the copies, the gap comes from outside the OSDs'
    counters (the primary sending sub-ops and handling replies, threads waiting for a core)."""
    import pandas as pd

    one = timing[1]
    outside = max(0.0, one["mean ms"] - one["commit ms"] - 2 * net_ms)
    rows = {}
    for size, m in sorted(timing.items()):
        subop = m.get("subop_w ms") if size > 1 else None
        args = dict(net_ms=net_ms, outside_ms=outside, commit_ms=m["commit ms"], subop_ms=subop or 0.0, replicas=size)
        model = float(measured_parts_latency_ms(**args))
        serial = float(measured_parts_latency_ms(**args, serial=True))
        # the model is outside + the rest, so the mean write's own outside part is the gap + outside
        rows[size] = {"outside the commit": outside, "outside, this size": m["mean ms"] - model + outside,
                      "BlueStore commit": m["commit ms"],
                      "replica sub-op": float("nan") if subop is None else subop,
                      "model": model, "serial model": serial, "measured": m["mean ms"],
                      "gap": m["mean ms"] - model}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("size")
