"""tests/setup/nbval_outputs.py judges an executed notebook as nbval would (no cluster needed)."""
import copy
from pathlib import Path

import nbformat
import pytest

from cephlab.core import releases
from tests.setup import nbval_outputs as nv

SOLUTIONS = sorted((Path(__file__).resolve().parents[2] / "solutions").glob("*.ipynb"))


def _first(nb, want_checked: bool):
    """(index, cell) of the first run code cell with a text output that nbval checks (or ignores)."""
    for i, c in enumerate(nb.cells):
        opts = nv.options(c) if c.cell_type == "code" else {}
        if (c.cell_type == "code" and c.execution_count and not opts["skip"]
                and opts["check"] == want_checked
                and any(o.output_type == "stream" or "text/plain" in o.get("data", {}) for o in c.outputs)):
            return i, c
    pytest.skip("no such cell")


def _change_text(cell):
    for o in cell.outputs:
        if o.output_type == "stream":
            o.text += "changed\n"
            return
        if "text/plain" in o.get("data", {}):
            o.data["text/plain"] += " changed"
            return


def _write(nb, tmp_path) -> Path:
    path = tmp_path / "executed.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_a_solution_against_itself_passes(solution, tmp_path):
    assert nv.mismatches(_write(nbformat.read(solution, as_version=4), tmp_path), solution) == []


@pytest.mark.parametrize("solution", SOLUTIONS[:3], ids=lambda p: p.stem)
def test_a_changed_checked_output_fails_and_an_ignored_one_does_not(solution, tmp_path):
    nb = nbformat.read(solution, as_version=4)
    checked, cell = _first(nb, want_checked=True)
    bad = copy.deepcopy(nb)
    _change_text(bad.cells[checked])
    assert [i for i, _ in nv.mismatches(_write(bad, tmp_path), solution)] == [checked]
    ignored, _ = _first(nb, want_checked=False)
    fine = copy.deepcopy(nb)
    _change_text(fine.cells[ignored])
    assert nv.mismatches(_write(fine, tmp_path), solution) == []


def test_a_cell_that_raised_fails_even_where_its_output_is_ignored(tmp_path):
    solution = SOLUTIONS[0]
    nb = nbformat.read(solution, as_version=4)
    ignored, _ = _first(nb, want_checked=False)
    nb.cells[ignored].outputs = [nbformat.v4.new_output("error", ename="ClusterError", evalue="no cluster",
                                                        traceback=[])]
    found = nv.mismatches(_write(nb, tmp_path), solution)
    assert found and found[0][0] == ignored and "ClusterError" in found[0][1]


def test_a_missing_cell_fails(tmp_path):
    solution = SOLUTIONS[0]
    nb = nbformat.read(solution, as_version=4)
    checked, _ = _first(nb, want_checked=True)
    del nb.cells[checked]
    assert checked in [i for i, _ in nv.mismatches(_write(nb, tmp_path), solution)]


def test_sanitized_durations_do_not_count(tmp_path):
    """tests/nbval_sanitize.cfg: '(6.6 s)' and '(7.1 s)' are the same to nbval."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('x')", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="placed in 6.6 s\n")]
    nb.cells = [cell]
    ref = tmp_path / "ref.ipynb"
    nbformat.write(nb, ref)
    nb.cells[0].outputs[0].text = "placed in 7.1 s\n"
    assert nv.mismatches(_write(nb, tmp_path), ref) == []
    nb.cells[0].outputs[0].text = "placed in 7.1 ms\n"
    assert nv.mismatches(_write(nb, tmp_path), ref) != []


def test_the_release_outputs_name_cells_the_solutions_have():
    """A renamed cell id would leave its release output unused: each names an agreement verdict."""
    for lab, cells in nv.NO_FILESTORE.items():
        nb = nbformat.read(Path(nv.ROOT / "solutions" / f"{lab}.ipynb"), as_version=4)
        by_id = {c.get("id"): c for c in nb.cells}
        for cell_id, text in cells.items():
            assert "assert_agree" in by_id[cell_id].source and text.startswith("all ")


def test_a_release_without_filestore_expects_its_own_verdicts(tmp_path):
    assert nv.release_outputs(releases.for_suite("bookworm"), "04-throttles") == {}
    reef = nv.release_outputs(releases.for_suite("trixie"), "04-throttles")
    assert reef == nv.release_outputs(releases.for_suite("sid"), "04-throttles") == nv.NO_FILESTORE["04-throttles"]
    solution = nv.ROOT / "solutions" / "04-throttles.ipynb"
    pacific = _write(nbformat.read(solution, as_version=4), tmp_path)
    # Pacific's own outputs, judged by what Reef should print there: that verdict cell differs
    found = nv.mismatches(pacific, solution, reef)
    assert len(found) == 1 and "6 comparisons agree" in found[0][1]


# -- a student version: judged on the cells it shares with the solution ------------------------------
def _student_run(lab: str):
    """(solution path, the student version as if run: each cell it shares with the solution given
    the solution's saved outputs, in order, as nbval_outputs pairs them)."""
    solution = nv.ROOT / "solutions" / f"{lab}.ipynb"
    saved = [c for c in nbformat.read(solution, as_version=4).cells if c.cell_type == "code"]
    student = nbformat.read(nv.ROOT / "labs" / lab / f"{lab}.ipynb", as_version=4)
    for cell in student.cells:
        ref = next((s for s in saved if s.source == cell.source), None)
        if cell.cell_type == "code" and ref is not None:
            saved.remove(ref)
            cell.outputs, cell.execution_count = copy.deepcopy(ref.outputs), ref.execution_count
    return solution, student


def _shared_checked(solution: Path, student) -> tuple[int, int]:
    """(index in the solution, index in the student version) of the first shared cell whose
    printed (stdout) output nbval checks."""
    at = {c.source: j for j, c in reversed(list(enumerate(student.cells))) if c.cell_type == "code"}
    for i, c in enumerate(nbformat.read(solution, as_version=4).cells):
        if (c.cell_type == "code" and c.source in at and c.execution_count and nv.options(c)["check"]
                and not nv.options(c)["skip"] and any(o.output_type == "stream" for o in c.outputs)):
            return i, at[c.source]
    pytest.skip("no such cell")


@pytest.mark.parametrize("lab", [p.stem for p in SOLUTIONS])
def test_a_student_version_is_judged_on_the_cells_it_shares(lab, tmp_path):
    solution, student = _student_run(lab)
    executed = _write(student, tmp_path)
    assert nv.mismatches(executed, solution, student=True) == []
    code = sum(c.cell_type == "code" for c in nbformat.read(solution, as_version=4).cells)
    shared, total = nv.shared_cells(executed, solution)
    assert total == code and 0 < shared < code       # the answers and hidden tests are not
    # by id, as for a solution, its renumbered cells match nothing
    assert nv.mismatches(executed, solution) != []


def test_a_student_versions_changed_output_fails_and_the_not_set_note_does_not(tmp_path):
    solution, student = _student_run("03-disk-iops")
    i, j = _shared_checked(solution, student)
    stream = next(o for o in student.cells[j].outputs if o.output_type == "stream")
    original = stream.text
    stream.text = original + nv.experiment.NOT_SET.format(what="my_queue_depth (Q4)", default=32) + "\n"
    assert nv.mismatches(_write(student, tmp_path), solution, student=True) == []
    for wrong in ("my_queue_depth (Q4) is set: measuring with 32\n", "measured 32 IOPS\n"):
        stream.text = original + wrong
        assert [k for k, _ in nv.mismatches(_write(student, tmp_path), solution, student=True)] == [i], wrong
    # a cell whose only output was the note: nothing left, as the solution saved nothing
    run = {s.source for s in nbformat.read(solution, as_version=4).cells if s.get("execution_count")}
    silent = next(c for c in student.cells if c.cell_type == "code" and not c.outputs and c.source in run)
    silent.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                             text=nv.experiment.NOT_SET.format(what="x", default=5))]
    stream.text = original
    assert nv.mismatches(_write(student, tmp_path), solution, student=True) == []


def test_a_student_cell_that_raised_fails(tmp_path):
    solution, student = _student_run("00-welcome")
    i, j = _shared_checked(solution, student)
    student.cells[j].outputs = [nbformat.v4.new_output("error", ename="ClusterError", evalue="no cluster",
                                                       traceback=[])]
    found = nv.mismatches(_write(student, tmp_path), solution, student=True)
    assert [k for k, _ in found] == [i] and "ClusterError" in found[0][1]
