"""cephlab.course.grading without running otter: the grading copy, answers, lab names, results, cache.

Golden values are read off lab 01 (solutions/01-redundancy.py and its student version in labs/)."""
import csv
import json

import pytest

from cephlab.cli import grade as cli_grade
from cephlab.course import checks, grading
from cephlab.course.notebooks import LABS, SOLUTIONS, solution_notebooks

LAB01 = "01-redundancy"
MASTER01 = SOLUTIONS / f"{LAB01}.ipynb"
STUDENT01 = LABS / LAB01 / f"{LAB01}.ipynb"
ALL_LABS = [p.stem for p in solution_notebooks()]


def src(cell):
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_student_copy_ends_at_the_last_check_and_keeps_no_measurement():
    copy = grading.grading_copy(grading.read(STUDENT01))
    markers = [c["metadata"]["cephlab_export"]["question"] for c in copy["cells"] if "cephlab_export" in c["metadata"]]
    assert markers == ["q1", "q2", "q3", "q4", "q5", "q6"]      # each check cell became an export marker
    assert copy["cells"][-1]["metadata"]["cephlab_export"]["question"] == "q6"
    assert not any("grader.check" in src(c) for c in copy["cells"])
    assert len(copy["cells"]) == 31       # cells 0..30 of labs/01-redundancy: setup, model, Q1-Q6
    assert not any("LabSession" in src(c) for c in copy["cells"])


def test_master_copy_has_setup_and_answers_but_no_otter_cells_or_tests():
    copy = grading.grading_copy(grading.read(MASTER01))
    code = [src(c) for c in copy["cells"] if c["cell_type"] == "code" and "cephlab_export" not in c["metadata"]]
    assert len(code) == 17      # learner id, imports, scheme_table, 2 LivePlots, P, Q1-Q5's texts, 6 answers
    qs = checks.questions(grading.read(MASTER01))
    copy = grading.grading_copy(grading.read(MASTER01), qs)
    exports = [c["metadata"]["cephlab_export"] for c in copy["cells"] if "cephlab_export" in c["metadata"]]
    assert exports == [{"question": q.name, "names": q.names} for q in qs]
    assert exports[0] == {"question": "q1", "names": ["q1_overhead"]}
    assert code[-1].startswith("my_object_bytes = ")
    assert not any(c.lstrip().startswith(("assert", "# HIDDEN")) for c in code)
    assert all(c["cell_type"] != "raw" for c in copy["cells"])
    assert all(c["outputs"] == [] for c in copy["cells"] if c["cell_type"] == "code")


@pytest.mark.parametrize("lab", ALL_LABS)
def test_every_lab_asks_its_questions_before_it_touches_the_cluster(lab):
    """Grading keeps the cells up to the last question; they must not need a cluster."""
    copy = grading.grading_copy(grading.read(SOLUTIONS / f"{lab}.ipynb"))
    touching = [src(c)[:60] for c in copy["cells"] if c["cell_type"] == "code"
                and any(k in src(c) for k in ("LabSession(", "cephlab.helpers.lab", "Cluster.connect"))]
    assert not touching, f"{lab}: cells before the last question use the cluster: {touching}"


def test_solution_answers_are_the_solution_lines_without_markers():
    answers = grading.solution_answers(grading.read(MASTER01))
    assert sorted(answers) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert answers["q1"] == ['q1_overhead = erasure(P["q1_k"], P["q1_m"]).overhead']
    assert answers["q5"][0].splitlines()[3] == ('q5_strict = red.serves_io(erasure(P["q5_k"], P["q5_m"], '
                                                'min_size=P["q5_k"] + P["q5_m"]), failed=P["q5_failed"])')
    assert grading.question_points(grading.read(MASTER01)) == {"q1": 1, "q2": 1, "q3": 2, "q4": 1, "q5": 1,
                                                                    "q6": 2}


def test_answer_cells_are_found_by_the_check_that_follows():
    assert grading.answer_cells(grading.read(STUDENT01)) == {
        "q1": [14], "q2": [17], "q3": [20], "q4": [23], "q5": [26], "q6": [29]}


def test_fill_answers_changes_only_the_chosen_question():
    student = grading.read(STUDENT01)
    filled = grading.fill_answers(student, grading.read(MASTER01), ["q4"])
    changed = [i for i, (a, b) in enumerate(zip(student["cells"], filled["cells"])) if src(a) != src(b)]
    assert changed == [23]
    assert src(filled["cells"][23]) == \
        'q4_ec21_used_mib = P["q4_objects"] * P["q4_object_mib"] * erasure(2, 1).raw_per_usable'


def test_fill_answers_refuses_a_student_notebook_that_does_not_match():
    student = grading.read(STUDENT01)
    student["cells"][20]["metadata"]["tags"] = []      # q3's answer cell no longer tagged
    with pytest.raises(grading.GradingError, match="q3: 0 answer cells.*make student"):
        grading.fill_answers(student, grading.read(MASTER01), ["q3"])


def test_lab_is_found_from_the_init_cell_even_when_renamed(tmp_path):
    renamed = tmp_path / "homework.ipynb"
    renamed.write_text(STUDENT01.read_text())
    assert grading.lab_of(renamed) == LAB01


@pytest.mark.parametrize("name", ["01-redundancy.ipynb", "alice-01-redundancy (2).ipynb",
                                  "01-redundancy-bob.ipynb"])
def test_lab_is_found_from_the_file_name(tmp_path, name):
    nb = tmp_path / name
    nb.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert grading.lab_of(nb) == LAB01


def test_an_unknown_notebook_says_how_to_name_it(tmp_path):
    nb = tmp_path / "notes.ipynb"
    nb.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    with pytest.raises(grading.GradingError, match="name it NN-topic.ipynb"):
        grading.lab_of(nb)


def test_a_notebook_without_questions_is_refused():
    nb = {"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": []}], "metadata": {}}
    with pytest.raises(grading.GradingError, match="no `grader.check"):
        grading.grading_copy(nb)


def test_the_kernel_cannot_reach_a_cluster_while_grading():
    env = grading.grading_env()
    assert env["CEPHLAB_NAME"] == grading.NO_CLUSTER and env["CEPHLAB_GRADING"] == "1"
    from cephlab.cluster.api import Cluster
    from cephlab.core.errors import ClusterNotRunning
    with pytest.raises(ClusterNotRunning):
        Cluster.connect(name=env["CEPHLAB_NAME"])


@pytest.mark.parametrize("x, shown", [(6.0, "6"), (0.0, "0"), (2 / 3, "0.67"), (1.99999, "2.00")])
def test_points_are_printed_short(x, shown):
    assert cli_grade.fmt(x) == shown


def test_csv_has_a_row_per_notebook_and_errors_in_place_of_points(tmp_path):
    ok = grading.GradeResult(tmp_path / "a.ipynb", LAB01, {"q1": (1.0, 1.0), "q10": (0.0, 2.0), "q2": (0.5, 1.0)})
    bad = grading.GradingError("otter run failed on b.ipynb:\nmore")
    cli_grade.write_csv(tmp_path / "g.csv", [(ok.notebook, ok), (tmp_path / "b.ipynb", bad)])
    rows = list(csv.reader((tmp_path / "g.csv").open()))
    assert rows[0] == ["notebook", "lab", "score", "possible", "q1", "q2", "q10", "error"]
    assert rows[1][1:] == [LAB01, "1.50", "4", "1", "0.50", "0", ""]
    assert rows[2][-1] == "otter run failed on b.ipynb:" and rows[2][2] == ""


@pytest.mark.parametrize("lab", ALL_LABS)
def test_every_question_has_a_hidden_test(lab):
    """The authoring guide asks for at least one `# HIDDEN` test per question: the public tests
    let a learner check an answer, the hidden ones are what the instructor grades."""
    missing = grading.questions_without_hidden_tests(grading.read(SOLUTIONS / f"{lab}.ipynb"))
    assert not missing, f"{lab}: no # HIDDEN test for {', '.join(missing)}"
