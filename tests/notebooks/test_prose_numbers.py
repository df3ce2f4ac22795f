"""Fixed prose states no measured figure (another run would contradict it): in the executed
solutions, a Markdown cell must not state a number that the run produced.

The scan, per solution notebook:
- *produced* numbers: every number in the code cells' outputs (streams, results, displays, text
  parts of HTML and Markdown outputs); a decimal output also yields its value rounded to an integer
  ("618.4" -> "618"), because prose rounds;
- of those, the ones that *look measured*: a decimal with at least 2 significant digits ("9.2",
  "0.17"), or an integer of at least 3 digits with at least 2 significant digits ("618", "110",
  "2,094"; not "600" or "20,000", which are round model figures) that is not a year (1990-2030) or
  a power of two;
- minus the numbers that are not the run's: those written in the notebook's own code cells
  (constants, seeds, parameters; `10_000` counts as 10000), in the model constants and seed
  tables (models/**/*.py, data/*.csv; decimals there also rounded), and the few figures a model
  computes that the prose may state (MODEL_FIGURES);
- a violation is such a number in the source of a Markdown cell. A conclusion rendered from the
  run (IPython Markdown displayed by a code cell) is an output, so it is fine.

No solution has one (the list of known violations, and its strict xfail, went once it was empty).

Comparisons in prose ("barely helps", "more than", "cannot exceed") next to the run's figures are
test_prose_comparatives.py's; the reading of outputs both use is in tests/notebooks/prose.py.
"""
import json
import re

import pytest

from tests.notebooks.prose import SOLUTIONS, measured, not_the_runs, numbers, text
from tests.notebooks.prose import code as _code
from tests.notebooks.prose import md as _md
from tests.notebooks.prose import nb as _nb
from tests.notebooks.prose import stream as _stream

# Figures a model computes (the same on every run, not measured), stated in prose on purpose:
# {notebook stem: {number}}. Keep it short; a measured figure never goes here.
MODEL_FIGURES = {
    "07-write-amplification": {"8.25"},   # BlueStore 4 KiB deferred-write WAF of models/waf.py
}


# A citation's place in its source ("section 2.2.3", "Table 4.1", "Fig. 3.2") is no figure.
CITATION = re.compile(r"\b(?:section|sections|table|figure|fig\.|chapter|§)\s*\d+(?:\.\d+)*", re.I)


def prose_numbers(cell):
    return numbers(CITATION.sub(" ", text(cell)))


def violations(nb, constants=frozenset()):
    """{(markdown cell index, number)} stated in Markdown that the run produced."""
    found = measured(nb, constants)
    return {(i, n) for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "markdown"
            for n in prose_numbers(cell) & found}


@pytest.fixture(scope="module")
def constants():
    return not_the_runs()


def test_negative_control_a_measured_figure_in_prose_fails():
    nb = _nb(_code("iops = bench()\nprint(f'{iops:.0f} IOPS')", _stream("618 IOPS\n")),
             _md("We measured 618 IOPS, a third of the model."))
    assert violations(nb) == {(1, "618")}


def test_negative_control_rounded_and_grouped_forms_are_caught():
    nb = _nb(_code("print(r)", _stream("2273.37 IOPS, latency 9.20 ms\n")),
             _md("The cluster did 2,273 IOPS at 9.2 ms."))
    assert violations(nb) == {(1, "2273"), (1, "9.2")}


def test_a_citations_section_number_is_not_a_figure_but_the_same_number_elsewhere_is():
    nb = _nb(_code("print(ratio)", _stream("ratio 2.20\n")),
             _md("Seed 002 (section 2.2, and Table 2.2.3) explains it."),
             _md("The fullest OSD held 2.2 times the mean."))
    assert violations(nb) == {(2, "2.2")}


def test_a_conclusion_rendered_from_the_run_and_constants_are_fine():
    rendered = {"output_type": "display_data", "metadata": {},
                "data": {"text/markdown": "We measured **618 IOPS**.", "text/plain": "<Markdown>"}}
    nb = _nb(_code("display(Markdown(f'We measured **{iops:.0f} IOPS**.'))", rendered),
             _code("DISK_IOPS = 600\nprint(DISK_IOPS * 3, 2_094)", _stream("1800 2094\n")),
             _md("Seed 000 measured 2,094 IOPS against 600 per disk x 3 = 1,800; see the table above."),
             _md("Reported in 2017 on 4096-byte writes."))
    assert violations(nb, constants={"1800"}) == set()


@pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_no_measured_number_in_prose(solution, constants):
    found = violations(json.loads(solution.read_text(encoding="utf-8")),
                       constants | MODEL_FIGURES.get(solution.stem, set()))
    assert not found, (f"{solution.name}: Markdown states numbers the run printed (cell, number): "
                       f"{sorted(found)}; "
                       "render the sentence from the results (IPython Markdown) or state no figure")
