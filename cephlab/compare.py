"""Model vs measurement: a table with the ratio, and an assertion with a stated tolerance.

    cmp = Comparison()
    cmp.add("raw used, size 3", model=192, measured=201, unit="MiB", rel_tol=0.03)
    cmp.table()            # a DataFrame: model, measured, measured/model, tolerance, agrees
    cmp.assert_agree()     # AssertionError naming every row outside its tolerance, with its reason

A model that gives a ceiling rather than a value (a disk bound on IOPS) is a one-sided row:
    cmp.add_bound("IOPS <= disk bound", bound=9000, measured=984, rel_tol=0.1)
agrees when measured <= bound x (1 + rel_tol); its tolerance column reads "<= +10%".
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass
class Row:
    quantity: str
    model: float
    measured: float
    unit: str = ""
    rel_tol: float = 0.1
    why: str = ""          # the stated reason for an expected gap (printed on failure)
    upper_bound: bool = False   # the model is a ceiling: only measured above it disagrees

    @property
    def ratio(self):
        return self.measured / self.model if self.model else float("nan")

    @property
    def tolerance(self):
        return f"<= +{self.rel_tol:.0%}" if self.upper_bound else f"±{self.rel_tol:.0%}"

    @property
    def agrees(self):
        if self.upper_bound:
            return self.measured <= self.model * (1 + self.rel_tol)
        if self.model == 0:
            return abs(self.measured) <= self.rel_tol
        return abs(self.measured - self.model) <= self.rel_tol * abs(self.model)


class Comparison:
    def __init__(self):
        self.rows = []

    def add(self, quantity, model, measured, unit="", rel_tol=0.1, why=""):
        self.rows.append(Row(quantity, float(model), float(measured), unit, rel_tol, why))
        return self

    def add_bound(self, quantity, bound, measured, unit="", rel_tol=0.0, why=""):
        """A one-sided row: the model's `bound` is a ceiling the measurement must stay under."""
        self.rows.append(Row(quantity, float(bound), float(measured), unit, rel_tol, why, True))
        return self

    def table(self, digits=3):
        df = pd.DataFrame([{"quantity": r.quantity, "unit": r.unit, "model": r.model,
                            "measured": r.measured, "measured/model": r.ratio,
                            "tolerance": r.tolerance, "agrees": r.agrees}
                           for r in self.rows])
        return df.round(digits).set_index("quantity")

    def assert_agree(self):
        bad = [r for r in self.rows if not r.agrees]
        if bad:
            lines = [f"{r.quantity}: model {r.model:g} {r.unit}, measured {r.measured:g} {r.unit} "
                     f"(x{r.ratio:.2f}, tolerance {r.tolerance}){' - ' + r.why if r.why else ''}"
                     for r in bad]
            raise AssertionError("model and measurement disagree:\n" + "\n".join(lines))
        print(f"all {len(self.rows)} comparisons agree within their tolerance")
