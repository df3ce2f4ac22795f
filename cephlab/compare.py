"""Model vs measurement: a table with the ratio, and an assertion with a stated tolerance.

    cmp = Comparison()
    cmp.add("raw used, size 3", model=192, measured=201, unit="MiB", rel_tol=0.03)
    cmp.table()            # a DataFrame: model, measured, measured/model, tolerance, agrees
    cmp.assert_agree()     # AssertionError naming every row outside its tolerance, with its reason
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

    @property
    def ratio(self):
        return self.measured / self.model if self.model else float("nan")

    @property
    def agrees(self):
        if self.model == 0:
            return abs(self.measured) <= self.rel_tol
        return abs(self.measured - self.model) <= self.rel_tol * abs(self.model)


class Comparison:
    def __init__(self):
        self.rows = []

    def add(self, quantity, model, measured, unit="", rel_tol=0.1, why=""):
        self.rows.append(Row(quantity, float(model), float(measured), unit, rel_tol, why))
        return self

    def table(self, digits=3):
        df = pd.DataFrame([{"quantity": r.quantity, "unit": r.unit, "model": r.model,
                            "measured": r.measured, "measured/model": r.ratio,
                            "tolerance": f"±{r.rel_tol:.0%}", "agrees": r.agrees}
                           for r in self.rows])
        return df.round(digits).set_index("quantity")

    def assert_agree(self):
        bad = [r for r in self.rows if not r.agrees]
        if bad:
            lines = [f"{r.quantity}: model {r.model:g} {r.unit}, measured {r.measured:g} {r.unit} "
                     f"(x{r.ratio:.2f}, tolerance ±{r.rel_tol:.0%}){' - ' + r.why if r.why else ''}"
                     for r in bad]
            raise AssertionError("model and measurement disagree:\n" + "\n".join(lines))
        print(f"all {len(self.rows)} comparisons agree within their tolerance")
