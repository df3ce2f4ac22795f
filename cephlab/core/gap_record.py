"""The record a learner's gap check leaves in the notebook: written by the notebook side
(cephlab.helpers.experiment.RunFigures.check), read by the grader (cephlab.course.measured).
It lives here, below both, because neither of those layers may import the other."""
from __future__ import annotations

import math
from typing import Any

RECORD_KEY = "application/vnd.cephlab.gap+json"     # in the check output's metadata
REL_TOL = 0.02          # the check's tolerance: the learner may round to two significant digits
# the check's two verdicts as its sentence words them (the grader reads them back)
SAYS_MATCH, SAYS_NO_MATCH = "matches your run", "does not match your run"


def agrees(answer: float, figure: float, rel_tol: float = REL_TOL) -> bool:
    """The check's one rule, in the kernel and in the grader: within rel_tol of the run's figure."""
    return math.isclose(float(answer), float(figure), rel_tol=rel_tol, abs_tol=1e-9)


def record(label: str, figure: str, answer: Any, recorded: float, rel_tol: float, matches: bool | None) -> dict:
    """The metadata of the check's output (plain JSON): the learner's answer (None unless a plain
    number), the run's figure, the tolerance and the check's verdict."""
    plain = float(answer) if isinstance(answer, (int, float)) and not isinstance(answer, bool) else None
    return {RECORD_KEY: {"label": label, "figure": figure, "answer": plain, "recorded": float(recorded),
                         "rel_tol": float(rel_tol), "matches": matches}}
