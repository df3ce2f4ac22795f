"""Grade filled-in lab notebooks: the learner's code in a sandbox, the checks in the grader.

    result = grade("submissions/alice/01-redundancy.ipynb")
    result.score, result.possible, result.questions     # 8.0, 8.0, {"q1": (1.0, 1.0), ...}
    result.feedback["q3"]                                # the hints of q3's failed checks

Two processes that share nothing but plain data:

1. **The learner's notebook** runs in a sandbox of its own (cephlab.course.sandbox: bubblewrap,
   no network, only the submission and the public packages, memory and file-size limits),
   started by a child forked from this process; a timeout ends it. The submission itself is read
   once, as data (cephlab.course.untrusted: no link, FIFO, device or folder, size-capped, a valid
   notebook), and the sandbox gets a fresh copy of it. It runs the *grading copy*:
   the notebook up to its last question (the measurements after the exercises need a cluster and
   are not graded here), each check cell replaced by an export marker. At each marker,
   cephlab.course.answer_runner writes the variables that question's checks read as one line of
   JSON (cephlab.course.answers) on descriptor 3, an answers file this process opened outside
   the sandbox: no path the learner's code can replace is read back. No test, hidden or public,
   is in the sandbox, and neither is this process's standard input or environment.
2. **The checks** (the solution's test cells, hidden ones included) run in a child forked from
   this process, which never imports or runs learner code, on the answers rebuilt strictly
   from those lines (cephlab.course.checks), with limits of its own on memory, CPU, output and
   time (cephlab.course.limited): decoding and checking a learner's data cannot exhaust the
   instructor's machine. A learner's object never reaches them: patching
   the grader, comparing equal to everything or monkeypatching numpy in an answer cell changes
   nothing the checks see. The master's imports are loaded in this process once per batch
   (checks.preload), so each child starts with them.

With sandbox=None (`cephlab grade --no-sandbox`) step 1 runs in the forked child as the
instructor's user, with all of the instructor's files and network; step 2 is unchanged. As a
second guard the notebook sees $CEPHLAB_NAME set to a cluster that cannot exist, so a cell that
still tries to connect fails at once instead of touching the learner's or the class's cluster.

Both notebook kinds grade: a student notebook (otter's `grader.check("qN")` cells) and a
solution, the otter master notebook (`# BEGIN QUESTION` raw cells), which scores full marks.
The checks always come from the master notebook (the lab's solution, or a quiz's master).

Whatever goes wrong with one submission (a file that is no notebook, a check that met a limit, an
error anywhere in its grading) becomes that submission's GradingError, its row in the gradebook
with the reason; the other submissions are graded and every file is still written.
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
from cephlab.course import answer_runner, answers, checks, limited, measured, params, untrusted
from cephlab.course.notebooks import SOLUTIONS, solution_notebooks
from cephlab.course.sandbox import JOB, Sandbox, SandboxError, write_shared

SANDBOX = Sandbox()     # the default: every grading isolated (see cephlab.course.sandbox)
CHANNEL_CAP = 128 * 2**20       # bytes of answer lines read back from one notebook's run
# Sandbox.warm costs ~1 s once and saves ~0.2 s a notebook (0.5 s where CRUSH places PGs, 3-4 s
# in lab 02): a batch this large or larger has its caches built once for all its gradings.
WARM_FROM = 6

# A cluster name no lab cluster ever has: connecting to it fails fast with ClusterNotRunning.
NO_CLUSTER = "grading-without-a-cluster"
CHECK_CALL = re.compile(r"""grader\.check\(\s*["']([^"']+)["']\s*\)""")
INIT_CALL = re.compile(r"""otter\.Notebook\(\s*["']([^"']+)\.ipynb["']""")
SOLUTION_TAIL = re.compile(r"\s*# SOLUTION(?: NO PROMPT)?\s*$")
LAB_STEM = re.compile(r"(\d\d)-[A-Za-z0-9-]+")


class GradingError(CourseError):
    """A notebook could not be graded (not a lab notebook, no solution, otter failed)."""


@dataclass
class GradeResult:
    notebook: Path
    lab: str
    questions: dict = field(default_factory=dict)   # {"q1": (score, possible)}
    seconds: float = 0.0
    learner: str = ""                  # the id grading used (its parameters)
    notebook_learner: str = ""         # the id the notebook typed, "" if none
    feedback: dict[str, list[str]] = field(default_factory=dict)    # {"q1": [hints of failed checks]}
    warnings: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)     # the integrity report's (cephlab.course.integrity)

    @property
    def score(self):
        return sum(s for s, _ in self.questions.values())

    @property
    def possible(self):
        return sum(p for _, p in self.questions.values())


# One reading of otter's cell format, shared with the checks (cephlab.course.checks).
_source = checks._source
_raw_directive = checks.directive


def is_master(nb):
    """True for an otter master (solution) notebook, False for a student notebook."""
    return any(_raw_directive(c) == "BEGIN QUESTION" for c in nb["cells"])


def read(path):
    """A notebook of the course's own (a solution, a released lab): trusted. A learner's
    submission is read with load_submission."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load_submission(path) -> dict:
    """A handed-in notebook as data (cephlab.course.untrusted: no link followed, no FIFO waited
    on, size-capped, nbformat-valid); GradingError saying what was wrong else."""
    try:
        return untrusted.load_notebook(path)
    except untrusted.UnsafeFile as err:
        raise GradingError(str(err)) from None


# -- which lab ------------------------------------------------------------------------------------
def lab_of(notebook, nb=None):
    """The lab stem (e.g. "01-redundancy") of a notebook: from otter's init cell
    (`otter.Notebook("01-redundancy.ipynb")`, which survives renaming the file), else from the
    file name ("alice-01-redundancy (2).ipynb" works), matched against the solutions."""
    nb = nb if nb is not None else load_submission(notebook)
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


# -- the grading copy -----------------------------------------------------------------------------
def _export_marker(question, names):
    return {"cell_type": "code", "metadata": {"cephlab_export": {"question": question, "names": names}},
            "source": "", "outputs": [], "execution_count": None}


def grading_copy(nb, questions=None):
    """The notebook up to its last question, ready for the answer runner.

    Student notebook: every cell up to the last `grader.check(...)` cell, each check cell
    replaced by an export marker for its question. Master notebook: the code cells up to the
    last `# END QUESTION`, without otter's raw cells and test cells, a marker at each question's
    end. questions: checks.questions(master), which say what each marker exports."""
    nb = copy.deepcopy(nb)
    cells = nb["cells"]
    reads = {q.name: q.names for q in (questions or [])}
    if is_master(nb):
        ends = [i for i, c in enumerate(cells) if _raw_directive(c) == "END QUESTION"]
        if not ends:
            raise GradingError("a master notebook without `# END QUESTION`: the otter format is broken")
        kept, in_tests, question = [], False, None
        for cell in cells[:ends[-1] + 1]:
            directive = _raw_directive(cell)
            if directive == "BEGIN QUESTION":
                question = (yaml.safe_load(_source(cell).split("\n", 1)[1]) or {}).get("name")
            elif directive == "END QUESTION" and question:
                kept.append(_export_marker(question, reads.get(question, [])))
            elif directive in ("BEGIN TESTS", "END TESTS"):
                in_tests = directive == "BEGIN TESTS"
            elif cell["cell_type"] == "code" and not in_tests:
                kept.append(cell)
            elif cell["cell_type"] == "markdown":
                kept.append(cell)
    else:
        checks_at = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and CHECK_CALL.search(_source(c))]
        if not checks_at:
            raise GradingError("no `grader.check(...)` cell found: is this a student lab notebook?")
        kept = []
        for cell in cells[:checks_at[-1] + 1]:
            m = CHECK_CALL.search(_source(cell)) if cell["cell_type"] == "code" else None
            kept.append(_export_marker(m.group(1), reads.get(m.group(1), [])) if m else cell)
    for cell in kept:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    nb["cells"] = kept
    nb["metadata"].pop("widgets", None)
    return nb


USED_LEARNER = re.compile(r"^learner (\S+): the exercises use this learner's numbers", re.M)


def used_learner(nb):
    """The learner id the submitted notebook says it used, from the saved output of its
    `params.learner_id` cell ("learner u123: the exercises use ..."): on a hub that is the hub
    user, whatever id was typed. "" when the notebook was handed in without outputs. Untrusted
    (the learner can edit it), like the typed id: it only picks whose numbers to grade against
    when the instructor gives no id, and it is compared with the id graded."""
    for cell in nb.get("cells", [])[:6]:
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            text = out.get("text", "")
            m = USED_LEARNER.search("".join(text) if isinstance(text, list) else str(text))
            if m:
                return m.group(1).strip()[:200]
    return ""


def grading_env():
    env = dict(os.environ, CEPHLAB_GRADING="1", CEPHLAB_NAME=NO_CLUSTER, CEPHLAB_BACKEND="native")
    env.pop("CEPH_CONF", None)
    return env


def _child_main(target, args, log_path, extra_env=None):
    """Body of a forked child: target(*args) with the grading environment (plus extra_env),
    output to log_path. The child leads its own process group, which a timeout kills; a kernel it
    started (in a session of its own) then exits by itself, as ipykernel does when its parent dies."""
    os.setpgrp()
    null = os.open(os.devnull, os.O_RDONLY)     # none of the grader's standard input
    os.dup2(null, 0)
    os.close(null)
    env = {**grading_env(), **(extra_env or {})}
    os.environ.clear()
    os.environ.update(env)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    target(*args)


class _Child:
    """target(*args) in a forked child, started at once; poll() until it has ended. channel: the
    answers file the child writes into (grading's), closed by close()."""

    def __init__(self, ctx, target, args, log_path, extra_env=None, channel=None):
        self.log_path, self.t0, self.channel = Path(log_path), time.monotonic(), channel
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
        return untrusted.read_tail(self.log_path, n).decode("utf-8", errors="replace")

    def close(self):
        if self.channel is not None:
            self.channel.close()


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
    outcomes: list[Any] = [None] * len(tasks)
    pending = list(enumerate(tasks))
    running: dict[int, tuple[_Child, Any]] = {}     # task index -> (child, its finish)
    while pending or running:
        while pending and len(running) < max(1, parallel):
            i, (start, finish) = pending.pop(0)
            try:
                running[i] = (start(ctx), finish)
            except Exception as err:    # noqa: BLE001 - one submission's failure is its row: finish() reports it
                outcomes[i] = finish(None, as_grading_error(err))
        for i, (child, finish) in list(running.items()):
            status = child.poll(timeout)
            if status is not None:
                del running[i]
                try:
                    outcomes[i] = finish(child, status)
                except Exception as err:    # noqa: BLE001 - likewise
                    outcomes[i] = as_grading_error(err)
                finally:
                    child.close()
        time.sleep(0.05)
    return outcomes


def as_grading_error(err: BaseException) -> GradingError:
    """err as the GradingError of one notebook's row (its message first, its kind when it has none)."""
    if isinstance(err, GradingError):
        return err
    text = str(err).strip().splitlines()[0][:300] if str(err).strip() else ""
    return GradingError(f"grading failed on this notebook ({type(err).__name__}{': ' + text if text else ''})")


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


def _run_child(copy_path, fd):
    answer_runner.run(Path(copy_path), fd)


def _sandboxed_child(sandbox: Sandbox, argv: list[str], channel_fd: int):
    """Body of a forked child: the answers file as descriptor 3 and no other descriptor of the
    grader's but standard output and error (the log), the sandbox's limits, then exec bwrap with
    an environment of PATH alone: bwrap's own process is pid 1 inside the sandbox, and its
    /proc/1/environ is readable there (the sandbox's environment is bwrap's --setenv)."""
    os.dup2(channel_fd, answer_runner.CHANNEL_FD)
    os.set_inheritable(answer_runner.CHANNEL_FD, True)
    os.closerange(answer_runner.CHANNEL_FD + 1, os.sysconf("SC_OPEN_MAX"))
    sandbox.limit()
    os.execve(argv[0], argv, {"PATH": "/usr/bin:/bin"})


def _start_runner(ctx, sandbox, job: Path, lab: str, shared: Path, learner=None, ro=None):
    """Start the answer runner on job/box/submission/<lab>.ipynb (job/box is the sandbox's JOB);
    its lines go to an answers file opened here, outside the sandbox, and its output to
    job/runner.log, also outside. learner: the id whose parameters the notebook computes
    ($CEPHLAB_LEARNER), else the one it types. ro: files bound read-only into the sandbox
    (Sandbox.warm's caches)."""
    extra = {"CEPHLAB_LEARNER": learner} if learner else {}
    channel = tempfile.TemporaryFile(dir=job)       # unlinked: nothing in any folder names it
    log = job / "runner.log"
    if sandbox is None:
        return _Child(ctx, _run_child, (job / "box" / "submission" / f"{lab}.ipynb", channel.fileno()),
                      log, extra, channel)
    argv = [sys.executable, "-m", "cephlab.course.answer_runner", f"{JOB}/submission/{lab}.ipynb",
            str(answer_runner.CHANNEL_FD)]
    env = {k: v for k, v in {**grading_env(), **extra}.items() if k.startswith("CEPHLAB_")}
    cmd = sandbox.command(job / "box", argv, shared, env, ro)
    return _Child(ctx, _sandboxed_child, (sandbox, cmd, channel.fileno()), log, channel=channel)


def _judge(fd: int, master: dict, lab: str, learner: str | None) -> dict:
    """In the checks' limited child: the answers file's lines decoded (at most CHANNEL_CAP bytes)
    and the lab's checks run on them, as plain data for the grader."""
    size = os.fstat(fd).st_size
    got = answers.decode_channel(os.pread(fd, min(size, CHANNEL_CAP), 0), truncated=size > CHANNEL_CAP)
    who = learner or got.typed or params.DEFAULT_LEARNER
    scores = {} if got.memory else checks.scored(master, lab, who, got.values, got.problems)
    return {"typed": got.typed, "memory": got.memory, "warnings": got.warnings, "who": who, "scores": scores}


def _outcome(notebook, lab, master, child, status, timeout, sandbox, learner, used="", gap=None):
    """A GradeResult, or the GradingError that says why the notebook has none."""
    if isinstance(status, GradingError):
        return status
    try:
        judged = limited.call(_judge, (child.channel.fileno(), master, lab, learner), checks.LIMITS,
                              f"the checks of {lab}")
    except limited.LimitError as err:
        return GradingError(f"{Path(notebook).name}: {err}")
    if judged["memory"]:
        limit = f"the sandbox's limit of {sandbox.memory_mib} MiB per process" if sandbox else "the memory"
        return GradingError(f"{notebook} ran out of memory: a cell went past {limit} (MemoryError in "
                            f"{judged['memory'][0][:80]}); look at that cell, or raise --memory if the answer "
                            "really needs more")
    warnings = []
    if status == "timeout":
        warnings.append(f"stopped after {timeout:g} s (a cell may loop forever; raise --timeout if it is "
                        "just slow): questions whose check cell had not run score 0")
    elif status != 0:
        # The learner's own process ended early (a cell called os._exit, broke Python, was
        # killed by a limit): grade what it exported, and say how it ended.
        tail = " ".join(child.log_tail(400).split())
        warnings.append(f"the notebook's process ended with status {status} before its last cell: "
                        f"questions whose check cell had not run score 0 (its output ended: {tail!r})")
    typed, who = judged["typed"], judged["who"]
    shown = used or typed           # the id the learner worked with, as far as the notebook tells
    if shown and shown != who:
        how = "showed it used" if used else "typed"
        warnings.append(f"the notebook {how} learner id {shown!r}; graded as {who!r} (its parameters)")
    questions = {q: (sc, p) for q, (sc, p, _) in judged["scores"].items()}
    feedback = {q: list(f) for q, (_, _, f) in judged["scores"].items()}
    if gap is not None:
        questions[measured.QUESTION], feedback[measured.QUESTION] = (gap[0], measured.POINTS), gap[1]
    return GradeResult(notebook, lab, questions, child.elapsed, learner=who, notebook_learner=shown,
                       feedback=feedback, warnings=warnings + judged["warnings"])


def run_gradings(jobs, parallel=2, timeout=300, on_result=None, sandbox=SANDBOX, learner_of=None, loaded=None):
    """Grade [(notebook, master notebook path)], `parallel` at a time; returns a GradeResult or a
    GradingError per job, in order. Each notebook runs in a child forked from this process: in
    its own sandbox (cephlab.course.sandbox), or with sandbox=None in the child itself; then its
    checks run in another forked child (cephlab.course.checks). learner_of(notebook): the learner
    id to grade it as (their parameters), or None for the id typed in the notebook. loaded:
    {notebook: its load_submission}, for those already read (grade_many's).
    Every failure of one notebook (a file that is no notebook, a check that met a limit, ...) is
    that notebook's GradingError; raises GradingError only when the sandbox cannot run here."""
    jobs = list(jobs)
    masters: dict[str, Any] = {}

    def master_of(path):
        key = str(path)
        if key not in masters:
            if Path(path).suffix != ".ipynb":
                raise GradingError(f"{path}: grading needs the master notebook (the solution), not "
                                   "an otter autograder zip: the checks run outside the learner's process")
            masters[key] = read(path)
            checks.preload(masters[key])    # once here, not in every notebook's checks child
        return masters[key]

    with tempfile.TemporaryDirectory(prefix="cephlab-grade-") as tmp:
        shared, warmed = write_shared(Path(tmp) / "sandbox"), {}
        if sandbox is not None:
            try:
                sandbox.check(shared)
            except SandboxError as err:
                raise GradingError(str(err)) from err
            if len(jobs) >= WARM_FROM:
                warmed = sandbox.warm(shared, labs={Path(master).stem for _, master in jobs})

        def task(i, notebook, master_path):
            notebook, job = Path(notebook), Path(tmp) / f"job{i}"
            state = {}

            def start(ctx):
                nb = (loaded or {}).get(notebook) or load_submission(notebook)
                master = master_of(master_path)
                state["lab"], state["master"] = lab_of(notebook, nb), master
                # the measurement half, read from the handed-in notebook as data (no code runs)
                state["gap"] = measured.grade_gap(nb, master)
                # the folder's id, else the instructor's $CEPHLAB_LEARNER, else the id the notebook
                # showed it used (the hub user on a hub), else (None) the id typed in it
                state["used"] = used_learner(nb)
                state["learner"] = (learner_of(notebook) if learner_of else None) or \
                    os.environ.get("CEPHLAB_LEARNER", "").strip() or state["used"] or None
                copy_path = job / "box" / "submission" / f"{state['lab']}.ipynb"
                copy_path.parent.mkdir(parents=True)
                copy_path.write_text(json.dumps(grading_copy(nb, checks.questions(master))), encoding="utf-8")
                return _start_runner(ctx, sandbox, job, state["lab"], shared, state["learner"], warmed)

            def finish(child, status):
                try:
                    outcome = _outcome(notebook, state.get("lab"), state.get("master"), child, status,
                                       timeout, sandbox, state.get("learner"), state.get("used", ""),
                                       state.get("gap"))
                except Exception as err:    # noqa: BLE001 - this notebook's row, not the class's run
                    outcome = as_grading_error(err)
                if on_result:
                    on_result(notebook, outcome)
                return outcome
            return start, finish
        outcomes = _run_children([task(i, nb, m) for i, (nb, m) in enumerate(jobs)], parallel, timeout,
                                 "IPython.core.interactiveshell" if sandbox is None else None)
    return outcomes


def grade(notebook, master=None, timeout=300, sandbox=SANDBOX, learner_of=None):
    """Grade one notebook; returns a GradeResult, raises GradingError. master: the master
    notebook whose checks grade it (default: the solution of the notebook's lab); sandbox: None
    grades without one (learners' code runs as you); learner_of: as run_gradings."""
    notebook = Path(notebook)
    nb = load_submission(notebook)
    master = master or solution_path(lab_of(notebook, nb))
    [outcome] = run_gradings([(notebook, master)], parallel=1, timeout=timeout, sandbox=sandbox,
                             learner_of=learner_of, loaded={notebook: nb})
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
    """{"q1": points} of the questions the master notebook declares (otter's)."""
    points = {}
    for cell in master["cells"]:
        if _raw_directive(cell) == "BEGIN QUESTION":
            meta = yaml.safe_load(_source(cell).split("\n", 1)[1]) or {}
            points[meta["name"]] = meta.get("points", 1)
    return points


def graded_points(master):
    """Every column a notebook of this lab is graded on: its questions, and "gap" (the learner's
    reading of their own run, cephlab.course.measured) where the master's reference run recorded one."""
    points = question_points(master)
    if measured.graded(master):
        points[measured.QUESTION] = measured.POINTS
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
    return Path(notebook).absolute().parent.name     # not resolve(): a link names no one


def grade_many(notebooks, jobs=2, timeout=300, on_result=None, sandbox=SANDBOX, learner_of=None):
    """Grade notebooks `jobs` at a time against their labs' solutions (sandboxed unless sandbox
    is None). Returns [(notebook, GradeResult or GradingError)] in the given order;
    on_result(notebook, outcome) is called as each one finishes."""
    def attempt(fn, *args):
        try:
            return fn(*args)
        except Exception as err:    # noqa: BLE001 - one notebook's failure is its row
            return as_grading_error(err)

    notebooks = [Path(nb) for nb in notebooks]
    loaded = {nb: attempt(load_submission, nb) for nb in notebooks}
    masters = {nb: got if isinstance(got, GradingError) else attempt(lambda n, g: solution_path(lab_of(n, g)), nb, got)
               for nb, got in loaded.items()}
    outcomes = {}
    for nb, master in masters.items():
        if isinstance(master, GradingError):
            outcomes[nb] = master
            if on_result:
                on_result(nb, master)
    gradable = [nb for nb in notebooks if nb not in outcomes]
    graded = run_gradings([(nb, masters[nb]) for nb in gradable], parallel=jobs, timeout=timeout,
                          on_result=on_result, sandbox=sandbox, learner_of=learner_of, loaded=loaded)
    outcomes.update(zip(gradable, graded))
    return [(nb, outcomes[nb]) for nb in notebooks]
