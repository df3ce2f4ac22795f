"""The pre/post quizzes (book/quizzes/) grade like the labs: otter assign of each
quiz, then otter run with the quiz's autograder (hidden tests included, sandboxed) gives the quiz's
solution full marks and its untouched student copy 0. One batch of assigns, then one batch of
gradings, two at a time (cephlab.course.grading.assign_many, run_gradings)."""
import importlib.util
import json
import math
import re

import pytest

from cephlab.course import grading
from cephlab.course.notebooks import ROOT

spec = importlib.util.spec_from_file_location("quizzes", ROOT / "book" / "quizzes" / "quizzes.py")
quizzes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(quizzes)

QUIZZES = quizzes.masters()
IDS = [p.stem for p in QUIZZES]


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    """{quiz stem: (solution GradeResult or error, student GradeResult or error)}."""
    work = tmp_path_factory.mktemp("quizzes")
    zips = grading.assign_many(QUIZZES, work, parallel=2)
    jobs, keys = [], []
    for quiz in QUIZZES:
        if isinstance(zips[quiz], Exception):
            continue
        student = work / f"assign-{quiz.stem}" / "student" / quiz.name
        jobs += [(quiz, quiz), (student, quiz)]     # the master's checks grade both
        keys += [(quiz.stem, "solution"), (quiz.stem, "student")]
    outcomes = dict(zip(keys, grading.run_gradings(jobs, parallel=2, timeout=300)))
    return {q.stem: zips[q] if isinstance(zips[q], Exception)
            else (outcomes[(q.stem, "solution")], outcomes[(q.stem, "student")]) for q in QUIZZES}


def _answers(quiz):
    """{variable: value} of a quiz's solution, and {question: its text}."""
    nb = grading.read(quiz)
    namespace = {"math": math}
    for code in grading.solution_answers(nb).values():
        exec("\n".join(code), namespace)          # noqa: S102 - our own solution cells
    texts = [grading._source(c) for c in nb["cells"] if c["cell_type"] == "markdown"
             and grading._source(c).startswith("**Q")]
    return {k: v for k, v in namespace.items() if re.match(r"q\d", k)}, texts


def test_every_lab_has_a_quiz_of_three_to_five_questions_and_masters_are_current():
    labs = {p.stem for p in grading.solution_notebooks()}
    assert {q.stem.removesuffix("-quiz") for q in QUIZZES} == labs
    for quiz in QUIZZES:
        points = grading.question_points(grading.read(quiz))
        assert 3 <= len(points) <= 5, quiz.name
        assert not grading.questions_without_hidden_tests(grading.read(quiz)), quiz.name
        made = quizzes.master(quiz.stem.removesuffix("-quiz"))
        assert json.loads(quiz.read_text()) == made, f"{quiz.name}: run `python book/quizzes/quizzes.py make`"


def test_the_instructor_site_lists_the_course_materials_and_the_quizzes(tmp_path):
    spec = importlib.util.spec_from_file_location("build_book", ROOT / "book" / "build_book.py")
    build_book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_book)
    build_book.stage(tmp_path / "site")
    toc = (tmp_path / "site" / "_toc.yml").read_text()
    for page in ("syllabus", "rubrics", "troubleshooting", *(f"quizzes/{q.stem}" for q in QUIZZES)):
        assert f"- file: {page}\n" in toc, page
    staged = "".join((tmp_path / "site" / "quizzes" / q.name).read_text() for q in QUIZZES)
    assert "# BEGIN QUESTION" not in staged and "# SOLUTION" not in staged
    build_book.stage(tmp_path / "learner", audience="learner")
    assert "quizzes" not in (tmp_path / "learner" / "_toc.yml").read_text()


@pytest.mark.parametrize("quiz", QUIZZES, ids=IDS)
def test_question_text_does_not_state_the_numeric_answer(quiz):
    answers, texts = _answers(quiz)
    for name, value in answers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        forms = {f"{value:g}", f"{value:.2f}", f"{value:.3g}"} if value else {"0"}
        forms |= {f"{value:,.0f}"} if abs(value) >= 100 else set()
        text = next(t for t in texts if f"`{name}`" in t)
        said = set(re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\d])", text))
        assert not forms & said, f"{quiz.name}: the text of {name} states its answer {value}"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("quiz", QUIZZES, ids=IDS)
def test_quiz_solution_scores_full_and_untouched_quiz_zero(quiz, graded):
    outcome = graded[quiz.stem]
    assert not isinstance(outcome, Exception), outcome
    solution, student = outcome
    assert not isinstance(solution, Exception), solution
    assert not isinstance(student, Exception), student
    assert solution.possible == student.possible == len(grading.question_points(grading.read(quiz)))
    assert solution.score == solution.possible, solution.questions
    assert student.score == 0, student.questions
