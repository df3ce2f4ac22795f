"""Grade filled-in lab notebooks with otter-grader, without the lab's cluster measurements.

    result = grade("submissions/alice/01-redundancy.ipynb")
    result.score, result.possible, result.questions     # 6.0, 6.0, {"q1": (1.0, 1.0), ...}

How: the notebook's lab (NN-topic) names its solution, solutions/NN-topic.ipynb. The autograder
is build/autograder/NN-topic.zip when `make student` left one newer than the solution, else a
fresh `otter assign` into a temporary folder. The notebook is graded by `otter run` (no Docker)
on a *grading copy* that ends after the last question: the measurements that follow the
exercises need a cluster, take a minute and are not graded. By default each otter run runs in a
sandbox of its own (cephlab.course.sandbox: bubblewrap, no network, only the submission and the
autograder, a memory limit) started by a child forked from this process; a timeout ends a
grading that hangs. With sandbox=None (`cephlab grade --no-sandbox`) the child runs otter's entry
point itself (otter.run.main, imported once per batch), as the instructor's user with all of
the instructor's files and network. As a second guard the kernel sees $CEPHLAB_NAME set to a
cluster that cannot exist, so a cell that still tries to connect fails at once (otter carries on
past errors) instead of touching the learner's or the class's cluster.

Both notebook kinds grade: a student notebook (otter's `grader.check("qN")` cells) and a
solution, the otter master notebook (`# BEGIN QUESTION` raw cells), which scores full marks.
"""
from __future__ import annotations

import copy
import json
import os
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cephlab.core.errors import CourseError
from cephlab.course import notebooks
from cephlab.course.notebooks import AUTOGRADER, SOLUTIONS, solution_notebooks
from cephlab.course.sandbox import JOB, MEMORY_MARKER, Sandbox, SandboxError, write_shared

SANDBOX = Sandbox()     # the default: every grading isolated (see cephlab.course.sandbox)

# A cluster name no lab cluster ever has: connecting to it fails fast with ClusterNotRunning.
NO_CLUSTER = "grading-without-a-cluster"
CHECK_CALL = re.compile(r"""grader\.check\(\s*["']([^"']+)["']\s*\)""")
INIT_CALL = re.compile(r"""otter\.Notebook\(\s*["']([^"']+)\.ipynb["']""")
SOLUTION_TAIL = re.compile(r"\s*# SOLUTION(?: NO PROMPT)?\s*$")
LAB_STEM = re.compile(r"(\d\d)-[A-Za-z0-9-]+")
DIRECTIVE = re.compile(r"#\s*((?:BEGIN|END)\s+(?:QUESTION|SOLUTION|TESTS|PROMPT)|ASSIGNMENT CONFIG)")


class GradingError(CourseError):
    """A notebook could not be graded (not a lab notebook, no solution, otter failed)."""


@dataclass
class GradeResult:
    notebook: Path
    lab: str
    questions: dict = field(default_factory=dict)   # {"q1": (score, possible)}
    seconds: float = 0.0

    @property
    def score(self):
        return sum(s for s, _ in self.questions.values())

    @property
    def possible(self):
        return sum(p for _, p in self.questions.values())


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _raw_directive(cell):
    """'BEGIN QUESTION', 'END TESTS', ... for an otter raw cell, else None."""
    if cell["cell_type"] != "raw":
        return None
    m = DIRECTIVE.match(_source(cell).strip())
    return " ".join(m.group(1).split()) if m else None


def is_master(nb):
    """True for an otter master (solution) notebook, False for a student notebook."""
    return any(_raw_directive(c) == "BEGIN QUESTION" for c in nb["cells"])


def read(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


# -- which lab ------------------------------------------------------------------------------------
def lab_of(notebook, nb=None):
    """The lab stem (e.g. "01-redundancy") of a notebook: from otter's init cell
    (`otter.Notebook("01-redundancy.ipynb")`, which survives renaming the file), else from the
    file name ("alice-01-redundancy (2).ipynb" works), matched against the solutions."""
    nb = nb if nb is not None else read(notebook)
    stems = {p.stem for p in solution_notebooks()}
    for cell in nb["cells"][:3]:
        m = INIT_CALL.search(_source(cell)) if cell["cell_type"] == "code" else None
        if m and m.group(1) in stems:
            return m.group(1)
    name = Path(notebook).name
    for stem in sorted(stems, key=len, reverse=True):
        if stem in name:
            return stem
    m = LAB_STEM.search(name)
    by_number = [s for s in stems if m and s.startswith(m.group(1) + "-")]
    if len(by_number) == 1:
        return by_number[0]
    raise GradingError(f"cannot tell which lab {name} is: name it NN-topic.ipynb like its lab "
                       f"(one of {', '.join(sorted(stems)) or 'no solutions found'})")


def solution_path(lab, solutions=SOLUTIONS):
    path = Path(solutions) / f"{lab}.ipynb"
    if not path.exists():
        raise GradingError(f"no solution {path} for lab {lab}: run `make solutions` (or check the name)")
    return path


# -- the autograder -------------------------------------------------------------------------------
def otter_assign(solution, out):
    """`otter assign` of one solution into out/ (course/notebooks.py does it; GradingError here)."""
    try:
        return notebooks.otter_assign(solution, out)
    except RuntimeError as e:
        raise GradingError(str(e)) from e


def cached_autograder(solution, cached=AUTOGRADER):
    """cached/<lab>.zip if `make student` made it after the solution's last change, else None."""
    zipped = Path(cached) / f"{Path(solution).stem}.zip" if cached else None
    if zipped and zipped.exists() and zipped.stat().st_mtime >= Path(solution).stat().st_mtime:
        return zipped
    return None


def autograder_zip(solution, workdir, cached=AUTOGRADER):
    """The autograder zip for a solution: cached/<lab>.zip if newer than the solution, else a
    fresh one made by otter assign under workdir."""
    solution = Path(solution)
    zipped = cached_autograder(solution, cached)
    if zipped:
        return zipped
    out = otter_assign(solution, Path(workdir) / f"assign-{solution.stem}")
    zips = sorted((out / "autograder").glob("*.zip"))
    if not zips:
        raise GradingError(f"otter assign made no autograder zip for {solution.name} in {out}")
    return zips[-1]


# -- the grading copy -----------------------------------------------------------------------------
def grading_copy(nb):
    """The notebook up to its last question, ready for otter run.

    Student notebook: every cell up to the last `grader.check(...)` cell. Master notebook: the
    code cells up to the last `# END QUESTION`, without otter's raw cells and test cells (the
    autograder runs its own tests, hidden ones included)."""
    nb = copy.deepcopy(nb)
    cells = nb["cells"]
    if is_master(nb):
        ends = [i for i, c in enumerate(cells) if _raw_directive(c) == "END QUESTION"]
        if not ends:
            raise GradingError("a master notebook without `# END QUESTION`: the otter format is broken")
        kept, in_tests = [], False
        for cell in cells[:ends[-1] + 1]:
            directive = _raw_directive(cell)
            if directive in ("BEGIN TESTS", "END TESTS"):
                in_tests = directive == "BEGIN TESTS"
            elif cell["cell_type"] == "code" and not in_tests:
                kept.append(cell)
            elif cell["cell_type"] == "markdown":
                kept.append(cell)
    else:
        checks = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and CHECK_CALL.search(_source(c))]
        if not checks:
            raise GradingError("no `grader.check(...)` cell found: is this a student lab notebook?")
        kept = cells[:checks[-1] + 1]
    for cell in kept:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    nb["cells"] = kept
    nb["metadata"].pop("widgets", None)
    return nb


def grading_env():
    env = dict(os.environ, CEPHLAB_GRADING="1", CEPHLAB_NAME=NO_CLUSTER, CEPHLAB_BACKEND="native")
    env.pop("CEPH_CONF", None)
    return env


def _child_main(target, args, log_path, extra_env=None):
    """Body of a forked child: target(*args) with the grading environment (plus extra_env),
    output to log_path. The child leads its own process group, which a timeout kills; a kernel it
    started (in a session of its own) then exits by itself, as ipykernel does when its parent dies."""
    os.setpgrp()
    env = {**grading_env(), **(extra_env or {})}
    os.environ.clear()
    os.environ.update(env)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    target(*args)


class _Child:
    """target(*args) in a forked child, started at once; poll() until it has ended."""

    def __init__(self, ctx, target, args, log_path, extra_env=None):
        self.log_path, self.t0 = Path(log_path), time.monotonic()
        self.process = ctx.Process(target=_child_main, args=(target, args, str(log_path), extra_env))
        self.process.start()

    @property
    def elapsed(self):
        return time.monotonic() - self.t0

    def poll(self, timeout):
        """None while running; then its exit code, or "timeout" after killing it."""
        if self.process.is_alive():
            if self.elapsed <= timeout:
                return None
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.join()
            return "timeout"
        self.process.join()
        return self.process.exitcode

    def log_tail(self, n=3000):
        return self.log_path.read_text(errors="replace")[-n:] if self.log_path.exists() else ""


def _run_children(tasks, parallel, timeout, preload):
    """Run tasks [(start(ctx) -> _Child, finish(child, status) -> outcome)], `parallel` at a time
    (status: the exit code, "timeout", or the GradingError start raised, with child None),
    each child forked from this process after `preload` (if any) was imported here once (so no
    child pays otter's import). Returns the outcomes in order. Call from the main thread, with no
    other threads running (fork)."""
    import importlib
    import multiprocessing
    if preload:
        importlib.import_module(preload)
    ctx = multiprocessing.get_context("fork")
    outcomes, pending = [None] * len(tasks), list(enumerate(tasks))
    running: dict[int, tuple[_Child, Any]] = {}     # task index -> (child, its finish)
    while pending or running:
        while pending and len(running) < max(1, parallel):
            i, (start, finish) = pending.pop(0)
            try:
                running[i] = (start(ctx), finish)
            except (GradingError, OSError, ValueError) as err:   # finish() reports it
                outcomes[i] = finish(None, err if isinstance(err, GradingError) else GradingError(str(err)))
        for i, (child, finish) in list(running.items()):
            status = child.poll(timeout)
            if status is not None:
                del running[i]
                outcomes[i] = finish(child, status)
        time.sleep(0.05)
    return outcomes


def _assign_child(solution, out):
    from otter.assign import main
    main(str(solution), str(out), no_run_tests=True, no_pdfs=True)


def assign_many(solutions, workdir, parallel=2, timeout=600):
    """otter assign of each solution into workdir/assign-<lab>/ (forked, `parallel` at a time);
    returns {solution: its autograder zip, or a GradingError}."""
    workdir = Path(workdir)

    def task(solution):
        out = workdir / f"assign-{Path(solution).stem}"

        def start(ctx):
            out.parent.mkdir(parents=True, exist_ok=True)
            return _Child(ctx, _assign_child, (solution, out), workdir / f"assign-{Path(solution).stem}.log")

        def finish(child, status):
            if isinstance(status, GradingError):
                return status
            zips = sorted((out / "autograder").glob("*.zip"))
            if status != 0 or not zips:
                return GradingError(f"otter assign failed for {Path(solution).name} ({status}):\n{child.log_tail()}")
            return zips[-1]
        return start, finish
    outcomes = _run_children([task(s) for s in solutions], parallel, timeout, "otter.assign")
    return dict(zip(solutions, outcomes))


def _run_child(copy_path, autograder, out):
    from otter.run import main
    main(str(copy_path), autograder=str(autograder), output_dir=str(out), no_logo=True)


def _sandboxed_child(sandbox: Sandbox, argv: list[str]):
    """Body of a forked child: the sandbox's limits on this process, then exec bwrap (argv)."""
    sandbox.limit()
    os.execv(argv[0], argv)


def _start_otter(ctx, sandbox, job: Path, lab: str, autograder, shared: Path, learner=None):
    """Start `otter run` on job/submission/<lab>.ipynb; results go to job/out/. learner: the
    id whose parameters the hidden tests use ($CEPHLAB_LEARNER), else the notebook's own."""
    (job / "out").mkdir()
    extra = {"CEPHLAB_LEARNER": learner} if learner else {}
    if sandbox is None:
        return _Child(ctx, _run_child, (job / "submission" / f"{lab}.ipynb", autograder, job / "out"),
                      job / "otter.log", extra)
    argv = [sys.executable, "-m", "otter", "run", f"{JOB}/submission/{lab}.ipynb", "-a",
            f"{JOB}/autograder.zip", "-o", f"{JOB}/out", "--no-logo"]
    env = {k: v for k, v in {**grading_env(), **extra}.items() if k.startswith("CEPHLAB_")}
    cmd = sandbox.command(job, argv, shared, env, ro={f"{JOB}/autograder.zip": Path(autograder).resolve()})
    return _Child(ctx, _sandboxed_child, (sandbox, cmd), job / "otter.log")


def _outcome(notebook, lab, job: Path, child, status, timeout, sandbox):
    """A GradeResult, or the GradingError that says why the notebook has none."""
    if isinstance(status, GradingError):
        return status
    if status == "timeout":
        return GradingError(f"grading {notebook} took longer than {timeout:g} s: an answer "
                            "cell may loop forever (raise --timeout if it is just slow)")
    marker = job / "out" / MEMORY_MARKER
    if sandbox is not None and marker.exists():
        cells = marker.read_text(errors="replace").strip().splitlines()
        return GradingError(f"{notebook} ran out of memory: a cell went past the sandbox's limit of "
                            f"{sandbox.memory_mib} MiB per process (MemoryError in {cells[0][:80]}); "
                            "look at that cell, or raise --memory if the answer really needs more")
    results = job / "out" / "results.json"
    if status != 0 or not results.exists():
        return GradingError(f"otter run failed on {notebook}:\n{child.log_tail()}")
    try:
        return GradeResult(notebook, lab, parse_results(json.loads(results.read_text())), child.elapsed)
    except GradingError as err:
        return GradingError(f"{notebook}: {err}")


def run_gradings(jobs, parallel=2, timeout=300, on_result=None, sandbox=SANDBOX, learner_of=None):
    """Grade [(notebook, autograder zip)], `parallel` at a time; returns a GradeResult or a
    GradingError per job, in order. Each grading is `otter run` in a child forked from this
    process: in its own sandbox (cephlab.course.sandbox), or with sandbox=None otter's entry point
    otter.run.main in the child itself (imported once here for all of them). learner_of(notebook):
    the learner id to grade it as (their parameters), or None for the id typed in the notebook.
    Raises GradingError when the sandbox cannot run on this machine."""
    with tempfile.TemporaryDirectory(prefix="cephlab-grade-") as tmp:
        shared = write_shared(Path(tmp) / "sandbox")
        if sandbox is not None:
            try:
                sandbox.check(shared)
            except SandboxError as err:
                raise GradingError(str(err)) from err

        def task(i, notebook, autograder):
            notebook, job = Path(notebook), Path(tmp) / f"job{i}"
            state = {}

            def start(ctx):
                nb = read(notebook)
                state["lab"] = lab_of(notebook, nb)
                copy_path = job / "submission" / f"{state['lab']}.ipynb"
                copy_path.parent.mkdir(parents=True)
                copy_path.write_text(json.dumps(grading_copy(nb)), encoding="utf-8")
                learner = learner_of(notebook) if learner_of else None
                return _start_otter(ctx, sandbox, job, state["lab"], autograder, shared, learner)

            def finish(child, status):
                outcome = _outcome(notebook, state.get("lab"), job, child, status, timeout, sandbox)
                if on_result:
                    on_result(notebook, outcome)
                return outcome
            return start, finish
        outcomes = _run_children([task(i, nb, ag) for i, (nb, ag) in enumerate(jobs)], parallel, timeout,
                                 "otter.run" if sandbox is None else None)
    return outcomes


def parse_results(results):
    """{"q1": (score, possible)} from otter's results.json (Gradescope format)."""
    tests = results.get("tests", [])
    failed = [t for t in tests if t.get("name") == "Autograder Exception"]
    if failed:
        raise GradingError("otter could not grade the notebook:\n" + failed[0].get("output", ""))
    return {t["name"]: (float(t["score"]), float(t["max_score"])) for t in tests if "max_score" in t}


def grade(notebook, autograder=None, workdir=None, timeout=300, sandbox=SANDBOX, learner_of=None):
    """Grade one notebook; returns a GradeResult, raises GradingError. autograder: a zip (default:
    found or made for the notebook's lab); workdir: where to make it (default: a temporary folder);
    sandbox: None grades without one (learners' code runs as you); learner_of: as run_gradings."""
    notebook = Path(notebook)
    with tempfile.TemporaryDirectory(prefix="cephlab-assign-") as tmp:
        if autograder is None:
            autograder = autograder_zip(solution_path(lab_of(notebook)), Path(workdir or tmp))
        [outcome] = run_gradings([(notebook, autograder)], parallel=1, timeout=timeout, sandbox=sandbox,
                                 learner_of=learner_of)
    if isinstance(outcome, GradingError):
        raise outcome
    return outcome


# -- answers from the solution (tests, and instructors checking a lab's grading) ------------------
def solution_answers(master):
    """{"q1": [code, ...]}: each question's solution cells, as a learner would type them."""
    answers: dict[str, list[str]] = {}
    question, in_solution = None, False
    for cell in master["cells"]:
        directive = _raw_directive(cell)
        if directive == "BEGIN QUESTION":
            body = _source(cell).split("\n", 1)[1] if "\n" in _source(cell) else ""
            question = (yaml.safe_load(body) or {}).get("name")
        elif directive in ("BEGIN SOLUTION", "END SOLUTION"):
            in_solution = directive == "BEGIN SOLUTION"
        elif in_solution and cell["cell_type"] == "code" and question:
            lines = [SOLUTION_TAIL.sub("", line) for line in _source(cell).splitlines()
                     if line.strip() not in ("# BEGIN SOLUTION", "# END SOLUTION")]
            answers.setdefault(question, []).append("\n".join(lines))
    return answers


def question_points(master):
    """{"q1": points} as the master notebook declares them."""
    points = {}
    for cell in master["cells"]:
        if _raw_directive(cell) == "BEGIN QUESTION":
            meta = yaml.safe_load(_source(cell).split("\n", 1)[1]) or {}
            points[meta["name"]] = meta.get("points", 1)
    return points


def questions_without_hidden_tests(master):
    """Questions of a master notebook with no test cell starting with `# HIDDEN`."""
    missing, question, in_tests, hidden = [], None, False, False
    for cell in master["cells"]:
        directive = _raw_directive(cell)
        if directive == "BEGIN QUESTION":
            question, hidden = (yaml.safe_load(_source(cell).split("\n", 1)[1]) or {}).get("name"), False
        elif directive in ("BEGIN TESTS", "END TESTS"):
            in_tests = directive == "BEGIN TESTS"
        elif directive == "END QUESTION" and question and not hidden:
            missing.append(question)
        elif in_tests and cell["cell_type"] == "code" and _source(cell).lstrip().startswith("# HIDDEN"):
            hidden = True
    return missing


def answer_cells(student):
    """{"q1": [cell index, ...]}: a student notebook's answer cells, by the check that follows."""
    found: dict[str, list[int]] = {}
    pending: list[int] = []
    for i, cell in enumerate(student["cells"]):
        if cell["cell_type"] != "code":
            continue
        m = CHECK_CALL.search(_source(cell))
        if m:
            found.setdefault(m.group(1), []).extend(pending)
            pending = []
        elif "otter_answer_cell" in cell.get("metadata", {}).get("tags", []):
            pending.append(i)
    return found


def fill_answers(student, master, questions):
    """A copy of a student notebook with the given questions answered from the master."""
    student = copy.deepcopy(student)
    answers, cells = solution_answers(master), answer_cells(student)
    for q in questions:
        if len(cells.get(q, [])) != len(answers.get(q, [])):
            raise GradingError(f"{q}: {len(cells.get(q, []))} answer cells in the student notebook, "
                               f"{len(answers.get(q, []))} solution cells in the master: "
                               "regenerate labs/ (make student)")
        for index, code in zip(cells[q], answers[q]):
            student["cells"][index]["source"] = code
    return student


def copy_notebook(nb, path):
    Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    return Path(path)



# -- many notebooks -------------------------------------------------------------------------------
def find_notebooks(paths):
    """Notebooks named by paths: files as given, folders searched recursively (no checkpoints)."""
    found = []
    for p in map(Path, paths):
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        elif p.exists():
            found.append(p)
        else:
            raise GradingError(f"{p}: no such notebook or folder")
    return found


def learner_from_folder(notebook):
    """The learner id of a submission laid out as <folder>/<learner>/NN-topic.ipynb (what an LMS
    or nbgrader's exchange gives): the id comes from where the submission was collected, not
    from what its author typed into it (which could be another learner's)."""
    return Path(notebook).resolve().parent.name


def grade_many(notebooks, jobs=2, timeout=300, workdir=None, on_result=None, sandbox=SANDBOX,
               learner_of=None):
    """Grade notebooks `jobs` at a time, making each lab's autograder once (sandboxed unless
    sandbox is None). Returns
    [(notebook, GradeResult or GradingError)] in the given order; on_result(notebook, outcome) is
    called as each one finishes."""
    def attempt(fn, *args):
        try:
            return fn(*args)
        except (GradingError, OSError, ValueError) as err:
            return err if isinstance(err, GradingError) else GradingError(str(err))

    with tempfile.TemporaryDirectory(prefix="cephlab-assign-") as tmp:
        workdir = Path(workdir or tmp)
        labs = {nb: attempt(lab_of, nb) for nb in notebooks}
        wanted = sorted({lab for lab in labs.values() if isinstance(lab, str)})
        solutions = {lab: attempt(solution_path, lab) for lab in wanted}
        zips = {lab: cached_autograder(sol) if isinstance(sol, Path) else sol for lab, sol in solutions.items()}
        missing = [lab for lab, z in zips.items() if z is None]
        made = assign_many([solutions[lab] for lab in missing], workdir, parallel=jobs)
        zips.update({lab: made[solutions[lab]] for lab in missing})
        outcomes = {}
        for nb, lab in labs.items():
            problem = lab if not isinstance(lab, str) else zips[lab]
            if isinstance(problem, GradingError):
                outcomes[nb] = problem
                if on_result:
                    on_result(nb, problem)
        gradable = [nb for nb in notebooks if nb not in outcomes]
        graded = run_gradings([(nb, zips[labs[nb]]) for nb in gradable], parallel=jobs,
                              timeout=timeout, on_result=on_result, sandbox=sandbox, learner_of=learner_of)
        outcomes.update(zip(gradable, graded))
    return [(nb, outcomes[nb]) for nb in notebooks]
