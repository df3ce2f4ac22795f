"""Model vs measurement: a table with the ratio, and an assertion with a stated tolerance.

    cmp = Comparison()
    cmp.add("raw used, size 3", model=192, measured=201, unit="MiB", rel_tol=0.03)
    cmp.table()            # a DataFrame: model, measured, measured/model, tolerance, agrees
    cmp.assert_agree()     # AssertionError naming every row outside its tolerance, with its reason

A model that gives a ceiling rather than a value (a disk bound on IOPS) is a one-sided row:
    cmp.add_bound("IOPS <= disk bound", bound=9000, measured=984, rel_tol=0.1)
agrees when measured <= bound x (1 + rel_tol); its tolerance column reads "<= +10%".

A check that any plausible model would pass teaches nothing. Give a row a negative control, a
plausibly wrong model, and the same tolerance must reject it:
    cmp.add("recovery", model=9.6, measured=12.1, unit="s", rel_tol=0.5,
            control=("no recovery sleep", 0.3))
The table gains "control" and "control fails"; assert_agree also fails when a control passes
(the tolerance is too wide to tell the model from the wrong one).

A known effect the model leaves out, which can only pull the measurement one way, widens that
side alone: `below=0.24` accepts down to model x (1 - rel_tol - 0.24), and the tolerance column
reads "-34%/+10%". The allowance must come from the physics of the effect, never from the gap.
The control gets the same room. `above=` is the same for an effect that can only add (waits a
time model leaves out): room over the model alone.

A measurement read in steps of a fixed size (PG states reach the manager every 1-2 s) has an
absolute grain, not a relative one: `grain=(2.0, 4.1)` widens the window by 2 units below and 4.1
above, on top of the relative room. The control gets the same absolute window, so a wrong model
seconds or minutes away is still rejected when the model itself is near 0:
    cmp.add("recovery", model=1.5, measured=4.0, unit="s", rel_tol=0, grain=(2.0, 4.1),
            control=("the sleep applies", 114))    # tolerance "-2 s/+4.1 s"

A row whose tolerance cannot reject the plausible wrong model on every run makes no claim: it is
a reading, shown with that wrong model but never checked (issue 25):
    cmp.add_reading("journal, 64 KiB writes", model=3.19, measured=3.16,
                    control=("a journal of the data alone", 3.0), why="headers are 2 % at 64 KiB")
Its tolerance column reads "no claim" and its agrees is None; assert_agree counts it apart.

`recorded()` lists every row of every Comparison made in this process, as plain numbers:
bench/bench_spread.py reads it from executed notebooks to give each row's spread over runs.
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
    control: tuple[str, float] | None = None   # (label, value) of a plausibly wrong model
    below: float = 0.0     # extra room under the model for a one-way effect it leaves out
    above: float = 0.0     # the same over the model
    claim: bool = True     # False: a reading shown beside the checks, never checked
    grain: tuple[float, float] = (0.0, 0.0)   # absolute room (below, above), in the row's unit

    @property
    def ratio(self):
        return self.measured / self.model if self.model else float("nan")

    @property
    def tolerance(self):
        if not self.claim:
            return "no claim"
        if self.upper_bound:
            return f"<= +{self.rel_tol:.0%}"
        if any(self.grain):
            rel = ((f"-{self.rel_tol + self.below:.0%}", f"+{self.rel_tol + self.above:.0%}")
                   if self.rel_tol or self.below or self.above else ("", ""))
            unit = f" {self.unit}" if self.unit else ""
            return (f"{rel[0]}-{self.grain[0]:g}{unit}/{rel[1]}+{self.grain[1]:g}{unit}"
                    .replace("%-", "% -").replace("%+", "% +"))
        if self.below or self.above:
            return f"-{self.rel_tol + self.below:.0%}/+{self.rel_tol + self.above:.0%}"
        return f"±{self.rel_tol:.0%}"

    def _agrees_with(self, model: float) -> bool:
        if self.upper_bound:
            return self.measured <= model * (1 + self.rel_tol)
        if model == 0:
            return abs(self.measured) <= self.rel_tol
        # `below` shrinks the model's magnitude; sorted() orders the ends for either sign
        low, high = sorted((model * (1 - self.rel_tol - self.below), model * (1 + self.rel_tol + self.above)))
        return low - self.grain[0] <= self.measured <= high + self.grain[1]

    @property
    def agrees(self) -> bool | None:
        return self._agrees_with(self.model) if self.claim else None

    @property
    def control_fails(self) -> bool | None:
        """True when the wrong model is rejected by the same tolerance; None without a control
        or for a reading."""
        return None if self.control is None or not self.claim else not self._agrees_with(self.control[1])


def _control(control):
    if control is None:
        return None
    label, value = control
    return str(label), float(value)


_MADE: list[Comparison] = []   # every Comparison of this process, in order (see recorded())


def recorded() -> list[dict]:
    """Every row of every Comparison made in this process: quantity, model, measured, ratio,
    tolerance, agrees, the control's label and value, and control_fails (None without a control)."""
    def flag(x):                    # numpy's bool_ (from a numpy rel_tol) is no JSON bool
        return None if x is None else bool(x)
    return [{"quantity": str(r.quantity), "unit": str(r.unit), "model": r.model, "measured": r.measured,
             "ratio": float(r.ratio), "tolerance": r.tolerance, "agrees": flag(r.agrees),
             "control": r.control[0] if r.control else None,
             "control_value": float(r.control[1]) if r.control else None,
             "control_fails": flag(r.control_fails), "claim": r.claim} for c in _MADE for r in c.rows]


class Comparison:
    def __init__(self):
        self.rows = []
        _MADE.append(self)

    def add(self, quantity, model, measured, unit="", rel_tol=0.1, why="", control=None, below=0.0,
            above=0.0, grain=(0.0, 0.0)):
        if not 0 <= below < 1:
            raise ValueError(f"below must be in [0, 1), got {below}")
        if not above >= 0:
            raise ValueError(f"above must be >= 0, got {above}")
        if len(grain) != 2 or not all(g >= 0 for g in grain):
            raise ValueError(f"grain must be (below, above), each >= 0 in the row's unit, got {grain}")
        self.rows.append(Row(quantity, float(model), float(measured), unit, rel_tol, why,
                             control=_control(control), below=float(below), above=float(above),
                             grain=(float(grain[0]), float(grain[1]))))
        return self

    def add_bound(self, quantity, bound, measured, unit="", rel_tol=0.0, why="", control=None):
        """A one-sided row: the model's `bound` is a ceiling the measurement must stay under."""
        self.rows.append(Row(quantity, float(bound), float(measured), unit, rel_tol, why, True,
                             _control(control)))
        return self

    def add_reading(self, quantity, model, measured, unit="", why="", control=None):
        """A row with no claim: the model and the measurement side by side, with the wrong model
        the measurement cannot tell it from (`control`), never checked."""
        self.rows.append(Row(quantity, float(model), float(measured), unit, 0.0, why,
                             control=_control(control), claim=False))
        return self

    def table(self, digits=3):
        rows = []
        for r in self.rows:
            row = {"quantity": r.quantity, "unit": r.unit, "model": r.model, "measured": r.measured,
                   "measured/model": r.ratio, "tolerance": r.tolerance, "agrees": r.agrees}
            if any(x.control for x in self.rows):
                row.update({"control": f"{r.control[0]}: {r.control[1]:.3g}" if r.control else "",
                            "control fails": r.control_fails})
            rows.append(row)
        return pd.DataFrame(rows).round(digits).set_index("quantity")

    def assert_agree(self):
        claims = [r for r in self.rows if r.claim]
        bad = [r for r in claims if not r.agrees]
        if bad:
            lines = [f"{r.quantity}: model {r.model:g} {r.unit}, measured {r.measured:g} {r.unit} "
                     f"(x{r.ratio:.2f}, tolerance {r.tolerance}){' - ' + r.why if r.why else ''}"
                     for r in bad]
            raise AssertionError("model and measurement disagree:\n" + "\n".join(lines))
        blind = [r for r in claims if r.control_fails is False]
        if blind:
            lines = [f"{r.quantity}: the wrong model '{r.control[0]}' ({r.control[1]:g} {r.unit}) "
                     f"also agrees with {r.measured:g} {r.unit} at {r.tolerance}" for r in blind]
            raise AssertionError("a check cannot tell the model from a wrong one:\n" + "\n".join(lines))
        controls = sum(r.control_fails is True for r in claims)
        readings = len(self.rows) - len(claims)
        if not self.rows:       # the measurement stopped before its first row: nothing was compared
            raise AssertionError("no comparison ran: the measurement cells above stopped before they "
                                 "added one (see their error); run them again, then this cell")
        if not claims:
            print(f"no comparison makes a claim here: {readings} readings, shown beside their models")
            return
        # The check's verdict, shown in the notebook cell (nbval compares it): a display, not a log.
        print(f"all {len(claims)} comparisons agree within their tolerance"
              + (f"; {controls} wrong models rejected" if controls else "")
              + (f"; {readings} readings make no claim" if readings else ""))
