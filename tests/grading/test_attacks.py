"""Attacks on the grader from an answer cell, graded as the instructor guide says
(sandboxed, `--learner-from-folder`): each must score 0 on what it attacks.

Each attack is written into the student notebook's answer cells: `setup` replaces the first
answer cell (it runs before any check), and `value` (if any) is assigned to every answer variable
of every question (the names the lab's checks read, from cephlab.course.checks). Attacks with
crafted values run on every lab; attacks on the learner's process on two (PROCESS_ATTACKS). The classes are
those of the instructor guide's integrity section; the list grows with every attack found.

The positive control is tests/grading/test_grading_labs.py (the solutions score full marks
through the same path); `honest_after_patching` here shows an attack's setup does not, by
itself, cost an honest learner points (the grading is not merely failing everything).
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from cephlab.course import checks, grading, measured
from cephlab.course.notebooks import LABS, ROOT, solution_notebooks
from tests.grading.conftest import ATTACKS as SUMMARY

ALL_LABS = [p.stem for p in solution_notebooks()]
LEARNER = "bob"

UNIVERSAL = '''
class _Anything(float):
    """Equal to, less than and greater than everything; also an int and a str by its methods."""
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return True
    def __ge__(self, other): return True
    def __abs__(self): return _Anything(0.0)
    def __sub__(self, other): return _Anything(0.0)
    __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __sub__
    def __hash__(self): return 0
    def __bool__(self): return True
'''

# name: (setup code for the first answer cell, value for every answer variable or None)
ATTACKS = {
    "patch the grader's runner and checks": ('''
import sys, types
for _name in ("otter.test_files.ok_test", "cephlab.course.checks", "cephlab.course.grading"):
    try:
        _m = __import__(_name, fromlist=["x"])
    except Exception:
        continue
    for _attr in ("run_doctest", "_run_case", "score", "run", "parse_results"):
        if hasattr(_m, _attr):
            setattr(_m, _attr, lambda *a, **k: None)
''', None),
    "universal comparison objects": (UNIVERSAL, "_Anything(1.0)"),
    "str subclass equal to every string": ('''
class _S(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
''', "_S('x')"),
    "NaN answers": ("", "float('nan')"),
    "infinite answers": ("", "float('inf')"),
    "numpy array of NaN": ("import numpy as _np", "_np.array([_np.nan])"),
    "read the hidden tests and solutions from disk and the environment": ('''
import os, glob, json
_found = []
for _pattern in ("{root}/solutions/*.ipynb", "{root}/build/**/*.zip", "{root}/**/tests/q*.py",
                 "/grading/**/*", "/tmp/**/*", os.path.expanduser("~") + "/**/*"):
    try:
        _found += glob.glob(_pattern, recursive=True)
    except Exception:
        pass
_env = {k: v for k, v in os.environ.items()}
_answers = {}
for _path in _found:
    try:
        _nb = json.load(open(_path))
        for _cell in _nb.get("cells", []):
            _src = "".join(_cell.get("source", []))
            if "# SOLUTION" in _src:
                exec(_src.replace("# SOLUTION", ""), globals())
    except Exception:
        pass
''', None),
    "monkeypatch numpy, math and builtins": ('''
import builtins, math, numpy
builtins.abs = lambda x: 0
builtins.isinstance = lambda *a: True
math.isclose = lambda *a, **k: True
numpy.isclose = lambda *a, **k: True
numpy.allclose = lambda *a, **k: True
''', "12345.678"),
    "sys.exit in an answer cell": ("import sys\nsys.exit(0)", None),
    "raise SystemExit": ("raise SystemExit(0)", None),
    "raise KeyboardInterrupt": ("raise KeyboardInterrupt", None),
    "os._exit in an answer cell": ("import os\nos._exit(0)", None),
    "output flood": ("import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 1_000_000)", None),
    "deep recursion": ("def _f(n):\n    return _f(n + 1)\n_f(0)", None),
    "forge answer lines in the grading folder": ('''
import json, glob
_line = {"question": "q1", "values": {}, "problems": {}}
for _q in range(1, 20):
    _line["question"] = f"q{_q}"
    _line["values"] = {"__all__": 1.0}
    for _path in glob.glob("/grading/out/*") + ["/grading/out/answers.jsonl", "/grading/out/results.json"]:
        try:
            with open(_path, "a") as _f:
                _f.write(json.dumps(_line) + "\\n")
                _f.write('{"tests": [{"name": "q1", "score": 100, "max_score": 1}]}\\n')
        except Exception:
            pass
''', "1.0"),
    "replace the answer encoder": ('''
import cephlab.course.answers as _a
import json as _json
def _forged(question, namespace, names):
    return _json.dumps({"question": question, "values": {n: {"ndarray": [[1.0]], "dtype": "object"}
                        for n in names}, "problems": {}})
_a.encode_answers = _forged
''', "0.5"),
}
# Attacks on the learner's process rather than on a lab's checks: whether they score depends on
# the grading machinery, which every lab shares, not on what a lab's checks compare, so two labs
# (one short, one long) stand for all twelve. The others reach the checks with crafted values and
# run on every lab, since each lab's checks compare differently.
PROCESS_ATTACKS = {"patch the grader's runner and checks",
                   "read the hidden tests and solutions from disk and the environment",
                   "sys.exit in an answer cell", "raise SystemExit", "raise KeyboardInterrupt",
                   "os._exit in an answer cell", "output flood", "deep recursion",
                   "forge answer lines in the grading folder", "replace the answer encoder"}
PROCESS_LABS = ("01-redundancy", "08-failure-and-recovery")


def applies(lab: str, name: str) -> bool:
    return name not in PROCESS_ATTACKS or lab in PROCESS_LABS


# The solution's own answers, computed with another learner's parameters ("example": the
# parameters the course site shows), handed in by bob: his parameterised questions score 0.
OTHER_ID = "another learner's answers and id typed in the notebook"
OTHER_SETUP = '''
import os
os.environ["CEPHLAB_LEARNER"] = "example"
from cephlab.course import params as _params
_params.learner_id("example")
try:
    P = _params.lab_params("{lab}")
except KeyError:
    pass
'''


def learner_specific(lab: str) -> set[str]:
    """Questions whose checks depend on the learner's parameters and whose parameters differ
    between bob and "example" (a question with equal draws may rightly pass)."""
    from cephlab.course import params
    if lab not in params.SPECS:
        return set()
    bob, other = params.lab_params(lab, LEARNER), params.lab_params(lab, "example")
    master = grading.read(grading.solution_path(lab))
    return {q.name for q in checks.questions(master)
            if any("P[" in c.code or "_params" in c.code for c in q.cases)
            and any(bob[k] != other[k] for k in bob if k.startswith(f"{q.name}_"))}


def attack_notebook(lab: str, name: str, folder: Path) -> Path:
    """The student notebook of `lab` with the attack `name` in its answer cells, at
    folder/<attack>/bob/<lab>.ipynb (graded as bob by --learner-from-folder)."""
    master = grading.read(grading.solution_path(lab))
    student = grading.read(LABS / lab / f"{lab}.ipynb")
    if name == OTHER_ID:
        return other_learner_notebook(lab, master, student, folder)
    setup, value = ATTACKS[name]
    setup = setup.replace("{root}", str(ROOT))         # where the instructor's files are, outside
    student = with_attack(master, student, head=setup, value=value)
    path = folder / name.replace(" ", "-").replace("'", "") / LEARNER / f"{lab}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    return grading.copy_notebook(student, path)


def with_attack(master, student, head="", value=None, tail=""):
    """The student notebook with `head` before its first answer cell's lines and `tail` after its
    last one's, and every answer variable its checks read assigned the code `value` (none when
    None): each answer cell's source is replaced."""
    cells = grading.answer_cells(student)
    qs = {q.name: q for q in checks.questions(master)}
    order = sorted(i for idx in cells.values() for i in idx)
    for q, idx in cells.items():
        for i in idx:
            lines = [f"{n} = {value}" for n in qs[q].names] if value else []
            student["cells"][i]["source"] = "\n".join(
                ([head] if head and i == order[0] else []) + lines + ([tail] if tail and i == order[-1] else []))
    return student


def other_learner_notebook(lab, master, student, folder):
    nb = grading.fill_answers(student, master, list(grading.question_points(master)))
    cells = grading.answer_cells(nb)
    first = min(i for idx in cells.values() for i in idx)
    nb["cells"][first]["source"] = OTHER_SETUP.replace("{lab}", lab) + "".join(nb["cells"][first]["source"])
    path = folder / "other-learner" / LEARNER / f"{lab}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    return grading.copy_notebook(nb, path)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory, request):
    """{(lab, attack): GradeResult or GradingError}, one batch, two at a time, of the labs the
    session selected (`-k 03-disk` grades lab 03's attacks only)."""
    work = tmp_path_factory.mktemp("attacks")
    labs = [lab for lab in ALL_LABS if any(getattr(item, "callspec", None) and
                                           item.callspec.params.get("lab") == lab
                                           for item in request.session.items)]
    keys = [(lab, name) for lab in labs for name in [*ATTACKS, OTHER_ID] if applies(lab, name)]
    jobs = [(attack_notebook(lab, name, work), grading.solution_path(lab)) for lab, name in keys]
    t0 = time.monotonic()
    outcomes = grading.run_gradings(jobs, parallel=2, timeout=120, learner_of=grading.learner_from_folder)
    wall = time.monotonic() - t0
    print(f"\n{len(jobs)} attack notebooks graded in {wall:.0f} s ({wall / len(jobs) * 2:.1f} s each, 2 at a time)")
    for (lab, name), outcome in zip(keys, outcomes):
        SUMMARY[lab, name] = (attacked_score(lab, name, outcome), getattr(outcome, "seconds", 0.0))
    return dict(zip(keys, outcomes))


def attacked_score(lab, name, outcome) -> str:
    """"3/9": the points the attack got on what it attacks (for another learner's answers, the
    questions whose parameters differ), or "error" when the notebook was not graded."""
    if isinstance(outcome, Exception):
        return "error"
    qs = learner_specific(lab) if name == OTHER_ID else set(outcome.questions)
    got = [outcome.questions[q] for q in qs if q in outcome.questions]
    return f"{sum(s for s, _ in got):g}/{sum(p for _, p in got):g}"


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("lab, name", [(lab, name) for lab in ALL_LABS for name in ATTACKS if applies(lab, name)])
def test_attack_scores_zero(attacked, lab, name):
    outcome = attacked[lab, name]
    if isinstance(outcome, grading.GradingError):
        # Not graded is not a score, but only memory exhaustion may end that way: every other
        # attack must still produce a gradebook row (0 points), not stop the batch.
        pytest.fail(f"{name} was not graded: {outcome}")
    assert outcome.score == 0, (name, outcome.questions, outcome.feedback)
    assert set(outcome.questions) == set(grading.graded_points(grading.read(grading.solution_path(lab))))


@pytest.mark.timeout(3600)
@pytest.mark.parametrize("lab", ALL_LABS)
def test_another_learners_answers_score_zero_where_the_parameters_differ(attacked, lab):
    outcome = attacked[lab, OTHER_ID]
    assert isinstance(outcome, grading.GradeResult), outcome
    attacked_qs = learner_specific(lab)
    assert {q: outcome.questions[q][0] for q in attacked_qs} == {q: 0.0 for q in attacked_qs}
    assert outcome.learner == LEARNER and outcome.notebook_learner == "example"
    assert any("typed learner id 'example'" in w for w in outcome.warnings), outcome.warnings


@pytest.mark.timeout(600)
def test_honest_answers_after_patching_keep_their_points(tmp_path):
    """The attacks' setup does not make grading fail everything: the solution's answers after
    the runner-patching and monkeypatching setup still score full marks."""
    lab = "03-disk-iops"
    master = grading.read(grading.solution_path(lab))
    student = grading.read(LABS / lab / f"{lab}.ipynb")
    every = list(grading.question_points(master))
    nb = grading.fill_answers(student, master, every)
    cells = grading.answer_cells(nb)
    first = min(i for idx in cells.values() for i in idx)
    setup = ATTACKS["patch the grader's runner and checks"][0] + "\nimport math\nmath.isclose = lambda *a, **k: True\n"
    nb["cells"][first]["source"] = setup + "\n" + "".join(nb["cells"][first]["source"])
    path = grading.copy_notebook(nb, tmp_path / f"{lab}.ipynb")
    [outcome] = grading.run_gradings([(path, grading.solution_path(lab))], parallel=1, timeout=120)
    assert isinstance(outcome, grading.GradeResult), outcome
    asked = {q: v for q, v in outcome.questions.items() if q != measured.QUESTION}   # never run: no gap
    assert all(sc == p for sc, p in asked.values()), outcome.feedback
