"""Batch grading of 30 lab 01 submissions, sandboxed (the default) and not (--no-sandbox).

    .venv/bin/python bench/bench_grading.py            # both, -j 2; a table of seconds per submission
    .venv/bin/python bench/bench_grading.py -n 12 -j 3

The submissions mix the kinds an instructor gets: a third the solution notebook, a third the
untouched student notebook, a third the student notebook with every answer filled in from the
solution. The autograder is made once, before the clock starts. Reported per mode: the wall time
of the batch divided by the submissions (what a class costs) and the median of each grading's own
time (one `otter run`, including its kernel; two run at once with -j 2). With --rounds 2 the
modes run in turn, ABBA, so load from other work on the machine falls on both alike; each row
is one batch, with the machine's load average when it started.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cephlab.course import grading  # noqa: E402
from cephlab.course.notebooks import LABS  # noqa: E402

LAB = "01-redundancy"


def submissions(folder: Path, n: int) -> list[Path]:
    master = grading.read(grading.solution_path(LAB))
    student = grading.read(LABS / LAB / f"{LAB}.ipynb")
    kinds = {"solution": master, "untouched": student,
             "filled": grading.fill_answers(student, master, list(grading.question_points(master)))}
    paths = []
    for i in range(n):
        kind = list(kinds)[i % 3]
        sub = folder / f"learner{i:02d}"
        sub.mkdir(parents=True)
        paths.append(grading.copy_notebook(kinds[kind], sub / f"{LAB}.ipynb"))
    return paths


def run(notebooks, master, jobs, sandbox):
    t0 = time.monotonic()
    outcomes = grading.run_gradings([(nb, master) for nb in notebooks], parallel=jobs, timeout=600,
                                    sandbox=sandbox)
    wall = time.monotonic() - t0
    failed = [o for o in outcomes if isinstance(o, grading.GradingError)]
    if failed:
        raise SystemExit(f"{len(failed)} gradings failed, e.g.: {failed[0]}")
    return wall, statistics.median(o.seconds for o in outcomes)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=30, help="submissions (default 30)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="gradings at once (default 2)")
    ap.add_argument("--rounds", type=int, default=1, help="batches per mode, in ABBA order (default 1)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        notebooks = submissions(Path(tmp) / "submissions", args.n)
        master = grading.solution_path(LAB)     # its checks run in the grader, outside the sandbox
        rows, modes = [], [("sandboxed", grading.SANDBOX), ("unsandboxed", None)]
        for r in range(args.rounds):
            for name, sandbox in (modes if r % 2 == 0 else modes[::-1]):
                load = os.getloadavg()[0]
                wall, median = run(notebooks, master, args.jobs, sandbox)
                rows.append((name, load, wall, wall / args.n, median))
                print(f"{name}: {args.n} submissions in {wall:.0f} s (load {load:.1f})", flush=True)
    print(f"\n{args.n} submissions of lab {LAB}, -j {args.jobs}")
    print("| mode | load at start | batch wall time | seconds per submission (wall / n) "
          "| median seconds of one grading |")
    print("|---|---|---|---|---|")
    for name, load, wall, per, median in rows:
        print(f"| {name} | {load:.1f} | {wall:.0f} s | {per:.1f} | {median:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
