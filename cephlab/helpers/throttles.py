"""Watching an OSD's throttles while a benchmark runs (lab 04).

    run = bench_with_throttle(c, pool, 8, "throttle-filestore_ops")
    run.bench.series            # per-second (t, iops, MiB/s, latency ms) from rados bench
    run.samples                 # [(t_s, val, max)] of the throttle on one OSD, every 0.5 s
    run.deltas[osd]["get"]      # how many requests passed the throttle during the run, per OSD

A throttle's perf counters (`ceph tell osd.N perf dump`, section "throttle-<name>") hold
val (units held now), max (its limit), get/get_sum (requests and units that passed) and
wait (how many requests waited, and for how long in all).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from cephlab.core.errors import ClusterError
from cephlab.core.poll import poll_until

COUNTERS = ("get", "get_sum", "wait_count", "wait_sum")


@dataclass
class ThrottleRun:
    bench: object                                   # cephlab.cluster.measure.BenchResult
    section: str
    samples: list = field(default_factory=list)     # [(t_s, val, max)] on sample_osd
    deltas: dict = field(default_factory=dict)      # {osd: {counter: change during the run}}

    def total(self, counter):
        """The counter's change summed over the OSDs."""
        return sum(d[counter] for d in self.deltas.values())

    def wait_share(self):
        """The share of the requests that passed the throttle which waited for it (all OSDs)."""
        return self.total("wait_count") / self.total("get")

    def mean_wait_ms(self):
        """The mean wait of the requests that waited, in ms (0 when none did)."""
        return 1e3 * self.total("wait_sum") / max(self.total("wait_count"), 1)

    def peak_fill(self):
        """Highest val / max seen in the samples (0 when the throttle never held anything)."""
        return max((v / m for _, v, m in self.samples if m), default=0.0)


def throttle_counters(cluster, osd, section):
    """{val, max, get, get_sum, wait_count, wait_sum} of one throttle on one OSD."""
    dump = cluster.perf_dump(osd)
    if section not in dump:
        known = sorted(k for k in dump if k.startswith("throttle-"))
        raise ClusterError(f"osd.{osd} has no perf section {section!r}; its throttles: {known}")
    s = dump[section]
    return {"val": s["val"], "max": s["max"], "get": s["get"], "get_sum": s["get_sum"],
            "wait_count": s["wait"]["avgcount"], "wait_sum": s["wait"]["sum"]}


def bench_with_throttle(cluster, pool, seconds, section, osds=None, sample_osd=None,
                        block_size=4096, threads=16, interval=0.5):
    """rados bench write for `seconds` while sampling `section` on one OSD; a ThrottleRun.

    The bench keeps its objects (the lab deletes the pool), so no clean-up traffic passes
    the throttles between the two counter readings.
    """
    osds = list(osds if osds is not None else (int(o) for o in cluster.ceph("osd", "ls")))
    sample_osd = osds[0] if sample_osd is None else sample_osd
    before = {o: throttle_counters(cluster, o, section) for o in osds}
    result, error = {}, {}

    def bench():
        try:
            result["bench"] = cluster.rados_bench(pool, seconds, block_size=block_size,
                                                  threads=threads, cleanup=False)
        except Exception as e:          # re-raised in the caller's thread below
            error["e"] = e

    worker = threading.Thread(target=bench, daemon=True)
    t0 = time.monotonic()
    worker.start()
    samples = []
    while worker.is_alive():
        now = throttle_counters(cluster, sample_osd, section)
        samples.append((round(time.monotonic() - t0, 2), now["val"], now["max"]))
        worker.join(interval)
    if error:
        raise error["e"]
    after = {o: throttle_counters(cluster, o, section) for o in osds}
    deltas = {o: {k: after[o][k] - before[o][k] for k in COUNTERS} for o in osds}
    return ThrottleRun(bench=result["bench"], section=section, samples=samples, deltas=deltas)


def wait_for_option(cluster, osds, option, value, timeout=20):
    """Wait until every OSD in `osds` runs with option == value (a `config set` takes a few
    seconds to reach the daemons). Compares as floats when both sides are numbers."""
    def same(a, b):
        try:
            return float(a) == float(b)
        except ValueError:
            return str(a).lower() == str(b).lower()

    osds = list(osds)
    pending, got = list(osds), {}

    def all_same():
        while pending:
            got["value"] = cluster.ceph("tell", f"osd.{pending[0]}", "config", "get", option)[option]
            if not same(got["value"], value):
                return False
            pending.pop(0)
        return True
    poll_until(all_same, timeout, f"{option}={value} on osds {osds}", interval=0.3,
               describe=lambda: f"osd.{pending[0]} still runs {option}={got['value']}",
               hint="is the OSD up (`ceph osd tree`)?")


def write_ios(cluster, pool, osds, writes, cost_per_io, section="throttle-bluestore_throttle_bytes"):
    """What BlueStore charged per write transaction, by write size: {label: (bytes, count)} are
    written one at a time as whole objects, each landing as one transaction on every OSD that
    holds a copy, and each OSD's throttle counters around each write give that transaction's
    cost; I/Os = (cost - bytes) / cost_per_io. An OSD that passed some other transaction too
    during the write (PG stats, log trimming: more than one get) is set aside for that write, not
    averaged in. Set bluestore_throttle_cost_per_io to cost_per_io first, so the figure does not
    depend on the device class. A DataFrame, a row per label: objects, transactions counted,
    cost per get, I/Os per transaction."""
    import os

    import pandas as pd

    def counters():
        return {o: throttle_counters(cluster, o, section) for o in osds}

    rows = {}
    for label, (size, count) in writes.items():
        data = os.urandom(size)
        costs = []
        with cluster.ioctx(pool) as io:
            for i in range(count):
                before = counters()
                io.write_full(f"ios-{label.replace(' ', '')}-{i}", data)
                after = counters()
                costs += [after[o]["get_sum"] - before[o]["get_sum"] for o in osds
                          if after[o]["get"] - before[o]["get"] == 1]
        cost = sum(costs) / len(costs) if costs else float("nan")
        rows[label] = {"bytes": size, "objects": count, "transactions counted": len(costs),
                       "cost per get": cost, "I/Os per transaction": (cost - size) / cost_per_io}
    return pd.DataFrame.from_dict(rows, orient="index")
