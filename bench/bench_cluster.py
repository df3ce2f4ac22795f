"""Time nothing -> HEALTH_OK and a full `down` of the mini cluster, and each daemon's memory.

    .venv/bin/python bench/bench_cluster.py [runs=3] [--osds 3]

Prints the median over the runs (goal: <= 15 s to HEALTH_OK, from the issue) with the ratio to
that goal, and the resident memory of each daemon after a short 4 KiB rados bench.
"""
import argparse
import statistics
import time

from cephlab import Cluster
from cephlab.backends.native import lifecycle as native

NAME = "bench"
GOAL_UP_S = 15.0


def one_run(osds, measure_memory):
    t0 = time.monotonic()
    c = Cluster.start(name=NAME, osds=osds, progress=False)
    t_up = time.monotonic() - t0
    rss = {}
    if measure_memory:
        with c.resources() as r:
            r.replicated_pool("bench", size=min(3, osds), pg_num=32)
            res = c.rados_bench("bench", 5, "write", block_size=4096, threads=16)
            rss = c.memory_rss()
            print(f"  rados bench 5 s 4 KiB write: {res.iops:.0f} IOPS, "
                  f"{res.lat_mean_ms:.1f} ms mean latency")
    t0 = time.monotonic()
    c.stop()
    t_down = time.monotonic() - t0
    return t_up, t_down, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", type=int, nargs="?", default=3)
    ap.add_argument("--osds", type=int, default=3)
    args = ap.parse_args()
    native.down(NAME)              # start from nothing
    ups, downs, rss = [], [], {}
    for i in range(args.runs):
        t_up, t_down, mem = one_run(args.osds, measure_memory=(i == args.runs - 1))
        ups.append(t_up)
        downs.append(t_down)
        rss = mem or rss
        print(f"run {i + 1}: up {t_up:.1f} s, down {t_down:.2f} s")
    up_med = statistics.median(ups)
    print(f"\n{args.osds} BlueStore OSDs, {args.runs} runs")
    print(f"{'step':28s} {'median':>8s} {'goal':>6s} {'median/goal':>12s}")
    print(f"{'nothing -> HEALTH_OK':28s} {up_med:7.1f}s {GOAL_UP_S:5.0f}s {up_med / GOAL_UP_S:12.2f}")
    print(f"{'down (stop + remove)':28s} {statistics.median(downs):7.2f}s")
    print("\nresident memory after the bench (MiB):")
    for name, value in sorted(rss.items()):
        print(f"  {name:8s} {value / 2**20:8.0f}")


if __name__ == "__main__":
    main()
