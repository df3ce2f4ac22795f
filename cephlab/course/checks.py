"""A lab's checks, run in the grader's own process on the plain answers of a learner's notebook.

    questions = checks.questions(master)            # from the solution (otter master) notebook
    scores = checks.run(master, "03-disk-iops", "alice", answers, problems)   # {"q1": Score}

The checks are the master notebook's test cells (public and `# HIDDEN`), exactly as the lab's
author wrote them for otter. They run here, in a child forked from the grading process, in a
namespace built only from trusted parts: the master's own imports (the instructor's, never the
submission's), `P` recomputed for the learner being graded, and the learner's answers rebuilt
from plain data (cephlab.course.answers). No object of the learner's, no module the learner's
code touched and no file the learner's process wrote (except the answer lines, parsed strictly)
reaches this process, so patched runners, objects that compare equal to anything, monkeypatched
numpy, SystemExit and the like have nothing to act on. (`preload` imports the master's imports
in the grading process once, so each child does not import numpy, scipy and the models again.)

The answers are the learner's data, so the child is limited (LIMITS, cephlab.course.limited:
memory, CPU, output, wall time), and so is each check: past CASE_TIMEOUT_S, or out of memory, it
fails with a hint saying so, and the other checks still run.

A check may read only: names the master imports, `P`, and the question's answer variables
(names assigned in the master's solution cells). `check_names` finds a check that reads anything
else (a helper function defined in the lab, a constant of the lab), which would otherwise have
to come from the learner's process: tests/grading/test_checks.py runs it over every lab.

Scoring follows otter's: a question with `all_or_nothing` scores its points when every check
passes, else 0; otherwise each check carries an equal share of the points.
"""
from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import os
import re
import signal
from dataclasses import dataclass, field
from typing import Any

import yaml

from cephlab.core.errors import CourseError
from cephlab.course import limited

CONTEXT = ("P",)                    # recomputed by the grader, never taken from the learner
CHECK_TIMEOUT_S = 120
DIRECTIVE = re.compile(r"#\s*((?:BEGIN|END)\s+(?:QUESTION|SOLUTION|TESTS|PROMPT)|ASSIGNMENT CONFIG)")
BUILTINS = frozenset(dir(builtins))


class CheckError(CourseError):
    """The checks themselves could not run (a broken master notebook, a check that hangs)."""


@dataclass
class Case:
    code: str
    hidden: bool


@dataclass
class Question:
    name: str
    points: float
    all_or_nothing: bool
    cases: list[Case] = field(default_factory=list)
    names: list[str] = field(default_factory=list)      # what the checks read from the answers


@dataclass
class Score:
    score: float
    possible: float
    feedback: list[str] = field(default_factory=list)   # one hint per failed check


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def directive(cell: dict) -> str | None:
    """'BEGIN QUESTION', 'END TESTS', ... for an otter raw cell, else None."""
    if cell.get("cell_type") != "raw":
        return None
    m = DIRECTIVE.match(_source(cell).strip())
    return " ".join(m.group(1).split()) if m else None


def _meta(cell: dict) -> dict:
    body = _source(cell).split("\n", 1)
    return (yaml.safe_load(body[1]) if len(body) > 1 else None) or {}


# -- reading the master -------------------------------------------------------------------------------
def questions(master: dict) -> list[Question]:
    """The master's questions in order, each with its checks and the answer names they read."""
    found: list[Question] = []
    current, in_tests = None, False
    for cell in master["cells"]:
        d = directive(cell)
        if d == "BEGIN QUESTION":
            meta = _meta(cell)
            current = Question(str(meta["name"]), float(meta.get("points", 1)),
                               bool(meta.get("all_or_nothing", False)))
            found.append(current)
        elif d in ("BEGIN TESTS", "END TESTS"):
            in_tests = d == "BEGIN TESTS"
        elif d == "END QUESTION":
            current = None
        elif in_tests and current is not None and cell.get("cell_type") == "code":
            code = _source(cell)
            hidden = code.lstrip().startswith("# HIDDEN")
            current.cases.append(Case(code, hidden))
    imported = set(import_names(master))
    for q in found:
        q.names = _free_names([c.code for c in q.cases], imported | set(CONTEXT))
    return found


def _code_cells_outside_tests(master: dict) -> list[str]:
    cells, in_tests = [], False
    for cell in master["cells"]:
        d = directive(cell)
        if d in ("BEGIN TESTS", "END TESTS"):
            in_tests = d == "BEGIN TESTS"
        elif cell.get("cell_type") == "code" and not in_tests:
            cells.append(_source(cell))
    return cells


def _parse(code: str) -> ast.Module:
    from IPython.core.inputtransformer2 import TransformerManager
    return ast.parse(TransformerManager().transform_cell(code))     # magics become calls


def imports(master: dict) -> list[ast.stmt]:
    """Every top-level import statement of the master's code cells (not its checks)."""
    found: list[ast.stmt] = []
    for code in _code_cells_outside_tests(master):
        try:
            tree = _parse(code)
        except SyntaxError:
            continue
        found += [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    return found


def import_names(master: dict) -> list[str]:
    names = []
    for node in imports(master):
        for alias in node.names:      # type: ignore[attr-defined]
            names.append(alias.asname or alias.name.split(".")[0])
    return names


def _free_names(codes: list[str], trusted: set[str]) -> list[str]:
    """Names the codes read without defining them first (in order, no duplicates)."""
    seen: list[str] = []
    defined: set[str] = set()
    for code in codes:
        tree = _parse(code)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                defined |= {a.asname or a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined.add(node.id)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in defined \
                    and node.id not in trusted and node.id not in BUILTINS and node.id not in seen:
                seen.append(node.id)
    return seen


def solution_names(master: dict) -> set[str]:
    """Names assigned in the master's solution blocks: the answers a learner writes."""
    names: set[str] = set()
    in_solution = False
    for cell in master["cells"]:
        d = directive(cell)
        if d in ("BEGIN SOLUTION", "END SOLUTION"):
            in_solution = d == "BEGIN SOLUTION"
        elif cell.get("cell_type") == "code" and (in_solution or "# SOLUTION" in _source(cell)):
            tree = _parse(_source(cell))
            names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def check_names(master: dict) -> dict[str, list[str]]:
    """{question: [names its checks read that are neither imported, P, nor an answer]}: names
    the grader cannot take from the learner's process without trusting it."""
    answers = solution_names(master)
    bad = {q.name: [n for n in q.names if n not in answers] for q in questions(master)}
    return {q: names for q, names in bad.items() if names}


# -- running the checks -----------------------------------------------------------------------------
def _needed_imports(master: dict, needed: set[str]) -> ast.Module:
    """Those of the master's imports that bind a name in `needed`."""
    wanted = []
    for node in imports(master):
        aliases = [a for a in node.names if (a.asname or a.name.split(".")[0]) in needed]  # type: ignore[attr-defined]
        if aliases:
            trimmed = copy.copy(node)
            trimmed.names = aliases         # type: ignore[attr-defined]
            wanted.append(trimmed)
    return ast.Module(body=wanted, type_ignores=[])


def _checks_free_names(qs: list[Question]) -> set[str]:
    return set(_free_names([c.code for q in qs for c in q.cases], set()))


def context(master: dict, lab: str, learner: str, needed: set[str]) -> dict[str, Any]:
    """The trusted namespace: those of the master's imports that bind a name in `needed` (the
    checks' free names), and P for `learner` when a check reads it."""
    namespace: dict[str, Any] = {"__name__": "__cephlab_checks__"}
    module = _needed_imports(master, needed)
    exec(compile(module, f"<imports of {lab}>", "exec"), namespace)    # noqa: S102 - the instructor's
    if "P" in needed:
        from cephlab.course import params
        namespace["P"] = params.lab_params(lab, learner) if lab in params.SPECS else {}
    return namespace


def preload(master: dict) -> None:
    """Import, in this process, the modules context() imports for the master's checks (the
    master's own import statements: the instructor's code, never a learner's), so that each
    child run() forks finds numpy, scipy and the lab's models loaded instead of importing them
    again (~1 s a graded notebook). The children still run the statements into their own
    namespace. A failure here is left for the children to report as the checks' failure."""
    try:
        needed = _checks_free_names(questions(master))
        module = _needed_imports(master, needed)
        exec(compile(module, "<preloaded imports>", "exec"), {"__name__": "__cephlab_preload__"})   # noqa: S102
        if "P" in needed:
            from cephlab.course import params  # noqa: F401
    except (Exception, SystemExit):    # noqa: BLE001 - reported by the child that meets it
        pass


CASE_TIMEOUT_S = 20                 # one check's wall time; the child's CPU limit backs it up
HINT_CAP = 300                      # characters of one hint (an assert message may quote the answer)


class CaseTimeout(CheckError):
    """Raised in a check that ran longer than CASE_TIMEOUT_S (by SIGALRM): that check fails."""


def _alarm(signum, frame):
    raise CaseTimeout


def wording(kind: str, message: str, undefined: str | None = None) -> str:
    """A failed check's hint from its error: the one wording of the grader's feedback and the
    learner's self-checks (cephlab.course.selfcheck). kind: the exception's class name;
    undefined: the name a NameError reports."""
    if kind == "AssertionError":
        return message[:HINT_CAP] or "a check failed"
    if kind == "NameError" and undefined:
        return f"`{undefined[:100]}`: no usable answer"
    if "ellipsis" in message:           # `... < 3`: the placeholder was never replaced
        return "an answer is still `...`: put your value in its place and run its cell"
    return f"the check could not use your answer ({kind}: {message[:200]})" if message else \
        f"the check could not use your answer ({kind[:200]})"


def _run_case(case: Case, namespace: dict) -> str | None:
    """None when the check passes, else the hint to show. A check that runs past CASE_TIMEOUT_S
    or runs out of memory on an answer fails like any other (the answer is what it tried)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_TIMEOUT_S)
    try:
        exec(compile(case.code, "<check>", "exec"), namespace)      # noqa: S102 - the instructor's
    except NameError as e:
        return wording("NameError", str(e), str(e.name))
    except CaseTimeout:
        return f"a check ran longer than {CASE_TIMEOUT_S} s on your answer (is it far too large?)"
    except MemoryError:
        return "a check ran out of memory on your answer (is it far too large?)"
    except Exception as e:      # noqa: BLE001 - a wrong type of answer makes a check raise
        return wording(type(e).__name__, str(e))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return None


def score(questions_: list[Question], answers: dict[str, dict], problems: dict[str, dict],
          base: dict) -> dict[str, Score]:
    """Each question's Score. answers/problems: {question: {name: value or reason}}; a question
    sees the answers exported at its own check and, for names it lacks there, earlier ones."""
    scores, so_far = {}, {}
    for q in questions_:
        so_far.update(answers.get(q.name, {}))
        namespace = {**base, **copy.deepcopy({n: so_far[n] for n in q.names if n in so_far})}
        hints = [f"`{n}`: {why}" for n, why in problems.get(q.name, {}).items() if n in q.names]
        if q.name not in answers and q.name not in problems:
            hints.append("this question's check cell did not run (or was removed)")
        failed = [h for h in (_run_case(c, namespace) for c in q.cases) if h is not None]
        passed = len(q.cases) - len(failed)
        if q.all_or_nothing or not q.cases:
            got = q.points if not failed and q.cases else 0.0
        else:
            got = q.points * passed / len(q.cases)
        explained = {f"`{n}`: no usable answer" for n in problems.get(q.name, {})}
        hints += [h for h in dict.fromkeys(failed) if h not in explained]     # once each, in order
        scores[q.name] = Score(got, q.points, hints if got < q.points else [])
    return scores


LIMITS = limited.Limits(memory_mib=1024, cpu_s=90, output_mib=16, timeout=CHECK_TIMEOUT_S)


def scored(master: dict, lab: str, learner: str, answers: dict[str, dict],
           problems: dict[str, dict]) -> dict[str, tuple[float, float, list[str]]]:
    """score() for `learner` as plain tuples; call it in a limited child (run, or the grader's)."""
    os.environ.update(CEPHLAB_LEARNER=learner, CEPHLAB_GRADING="1")
    qs = questions(master)
    base = context(master, lab, learner, _checks_free_names(qs))
    result = score(qs, answers, problems, base)
    return {k: (v.score, v.possible, v.feedback) for k, v in result.items()}


def run(master: dict, lab: str, learner: str, answers: dict[str, dict], problems: dict[str, dict],
        timeout: float = CHECK_TIMEOUT_S) -> dict[str, Score]:
    """score() in a child forked from this process under LIMITS (memory, CPU, output; its learner
    id set in its environment, the checks' side effects gone with it); CheckError when the checks
    fail to run, meet a limit or hang."""
    limits = dataclasses.replace(LIMITS, timeout=timeout)
    try:
        payload = limited.call(scored, (master, lab, learner, answers, problems), limits, f"the checks of {lab}")
    except limited.LimitError as err:
        raise CheckError(str(err)) from None
    return {k: Score(s, p, list(f)) for k, (s, p, f) in payload.items()}
