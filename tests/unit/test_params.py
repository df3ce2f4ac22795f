"""Per-learner parameters (issue 14, item 2; item 6d): cephlab.course.params draws the same
values for the same lab and learner, different ones for another learner, and for labs 01, 03, 05
and 11 every parameterised question's hidden tests — run here in-process, as otter runs them, on the
solution's own cells — accept the answers computed for the learner graded and reject another
learner's answers (two learner ids give different expected values for every question). A
question left out of PARAMETERISED is the learner's own experiment (lab 01's Q6, lab 11's Q5):
its parameter is the learner's choice."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

from cephlab.course import params

ROOT = Path(__file__).resolve().parents[2]
# lab -> its parameterised questions (the others, after them, are the learner's own experiment)
PARAMETERISED = {"01-redundancy": ["q1", "q2", "q3", "q4", "q5"], "03-disk-iops": ["q1", "q2", "q3", "q4", "q5"],
                 "05-threads": ["q1", "q2", "q3", "q4"], "11-containers-and-cephadm": ["q1", "q2", "q3", "q4"]}
ALICE, BOB = "alice", "bob"


def test_draw_is_deterministic_and_within_the_choices():
    spec = {"afr": [0.02, 0.04, 0.08], "disks": range(6, 13)}
    first = params.draw("01-redundancy", ALICE, spec)
    assert first == params.draw("01-redundancy", ALICE, spec) == params.draw("01-redundancy", ALICE, dict(spec))
    assert first["afr"] in spec["afr"] and first["disks"] in spec["disks"]
    # adding a parameter leaves the others' values alone
    assert {k: v for k, v in params.draw("01-redundancy", ALICE, {**spec, "days": range(1, 30)}).items()
            if k in spec} == first


def test_draw_differs_between_learners_and_labs():
    spec = {"x": range(1000)}
    learners = [f"learner{i}" for i in range(30)]
    values = [params.draw("03-disk-iops", who, spec)["x"] for who in learners]
    assert len(set(values)) >= 25, "30 learners should get (nearly) 30 different values out of 1000"
    assert params.draw("03-disk-iops", ALICE, spec) != params.draw("05-threads", ALICE, spec)
    assert params.seed("03-disk-iops", ALICE) != params.seed("03-disk-iops", BOB)


def test_learner_id_precedence(monkeypatch):
    for var in ("CEPHLAB_LEARNER", "JUPYTERHUB_USER", "CEPHLAB_GRADING"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(params, "_recorded", None)
    assert params.learner_id() == params.DEFAULT_LEARNER
    assert params.learner_id("  carol ") == "carol" and params.learner_id() == "carol", "the notebook's value is kept"
    monkeypatch.setenv("JUPYTERHUB_USER", "hubuser")
    assert params.learner_id() == "hubuser"
    monkeypatch.setenv("CEPHLAB_GRADING", "1")
    assert params.learner_id() == "carol", "while grading the hub user is the grader's own name"
    monkeypatch.setenv("CEPHLAB_LEARNER", "dave")
    assert params.learner_id("carol") == "dave", "the instructor's $CEPHLAB_LEARNER wins"


def test_the_instructor_regenerates_a_learners_parameters():
    run = subprocess.run([sys.executable, "-m", "cephlab.course.params", "03", ALICE, BOB, "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60, check=True)
    got = json.loads(run.stdout)
    assert got == {who: params.lab_params("03-disk-iops", who) for who in (ALICE, BOB)}
    assert got[ALICE] != got[BOB]
    text = subprocess.run([sys.executable, "-m", "cephlab.course.params", "05-threads", ALICE],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=True).stdout
    assert text.startswith(f"05-threads, learner {ALICE}:") and "q1_clients" in text


# -- the solutions' own cells and hidden tests --------------------------------------------------
def _directive(cell):
    first = cell.source.strip().splitlines()[0] if cell.cell_type == "raw" and cell.source.strip() else ""
    return first.lstrip("# ").strip() if first.startswith("# BEGIN") or first.startswith("# END") else None


def questions(lab):
    """(setup cells, {question: (solution cells, public test cells, hidden test cells)}) of the
    solution source, up to its last question."""
    nb = jupytext.read(ROOT / "solutions" / f"{lab}.py")
    setup, found, question, block = [], {}, None, None
    for cell in nb.cells:
        d = _directive(cell)
        if d == "BEGIN QUESTION":
            question = yaml.safe_load(cell.source.split("\n", 1)[1])["name"]
            found[question] = ([], [], [])
        elif d in ("BEGIN SOLUTION", "BEGIN TESTS"):
            block = d.split()[1]
        elif d in ("END SOLUTION", "END TESTS"):
            block = None
        elif d == "END QUESTION":
            question = None
        elif cell.cell_type == "code":
            if question and block == "SOLUTION":
                found[question][0].append(cell.source)
            elif question and block == "TESTS":
                found[question][2 if cell.source.lstrip().startswith("# HIDDEN") else 1].append(cell.source)
            elif not found or question:
                setup.append(cell.source)       # before the questions, or a question's prompt cell
    return setup, found


def notebook_as(lab, learner, monkeypatch):
    """The solution's namespace after its cells ran as learner (answers for learner's numbers)."""
    monkeypatch.setenv("CEPHLAB_LEARNER", learner)
    setup, found = questions(lab)
    env = {"display": lambda *a, **k: None}
    for src in setup:
        exec(compile(src, f"{lab}-setup", "exec"), env)
    for q, (solution, _, _) in found.items():
        for src in solution:
            exec(compile(src, f"{lab}-{q}", "exec"), env)
    return env, found


def passes(tests, env):
    try:
        for src in tests:
            exec(compile(src, "test", "exec"), dict(env))
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("lab", sorted(PARAMETERISED))
def test_every_parameterised_question_expects_other_values_for_another_learner(lab, monkeypatch):
    """6d: alice's answers pass alice's hidden tests and fail bob's, question by question (and
    the public tests, hints only, pass for both)."""
    monkeypatch.setattr(params, "_recorded", None)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    env, found = notebook_as(lab, ALICE, monkeypatch)
    assert sorted(found)[:len(PARAMETERISED[lab])] == PARAMETERISED[lab]
    assert env["P"] == params.lab_params(lab, ALICE) != params.lab_params(lab, BOB)
    for q in sorted(set(found) - set(PARAMETERISED[lab])):
        assert not any("lab_params(" in src for cells in found[q] for src in cells), \
            f"{lab} {q} uses the learner's parameters: list it in PARAMETERISED"
    for q in PARAMETERISED[lab]:
        _, public, hidden = found[q]
        assert hidden, f"{lab} {q} has no hidden test"
        assert all("_params.lab_params(" in src for src in hidden), f"{lab} {q}: hidden tests recompute from the seed"
        monkeypatch.setenv("CEPHLAB_LEARNER", ALICE)
        assert passes(public, env) and passes(hidden, env), f"{lab} {q}: alice's answers fail alice's tests"
        monkeypatch.setenv("CEPHLAB_LEARNER", BOB)
        assert not passes(hidden, env), f"{lab} {q}: alice's answers pass bob's hidden tests"


@pytest.mark.parametrize("lab", sorted(PARAMETERISED))
def test_few_pairs_of_learners_share_a_questions_answers(lab, monkeypatch):
    """Not just alice and bob: among 12 learners, any two share a question's expected answers
    rarely (each question's parameters have many combinations)."""
    monkeypatch.setattr(params, "_recorded", None)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    learners = [f"learner{i:02d}" for i in range(12)]
    answers = {}
    for who in learners:
        env, found = notebook_as(lab, who, monkeypatch)
        answers[who] = {q: tuple(str(v) for k, v in sorted(env.items()) if k.startswith(q + "_")) for q in found}
    pairs = [(a, b) for i, a in enumerate(learners) for b in learners[i + 1:]]
    for q in PARAMETERISED[lab]:
        same = [p for p in pairs if answers[p[0]][q] == answers[p[1]][q]]
        assert len(same) <= len(pairs) // 10, f"{lab} {q}: {len(same)} of {len(pairs)} pairs share answers"

