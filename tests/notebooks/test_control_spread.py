"""Every check's negative control is rejected on every repeated run, and is worth rejecting.

test_negative_controls.py proves each Comparison row names a wrong model; this file proves the
row's tolerance rejects that wrong model on every run of bench/bench_spread.py, which executes
the solutions again and again on a native cluster (bench/results/spread.json) or the cephadm one
(spread-cephadm.json). A row fails when, in any recorded run:
- it disagreed with its own model, or had no control, or its control fell inside the tolerance;
- its control is 0 while the model is not (a "nothing happens" straw man any tolerance rejects), or
  equals the model (a control that cannot fail);
- the spread holds fewer than MIN_RUNS runs of it, or a run of the lab failed (FEWER_RUNS names
  the exceptions, with reasons);
rows that cannot meet this are readings (Comparison.add_reading: shown with their wrong model,
never checked) and are left out of the summary;
and a lab fails when a spread run recorded fewer rows than its executed solution checked (the
notebook's "all N comparisons agree" lines), i.e. when the spread predates rows added since.
The data is JSON in the repository: no cluster, seconds.
"""
import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPREADS = [ROOT / "bench" / "results" / "spread.json", ROOT / "bench" / "results" / "spread-cephadm.json"]
MIN_RUNS = 5
# {(lab, start of the row's quantity): why its control is 0 and still the plausible wrong model}
ZERO_IS_THE_WRONG_MODEL = {
    ("06-capacity", "OSDs reported near full"):
        "the wrong model spreads the data exactly by CRUSH weight, so four OSDs of equal weight fill "
        "alike: none or all four cross the nearfull ratio, and the ratio sits where CRUSH's own "
        "placement puts some across",
}
# {lab: why its spread has fewer than MIN_RUNS runs}
FEWER_RUNS: dict[str, str] = {}


def row_problems(row: dict, zero_allowed: bool = False) -> list[str]:
    """What is wrong with one row of a spread summary (bench_spread.summary); [] when nothing.
    zero_allowed: a control of 0 is that row's plausible wrong model (ZERO_IS_THE_WRONG_MODEL)."""
    n = row["n"]
    problems = []
    if row["agreed"] < n:
        problems.append(f"disagreed with its model in {n - row['agreed']} of {n} runs")
    if row["with_control"] < n:
        problems.append(f"had no control in {n - row['with_control']} of {n} runs")
    if row["controls_rejected"] < row["with_control"]:
        problems.append(f"its control fell inside the tolerance in "
                        f"{row['with_control'] - row['controls_rejected']} of {n} runs")
    for run in row.get("runs") or []:
        model, control = run.get("model"), run.get("control_value")
        if control is None or model is None:
            continue
        if control == 0 and model != 0 and not zero_allowed:
            problems.append("its control is 0, a straw man any tolerance rejects")
            break
        if math.isclose(control, model, rel_tol=1e-9, abs_tol=1e-12):
            problems.append("its control equals the model")
            break
    return problems


def _spread(part: str) -> dict:
    """{lab: ...} of one part ("summary" or "runs") of every spread file, cephadm's last."""
    out: dict = {}
    for path in SPREADS:
        if path.exists():
            out.update(json.loads(path.read_text())[part])
    return out


def _checked_rows(solution: Path) -> int:
    """How many Comparison rows the executed solution checked: its assert_agree lines."""
    nb = json.loads(solution.read_text())
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))
    return sum(int(n) for n in re.findall(r"all (\d+) comparisons agree within their tolerance", text))


LABS = sorted(p for p in (ROOT / "solutions").glob("[0-9][0-9]-*.ipynb") if _checked_rows(p))


@pytest.mark.parametrize("solution", LABS, ids=lambda p: p.stem)
def test_every_row_rejects_its_control_on_every_run(solution):
    lab = solution.stem
    summary = _spread("summary").get(lab)
    assert summary, f"{lab}: no spread recorded; run: .venv/bin/python bench/bench_spread.py --labs {lab[:2]} --runs 5"
    errored = [r["error"][-200:] for r in _spread("runs")[lab] if "error" in r]
    assert not errored or lab in FEWER_RUNS, f"{lab}: runs that failed: {errored}"
    runs = [r for r in _spread("runs")[lab] if "rows" in r]
    need = _checked_rows(solution)
    short = [len(r["rows"]) for r in runs if len(r["rows"]) < need]
    assert not short, (f"{lab}: the executed solution checks {need} rows, spread runs recorded {short}: "
                       f"the spread predates rows added since; run bench_spread.py --labs {lab[:2]} --runs 5")
    few = {q: row["n"] for q, row in summary.items() if row["n"] < MIN_RUNS}
    if lab in FEWER_RUNS:
        assert few, f"{lab} has {MIN_RUNS} runs now: remove it from FEWER_RUNS"
    else:
        assert not few, f"{lab}: fewer than {MIN_RUNS} runs of {few}"
    bad = {q: p for q, row in summary.items()
           if (p := row_problems(row, zero_allowed=any(lab == k and q.startswith(start)
                                                       for k, start in ZERO_IS_THE_WRONG_MODEL)))}
    assert not bad, (f"{lab}:\n" + "\n".join(f"  {q}: {'; '.join(p)}" for q, p in bad.items())
                     + "\na row that cannot reject its plausible wrong model on every run is a reading: "
                       "Comparison.add_reading, with that model as its control")


@pytest.mark.parametrize("solution", LABS, ids=lambda p: p.stem)
def test_every_reading_shows_the_wrong_model_it_cannot_tell_apart(solution):
    """A reading (no claim) still names the plausible wrong model, with its value: the learner
    sees what the measurement cannot decide (it may equal the model's: that is why it is a
    reading)."""
    readings = [r for run in _spread("runs").get(solution.stem, []) for r in run.get("rows", [])
                if r.get("claim") is False]
    for r in readings:
        assert r["control"] and r["control_value"] is not None, f"{r['quantity']}: a reading without its wrong model"


def _row(**kw):
    row = {"n": 5, "agreed": 5, "with_control": 5, "controls_rejected": 5,
           "runs": [{"model": 10.0, "measured": 10.5, "control_value": 20.0}] * 5}
    row.update(kw)
    return row


@pytest.mark.parametrize("wrong, expect", [
    (dict(controls_rejected=4), "inside the tolerance in 1 of 5"),
    (dict(agreed=3), "disagreed with its model in 2 of 5"),
    (dict(with_control=0, controls_rejected=0), "no control in 5 of 5"),
    (dict(runs=[{"model": 10.0, "measured": 10.5, "control_value": 0.0}]), "control is 0"),
    (dict(runs=[{"model": 10.0, "measured": 10.5, "control_value": 10.0}]), "equals the model"),
])
def test_the_check_flags_each_kind_of_useless_row(wrong, expect):
    """Negative controls of this test: each kind of row it must reject is rejected, and a sound
    row (a model of 0 with a non-zero control included) is not."""
    assert any(expect in p for p in row_problems(_row(**wrong)))
    assert row_problems(_row()) == []
    assert row_problems(_row(runs=[{"model": 0.0, "measured": 0.0, "control_value": 3.0}])) == []
