"""Seconds per graded notebook: batches of submissions, sandboxed (the default) and not
(--no-sandbox), with the grading as it is ("after") and with its per-notebook savings switched
off ("before": the path as it was until 2026-11-27), side by side in one run.

    .venv/bin/python bench/bench_grading.py                      # 30 lab 01 submissions, -j 2, both modes
    .venv/bin/python bench/bench_grading.py --labs all -n 24     # 2 per lab, every lab
    .venv/bin/python bench/bench_grading.py --modes sandboxed --ablate --rounds 2
    .venv/bin/python bench/bench_grading.py --set attacks --labs all --modes sandboxed   # test_attacks.py's

The submissions mix the kinds an instructor gets: a third the solution notebook, a third the
untouched student notebook, a third the student notebook with every answer filled in from the
solution (with --labs all, one lab after another). --set attacks grades instead the notebooks of
tests/grading/test_attacks.py's `attacked` fixture (every attack on each lab, as bob; -n is
ignored). Reported per row: the batch's wall time
divided by the submissions (what a class costs) and the median of each grading's own time (its
notebook's process and its checks; two run at once with -j 2).

The savings (cephlab.course.answer_runner, checks, sandbox) and how "before" undoes each:
  otter    `import otter` gets a stand-in             before: the real import (~1 s)
  display  results shown as text only                 before: every format, a LivePlot's PNG
  exit     the runner ends with os._exit              before: the interpreter's teardown
  preload  the master's imports loaded once here      before: each checks child imports them
  warm     font list and CRUSH mapper built once      before: each sandbox builds its own
--ablate adds one row per saving: everything on but that one. Each variant runs in a process of
its own (the preload lives in the grading process), in turn, ABBA over --rounds, so load from
other work on the machine falls on all alike; each row records the load average at its start.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cephlab.course import answer_runner, checks, grading  # noqa: E402
from cephlab.course.notebooks import LABS, solution_notebooks  # noqa: E402
from cephlab.course.sandbox import Sandbox  # noqa: E402

LAB = "01-redundancy"
SAVINGS = ("otter", "display", "exit", "preload", "warm")
# The answer runner with otter, display and exit undone: what `python -m
# cephlab.course.answer_runner` ran before (run() is otherwise unchanged).
BEFORE_RUNNER = """import sys
from pathlib import Path
from cephlab.course import answer_runner as r
off = sys.argv[3].split(",")
if "otter" in off:
    r.stand_in_otter = lambda: None
if "display" in off:
    r.text_only_display = lambda shell: None
r.run(Path(sys.argv[1]), Path(sys.argv[2]))
if "exit" not in off:
    r._exit_now(0)
sys.exit(0)
"""


@dataclass(frozen=True)
class BenchSandbox(Sandbox):
    """The default sandbox, starting the runner with some of its savings undone."""
    off: tuple[str, ...] = ()

    def command(self, job, argv, shared, env=None, ro=None):
        if argv[1:3] == ["-m", "cephlab.course.answer_runner"] and set(self.off) & {"otter", "display", "exit"}:
            argv = [argv[0], "-c", BEFORE_RUNNER, *argv[3:], ",".join(self.off)]
        return super().command(job, argv, shared, env, ro)


def submissions(folder: Path, n: int, labs: list[str]) -> list[tuple[Path, Path]]:
    """[(notebook, its master)]: n notebooks, lab after lab, the three kinds in turn (shifted by
    one on each pass over the labs, so every lab gets each kind as n grows)."""
    jobs = []
    for i in range(n):
        lab, kind = labs[i % len(labs)], (i + i // len(labs)) % 3
        master_path = grading.solution_path(lab)
        master = grading.read(master_path)
        student = grading.read(LABS / lab / f"{lab}.ipynb")
        kinds = {"solution": master, "untouched": student,
                 "filled": grading.fill_answers(student, master, list(grading.question_points(master)))}
        sub = folder / f"learner{i:02d}"
        sub.mkdir(parents=True)
        jobs.append((grading.copy_notebook(kinds[list(kinds)[kind]], sub / f"{lab}.ipynb"), master_path))
    return jobs


def attack_submissions(folder: Path, labs: list[str]) -> list[tuple[Path, Path]]:
    """[(notebook, its master)]: the notebooks tests/grading/test_attacks.py grades."""
    from tests.grading import test_attacks as ta
    return [(ta.attack_notebook(lab, name, folder), grading.solution_path(lab))
            for lab in labs for name in [*ta.ATTACKS, ta.OTHER_ID]]


def worker(args) -> int:
    """One batch with the savings in args.off undone; prints its numbers as one JSON line."""
    off = tuple(o for o in args.off.split(",") if o)
    if "preload" in off:
        checks.preload = lambda master: None
    if "warm" in off:
        grading.WARM_FROM = 10**9
    if "otter" in off:          # unsandboxed, the runner runs in children forked from here
        answer_runner.stand_in_otter = lambda: None
    if "display" in off:
        answer_runner.text_only_display = lambda shell: None
    sandbox = None if args.mode == "unsandboxed" else BenchSandbox(off=off) if off else grading.SANDBOX
    labs = [p.stem for p in solution_notebooks()] if args.labs == "all" else args.labs.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        attacks = args.set == "attacks"
        jobs = attack_submissions(Path(tmp), labs) if attacks else submissions(Path(tmp), args.n, labs)
        t0 = time.monotonic()
        outcomes = grading.run_gradings(jobs, parallel=args.jobs, timeout=120 if attacks else 600, sandbox=sandbox,
                                        learner_of=grading.learner_from_folder if attacks else None)
        wall = time.monotonic() - t0
    failed = [o for o in outcomes if isinstance(o, grading.GradingError)]
    if failed:
        raise SystemExit(f"{len(failed)} gradings failed, e.g.: {failed[0]}")
    print(json.dumps({"n": len(jobs), "wall": wall, "median": statistics.median(o.seconds for o in outcomes),
                      "scores": [o.score for o in outcomes]}))
    return 0


def variants(ablate: bool) -> list[tuple[str, str]]:
    """[(name, the savings it undoes, comma-separated)]."""
    rows = [("before", ",".join(SAVINGS)), ("after", "")]
    return rows + ([(f"after, {s} off", s) for s in SAVINGS] if ablate else [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=30, help="submissions (default 30)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="gradings at once (default 2)")
    ap.add_argument("--labs", default=LAB, help=f"labs, comma-separated, or all (default {LAB})")
    ap.add_argument("--set", choices=("kinds", "attacks"), default="kinds",
                    help="the submissions: solution/untouched/filled (default), or test_attacks.py's")
    ap.add_argument("--modes", default="sandboxed,unsandboxed", help="sandboxed, unsandboxed or both")
    ap.add_argument("--rounds", type=int, default=1, help="batches per variant, in ABBA order (default 1)")
    ap.add_argument("--ablate", action="store_true", help="also each saving off on its own")
    ap.add_argument("--out", type=Path, help="also write the rows here (JSON)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="sandboxed", help=argparse.SUPPRESS)
    ap.add_argument("--off", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    runs = [(mode, name, off) for mode in args.modes.split(",") for name, off in variants(args.ablate)]
    rows = []
    for r in range(args.rounds):
        for mode, name, off in (runs if r % 2 == 0 else runs[::-1]):
            load = os.getloadavg()[0]
            cmd = [sys.executable, __file__, "--worker", "--mode", mode, "--off", off, "-n", str(args.n),
                   "-j", str(args.jobs), "--labs", args.labs, "--set", args.set]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{mode} {name} failed:\n{done.stderr[-3000:]}")
            got = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append({"mode": mode, "variant": name, "load": load, **got})
            print(f"{mode} {name}: {got['n']} submissions in {got['wall']:.0f} s (load {load:.1f})", flush=True)
    for mode in args.modes.split(","):      # the same notebooks must score the same either way
        scores = {json.dumps(r["scores"]) for r in rows if r["mode"] == mode}
        if len(scores) > 1:
            raise SystemExit(f"{mode}: the variants scored the submissions differently: {scores}")
    print(f"\n{rows[0]['n']} submissions ({args.set}) of {args.labs}, -j {args.jobs}")
    print("| mode | variant | load at start | batch wall time | seconds per submission (wall / n) "
          "| median seconds of one grading | wall vs before, same mode |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        before = statistics.median(r["wall"] for r in rows if r["mode"] == row["mode"] and r["variant"] == "before")
        print(f"| {row['mode']} | {row['variant']} | {row['load']:.1f} | {row['wall']:.0f} s | "
              f"{row['wall'] / row['n']:.2f} | {row['median']:.2f} | {row['wall'] / before:.2f} |")
    if args.out:
        args.out.write_text(json.dumps({"set": args.set, "jobs": args.jobs, "labs": args.labs, "rows": rows},
                                       indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
