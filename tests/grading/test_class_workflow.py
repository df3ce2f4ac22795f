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
         "dan": ["q3", "q6"], "eve": ["q1", "q2", "q3", "q4", "q5"]}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("class")
    master = grading.read(grading.solution_path(LAB))
    student = grading.read(LABS / LAB / f"{LAB}.ipynb")
    points = grading.graded_points(master)
    for learner, questions in CLASS.items():
        nb = grading.fill_answers(student, master, questions)
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
