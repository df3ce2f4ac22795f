"""The spread of every model-vs-measurement row over repeated executions of the solutions.

    .venv/bin/python bench/bench_spread.py [--runs 3] [--labs 03 07 ...] [--keep] [--append]
    .venv/bin/python bench/bench_spread.py --table     # the Markdown table of the saved results
    .venv/bin/python bench/bench_spread.py --labs 11 --runs 3 --cephadm vagrant/.export-containers

Runs each solution notebook `--runs` times on one native cluster (runs outer, labs inner, so a
lab's runs are minutes apart and meet different load), reads every Comparison row of each run
through cephlab.helpers.compare.recorded(), and writes bench/results/spread.json: per row the
measured/model ratios, their min/median/max, how often the row agreed and how often its negative
control was rejected. A lab that fails is recorded with its error, cleaned up, and the run goes on.
The tolerances the labs state are checked against this spread (book/instructor-guide.md).
With --cephadm EXPORT the labs run on the cephadm cluster whose ceph.conf and keyring
vagrant/containers/up.sh exported there (CEPHLAB_BACKEND=cephadm), the native cluster stays for
what a lab compares against it (lab 11), and the results go to results/spread-cephadm.json.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from cephlab import Cluster
from cephlab.backends.native import paths
from cephlab.core import teardown
from cephlab.course.notebooks import solution_notebooks

NAME = "spread"
OSDS = 4                       # as the test suite's shared cluster (tests/notebook_plugin.py)
OUT = Path(__file__).parent / "results" / "spread.json"
OUT_CEPHADM = OUT.with_name("spread-cephadm.json")
MARK = "SPREAD-ROWS:"
READ_ROWS = ("import json\nfrom cephlab.helpers import compare\n"
             f"print({MARK!r} + json.dumps(compare.recorded()))")


def rows_of(solution: Path, timeout: int = 1200) -> list[dict]:
    """Execute a solution in memory (the file is not touched) and return its Comparison rows."""
    nb = nbformat.read(solution, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(READ_ROWS))
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(solution.parent)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    return json.loads(text.split(MARK, 1)[1])


def clean_after_failure(lab: str) -> None:
    from cephlab.helpers.lab import LabSession
    teardown.attempt(f"clean up lab {lab}", lambda: LabSession(lab, min_osds=1).cleanup())
    for folder in paths.state_home().glob(f"{NAME}-*"):        # side clusters ("spread-04")
        teardown.attempt(f"stop {folder.name}", Cluster.down, folder.name)


def summary(results: dict) -> dict:
    """{lab: {quantity: {n, ratios, min, median, max, tolerance, agreed, controls_rejected}}} of
    the rows that make a claim (a reading, `claim` false, is kept in the runs only)."""
    out: dict = {}
    for lab, runs in results.items():
        rows: dict = {}
        for run in runs:
            for r in run.get("rows", []):
                if not r.get("claim", True):       # a reading: shown, never checked
                    continue
                s = rows.setdefault(r["quantity"], {"ratios": [], "agreed": 0, "with_control": 0,
                                                     "controls_rejected": 0})
                s["ratios"].append(r["ratio"])
                s["tolerance"] = r["tolerance"]
                s["control"] = r.get("control")
                s.setdefault("runs", []).append({k: r.get(k) for k in ("model", "measured", "control_value")})
                s["agreed"] += bool(r["agrees"])
                s["with_control"] += r["control_fails"] is not None
                s["controls_rejected"] += bool(r["control_fails"])
        for s in rows.values():
            ok = [x for x in s["ratios"] if x == x]          # nan when the model is 0
            s.update(n=len(s["ratios"]), min=min(ok, default=None), max=max(ok, default=None),
                     median=statistics.median(ok) if ok else None)
        out[lab] = rows
    return out


def print_table(summ: dict) -> None:
    print("| lab | row | n | measured/model min / median / max | tolerance | agreed | control rejected |")
    print("|---|---|---|---|---|---|---|")
    for lab, rows in summ.items():
        for q, s in rows.items():
            spread = (f"x{s['min']:.2f} / x{s['median']:.2f} / x{s['max']:.2f}"
                      if s["median"] is not None else "model 0")
            ctl = f"{s['controls_rejected']}/{s['with_control']}" if s["with_control"] else "-"
            print(f"| {lab} | {q} | {s['n']} | {spread} | {s['tolerance']} | {s['agreed']}/{s['n']} | {ctl} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--labs", nargs="*", help="lab numbers (default: every solution)")
    ap.add_argument("--keep", action="store_true", help="leave the cluster running afterwards")
    ap.add_argument("--append", action="store_true",
                    help="add the runs to the saved ones of the same labs (the default replaces them)")
    ap.add_argument("--table", action="store_true", help="print the saved runs' table, run nothing")
    ap.add_argument("--cephadm", metavar="EXPORT", type=Path,
                    help="run the labs on the cephadm cluster exported to this folder (up.sh)")
    args = ap.parse_args()
    out = OUT_CEPHADM if args.cephadm else OUT
    if args.table:
        print_table(summary(json.loads(out.read_text())["runs"]))
        return 0
    solutions = [s for s in solution_notebooks() if not args.labs or s.name[:2] in args.labs]
    os.environ["CEPHLAB_NAME"] = NAME                      # inherited by the notebooks' kernels
    if args.cephadm:
        if not (args.cephadm / "ceph.conf").exists():
            sys.exit(f"no ceph.conf in {args.cephadm}: bring the cluster up first (vagrant/containers/up.sh)")
        os.environ.update(CEPHLAB_BACKEND="cephadm", CEPHLAB_CEPHADM_EXPORT=str(args.cephadm.resolve()))
    cluster = Cluster.start(name=NAME, osds=OSDS, progress=False, backend="native")
    kept = json.loads(out.read_text())["runs"] if out.exists() else {}   # other labs' earlier runs
    results: dict = {s.stem: list(kept.get(s.stem, [])) if args.append else [] for s in solutions}
    try:
        for run in range(1, args.runs + 1):
            for sol in solutions:
                t0 = time.monotonic()
                print(f"run {run}/{args.runs}: {sol.stem} ...", end=" ", flush=True)
                try:
                    entry = {"rows": rows_of(sol)}
                except Exception as e:                      # recorded, cleaned up, and on to the next
                    entry = {"error": f"{type(e).__name__}: {str(e)[-300:]}"}
                    clean_after_failure(sol.name[:2])
                entry["seconds"] = round(time.monotonic() - t0, 1)
                entry["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
                results[sol.stem].append(entry)
                print(f"{entry['seconds']} s" + (f" FAILED {entry['error'][:120]}" if "error" in entry else ""))
                every = {**kept, **results}
                out.write_text(json.dumps({"runs": every, "summary": summary(every)}, indent=1))
    finally:
        if not args.keep:
            teardown.attempt(f"stop the cluster {NAME}", cluster.stop)
    print_table(summary({**kept, **results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
