"""Per-learner parameters: cephlab.course.params draws the same
values for the same lab and learner, different ones for another learner, and in every lab each
parameterised question's hidden tests — run here in-process, as otter runs them, on the
solution's own cells — accept the answers computed for the learner graded and reject another
learner's answers (two learner ids give different expected values for every question). A
question left out of PARAMETERISED is the learner's own experiment (its parameter is the
learner's choice), a question about the lab cluster the measurement then checks (lab 02's Q4,
lab 08's Q2), a reading of a seed's own figures (lab 07's Q1, lab 09's Q1), or one whose answers
have too few possible values to differ between learners (lab 00's Q1 set and Q5 booleans)."""
from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

from cephlab.course import params

ROOT = Path(__file__).resolve().parents[2]
# lab -> its parameterised questions (the module's docstring says why the others are not)
PARAMETERISED = {
    "00-welcome": ["q2", "q3", "q4"],
    "01-redundancy": ["q1", "q2", "q3", "q4", "q5"],
    "02-placement": ["q1", "q2", "q3"],
    "03-disk-iops": ["q1", "q2", "q3", "q4", "q5", "q6"],
    "04-throttles": ["q1", "q2", "q5"],
    "05-threads": ["q1", "q2", "q3", "q4"],
    "06-capacity": ["q1", "q3", "q4"],
    "07-write-amplification": ["q2", "q5"],
    "08-failure-and-recovery": ["q3", "q4"],
    "09-cephfs-metadata": ["q2", "q3"],
    "10-database-on-ceph": ["q1", "q2", "q3", "q4"],
    "11-containers-and-cephadm": ["q1", "q2", "q3", "q4"],
}
ALICE, BOB = "alice", "bob"


def test_every_lab_draws_per_learner_parameters():
    labs = sorted(p.stem for p in (ROOT / "solutions").glob("[0-9][0-9]-*.py"))
    assert len(labs) == 12 and sorted(PARAMETERISED) == labs == sorted(params.SPECS)
    for lab, questions in PARAMETERISED.items():
        assert {name.split("_")[0] for name in params.SPECS[lab]} == set(questions), \
            f"{lab}: SPECS' parameter names (qN_...) and its parameterised questions differ"


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


@functools.cache          # parsed once per lab: the tests exec it for many learners
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
    assert set(PARAMETERISED[lab]) <= set(found)
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



@pytest.mark.parametrize("lab", sorted(PARAMETERISED))
def test_every_learner_gets_a_question_the_model_solves_and_the_hints_accept(lab, monkeypatch):
    """Every draw must be a fair question: for 40 learners, the solution computed for their own
    numbers passes their public self-checks (hint bounds hold for every parameter value) and
    their hidden tests."""
    monkeypatch.setattr(params, "_recorded", None)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    env, found = notebook_as(lab, ALICE, monkeypatch)
    setup, _ = questions(lab)
    drawn = [src for src in setup if "P[" in src or "lab_params(" in src or ", P)" in src]   # cells that use P
    for i in range(40):
        who = f"student{i:02d}"
        monkeypatch.setenv("CEPHLAB_LEARNER", who)
        for src in drawn:
            exec(compile(src, f"{lab}-setup", "exec"), env)
        assert env["P"] == params.lab_params(lab, who)
        for q in PARAMETERISED[lab]:
            solution, public, hidden = found[q]
            for src in solution:
                exec(compile(src, f"{lab}-{q}", "exec"), env)
            assert passes(public, env), f"{lab} {q}: {who}'s own right answer fails a public check ({env['P']})"
            assert passes(hidden, env), f"{lab} {q}: {who}'s own right answer fails a hidden test ({env['P']})"
