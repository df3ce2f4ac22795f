"""The learner's half of each lab, read statically from the solutions' sources:

- **the experiment**: an otter question "Your experiment" sets a `my_...` choice and a prediction
  before the first measurement (so the grader, which has no cluster, checks the prediction
  against the model for the learner's own choice), and a measuring cell uses that choice through
  `experiment.choice(my_..., default, ...)`;
- **the gap**: after the measurement the learner computes a figure from their own run
  (`my_... = ...  # SOLUTION`, stripped from the student version) and `run.check(...)` compares it
  with what the run recorded (`run.record(...)`);
- **the explanations**: prompts W1 and W2 whose questions are the ones book/rubrics.md grades, word
  for word, so the rubric an instructor reads is the question the learner answered.

Every lab has them (the list of labs still without them, and its strict xfail, went once it was
empty).
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]-*.py"))
RUBRICS = (ROOT / "book" / "rubrics.md").read_text()

CELL = re.compile(r"^# %%(?: \[(\w+)\])?.*$", re.M)


def cells(path):
    """[(kind, text)] of a jupytext percent-format file; markdown/raw text without its '# '."""
    text = path.read_text()
    marks = list(CELL.finditer(text))
    out = []
    for m, nxt in zip(marks, marks[1:] + [None]):
        body = text[m.end():nxt.start() if nxt else len(text)].strip("\n")
        kind = m.group(1) or "code"
        if kind != "code":
            body = "\n".join(re.sub(r"^# ?", "", line) for line in body.splitlines())
        out.append((kind, body))
    return out


def rubric_questions(lab_number):
    """{"W1": question, ...} of one lab's section of book/rubrics.md."""
    section = re.search(rf"^## Lab {lab_number} .*?(?=^## |\Z)", RUBRICS, re.M | re.S).group(0)
    return {w: " ".join(q.split()) for w, q in re.findall(r"^\*\*(W\d)\. (.+?)\*\*", section, re.M | re.S)}


def prompts(path):
    found = {}
    for kind, body in cells(path):
        if kind == "markdown":
            for w, q in re.findall(r"\*\*(W\d)\. (.+?)\*\*", body, re.S):
                found[w] = " ".join(q.split())
    return found


def first_measurement(cs):
    """Index of the first cell that opens a LabSession (the first touch of the cluster)."""
    return next(i for i, (kind, body) in enumerate(cs) if kind == "code" and "LabSession(" in body)


def prompt_problems(solution):
    asked, graded = prompts(solution), rubric_questions(solution.stem[:2])
    if set(asked) != {"W1", "W2"}:
        return [f"{solution.name} asks {sorted(asked)}; each lab asks W1 and W2"]
    return [] if asked == graded else [f"{solution.name}: the prompts and book/rubrics.md differ"]


@pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_every_written_question_is_the_one_the_rubric_grades(solution):
    assert not prompt_problems(solution), prompt_problems(solution)


def experiment_problems(solution):
    cs = cells(solution)
    start = first_measurement(cs)
    before, after = cs[:start], cs[start:]
    problems = []
    question = [body for kind, body in before if kind == "markdown" and "Your experiment" in body]
    choices = set(re.findall(r"^(my_\w+) = .*# SOLUTION", "\n".join(b for k, b in before if k == "code"), re.M))
    if not question or not choices:
        problems.append("no 'Your experiment' question setting a my_... choice before the first measurement")
    used = set(re.findall(r"experiment\.choice\((my_\w+)", "\n".join(b for k, b in after if k == "code")))
    if not choices & used:
        problems.append(f"no measuring cell uses the choice through experiment.choice ({sorted(choices)})")
    code_after = "\n".join(b for k, b in after if k == "code")
    figures = set(re.findall(r"^(my_\w+) = .*# SOLUTION", code_after, re.M))
    checked = set(re.findall(r"""run\.check\(\s*["'](my_\w+)["']""", code_after))
    if not figures or not figures <= checked or "run.record(" not in code_after:
        problems.append("no figure of the learner's own run (my_... = ...  # SOLUTION) checked by run.check")
    return problems


@pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_the_learner_chooses_predicts_measures_and_reads_their_run(solution):
    assert not experiment_problems(solution), experiment_problems(solution)


def test_the_scan_finds_a_missing_experiment(tmp_path):
    """Negative control: a lab whose measurement ignores the choice fails the scan."""
    lab01 = (ROOT / "solutions" / "01-redundancy.py").read_text()
    broken = tmp_path / "01-redundancy.py"
    broken.write_text(lab01.replace("experiment.choice(my_object_bytes", "experiment.choice(4096"))
    assert any("experiment.choice" in p for p in experiment_problems(broken))
    assert not experiment_problems(ROOT / "solutions" / "01-redundancy.py")
    reworded = tmp_path / "01-redundancy.py"
    reworded.write_text(lab01.replace("**W2. A PG of your EC 2+1 pool", "**W2. A PG of the EC 2+1 pool"))
    assert prompt_problems(reworded) == ["01-redundancy.py: the prompts and book/rubrics.md differ"]
