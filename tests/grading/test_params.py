"""Per-learner parameters through the real grader: a student notebook of every lab
answered with the values that are right for bob's parameters (literals, as a learner
who computed them would leave them; bob's id typed in the first cell) gets full marks when graded
as bob — from the id in the notebook, or from $CEPHLAB_LEARNER=bob — and 0 when the instructor
grades it as alice ($CEPHLAB_LEARNER=alice): copied answers fail for another learner. And with
`cephlab grade --learner-from-folder`, the same notebook handed in under alice's folder scores 0:
typing bob's id into it does not borrow bob's parameters. Every lab is graded with the typed id
and as alice; the other ways of naming the learner, the same code for every lab, on three labs.
A lab's own-experiment question and the other questions that are not parameterised
(tests/unit/test_params.py says which) keep the solution's code, right for every learner; the
zero scores are those of the parameterised questions.

The values are computed in-process from the solution's own cells (tests/unit/test_params.py's
notebook_as); the gradings are otter run in the sandbox, as `cephlab grade` runs them."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

from cephlab.course import grading, measured
from cephlab.course.notebooks import LABS
from tests.conftest import assigned_zip
from tests.unit.test_params import PARAMETERISED, notebook_as

ALICE, BOB = "alice", "bob"
ASSIGNED = re.compile(r"^(\w+)\s*=", re.M)
KINDS = {"typed id": None, "as alice": ALICE, "as bob": BOB}   # kind -> $CEPHLAB_LEARNER
# Where the learner's id comes from ($CEPHLAB_LEARNER, the submission's folder) is the same code
# for every lab, so those ways are graded on three labs of different kinds (each otter run costs
# ~10 s of CI); every lab is graded with the typed id and as another learner.
EVERY_LAB_KINDS = ("typed id", "as alice")
ID_SOURCE_LABS = ("01-redundancy", "05-threads", "11-containers-and-cephadm")


def native(value):
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def answered_for(lab, learner, work):
    """The committed student notebook with learner's id typed in and, in every parameterised
    question's answer cells, the right values for learner's parameters as literals (the
    own-experiment questions get the solution's code)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("JUPYTERHUB_USER", raising=False)
        env, _ = notebook_as(lab, learner, mp)
    student = grading.read(LABS / lab / f"{lab}.ipynb")
    master = grading.read(grading.solution_path(lab))
    answers, cells = grading.solution_answers(master), grading.answer_cells(student)
    for q in answers:
        for index, code in zip(cells[q], answers[q]):
            if q not in PARAMETERISED[lab]:
                student["cells"][index]["source"] = code
                continue
            names = ASSIGNED.findall(code)
            assert names, f"{lab} {q}: no assignment in {code!r}"
            student["cells"][index]["source"] = "\n".join(f"{n} = {native(env[n])!r}" for n in names)
    typed = [c for c in student["cells"] if c["cell_type"] == "code" and 'params.learner_id("")' in grading._source(c)]
    assert len(typed) == 1, f"{lab}: the learner-id cell is missing from the student notebook"
    typed[0]["source"] = grading._source(typed[0]).replace('params.learner_id("")', f'params.learner_id("{learner}")')
    return grading.copy_notebook(student, work / f"{lab}.ipynb")


@pytest.fixture(scope="module")
def graded(tmp_path_factory, otter_assigned):
    """{(lab, kind): GradeResult or GradingError}: bob's notebook of each lab graded with his typed id
    and as alice; on ID_SOURCE_LABS also as bob by $CEPHLAB_LEARNER and handed in by each."""
    work = tmp_path_factory.mktemp("params")
    labs = sorted(PARAMETERISED)
    for lab in labs:                # the lab's otter assign must have worked (its error raised)
        assigned_zip(otter_assigned, lab)
    notebooks = {}
    for lab in labs:
        folder = work / lab
        folder.mkdir()
        notebooks[lab] = answered_for(lab, BOB, folder)
    out = {}
    for kind, learner in KINDS.items():
        with pytest.MonkeyPatch.context() as mp:    # the forked graders inherit this environment
            mp.delenv("JUPYTERHUB_USER", raising=False)
            if learner:
                mp.setenv("CEPHLAB_LEARNER", learner)
            else:
                mp.delenv("CEPHLAB_LEARNER", raising=False)
            these = labs if kind in EVERY_LAB_KINDS else [lab for lab in labs if lab in ID_SOURCE_LABS]
            jobs = [(notebooks[lab], grading.solution_path(lab)) for lab in these]
            for lab, outcome in zip(these, grading.run_gradings(jobs, parallel=2, timeout=600)):
                out[lab, kind] = outcome
    # `cephlab grade --learner-from-folder`: bob's answers (and bob's typed id) handed in by bob
    # and by alice; the id comes from the submission's folder, so alice's copy scores 0
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("JUPYTERHUB_USER", raising=False)
        mp.delenv("CEPHLAB_LEARNER", raising=False)
        jobs, keys = [], []
        for learner in (BOB, ALICE):
            for lab in ID_SOURCE_LABS:
                copy = work / "submissions" / learner / f"{lab}.ipynb"
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(notebooks[lab].read_bytes())
                jobs.append((copy, grading.solution_path(lab)))
                keys.append((lab, f"handed in by {learner}"))
        for key, outcome in zip(keys, grading.run_gradings(jobs, parallel=2, timeout=600,
                                                           learner_of=grading.learner_from_folder)):
            out[key] = outcome
    assert "CEPHLAB_LEARNER" not in os.environ or os.environ["CEPHLAB_LEARNER"] != ALICE
    return out


def outcome(graded, lab, kind):
    r = graded[lab, kind]
    if isinstance(r, Exception):
        raise r
    return r


def parameterised(r, lab):
    """(score, possible) of the lab's parameterised questions in a GradeResult."""
    scores = [r.questions[q] for q in PARAMETERISED[lab]]
    return sum(s for s, _ in scores), sum(p for _, p in scores)


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("lab", sorted(PARAMETERISED))
def test_right_for_own_parameters_gets_full_marks(graded, lab):
    for kind in ("typed id", "as bob", "handed in by bob"):
        if kind not in EVERY_LAB_KINDS and lab not in ID_SOURCE_LABS:
            continue
        r = outcome(graded, lab, kind)
        # every question; not the gap, read from a run's record this never-executed notebook lacks
        asked = {q: v for q, v in r.questions.items() if q != measured.QUESTION}
        assert all(s == p for s, p in asked.values()) and sum(p for _, p in asked.values()) > 0, \
            f"{lab}, {kind}: {r.questions}"


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("lab", sorted(PARAMETERISED))
def test_right_for_another_learner_scores_zero(graded, lab):
    score, possible = parameterised(outcome(graded, lab, "as alice"), lab)
    assert possible > 0 and score == 0, f"{lab}: bob's answers graded as alice: {graded[lab, 'as alice'].questions}"


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("lab", ID_SOURCE_LABS)
def test_a_typed_id_cannot_borrow_another_learners_parameters(graded, lab):
    """alice hands in bob's notebook, bob's id typed in it: graded by the folder it came from,
    it scores 0 (the typed id alone would have given her bob's full marks)."""
    score, possible = parameterised(outcome(graded, lab, "handed in by alice"), lab)
    assert possible > 0 and score == 0, \
        f"{lab}: bob's notebook handed in by alice: {graded[lab, 'handed in by alice'].questions}"
