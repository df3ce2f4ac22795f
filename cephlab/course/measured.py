"""The measurement half of a lab, graded: the learner's reading of their own run (the "gap").

Each lab ends with the learner's experiment: a prediction (an otter question, graded with the
others), a run on the cluster, and one figure read off that run (`my_share`, `my_ratio`, ...),
which `cephlab.helpers.experiment.RunFigures.check` compares with what the run recorded. The
check's output carries, besides the sentence the learner reads, a record in its metadata
(RECORD_KEY): the answer, the run's figure, the tolerance. Grading never runs the measurement (it
has no cluster) and never runs learner code for it: grade_gap reads the handed-in notebook as data.

What the grade can trust, and what it cannot:
- it checks that the figure the learner stored matches the figure their run recorded (recomputed
  here, not taken from the record's verdict), that the cell which measured and recorded the figure
  is the lab's own cell, unchanged, and that the check ran after it (execution counts), and that
  the sentence shown agrees with the numbers (an edited output does not);
- it cannot prove the run happened on a cluster: a learner who edits the notebook's JSON by hand
  can forge a consistent record. The written explanation after it (graded by hand with
  book/rubrics.md) and the instructor's own run of the lab are what catch that.
"""
from __future__ import annotations

import math
from typing import Any, TypeGuard

from cephlab.core.gap_record import RECORD_KEY, REL_TOL, SAYS_MATCH, SAYS_NO_MATCH, agrees, record
from cephlab.course.checks import _source  # one reading of a cell's source

__all__ = ["POINTS", "QUESTION", "REL_TOL", "RECORD_KEY", "grade_gap", "graded", "record", "record_cells"]

QUESTION = "gap"                                    # its column in the gradebooks
POINTS = 1.0
RECORD_CALL = "run.record("


def _normal(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines())


def record_cells(master: dict) -> list[str]:
    """The master's code cells that record the run's figures (normalised source)."""
    return [_normal(_source(c)) for c in master.get("cells", [])
            if c.get("cell_type") == "code" and RECORD_CALL in _source(c)]


def _records(nb: dict) -> list[tuple[int, dict, dict]]:
    """(cell index, the record, the output) of every check output in a notebook, in order."""
    found = []
    for i, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            meta = out.get("metadata") if isinstance(out, dict) else None
            rec = meta.get(RECORD_KEY) if isinstance(meta, dict) else None
            if isinstance(rec, dict):
                found.append((i, rec, out))
    return found


def graded(master: dict) -> bool:
    """Whether the lab grades its gap: its reference run (the executed solution) recorded one. A
    lab whose experiment did not run where the solution was executed (lab 11 off cephadm) does not."""
    return bool(record_cells(master)) and bool(_records(master))


def _finite(x: Any) -> TypeGuard[int | float]:
    """A number a float can hold (a 400-digit integer in a forged record is not one)."""
    try:
        return type(x) in (int, float) and math.isfinite(float(x))
    except OverflowError:
        return False


def _shown(out: dict) -> str:
    data = out.get("data")
    text = data.get("text/plain", "") if isinstance(data, dict) else ""
    return "".join(text) if isinstance(text, list) else str(text)


def grade_gap(submission: dict, master: dict) -> tuple[float, list[str]] | None:
    """(score of POINTS, hints) for the learner's reading of their own run, None where the lab
    grades no gap (graded); see the module doc."""
    if not graded(master):
        return None
    wanted = record_cells(master)
    found = _records(submission)
    if not found:
        return 0.0, ["Your run's check has no result: run the measuring cells and the cell with "
                     "`run.check`, then save the notebook and hand it in."]
    index, rec, out = found[-1]
    cells = submission.get("cells", [])
    measuring = [i for i, c in enumerate(cells) if c.get("cell_type") == "code"
                 and _normal(_source(c)) in wanted]
    if len(measuring) < len(wanted):
        return 0.0, ["The cell that measures and records your run was changed: the gap is graded "
                     "only on the lab's own measurement. Restore that cell (compare with the lab) and run it again."]
    counts = [cells[i].get("execution_count") for i in measuring] + [cells[index].get("execution_count")]
    if not all(type(n) is int for n in counts) or max(counts[:-1]) >= counts[-1]:
        return 0.0, ["Your check did not run after your measurement: run the measuring cells, then "
                     "the check cell, in that order."]
    answer, recorded = rec.get("answer"), rec.get("recorded")
    if not _finite(recorded):
        return 0.0, ["Your run recorded no usable figure: run the measuring cell again."]
    if not _finite(answer):
        return 0.0, [f"`{rec.get('label', 'your answer')}` is not a number: store the figure you read off your run."]
    matches = agrees(answer, recorded)
    said = SAYS_NO_MATCH not in _shown(out) and SAYS_MATCH in _shown(out)
    if said != matches:
        return 0.0, ["The check's output does not agree with the numbers it records: run the check "
                     "cell again instead of editing its output."]
    if not matches:
        return 0.0, [f"`{rec.get('label', 'your answer')}` does not match your run: recompute it from "
                     "your run's table, as the check's hint says."]
    return POINTS, []
