"""Time the slider sweeps of labs 02 and 06: models.placement against models.pgs side by side.

    .venv/bin/python bench/bench_placement.py

The baseline column is the sweep the same slider would run with models.pgs (copies treated as
independent, normal order statistic). Goal: the slider form well under 10 ms per sweep;
the exact sum is for tables and answers, not sliders.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.bench_models import median_ms  # noqa: E402  (one timing helper for every bench)
from models import capacity, pgs, placement  # noqa: E402
from models.redundancy import replicated  # noqa: E402

PG_NUMS = np.unique(np.geomspace(8, 4096, 200).astype(int))
REP1 = replicated(1)

# name: (sweep, baseline sweep or None)
SWEEPS = {
    "fullest_factor, 4 OSDs, fast": (lambda: placement.fullest_factor(PG_NUMS, 3, 4, fast=True),
                                     lambda: pgs.fullest_osd_factor(PG_NUMS, 3, 4)),
    "fullest_factor, 100 OSDs, fast": (lambda: placement.fullest_factor(PG_NUMS, 3, 100, fast=True),
                                       lambda: pgs.fullest_osd_factor(PG_NUMS, 3, 100)),
    "fullest_factor, 4 OSDs, exact": (lambda: placement.fullest_factor(PG_NUMS, 3, 4),
                                      lambda: pgs.fullest_osd_factor(PG_NUMS, 3, 4, exact=True)),
    "pg_count_stats": (lambda: placement.pg_count_stats(PG_NUMS, 3, 10),
                       lambda: pgs.pgs_per_osd_stats(PG_NUMS, 3, 10)),
    "movement_on_add (osds 3..202)": (lambda: placement.movement_on_add(np.arange(3, 203), 3), None),
    "lab 06 fillable share (fast)": (
        lambda: capacity.usable_with_imbalance(1.0, REP1, placement.fullest_factor(PG_NUMS, 3, 4, fast=True)),
        lambda: capacity.usable_with_imbalance(1.0, REP1, pgs.fullest_osd_factor(PG_NUMS, 3, 4))),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=31)
    args = ap.parse_args()
    print(f"{f'sweep ({len(PG_NUMS)} points)':34s} {'median ms':>10s} {'models.pgs ms':>14s} {'ratio':>7s}")
    for name, (fn, base_fn) in SWEEPS.items():
        ms = median_ms(fn, args.repeats)
        if base_fn is None:
            print(f"{name:34s} {ms:10.3f} {'-':>14s} {'-':>7s}")
            continue
        base = median_ms(base_fn, args.repeats)
        print(f"{name:34s} {ms:10.3f} {base:14.3f} {ms / base:7.2f}")


if __name__ == "__main__":
    main()
