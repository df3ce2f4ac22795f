"""The record a learner's gap check leaves in the notebook: written by the notebook side
(cephlab.helpers.experiment.RunFigures.check), read by the grader (cephlab.course.measured).
It lives here, below both, because neither of those layers may import the other."""
from __future__ import annotations

from typing import Any

RECORD_KEY = "application/vnd.cephlab.gap+json"     # in the check output's metadata
REL_TOL = 0.02          # the check's tolerance: the learner may round to two significant digits


def record(label: str, figure: str, answer: Any, recorded: float, rel_tol: float, matches: bool | None) -> dict:
    """The metadata of the check's output (plain JSON): the learner's answer (None unless a plain
    number), the run's figure, the tolerance and the check's verdict."""
    plain = float(answer) if isinstance(answer, (int, float)) and not isinstance(answer, bool) else None
    return {RECORD_KEY: {"label": label, "figure": figure, "answer": plain, "recorded": float(recorded),
                         "rel_tol": float(rel_tol), "matches": matches}}
