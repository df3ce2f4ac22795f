"""The per-lab table of a bare-system run (tests/setup/test_bare_system.py), from what it kept in
test-artifacts/bare-system/SUITE/ (SUITE-solutions/ for a run of the solutions): each lab's time
and exit (times.json) and, from its executed notebook, the cells that raised, the verdict each
agreement check printed and nbval's verdict on its outputs against the solution's saved ones
(tests/setup/nbval_outputs.py: the cells whose outputs nbval would find changed; for a student
version, of the cells it shares with the solution).

    .venv/bin/python -m tests.setup.bare_report trixie-solutions [sid-solutions bookworm ...]
"""
import json
import re
import sys
from pathlib import Path

import nbformat

from cephlab.core import ceph_version, releases
from tests.setup import nbval_outputs
from tests.setup.run_notebook import ANSI

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "bare-system"
# Comparison.assert_agree's verdict line (cephlab/helpers/compare.py)
VERDICT = re.compile(r"^all (\d+) comparisons agree within their tolerance(?:; (\d+) wrong models rejected)?", re.M)


def nbval_cell(path: Path, lab: str, release: releases.Release, student: bool) -> str:
    """nbval's verdict on the executed notebook: 'pass', or the cells it would fail; for a student
    version also how many of the solution's code cells it was judged on."""
    solution = ROOT / "solutions" / f"{lab}.ipynb"
    bad = nbval_outputs.mismatches(path, solution, nbval_outputs.release_outputs(release, lab), student=student)
    verdict = "pass" if not bad else f"{len(bad)} cells differ ({', '.join(str(i) for i, _ in bad)})"
    if student:
        shared, code = nbval_outputs.shared_cells(path, solution)
        verdict += f" ({shared} of the solution's {code} code cells)"
    return verdict


def lab_row(folder: Path, lab: str, phase: dict | None, release: releases.Release, student: bool) -> str:
    """One lab's row, with nbval's verdict."""
    path = folder / f"{lab}.executed.ipynb"
    if not path.exists():
        return f"| {lab} | {phase['s'] if phase else '-'} | not run | | | |"
    nb = nbformat.read(path, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [f"{o.ename}: {ANSI.sub('', o.evalue).splitlines()[0][:120] if o.evalue else ''}"
              for o in outputs if o.output_type == "error"]
    verdicts = [v for o in outputs if o.output_type == "stream" for v in VERDICT.findall(o.text)]
    rows, controls = sum(int(a) for a, _ in verdicts), sum(int(b or 0) for _, b in verdicts)
    status = "pass" if phase and phase["exit"] == 0 and not errors else "fail"
    checks = f"{len(verdicts)} checks passed: {rows} rows agree, {controls} controls rejected" if verdicts else "-"
    return (f"| {lab} | {phase['s'] if phase else '-'} | {status} | {checks} | "
            f"{'; '.join(dict.fromkeys(errors)) or '-'} | {nbval_cell(path, lab, release, student)} |")


def report(suite: str) -> str:
    folder = ARTIFACTS / suite
    times = json.loads((folder / "times.json").read_text())
    phases = {p["phase"]: p for p in times["phases"]}
    lines = [f"### {suite}: {times.get('ceph', '?')} ({times.get('notebooks', 'student')} notebooks, "
             f"commit {times.get('cloned', '?').split()[0]}, {times['result']})", "",
             "| lab | s | result | agreement checks | cells that raised | nbval: outputs vs the saved ones |",
             "|---|---|---|---|---|---|"]
    release = releases.for_major(ceph_version.parse_version(times["ceph"])[0])
    student = times.get("notebooks", "student") == "student"
    for lab in times["labs"].split():
        lines.append(lab_row(folder, lab, phases.get(f"lab {lab[:2]}"), release, student))
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n\n".join(report(s) for s in sys.argv[1:] or ["bookworm", "trixie", "sid"]))
