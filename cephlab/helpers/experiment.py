"""The learner's own experiment in a lab: a choice, a prediction, a run, the gap.

    size = experiment.choice(my_object_bytes, 1000, "my_object_bytes (Q6)")   # before the run
    ... measure with `size` ...
    run = experiment.RunFigures()
    run.record(ratio=measured / model)                                     # in the measuring cell
    run.check("my_ratio", my_ratio, "ratio", hint="measured / model, from the table above")

The prediction is an otter question placed before the measurement, so the grader (which has no
cluster) checks it against the model for the learner's own choice. The figure the learner reads
off their run is checked here, in their kernel, against what the run recorded; the check says
whether it matches and what to reconsider, never the value. The written explanation that
follows is graded by hand with book/rubrics.md.
"""
from __future__ import annotations

import math
from numbers import Real

from cephlab.core import gap_record
from cephlab.helpers import choices

# What a measuring cell prints while the learner's choice is still `...` (read by tests/setup's
# nbval verdict on a student version, where the solution's run had the answer instead).
NOT_SET = "{what} is not set yet: measuring with {default!r}; set it and run this cell again"


def choice(value, default, what, lab=None):
    """The value a learner chose in an exercise, or `default` (said so) while it is still `...`:
    the measurement that uses the choice runs either way, and the learner sees which it used.
    With `lab` ("01"), a value outside that lab's rule for this choice (cephlab.helpers.choices,
    looked up by the first word of `what`) raises ValueError naming the valid values."""
    if value is ... or value is None:      # said in the learner's own cell (a display, not a log)
        print(NOT_SET.format(what=what, default=default))
        return default
    if lab is not None:
        allowed = choices.rule(lab, what.split()[0])
        if not allowed.accepts(value):
            raise ValueError(f"{what} = {value!r} is not a value this lab can measure: choose "
                             f"{allowed.says}. Set it in the question above and run this cell again.")
    return value


class RunFigures:
    """Figures one run produced, kept so a learner's reading of them can be checked without
    printing them again in the check."""

    def __init__(self) -> None:
        self.figures: dict[str, float] = {}

    def record(self, **figures: float) -> None:
        for name, value in figures.items():
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"figure {name!r} must be a finite number, got {value!r}")
            self.figures[name] = value

    def matches(self, name: str, answer: object, rel_tol: float = gap_record.REL_TOL) -> bool | None:
        """True/False, or None while the answer is still `...`/None. rel_tol is relative to the
        run's figure (0.02: the learner may round to two significant digits)."""
        if name not in self.figures:
            raise KeyError(f"this run recorded no figure {name!r}: run the measuring cell above first")
        if answer is ... or answer is None:
            return None
        if isinstance(answer, bool) or not isinstance(answer, Real):
            return False
        return gap_record.agrees(float(answer), self.figures[name], rel_tol)

    def check(self, label: str, answer: object, name: str, hint: str, rel_tol: float = gap_record.REL_TOL) -> None:
        """Show whether `answer` (the learner's `label`) matches the run's figure `name` (returns
        nothing, so a notebook shows only the sentence). The output also carries, in its metadata,
        the record that grading reads (cephlab.core.gap_record, read by cephlab.course.measured): it is not shown."""
        ok = self.matches(name, answer, rel_tol)
        if ok is None:
            sentence = f"{label} is not set yet: compute it from your run's table above"
        elif ok:
            sentence = f"{label} {gap_record.SAYS_MATCH} (within {rel_tol:.0%}). Now explain the gap below."
        else:
            sentence = f"{label} {gap_record.SAYS_NO_MATCH}. Reconsider: {hint}"
        _show(sentence, gap_record.record(label, name, answer, self.figures[name], rel_tol, ok))


def _show(sentence: str, metadata: dict) -> None:
    """The sentence as a display with `metadata` in a notebook's kernel; printed elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import publish_display_data
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(sentence)
        return
    publish_display_data({"text/plain": sentence}, metadata=metadata)
