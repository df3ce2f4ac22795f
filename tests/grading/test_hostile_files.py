"""One class's run against hostile files and hostile answer cells, graded as the instructor guide
says: `cephlab grade submissions/ --learner-from-folder --out grades/`, sandboxed, with the
instructor's secrets in the grader's environment, standard input and a file beside the class.

The batch holds two honest learners (ann, cat: every answer from the solution) in labs 01 and 08,
and beside them, per learner folder, one kind of attack:
- files that are not notebooks, in every lab: a JSON file that is no notebook, a notebook without
  metadata, a FIFO, links to /dev/zero, to the instructor's file and to a classmate's notebook, a
  folder, 100 MiB of nothing, JSON nested 100,000 deep, bytes that are not UTF-8, a 5,000-digit
  number;
- answer cells (labs 01 and 08) that turn every path the old grader read back (/grading/out/...,
  the runner's log) into a FIFO, a folder, links to /dev/zero, to /proc/self/environ and to the
  other jobs' folders (found in the sandbox's mount table), write forged and malformed answer
  lines (a set holding a list, a 400-digit number, 100,000 levels of nesting, 5,000 digits,
  another learner's id) on the answers descriptor, read the grader's standard input and every process's environment, and
  hand in answers of 200,000 numbers each.

Each must end with the attacker at 0 and a row saying why, both honest learners in full, every
gradebook and feedback file written, nothing of the instructor's in any of them, and the run
ended within its bound (the subprocess's timeout)."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time

import pytest

from cephlab.course import grading
from cephlab.course.notebooks import LABS, ROOT, solution_notebooks
from tests.grading.conftest import HOSTILE as SUMMARY
from tests.grading.test_attacks import with_attack

ALL_LABS = [p.stem for p in solution_notebooks()]
CELL_LABS = ("01-redundancy", "08-failure-and-recovery")
HONEST = ("ann", "cat")
SECRET = "INSTRUCTOR-SECRET-7f3a9c"

# folder (the attacker's learner id): (what the gradebook's status must say, how to write the file)
FILE_ATTACKS = {
    "not-a-notebook": ("not a Jupyter notebook", lambda p, c: p.write_text('{"hello": 1}')),
    "no-metadata": ("not a Jupyter notebook", lambda p, c: p.write_text(json.dumps(
        {k: v for k, v in c["student"].items() if k != "metadata"}))),
    "fifo": ("FIFO", lambda p, c: os.mkfifo(p)),
    "link-dev-zero": ("symbolic link", lambda p, c: p.symlink_to("/dev/zero")),
    "link-instructor-file": ("symbolic link", lambda p, c: p.symlink_to(c["secret"])),
    "link-classmate": ("symbolic link", lambda p, c: p.symlink_to(c["work"] / "ann" / p.name)),
    "folder": ("a folder", lambda p, c: p.mkdir()),
    "sparse-100-mib": ("more than the 64 MiB", lambda p, c: os.truncate(p.touch() or p, 100 * 2**20)),
    "deep-json": ("not JSON", lambda p, c: p.write_text("[" * 100_000 + "]" * 100_000)),
    "not-utf8": ("not UTF-8", lambda p, c: p.write_bytes(b"\xff\xfe" + json.dumps(c["student"]).encode())),
    "huge-number": ("not JSON", lambda p, c: p.write_text('{"cells": [], "n": ' + "9" * 5000 + "}")),
}

CELL_ATTACK = r'''
import glob, json, os
_secret_paths = []
_job = [l.split()[3] for l in open("/proc/self/mountinfo") if " /grading " in l]
_others = [_job[0].replace("/box", "").rstrip("0123456789") + str(n) for n in range(40)] if _job else []
_kinds = ["fifo", "dir", "/dev/zero", "/proc/self/environ"] + [o + "/out/answers.jsonl" for o in _others]
os.makedirs("/grading/out", exist_ok=True)
for _i, _path in enumerate(["/grading/out/answers.jsonl", "/grading/out/learner.json",
                            "/grading/out/MEMORY_ERROR", "/grading/runner.log", "/grading/out/results.json"]):
    for _kind in _kinds[_i % 4:] + _kinds[:_i % 4]:
        try:
            if os.path.isdir(_path) and not os.path.islink(_path):
                os.rmdir(_path)
            elif os.path.lexists(_path):
                os.unlink(_path)
            if _kind == "fifo":
                os.mkfifo(_path)
            elif _kind == "dir":
                os.mkdir(_path)
            else:
                os.symlink(_kind, _path)
            break
        except OSError:
            pass
for _line in ('{"question": "q1", "values": {"q1_x": {"set": [{"tuple": [[1]]}]}}, "problems": {}}',
              '{"question": "q1", "values": {"q1_x": ' + "9" * 400 + '}, "problems": {}}',
              '{"question": "q1", "values": {"q1_x": ' + "9" * 5000 + '}, "problems": {}}',
              "[" * 100_000, '{"learner": "ann"}'):
    try:
        os.write(3, (_line + "\n").encode())
    except OSError:
        pass
'''
PROBE = r'''
import os, sys, glob
os.set_blocking(0, False)
try:
    _stdin = os.read(0, 200)
except OSError as _e:
    _stdin = type(_e).__name__.encode()
_environ = b""
for _p in glob.glob("/proc/[0-9]*/environ"):
    try:
        _environ += open(_p, "rb").read()
    except OSError:
        pass
print(f"PROBE stdin={_stdin!r} environ_secret={'SECRET' in _environ.decode(errors='replace')}", flush=True)
os._exit(1)
'''


def answered(lab: str) -> dict:
    master = grading.read(grading.solution_path(lab))
    student = grading.read(LABS / lab / f"{lab}.ipynb")
    return grading.fill_answers(student, master, list(grading.question_points(master)))


def hostile_cells(lab: str, big_values: bool) -> dict:
    """The student notebook with CELL_ATTACK in its first answer cell and PROBE in its last; every
    answer variable left unanswered, or (big_values) a list of 200,000 numbers."""
    master = grading.read(grading.solution_path(lab))
    nb = grading.read(LABS / lab / f"{lab}.ipynb")
    if big_values:
        return with_attack(master, nb, value="[1.5] * 200_000")
    return with_attack(master, nb, head=CELL_ATTACK, tail=PROBE)


@pytest.fixture(scope="module")
def class_run(tmp_path_factory):
    work = tmp_path_factory.mktemp("hostile") / "submissions"
    secret = work.parent / "instructor-secret.txt"
    secret.write_text(SECRET)
    ctx = {"work": work, "secret": secret}
    for lab in CELL_LABS:
        for learner in HONEST:
            (work / learner).mkdir(parents=True, exist_ok=True)
            grading.copy_notebook(answered(lab), work / learner / f"{lab}.ipynb")
        for learner, big in (("mal-cells", False), ("mal-values", True)):
            (work / learner).mkdir(parents=True, exist_ok=True)
            grading.copy_notebook(hostile_cells(lab, big), work / learner / f"{lab}.ipynb")
    for name, (_, write) in FILE_ATTACKS.items():
        (work / name).mkdir(parents=True)
        for lab in ALL_LABS:
            ctx["student"] = grading.read(LABS / lab / f"{lab}.ipynb")
            write(work / name / f"{lab}.ipynb", ctx)
    env = dict(os.environ, INSTRUCTOR_TOKEN=SECRET)
    t0 = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "cephlab.cli", "grade", str(work), "--learner-from-folder",
                          "--out", str(work.parent / "grades"), "--timeout", "120"],
                         cwd=ROOT, input=SECRET, capture_output=True, text=True, timeout=1500, env=env)
    SUMMARY["seconds"] = time.monotonic() - t0
    SUMMARY["submissions"] = sum(1 for _ in work.glob("*/*.ipynb"))
    return work.parent / "grades", run


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return {r["learner"]: r for r in csv.DictReader(f)}


@pytest.mark.timeout(1800)
def test_the_run_ends_and_writes_every_file(class_run):
    out, run = class_run
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]      # 1: some were not graded
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    for lab in ALL_LABS:
        assert set(rows(out / f"gradebook-{lab}.csv")) >= set(FILE_ATTACKS), lab
    assert (out / "gradebook.csv").exists()
    learners = set(FILE_ATTACKS) | set(HONEST) | {"mal-cells", "mal-values"}
    assert {p.name for p in (out / "feedback").iterdir()} == learners


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("lab", CELL_LABS)
def test_the_honest_learners_keep_full_marks(class_run, lab):
    out, _ = class_run
    table = rows(out / f"gradebook-{lab}.csv")
    for learner in HONEST:
        row = table[learner]
        questions = grading.question_points(grading.read(grading.solution_path(lab)))
        assert row["status"] == "graded", row
        assert {q: float(row[q]) for q in questions} == {q: float(p) for q, p in questions.items()}, row


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("name", list(FILE_ATTACKS))
def test_a_hostile_file_is_its_own_row_with_the_reason(class_run, name):
    out, _ = class_run
    expected = FILE_ATTACKS[name][0]
    for lab in ALL_LABS:
        row = rows(out / f"gradebook-{lab}.csv")[name]
        assert row["status"].startswith("not graded") and expected in row["status"], (lab, row)
        assert expected in (out / "feedback" / name / f"{lab}.md").read_text()


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("lab", CELL_LABS)
@pytest.mark.parametrize("learner", ["mal-cells", "mal-values"])
def test_hostile_cells_score_zero_and_reach_nothing(class_run, lab, learner):
    out, _ = class_run
    row = rows(out / f"gradebook-{lab}.csv")[learner]
    assert row["status"] == "graded" and float(row["score"]) == 0, row
    if learner == "mal-cells":
        # the probe ran and found no standard input and no secret in any environment
        assert "PROBE stdin=b'' environ_secret=False" in row["warnings"], row["warnings"]


@pytest.mark.timeout(1800)
def test_nothing_of_the_instructors_reaches_a_gradebook_or_a_feedback_file(class_run):
    out, _ = class_run
    found = [p for p in out.rglob("*") if p.is_file() and SECRET in p.read_text(errors="replace")]
    assert found == []
