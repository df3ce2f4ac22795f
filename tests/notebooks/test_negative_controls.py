"""Every agreement check has a negative control, so a tolerance too loose to tell models apart
shows: in the solutions, each row a `Comparison` gets (`.add` / `.add_bound`) names a plausibly
wrong model with `control=(label, value)`, and `assert_agree` then fails when that wrong model
would pass the same tolerance (tests/unit/test_conclusions.py proves that mechanism on fixed
numbers).

The scan reads the solutions' Python source (jupytext), so it needs no cluster. WITHOUT_CONTROL
held the rows that had no control yet, each with its reason; it is empty now, and a new row
without a control fails (so would an entry for a row that has one).
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]-*.py"))

# {solution stem: {first argument of the row (its quantity, as written in the source)}}
WITHOUT_CONTROL: dict[str, set[str]] = {}


def _comparison_rows(tree):
    """(quantity source, has control) for every .add/.add_bound on a name bound to Comparison()."""
    names = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "Comparison"
             for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("add", "add_bound") and isinstance(node.func.value, ast.Name)
                and node.func.value.id in names and node.args):
            yield ast.get_source_segment(SOURCE[0], node.args[0]), any(k.arg == "control" for k in node.keywords)


SOURCE = [""]


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_every_comparison_row_has_a_negative_control(path):
    SOURCE[0] = path.read_text()
    rows = list(_comparison_rows(ast.parse(SOURCE[0])))
    missing = {q for q, has in rows if not has}
    known = WITHOUT_CONTROL.get(path.stem, set())
    assert missing <= known, f"{path.name}: rows without a negative control: {sorted(missing - known)}"
    assert known <= missing, (f"{path.name}: these rows now have a control; remove them from "
                              f"WITHOUT_CONTROL: {sorted(known - missing)}")


def test_the_scan_finds_rows():
    """The scan is not vacuous: the solutions hold dozens of rows and most have controls."""
    total = with_control = 0
    for path in SOLUTIONS:
        SOURCE[0] = path.read_text()
        for _, has in _comparison_rows(ast.parse(SOURCE[0])):
            total += 1
            with_control += has
    assert total >= 40 and with_control >= total - 6, (total, with_control)
