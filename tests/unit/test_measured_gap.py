"""The measurement half of the grade (cephlab.course.measured): the learner's reading of their
own run scores only when it matches what the run recorded, the lab's measuring cell is unchanged,
the check ran after it, and the sentence shown agrees with the numbers. Every kind of forgery
the notebook's JSON allows short of a consistent fake scores 0 (that one the module doc owns up to)."""
import copy
import json

import nbformat
import pytest
from nbclient import NotebookClient

from cephlab.course import grading, measured

MEASURE = "mine = {'tps': 80.0}\nrun = experiment.RunFigures()\nrun.record(share=mine['tps'] / 200.0)"


def _check_output(answer, recorded, text=None, forged=None):
    rec = measured.record("my_share", "share", answer, recorded, measured.REL_TOL,
                          None if answer is None else abs(answer - recorded) <= 0.02 * recorded)
    rec[measured.RECORD_KEY].update(forged or {})
    ok = rec[measured.RECORD_KEY]["matches"]
    text = text or ("my_share matches your run (within 2%). Now explain the gap below." if ok
                    else "my_share does not match your run. Reconsider: divide ...")
    return {"output_type": "display_data", "data": {"text/plain": text}, "metadata": rec}


def _notebook(answer=0.4, recorded=0.4, measure=MEASURE, counts=(5, 6), output=None):
    cells = [{"cell_type": "code", "source": "import math", "outputs": [], "execution_count": 1},
             {"cell_type": "code", "source": measure, "outputs": [], "execution_count": counts[0]},
             {"cell_type": "code", "source": "my_share = mine['tps'] / 200.0\nrun.check('my_share', my_share, 'share')",
              "outputs": [output or _check_output(answer, recorded)], "execution_count": counts[1]}]
    return {"cells": cells}


MASTER = _notebook()


def test_the_honest_reading_of_ones_own_run_scores():
    assert measured.graded(MASTER)
    assert measured.grade_gap(_notebook(), MASTER) == (measured.POINTS, [])
    # rounded to two significant digits, as the check allows
    assert measured.grade_gap(_notebook(answer=0.401, recorded=0.3952), MASTER)[0] == measured.POINTS


@pytest.mark.parametrize("submission, hint", [
    (_notebook(answer=0.5, recorded=0.4), "does not match your run"),
    ({"cells": _notebook()["cells"][:2]}, "has no result"),
    (_notebook(measure=MEASURE.replace("mine['tps'] / 200.0", "0.4")), "was changed"),
    (_notebook(counts=(7, 6)), "did not run after"),
    (_notebook(counts=(None, 6)), "did not run after"),
    # forgeries of the record: the verdict or the sentence edited, the numbers not
    (_notebook(output=_check_output(0.5, 0.4, forged={"matches": True})), "does not agree"),
    (_notebook(output=_check_output(0.5, 0.4, text="my_share matches your run (within 2%).")), "does not agree"),
    (_notebook(output=_check_output(0.4, 0.4, text="my_share does not match your run.")), "does not agree"),
    (_notebook(output=_check_output(0.4, 0.4, forged={"rel_tol": 10.0, "answer": 4.0})), "does not agree"),
    # not plain numbers where numbers belong
    (_notebook(output=_check_output(0.4, 0.4, forged={"answer": "0.4"})), "is not a number"),
    (_notebook(output=_check_output(0.4, 0.4, forged={"answer": float("nan")})), "is not a number"),
    (_notebook(output=_check_output(0.4, 0.4, forged={"answer": True})), "is not a number"),
    (_notebook(output=_check_output(0.4, 0.4, forged={"recorded": [0.4]})), "no usable figure"),
    (_notebook(output=_check_output(0.4, 0.4, forged={"recorded": float("inf")})), "no usable figure"),
    (_notebook(output={"output_type": "display_data", "data": {}, "metadata": {measured.RECORD_KEY: "x"}}),
     "has no result"),
    (_notebook(output={"output_type": "stream", "name": "stdout", "text": "my_share matches your run"}),
     "has no result"),
])
def test_what_a_learner_cannot_score_with(submission, hint):
    score, hints = measured.grade_gap(submission, MASTER)
    assert score == 0 and any(hint in h for h in hints), hints


def test_the_last_check_counts_and_a_lab_without_a_reference_run_grades_no_gap():
    sub = _notebook(answer=0.5, recorded=0.4)
    sub["cells"].append(copy.deepcopy(_notebook()["cells"][2]) | {"execution_count": 9})
    assert measured.grade_gap(sub, MASTER)[0] == measured.POINTS
    unexecuted = copy.deepcopy(MASTER)
    unexecuted["cells"][2]["outputs"] = []
    assert not measured.graded(unexecuted)
    assert measured.QUESTION not in grading.graded_points(unexecuted)
    assert measured.QUESTION in grading.graded_points(MASTER)


def test_the_check_in_a_kernel_shows_the_sentence_and_carries_the_record():
    """In a real kernel, RunFigures.check's output is the sentence (text/plain, nothing else shown)
    with the record in its metadata; graded against itself as master it scores."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from cephlab.helpers import experiment"),
                nbformat.v4.new_code_cell(MEASURE),
                nbformat.v4.new_code_cell("my_share = mine['tps'] / 200.0\n"
                                          "run.check('my_share', my_share, 'share', hint='measured / model')")]
    NotebookClient(nb, timeout=60, kernel_name="python3").execute()
    [out] = nb.cells[2].outputs
    assert out["output_type"] == "display_data" and list(out["data"]) == ["text/plain"]
    assert out["data"]["text/plain"].startswith("my_share matches your run")
    rec = out["metadata"][measured.RECORD_KEY]
    assert rec["answer"] == rec["recorded"] == 0.4 and rec["matches"] is True
    as_json = json.loads(nbformat.writes(nb))          # as the handed-in file is read
    assert measured.grade_gap(as_json, as_json) == (measured.POINTS, [])
