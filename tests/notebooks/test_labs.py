"""The labs as learners get them: sources, executed solutions and student versions agree, and
every student version runs top to bottom on the lab cluster without raising."""
import json
from pathlib import Path

import jupytext
import nbformat
import pytest

from cephlab.course import notebooks
from tests.conftest import assigned_folder
from tests.notebook_plugin import STUDENT_RAN_ELSEWHERE
from tests.setup import run_notebook

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = notebooks.solution_notebooks()
IDS = [p.stem for p in SOLUTIONS]


def code_and_markdown(nb):
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def test_there_are_labs():
    assert SOLUTIONS, "solutions/ holds no NN-topic.ipynb notebooks"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=IDS)
def test_solution_matches_its_source(solution):
    """solutions/NN.py (jupytext) is the source; the .ipynb must be built from it (make solutions)."""
    source = jupytext.read(solution.with_suffix(".py"))
    executed = nbformat.read(solution, as_version=4)
    assert code_and_markdown(executed) == code_and_markdown(source), \
        f"{solution.name} is older than {solution.stem}.py: run `make solutions`"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=IDS)
def test_solution_is_executed(solution):
    """nbval compares nothing in a notebook saved without outputs (notebook-testing note)."""
    nb = nbformat.read(solution, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{solution.name} has unexecuted cells: run `make solutions`"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"], f"{solution.name} saved with an error"


def _files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.name != ".OTTER_LOG" and "__pycache__" not in p.parts}


@pytest.mark.parametrize("solution", SOLUTIONS, ids=IDS)
def test_student_version_is_up_to_date(solution, tmp_path, otter_assigned):
    assigned = assigned_folder(otter_assigned, solution.stem)
    fresh = _files(notebooks.generate_student(solution, labs_dir=tmp_path, autograder_dir=None, assigned=assigned))
    committed = _files(ROOT / "labs" / solution.stem)
    differ = sorted(str(p) for p in fresh.keys() | committed.keys() if fresh.get(p) != committed.get(p))
    assert not differ, f"labs/{solution.stem} is out of date ({differ}): run `make student`"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=IDS)
def test_student_version_hides_every_answer(solution):
    student = json.loads((ROOT / "labs" / solution.stem / f"{solution.stem}.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in student["cells"])
    assert "# SOLUTION" not in text and "BEGIN QUESTION" not in text


@pytest.mark.cluster
@pytest.mark.parametrize("solution", SOLUTIONS, ids=IDS)
def test_student_version_runs_top_to_bottom(solution, lab_cluster):
    """Unanswered exercises must report through grader.check, never crash the notebook.

    Every cell runs even after an error (as nbval does), so the lab's cleanup cell still undoes
    what it changed: a lab stopped halfway would leave, e.g., lab 06's lowered full ratios on
    the shared cluster and fail every lab after it."""
    if solution.stem in STUDENT_RAN_ELSEWHERE:
        pytest.skip(f"this student version runs top to bottom {STUDENT_RAN_ELSEWHERE[solution.stem]}")
    nb = run_notebook.execute(ROOT / "labs" / solution.stem / f"{solution.stem}.ipynb")
    errors = run_notebook.error_outputs(nb)
    assert not errors, "\n".join(f"cell {i}: {o.ename}: {o.evalue}" for i, _, o in errors)
    checks = [c for c in nb.cells if c.cell_type == "code" and "grader.check(" in c.source]
    assert checks, "the student version has no self-check cells"
    assert not run_notebook.silent_checks(nb), "a self-check cell printed nothing"
