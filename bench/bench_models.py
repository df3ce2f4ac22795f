"""Time a 200-point sweep of every model, as a slider would drive it.

    .venv/bin/python bench/bench_models.py                 # medians, and ratios vs the saved baseline
    .venv/bin/python bench/bench_models.py --save-baseline # record this run as the baseline

Goal: each sweep well under 10 ms, so a slider move never waits for the model.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from models import (  # noqa: E402
    capacity,
    database,
    filestore,
    iops,
    pgs,
    placement,
    recovery,
    redundancy,
    threads,
    throttle,
    waf,
    writepath,
)

BASELINE = Path(__file__).resolve().parent / "results" / "models-baseline.json"
N = 200
X01 = np.linspace(0.0, 1.0, N)
EC42 = redundancy.erasure(4, 2)

SWEEPS = {
    "redundancy.annual_loss_probability (afr)":
        lambda: redundancy.annual_loss_probability(EC42, np.linspace(0.001, 0.2, N), 1.0),
    "redundancy.annual_loss_probability (days)":
        lambda: redundancy.annual_loss_probability(EC42, 0.05, np.linspace(0.1, 30, N)),
    "redundancy.nines": lambda: redundancy.nines(np.logspace(-15, -1, N)),
    "redundancy.usable_capacity": lambda: redundancy.usable_capacity(np.linspace(1, 1000, N), EC42, 0.85),
    "iops.expected_write_iops": lambda: iops.expected_write_iops(600, np.arange(1, N + 1), 3),
    "iops.mixed_iops": lambda: iops.mixed_iops(10000, 2000, X01),
    "iops.latency_ms": lambda: iops.latency_ms(np.linspace(100, 20000, N), 16),
    "iops.cluster_write_iops": lambda: iops.cluster_write_iops(np.linspace(100, 20000, N), 9, 3, 2, cores=8),
    "capacity.required_capacity": lambda: capacity.required_capacity(np.arange(1, N + 1) * 10, 100, 2.0),
    "capacity.usable_with_imbalance": lambda: capacity.usable_with_imbalance(100, EC42, np.linspace(1, 2, N)),
    "pgs.pgcalc": lambda: pgs.pgcalc(np.arange(3, 3 + N), 3),
    "pgs.fullest_osd_factor": lambda: pgs.fullest_osd_factor(np.arange(1, N + 1) * 8, 3, 10),
    "pgs.pgs_per_osd_stats": lambda: pgs.pgs_per_osd_stats(np.arange(1, N + 1) * 8, 3, 10),
    "recovery.recovery_time": lambda: recovery.recovery_time(100e9, np.arange(1, N + 1), 50e6),
    "throttle.backoff_delay": lambda: throttle.backoff_delay(np.linspace(0, 1.2, N), high_multiple=2, max_multiple=10),
    "filestore.simulate (120 s, 0.1 s steps)": lambda: filestore.simulate(seconds=120, dt=0.1),
    "threads.simple_messenger_threads": lambda: threads.simple_messenger_threads(np.arange(N), 100),
    "waf.filestore_waf": lambda: waf.filestore_waf(np.logspace(12, 22, N, base=2)),
    "waf.bluestore_waf": lambda: waf.bluestore_waf(np.logspace(12, 22, N, base=2)),
    "waf.kstore_waf": lambda: waf.kstore_waf(np.logspace(12, 22, N, base=2)),
    "writepath.write_latency_ms": lambda: writepath.write_latency_ms(np.linspace(0.01, 2, N), 0.5, 1.2),
    "database.closed_loop_tps": lambda: database.closed_loop_tps(np.arange(1, N + 1), 9.0, 1000.0),
    "placement.fullest_factor (fast)": lambda: placement.fullest_factor(np.arange(1, N + 1) * 8, 3, 5, fast=True),
    "placement.movement_on_add": lambda: placement.movement_on_add(np.arange(3, 3 + N), 3),
    "threads.max_clients_per_osd": lambda: threads.max_clients_per_osd(32768, np.arange(1, N + 1), 100),
}


def median_ms(fn, repeats):
    fn()  # warm caches and lazy tables
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=51)
    ap.add_argument("--save-baseline", action="store_true")
    args = ap.parse_args()
    results = {name: median_ms(fn, args.repeats) for name, fn in SWEEPS.items()}
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    print(f"{'model sweep (200 points)':45s} {'median ms':>10s} {'baseline':>10s} {'ratio':>7s}")
    for name, ms in results.items():
        base = baseline.get(name)
        ratio = f"{ms / base:7.2f}" if base else "      -"
        base_s = f"{base:10.3f}" if base else "         -"
        flag = "  <-- over 10 ms" if ms > 10 else ""
        print(f"{name:45s} {ms:10.3f} {base_s} {ratio}{flag}")
    print(f"slowest: {max(results.values()):.3f} ms (goal: well under 10 ms)")
    if args.save_baseline:
        BASELINE.parent.mkdir(exist_ok=True)
        BASELINE.write_text(json.dumps(results, indent=1) + "\n")
        print(f"baseline saved to {BASELINE}")


if __name__ == "__main__":
    main()
