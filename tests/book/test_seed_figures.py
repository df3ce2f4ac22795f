"""book/seed_figures.py: the instructor guide's "Seed figures and the models" table is the one the
models give now, every row's model call evaluates as written, its ratio is model / seed, and (where
the seed files are at hand) each quote is in its seed."""
import ast
import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("seed_figures", ROOT / "book" / "seed_figures.py")
seed_figures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seed_figures)
spec = importlib.util.spec_from_file_location("build_book", ROOT / "book" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_book)

ROWS = seed_figures.rows()
IDS = [f"{r.figure.seed[:3]}-{i}" for i, r in enumerate(ROWS)]
# The seed files are not in the repository (the table cites them by file name, as the lab does:
# tests/unit/test_citations.py). To check the quotes this test looks for them in $CEPHLAB_SEEDS,
# else in the course folder next to the checkout, and skips where neither has them.
SEED_DIR = Path(os.environ.get("CEPHLAB_SEEDS") or ROOT.parent / "shared" / "seeds")


def seed_text(name):
    path = SEED_DIR / name
    if not path.is_file():
        pytest.skip(f"seed {name} not found in {SEED_DIR} (the seeds are not part of the repository; "
                    "set CEPHLAB_SEEDS to the folder that holds them)")
    return path.read_text(encoding="utf-8")


def test_the_guide_holds_the_table_the_models_give_now():
    guide = seed_figures.guide_table(seed_figures.GUIDE.read_text(encoding="utf-8"))
    assert guide == seed_figures.markdown_table(ROWS), (
        "book/instructor-guide.md's seed-figures table is not what the models give now (a model, "
        f"or a row of book/seed_figures.py, changed): run `{seed_figures.WRITE_COMMAND}` and check the "
        "rows that moved")


def test_the_table_has_a_row_per_figure_in_order():
    lines = seed_figures.markdown_table(ROWS).splitlines()
    assert len(lines) == 2 + len(seed_figures.FIGURES)
    assert [line.split(" | ")[3].strip("`") for line in lines[2:]] == [f.call for f in seed_figures.FIGURES]


def test_every_row_names_a_seed_of_the_course():
    seeds = {seed.file for seed in build_book.SEEDS.values()}
    assert {r.figure.seed for r in ROWS} <= seeds


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_the_seed_file_exists_and_holds_the_quote(row):
    text = seed_text(row.figure.seed)
    assert seed_figures.quote_in(row.figure.quote, text), (
        f"{row.figure.seed} does not say {row.figure.quote!r} (whitespace and Markdown/LaTeX marks "
        "ignored; parts joined by ' … ' must appear in order)")


def test_the_quote_check_rejects_what_the_seed_does_not_say():
    text = "Replicas 3 = 5,400 / 3 = 1,800\tIOPS\n\n2094 IOPS/s\n$10^4$  IOPS per **CPU**"
    assert seed_figures.quote_in("Replicas 3 = 5,400 / 3 = 1,800 IOPS", text)
    assert seed_figures.quote_in("10^4 IOPS per CPU", text)
    assert seed_figures.quote_in("Replicas 3 … 2094 IOPS/s", text)
    assert not seed_figures.quote_in("2094 IOPS/s … Replicas 3", text)       # parts out of order
    assert not seed_figures.quote_in("Replicas 3 = 1,800 IOPS", text)


def _names(call):
    return {n.id for n in ast.walk(ast.parse(call, mode="eval")) if isinstance(n, ast.Name)}


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_every_model_call_evaluates_from_its_text_with_the_models_only(row):
    call = row.figure.call
    assert _names(call) <= set(seed_figures.MODULES), f"{call} names more than the models modules"
    value = seed_figures.evaluate(call)
    assert value == row.model_value and value == value and abs(value) != float("inf")
    assert f"| `{call}` | {seed_figures.number(value)} |" in seed_figures.markdown_table(ROWS)


def test_a_call_outside_the_models_does_not_evaluate():
    with pytest.raises(NameError):
        seed_figures.evaluate("open('/etc/passwd').read()")
    with pytest.raises(NameError):
        seed_figures.evaluate("__import__('os').getcwd()")
    with pytest.raises(ValueError, match="seed value"):
        seed_figures.seed_number("iops.cpu_ceiling_iops(1)")


def _cell_number(cell):
    return float(cell.split(" (")[0].replace(",", ""))


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_the_ratio_is_model_over_seed(row):
    seed_cell, _, model_cell, ratio_cell = seed_figures.cells(row)[2:6]
    assert ratio_cell == f"{row.model_value / row.seed_value:.2f}"
    # and agrees with the numbers as shown (each rounded to 4 significant figures or to a whole number)
    shown = _cell_number(model_cell) / _cell_number(seed_cell)
    assert float(ratio_cell) == pytest.approx(shown, rel=2e-3, abs=0.006)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_every_row_says_whether_it_was_fitted_and_why(row):
    verdict, _, why = row.figure.fitted.partition(": ")
    assert verdict in ("yes", "no", "partly") and len(why.split()) >= 3, row.figure.fitted


def test_a_model_that_moves_changes_the_table():
    """The negative control of the first test: a different model value gives a different table."""
    moved = [seed_figures.Row(r.figure, r.seed_value, r.model_value * (1.5 if i == 0 else 1))
             for i, r in enumerate(ROWS)]
    assert seed_figures.markdown_table(moved) != seed_figures.markdown_table(ROWS)


def test_write_replaces_only_the_table(tmp_path):
    guide = tmp_path / "guide.md"
    guide.write_text(f"# Guide\n\nBefore.\n\n{seed_figures.START}\nold table\n{seed_figures.END}\n\nAfter.\n")
    assert seed_figures.write(guide) is True
    text = guide.read_text()
    assert text.startswith("# Guide\n\nBefore.\n\n") and text.endswith(f"{seed_figures.END}\n\nAfter.\n")
    assert seed_figures.guide_table(text) == seed_figures.markdown_table()
    assert seed_figures.write(guide) is False
