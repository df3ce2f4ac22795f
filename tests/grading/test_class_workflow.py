"""The class workflow end to end, with real grading: five learners hand in lab 01 as
submissions/<learner>/01-redundancy.ipynb; `cephlab grade --learner-from-folder --out` (sandboxed)
writes the lab's gradebook, the course gradebook with hand scores, Canvas's import file and a
feedback file per learner, with the scores grading gave."""
from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from cephlab.course import grading
from cephlab.course.notebooks import LABS, ROOT

LAB = "01-redundancy"
# learner: questions answered from the solution (with that learner's parameters at grading time)
CLASS = {"ann": ["q1", "q2", "q3", "q4", "q5", "q6"], "ben": ["q1", "q2"], "cat": [],
         "dan": ["q3", "q6"], "eve": ["q1", "q2", "q3", "q4", "q5"],
         "fred": ["q1", "q2", "q3", "q4", "q5", "q6"], "gus": ["q1", "q2", "q3", "q4", "q5", "q6"]}
# Copies of ann's notebook: fred typed his own id and ran it again (its output says fred), gus
# edited the id line and handed it in as it was (its output still says ann).
COPIES = {"fred": ("fred", "fred"), "gus": ("gus", "ann")}
ID_OUTPUT = "learner {}: the exercises use this learner's numbers\n"


def with_id(nb, typed, shown):
    """nb with its learner-id cell typing `typed` and a saved output showing `shown`."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and "learner_id(" in "".join(cell["source"]):
            cell["source"] = "".join(cell["source"]).replace('learner_id("")', f'learner_id("{typed}")')
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ID_OUTPUT.format(shown)}]
            cell["execution_count"] = 1
            return nb
    raise AssertionError("no learner-id cell")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("class")
    master = grading.read(grading.solution_path(LAB))
    student = grading.read(LABS / LAB / f"{LAB}.ipynb")
    points = grading.graded_points(master)
    for learner, questions in CLASS.items():
        nb = with_id(grading.fill_answers(student, master, questions), *COPIES.get(learner, (learner, learner)))
        path = work / "submissions" / learner / f"{LAB}.ipynb"
        path.parent.mkdir(parents=True)
        grading.copy_notebook(nb, path)
    (work / "hand.csv").write_text("learner,item,score,possible\n" + "".join(
        f"{learner},{LAB} W1,{i % 3},2\n" for i, learner in enumerate(CLASS)))
    run = subprocess.run([sys.executable, "-m", "cephlab.cli", "grade", str(work / "submissions"),
                          "--learner-from-folder", "--out", str(work / "grades"), "--hand-scores",
                          str(work / "hand.csv"), "--lms", "canvas"],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    expected = {learner: sum(points[q] for q in qs) for learner, qs in CLASS.items()}
    return work / "grades", expected, points


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.timeout(900)
def test_the_lab_gradebook_has_each_learners_real_score(graded):
    out, expected, points = graded
    table = {r["learner"]: r for r in rows(out / f"gradebook-{LAB}.csv")}
    assert {k: float(r["score"]) for k, r in table.items()} == expected
    assert {float(r["possible"]) for r in table.values()} == {sum(points.values())}
    assert float(table["dan"]["q3"]) == points["q3"] and float(table["dan"]["q1"]) == 0


@pytest.mark.timeout(900)
def test_the_course_gradebook_adds_the_hand_scores(graded):
    out, expected, points = graded
    table = {r["learner"]: r for r in rows(out / "gradebook.csv")}
    for i, learner in enumerate(CLASS):
        assert float(table[learner]["total"]) == expected[learner] + i % 3
        assert float(table[learner]["possible"]) == sum(points.values()) + 2


@pytest.mark.timeout(900)
def test_canvas_file_and_feedback_for_every_learner(graded):
    out, expected, _ = graded
    with open(out / "canvas.csv", newline="", encoding="utf-8") as f:
        lines = list(csv.reader(f))
    assert lines[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert lines[1][0].strip() == "Points Possible"
    assert {line[3] for line in lines[2:]} == set(CLASS)
    for learner in CLASS:
        text = (out / "feedback" / learner / f"{LAB}.md").read_text(encoding="utf-8")
        assert LAB in text
    cat = (out / "feedback" / "cat" / f"{LAB}.md").read_text(encoding="utf-8")
    assert "not answered yet" in cat


@pytest.mark.timeout(900)
def test_copies_are_flagged_for_the_instructor_not_the_learner(graded):
    """fred's and gus's copies of ann's notebook score what ann's does (their parameters, the same
    code), but both are flagged as similar to ann's, and gus's edited id line is flagged too;
    the flags reach the gradebooks and similarity.csv, not the learners' feedback."""
    out, expected, _ = graded
    with open(out / "similarity.csv", newline="", encoding="utf-8") as f:
        pairs = {(r["learner_a"], r["learner_b"]): float(r["similarity"]) for r in csv.DictReader(f)}
    assert pairs[("ann", "fred")] >= 0.8 and pairs[("ann", "gus")] >= 0.8, pairs
    assert ("ben", "dan") not in pairs and not any("cat" in pair for pair in pairs), pairs
    lab = {r["learner"]: r for r in rows(out / f"gradebook-{LAB}.csv")}
    assert "similar to ann's" in lab["fred"]["warnings"], lab["fred"]
    assert "types 'gus' but its saved output shows 'ann'" in lab["gus"]["warnings"], lab["gus"]
    assert "names another learner of the class (ann)" in lab["gus"]["warnings"]
    assert "integrity" not in lab["cat"]["warnings"]
    course = {r["learner"]: r for r in rows(out / "gradebook.csv")}
    assert "integrity: answers" in course["fred"]["warnings"]
    for learner in CLASS:
        assert "integrity" not in (out / "feedback" / learner / f"{LAB}.md").read_text(encoding="utf-8")
