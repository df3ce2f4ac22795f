"""The class workflow of `cephlab grade` without grading anything: a class of five learners'
outcomes, as grading.grade_many returns them, becomes per-lab gradebooks, the course gradebook
with hand scores, Canvas's and Moodle's import files and each learner's feedback.

The class: two labs of 6 questions and 8 points (lab 01's real points); alice hands in both;
bob misses lab 02; carol hands lab 01 in twice (3/8, then 7/8); dave's lab 01 timed out; erin
typed alice's id into her lab 01 and was graded as erin (the folder she handed it in from)."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from cephlab.cli import build_parser
from cephlab.cli import grade as grade_cli
from cephlab.core.errors import CourseError
from cephlab.course import gradebook, grading
from cephlab.course.gradebook import HandScoreError, read_hand_scores

POINTS = {"q1": 1, "q2": 1, "q3": 2, "q4": 1, "q5": 1, "q6": 2}     # 8 points, as lab 01
HINTS = {"q3": ["Count the raw bytes of every copy, not only the data chunks."],
         "q4": ["A read of a whole object needs the data chunks only."],
         "q5": ["Which OSDs of the PG must stay up for it to serve reads?"],
         "q6": ["Durability counts the failures a PG survives: look at m again.", "Use your own AFR."]}


Result = grading.GradeResult          # what grading.grade_many returns for a graded notebook


def result(learner, lab, lost=(), half=(), name=None, typed=None, seconds=9.0):
    """A graded notebook: every question right except `lost` (0 points) and `half` (half)."""
    notebook = Path("submissions") / learner / (name or f"{lab}.ipynb")
    questions = {q: (0.0 if q in lost else p / 2 if q in half else float(p), float(p)) for q, p in POINTS.items()}
    feedback = {q: (HINTS[q] if q in lost or q in half else []) for q in POINTS}
    return notebook, Result(notebook, lab, questions, seconds, learner, typed if typed is not None else learner,
                            feedback)


TIMEOUT = CourseError("grading submissions/dave/01-redundancy.ipynb took longer than 300 s: an answer "
                      "cell may loop forever (raise --timeout if it is just slow)\nmore lines")


def the_class():
    return [
        result("alice", "01-redundancy"),
        result("alice", "02-placement", lost=["q3"], seconds=11.5),
        result("bob", "01-redundancy", lost=["q4"], half=["q6"], seconds=10.25),
        result("carol", "01-redundancy", lost=["q3", "q4", "q6"]),
        result("carol", "01-redundancy", half=["q6"], name="01-redundancy (2).ipynb"),
        result("carol", "02-placement"),
        (Path("submissions/dave/01-redundancy.ipynb"), TIMEOUT),
        result("dave", "02-placement", half=["q6"]),
        result("erin", "01-redundancy", lost=["q4", "q5", "q6"], typed="alice"),
        result("erin", "02-placement"),
    ]


HAND = """learner,item,score,possible
alice,01-redundancy W1,2,2
alice,01-redundancy W2,1.5,2
alice,quiz 1,4,4
bob,01-redundancy W1,1,2
bob,01-redundancy W2,0,2
bob,quiz 1,,4
carol,01-redundancy W1,2,2
carol,01-redundancy W2,2,2
carol,quiz 1,3,4
dave,01-redundancy W1,0.5,2
dave,01-redundancy W2,1,2
dave,quiz 1,2,4
erin,01-redundancy W1,2,2
erin,01-redundancy W2,2,2
erin,quiz 1,1,4
"""


@pytest.fixture
def hand(tmp_path):
    path = tmp_path / "hand.csv"
    path.write_text(HAND)
    return read_hand_scores(path)


@pytest.fixture
def written(tmp_path, hand, monkeypatch):
    monkeypatch.chdir(tmp_path)         # the notebooks' relative paths resolve under submissions/
    out = tmp_path / "grades"
    gradebook.write_all(the_class(), out, hand, lms="canvas")
    return out


def test_the_lab_01_gradebook_has_one_row_per_submission(written):
    assert (written / "gradebook-01-redundancy.csv").read_bytes().decode() == (
        "learner,notebook,q1,q2,q3,q4,q5,q6,score,possible,seconds,status,warnings\r\n"
        "alice,submissions/alice/01-redundancy.ipynb,1,1,2,1,1,2,8,8,9.0,graded,\r\n"
        "bob,submissions/bob/01-redundancy.ipynb,1,1,2,0,1,1,6,8,10.2,graded,\r\n"
        "carol,submissions/carol/01-redundancy (2).ipynb,1,1,2,1,1,1,7,8,9.0,graded,"
        "2 submissions of this lab by carol: gradebook.csv keeps the highest\r\n"
        "carol,submissions/carol/01-redundancy.ipynb,1,1,0,0,1,0,3,8,9.0,graded,"
        "2 submissions of this lab by carol: gradebook.csv keeps the highest\r\n"
        "dave,submissions/dave/01-redundancy.ipynb,,,,,,,,,,not graded: grading "
        "submissions/dave/01-redundancy.ipynb took longer than 300 s: an answer cell may loop forever "
        "(raise --timeout if it is just slow),\r\n"
        "erin,submissions/erin/01-redundancy.ipynb,1,1,2,0,0,0,4,8,9.0,graded,"
        "\"the notebook used learner id alice, graded as erin\"\r\n")


def test_the_lab_02_gradebook_has_only_that_labs_rows(written):
    assert (written / "gradebook-02-placement.csv").read_bytes().decode() == (
        "learner,notebook,q1,q2,q3,q4,q5,q6,score,possible,seconds,status,warnings\r\n"
        "alice,submissions/alice/02-placement.ipynb,1,1,0,1,1,2,6,8,11.5,graded,\r\n"
        "carol,submissions/carol/02-placement.ipynb,1,1,2,1,1,2,8,8,9.0,graded,\r\n"
        "dave,submissions/dave/02-placement.ipynb,1,1,2,1,1,1,7,8,9.0,graded,\r\n"
        "erin,submissions/erin/02-placement.ipynb,1,1,2,1,1,2,8,8,9.0,graded,\r\n")


def test_the_course_gradebook_keeps_the_highest_and_adds_the_hand_scores(written):
    lines = (written / "gradebook.csv").read_text().splitlines()
    assert lines == [
        "learner,01-redundancy,02-placement,01-redundancy W1,01-redundancy W2,quiz 1,total,possible,warnings",
        "alice,8,6,2,1.5,4,21.5,24,",
        "bob,6,,1,0,,7,24,02-placement: no submission; quiz 1: no hand score",
        "carol,7,8,2,2,3,22,24,\"01-redundancy: 2 submissions (submissions/carol/01-redundancy (2).ipynb, "
        "submissions/carol/01-redundancy.ipynb); kept the highest, 7/8\"",
        "dave,,7,0.5,1,2,10.5,24,01-redundancy: not graded: grading submissions/dave/01-redundancy.ipynb took "
        "longer than 300 s: an answer cell may loop forever (raise --timeout if it is just slow)",
        "erin,4,8,2,2,1,17,24,\"01-redundancy: the notebook used learner id alice, graded as erin\"",
    ]


def test_canvas_import_has_the_student_columns_a_points_row_and_nothing_after_the_assignments(written):
    assert (written / "canvas.csv").read_text().splitlines() == [
        "Student,ID,SIS User ID,SIS Login ID,Section,01-redundancy,02-placement,01-redundancy W1,"
        "01-redundancy W2,quiz 1",
        "Points Possible,,,,,8,8,2,2,4",
        "alice,,,alice,,8,6,2,1.5,4",
        "bob,,,bob,,6,,1,0,",
        "carol,,,carol,,7,8,2,2,3",
        "dave,,,dave,,,7,0.5,1,2",
        "erin,,,erin,,4,8,2,2,1",
    ]


def test_moodle_import_has_an_identifier_column_then_one_per_grade_item(tmp_path, hand, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gradebook.write_all(the_class(), tmp_path, hand, lms="moodle")
    assert (tmp_path / "moodle.csv").read_text().splitlines() == [
        "Username,01-redundancy,02-placement,01-redundancy W1,01-redundancy W2,quiz 1",
        "alice,8,6,2,1.5,4",
        "bob,6,,1,0,",
        "carol,7,8,2,2,3",
        "dave,,7,0.5,1,2",
        "erin,4,8,2,2,1",
    ]
    assert not (tmp_path / "canvas.csv").exists()


def test_one_feedback_file_per_learner_and_lab_handed_in(written):
    found = sorted(str(p.relative_to(written / "feedback")) for p in (written / "feedback").rglob("*.md"))
    assert found == ["alice/01-redundancy.md", "alice/02-placement.md", "bob/01-redundancy.md",
                     "carol/01-redundancy.md", "carol/02-placement.md", "dave/01-redundancy.md",
                     "dave/02-placement.md", "erin/01-redundancy.md", "erin/02-placement.md"]


def test_feedback_gives_the_points_and_the_hints_of_what_lost_points(written):
    text = (written / "feedback" / "bob" / "01-redundancy.md").read_text()
    assert text == (
        "# 01-redundancy: feedback for bob\n\nScore: 6/8\n\n| question | points |\n|---|---|\n"
        "| q1 | 1/1 |\n| q2 | 1/1 |\n| q3 | 2/2 |\n| q4 | 0/1 |\n| q5 | 1/1 |\n| q6 | 1/2 |\n\n"
        "## What to look at again\n\n"
        "- **q4**: A read of a whole object needs the data chunks only.\n"
        "- **q6**: Durability counts the failures a PG survives: look at m again. Use your own AFR.\n")


@pytest.mark.parametrize("learner", ["alice", "bob", "carol", "dave", "erin"])
def test_feedback_has_no_number_but_the_scores(written, learner):
    for path in (written / "feedback" / learner).glob("*.md"):
        text = path.read_text()
        rest = re.sub(r"\d+(\.\d+)?/\d+|\bq\d+\b|\d\d-(redundancy|placement)", "", text)
        assert not re.search(r"\d", rest.replace("300 s", "")), text      # 300 s: dave's reason


def test_feedback_on_a_resubmission_and_on_a_typed_id(written):
    carol = (written / "feedback" / "carol" / "01-redundancy.md").read_text()
    assert "Score: 7/8" in carol and "more than once" in carol and HINTS["q6"][0] in carol
    assert HINTS["q3"][0] not in carol          # the hints of the notebook not kept
    erin = (written / "feedback" / "erin" / "01-redundancy.md").read_text()
    assert "used the learner id alice; it was graded as erin" in erin
    assert "What to look at again" not in (written / "feedback" / "alice" / "01-redundancy.md").read_text()


def test_feedback_on_a_notebook_not_graded_says_why_and_what_to_do(written):
    text = (written / "feedback" / "dave" / "01-redundancy.md").read_text()
    assert "could not be graded" in text and "took longer than 300 s" in text
    assert "runs forever" in text and "more lines" not in text


# -- hand scores ------------------------------------------------------------------------------------
def test_hand_scores_read_with_empty_scores_skipped(hand):
    assert len(hand) == 14
    assert hand[1] == gradebook.HandScore("alice", "01-redundancy W2", 1.5, 2.0, 3)


def problems(tmp_path, text):
    path = tmp_path / "hand.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(HandScoreError) as err:
        read_hand_scores(path)
    return str(err.value)


def test_an_unknown_column_and_a_missing_one(tmp_path):
    message = problems(tmp_path, "learner,item,grade,possible\nalice,quiz 1,3,4\n")
    assert "line 1: unknown column 'grade' (the columns are learner, item, score, possible)" in message
    assert "line 1: no column 'score'" in message


@pytest.mark.parametrize("row, expected", [
    ("alice,quiz 1,ten,4", "line 2: score 'ten' is not a number"),
    ("alice,quiz 1,5,4", "line 2: score 5 is more than possible 4"),
    ("alice,quiz 1,-1,4", "line 2: score -1 is negative"),
    ("alice,quiz 1,3,four", "line 2: possible 'four' is not a number"),
    ("alice,quiz 1,3,", "line 2: possible is empty"),
    ("alice,quiz 1,3,0", "line 2: possible 0 must be more than 0"),
    ("alice,quiz 1,nan,4", "line 2: score 'nan' is not a number"),
    (",quiz 1,3,4", "line 2: no learner"),
    ("alice,,3,4", "line 2: no item"),
    ("alice,quiz 1, 2,4,extra", "line 2: more cells than the 4 columns"),
])
def test_each_wrong_row_is_named_with_its_line(tmp_path, row, expected):
    assert expected in problems(tmp_path, f"learner,item,score,possible\n{row}\n")


def test_every_problem_is_listed_at_once_and_twice_the_same_score_too(tmp_path):
    message = problems(tmp_path, "learner,item,score,possible\nalice,quiz 1,3,4\nbob,quiz 1,x,4\n"
                                 "alice,quiz 1,2,4\ncarol,quiz 1,3,5\n")
    assert message.splitlines()[0].endswith("3 problem(s) in the hand scores (columns learner,item,score,possible):")
    assert "line 3: score 'x' is not a number" in message
    assert "line 4: alice's 'quiz 1' is already on line 2" in message
    assert "line 5: 'quiz 1' is out of 5 here but out of 4 on line 2" in message


def test_an_empty_file_and_excels_byte_order_mark(tmp_path):
    assert "the file is empty" in problems(tmp_path, "")
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffLearner,Item,Score,Possible\r\nalice,quiz 1,3,4\r\n,,,\r\n".encode())
    assert read_hand_scores(path) == [gradebook.HandScore("alice", "quiz 1", 3.0, 4.0, 2)]


def test_the_template_has_one_row_per_learner_and_item(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = gradebook.hand_scores_template(the_class(), ["01-redundancy W1=2", "quiz 1"], tmp_path / "t.csv")
    lines = path.read_text().splitlines()
    assert lines[:5] == ["learner,item,score,possible", "alice,01-redundancy W1,,2", "alice,quiz 1,,",
                         "bob,01-redundancy W1,,2", "bob,quiz 1,,"]
    assert len(lines) == 1 + 5 * 2
    with pytest.raises(HandScoreError, match="exists"):
        gradebook.hand_scores_template(the_class(), ["quiz 1"], path)
    with pytest.raises(HandScoreError, match="not a number"):
        gradebook.template_items(["quiz 1=four"])


# -- what cannot be trusted, and small rules ----------------------------------------------------------
def test_a_typed_id_can_neither_leave_the_feedback_folder_nor_be_a_formula(tmp_path):
    notebook, r = result("x", "01-redundancy")
    r.learner = "../../evil"
    typed = result("=HYPERLINK(\"http://x\")", "02-placement")
    written = gradebook.write_all([(notebook, r), typed], tmp_path / "out")
    assert all((tmp_path / "out") in p.parents for p in written)
    assert (tmp_path / "out" / "feedback" / "_.._evil" / "01-redundancy.md").exists()
    assert "\n\"'=HYPERLINK" in (tmp_path / "out" / "gradebook.csv").read_text()


def test_questions_in_natural_order_and_a_notebook_of_no_known_lab(tmp_path):
    notebook = Path("submissions/zoe/03-disk-iops.ipynb")
    r = Result(notebook, "03-disk-iops", {f"q{i}": (1.0, 1.0) for i in (10, 2, 1)}, 1.0, "zoe")
    outcomes = [(notebook, r), (Path("submissions/zoe/notes.ipynb"), CourseError("cannot tell which lab"))]
    paths = gradebook.write_lab_gradebooks(outcomes, tmp_path)
    assert [p.name for p in paths] == ["gradebook-03-disk-iops.csv", "gradebook-unknown.csv"]
    assert paths[0].read_text().splitlines()[0].startswith("learner,notebook,q1,q2,q10,score")
    assert gradebook.guess_lab(Path("alice-03-disk (2).ipynb"), ["03-disk-iops"]) == "03-disk-iops"


def test_grading_warnings_are_in_the_row_and_the_typed_id_is_said_once(tmp_path):
    notebook, r = result("erin", "01-redundancy", typed="alice")
    r.warnings = ["the notebook typed learner id 'alice'; graded as 'erin' (its parameters)", "q2: no answer"]
    [path] = gradebook.write_lab_gradebooks([(notebook, r)], tmp_path)
    assert path.read_text().splitlines()[1].endswith(
        ",graded,\"the notebook used learner id alice, graded as erin; q2: no answer\"")


def test_numbers_as_a_spreadsheet_shows_them():
    assert [gradebook.fmt(x) for x in (5.0, 0.5, 1 / 3, 21.5, 1e7)] == ["5", "0.5", "0.33", "21.5", "10000000"]


# -- the command line -------------------------------------------------------------------------------
def parse(*argv):
    return build_parser().parse_args(["grade", *argv])


def test_the_class_file_options_are_checked_before_grading(tmp_path, capsys):
    bad = tmp_path / "hand.csv"
    bad.write_text("learner,item,score,possible\nalice,quiz 1,9,4\n")
    assert grade_cli.cmd_grade(parse("subs/", "--out", str(tmp_path), "--hand-scores", str(bad))) == 2
    assert "line 2: score 9 is more than possible 4" in capsys.readouterr().err
    assert grade_cli.cmd_grade(parse("subs/", "--lms", "canvas")) == 2
    assert "give --out" in capsys.readouterr().err
    assert grade_cli.cmd_grade(parse("subs/", "--hand-template", str(bad))) == 2
    assert "name at least one item" in capsys.readouterr().err


def test_a_batch_writes_the_class_files_and_prints_the_typed_id_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    outcomes = [(nb, grading.GradingError(str(o)) if o is TIMEOUT else o) for nb, o in the_class()]
    monkeypatch.setattr(grade_cli.grading, "find_notebooks", lambda paths: [nb for nb, _ in outcomes])

    def grade_many(notebooks, on_result=None, **kwargs):
        for nb, outcome in outcomes:
            on_result(nb, outcome)
        return outcomes
    monkeypatch.setattr(grade_cli.grading, "grade_many", grade_many)
    args = parse("submissions/", "--out", "grades", "--lms", "moodle", "--hand-template", "hand.csv", "W1=2")
    assert grade_cli.cmd_grade(args) == 1                  # dave's notebook was not graded
    out = capsys.readouterr().out
    assert "submissions/erin/01-redundancy.ipynb: warning: the notebook used learner id alice, graded as erin" in out
    assert "wrote grades/gradebook.csv\nwrote grades/moodle.csv\nwrote 9 feedback files" in out
    assert "wrote hand.csv: fill in the scores" in out
    assert (tmp_path / "grades" / "gradebook-02-placement.csv").exists()


def test_write_class_files_does_nothing_without_its_options(capsys):
    args = SimpleNamespace(hand_template=None, out=None, hand=[], lms=None)
    grade_cli.write_class_files(args, the_class())
    assert capsys.readouterr().out == ""


def test_one_notebook_writes_its_files_before_the_last_line_the_score(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    notebook, r = result("erin", "01-redundancy", lost=["q4"], typed="alice")
    monkeypatch.setattr(grade_cli.grading, "find_notebooks", lambda paths: [notebook])
    monkeypatch.setattr(grade_cli.grading, "grade", lambda nb, **kwargs: r)
    assert grade_cli.cmd_grade(parse(str(notebook), "--out", "grades")) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-3:] == ["wrote grades/gradebook.csv",
                                              "wrote 1 feedback files in grades/feedback/ (one per learner and lab)",
                                              "score: 7/8"]
    assert "warning: submissions/erin/01-redundancy.ipynb: the notebook used learner id alice" in captured.err
