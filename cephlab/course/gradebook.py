"""A class's grades as files: per-lab gradebooks, the course gradebook, LMS imports, feedback.

    outcomes = grading.grade_many(notebooks, learner_of=grading.learner_from_folder)
    hand = read_hand_scores("hand.csv")                  # learner,item,score,possible
    write_all(outcomes, Path("grades"), hand, lms="canvas")

Pure: data in, files out. It grades nothing; its input is what `grading.grade_many` returns,
[(notebook, GradeResult or GradingError)]. What it writes into the folder:

    gradebook-<lab>.csv     one row per submission: learner, notebook, q1..qN, score, possible,
                            seconds, status ("graded" / "not graded: <reason>"), warnings
    gradebook.csv           one row per learner: each lab's score (the highest when handed in
                            twice), each hand-graded item, total, possible, warnings
    canvas.csv, moodle.csv  the course gradebook as the LMS imports it (canvas_table, moodle_table)
    feedback/<learner>/<lab>.md   per question the points, and the hints of what lost points

Missing work (nothing handed in, not graded, a hand score left empty) has an empty cell and
counts 0 of its points in the total, so every learner's `possible` is the same: the course's.
Learner ids may come from what a learner typed into the notebook, so they are never trusted as
file names (safe_name) or as spreadsheet text (a leading = + - @ is defused).
"""
from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cephlab.core.errors import CourseError

HAND_COLUMNS = ("learner", "item", "score", "possible")
LAB_IN_NAME = re.compile(r"(\d\d)-[A-Za-z0-9-]*[A-Za-z0-9]")   # "alice-01-redundancy (2)" -> 01-redundancy
UNKNOWN_LAB = "unknown"
# What a learner whose notebook was not graded can do, by the reason grading gave.
NOT_GRADED_ADVICE = (
    ("took longer than", "An answer cell probably runs forever (a loop that never ends, or a wait). "
                         "Find the cell that does not finish and fix it."),
    ("out of memory", "A cell used more memory than grading allows. The message names the cell: "
                      "make it build smaller arrays or lists."),
    ("cannot tell which lab", "Hand in the lab's own notebook, named as the lab is (NN-topic.ipynb)."),
)
GENERAL_ADVICE = ("Open the notebook, choose Kernel > Restart Kernel and Run All Cells, and check that "
                  "every cell up to the last `grader.check` runs without an error.")
AFTER_ADVICE = "Then hand it in again, or ask your instructor."


class HandScoreError(CourseError):
    """The hand-score CSV has a problem (each one named with its line), or a template would
    overwrite a file."""


class Result(Protocol):
    """What this module reads of a grading.GradeResult."""
    notebook: Path
    lab: str
    questions: dict              # {"q1": (score, possible)}
    seconds: float
    learner: str                 # the id the grading used
    notebook_learner: str        # the id typed in the notebook ("" if unknown)
    feedback: dict               # {"q1": [hint, ...]}; [] for a question that passed
    warnings: list

    @property
    def score(self) -> float: ...

    @property
    def possible(self) -> float: ...


@dataclass(frozen=True)
class HandScore:
    learner: str
    item: str
    score: float
    possible: float
    line: int = 0


@dataclass
class Submission:
    """One notebook handed in: whose, which lab, and its result or why it has none."""
    notebook: Path
    learner: str
    lab: str
    result: Any = None           # a Result, or None when the notebook was not graded
    error: str = ""              # the first line of the reason it was not graded


@dataclass
class Course:
    """The combined gradebook: labs and hand items as columns, one row per learner."""
    labs: list[str]
    items: list[str]
    points: dict[str, float]                            # column -> its possible points
    learners: list[str]
    scores: dict[str, dict[str, float]]                 # learner -> column -> score (absent: none)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    kept: dict[tuple[str, str], list[Submission]] = field(default_factory=dict)   # first: the one kept

    @property
    def columns(self) -> list[str]:
        return self.labs + self.items

    @property
    def possible(self) -> float:
        return sum(self.points.values())

    def total(self, learner: str) -> float:
        return sum(self.scores.get(learner, {}).values())


# -- small helpers ----------------------------------------------------------------------------------
def fmt(x: float) -> str:
    """A score as a spreadsheet shows it: 5, 0.5, 0.33."""
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return f"{x:.2f}".rstrip("0").rstrip(".")


def question_key(name: str) -> tuple[int, str]:
    """Natural order: q2 before q10; a column without a number ("gap", the measurement) last."""
    digits = "".join(ch for ch in name if ch.isdigit())
    return (int(digits) if digits else 10**9, name)


def text_cell(value: str) -> str:
    """A text cell a spreadsheet will not run as a formula: a typed learner id such as
    '=HYPERLINK(...)' is the learner's input, not the instructor's."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def safe_name(value: str) -> str:
    """A learner id as one file name: a typed id such as '../../x' must not leave feedback/."""
    name = re.sub(r"[^A-Za-z0-9._@-]", "_", value).lstrip(".")
    return name or "_"


def learner_from_folder(notebook: Path | str) -> str:
    """The parent folder's name (submissions/<learner>/NN-topic.ipynb), as grading's
    learner_from_folder: the learner of a notebook that has no result to say it."""
    return Path(notebook).absolute().parent.name     # not resolve(): a link names no one


def is_result(outcome: object) -> bool:
    return not isinstance(outcome, BaseException)


def first_line(error: object) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def id_warning(result: Any) -> str:
    """The warning for a notebook whose typed learner id is not the one it was graded as, else ""."""
    typed, graded = result.notebook_learner, result.learner
    if typed and graded and typed != graded:
        return f"the notebook used learner id {typed}, graded as {graded}"
    return ""


# -- submissions ------------------------------------------------------------------------------------
def guess_lab(notebook: Path, labs: Iterable[str]) -> str:
    """The lab of a notebook that was not graded, from its file name (a known lab's name, or its
    number NN), else UNKNOWN_LAB."""
    labs = sorted(labs, key=len, reverse=True)
    name = Path(notebook).name
    for lab in labs:
        if lab in name:
            return lab
    m = LAB_IN_NAME.search(Path(notebook).stem)
    if not m:
        return UNKNOWN_LAB
    same_number = [lab for lab in labs if lab.startswith(m.group(1) + "-")]
    return same_number[0] if len(same_number) == 1 else m.group(0)


def submissions(outcomes: Sequence[tuple[Path, Any]]) -> list[Submission]:
    """One Submission per (notebook, outcome), sorted by learner, lab and notebook."""
    labs = {o.lab for _, o in outcomes if is_result(o)}
    found = []
    for notebook, outcome in outcomes:
        if is_result(outcome):
            learner = outcome.learner or outcome.notebook_learner or learner_from_folder(notebook)
            found.append(Submission(Path(notebook), learner, outcome.lab, outcome))
        else:
            found.append(Submission(Path(notebook), learner_from_folder(notebook),
                                    guess_lab(Path(notebook), labs), error=first_line(outcome)))
    return sorted(found, key=lambda s: (s.learner, s.lab, str(s.notebook)))


def by_learner_and_lab(subs: Iterable[Submission]) -> dict[tuple[str, str], list[Submission]]:
    """{(learner, lab): submissions}, the highest-scoring graded one first (ties: the first
    handed in by name), then the others, then those not graded."""
    groups: dict[tuple[str, str], list[Submission]] = {}
    for s in subs:
        groups.setdefault((s.learner, s.lab), []).append(s)
    for group in groups.values():
        group.sort(key=lambda s: -s.result.score if s.result is not None else math.inf)
    return groups


# -- per-lab gradebooks -----------------------------------------------------------------------------
def lab_questions(subs: Iterable[Submission]) -> list[str]:
    return sorted({q for s in subs if s.result is not None for q in s.result.questions}, key=question_key)


def lab_row(s: Submission, questions: list[str], copies: int) -> list[str]:
    """One submission's row of gradebook-<lab>.csv."""
    warnings = []
    if copies > 1:
        warnings.append(f"{copies} submissions of this lab by {s.learner}: gradebook.csv keeps the highest")
    if s.result is None:
        return [text_cell(s.learner), text_cell(str(s.notebook)), *[""] * len(questions), "", "", "",
                text_cell(f"not graded: {s.error}"), text_cell("; ".join(warnings))]
    r, mine = s.result, id_warning(s.result)
    # grading may word the same typed-id fact among its own warnings: say it once, in this form
    warnings += [mine] if mine else []
    warnings += [w for w in r.warnings if not (mine and "learner id" in w)]
    warnings += [f"integrity: {f}" for f in getattr(r, "flags", [])]
    cells = [fmt(r.questions[q][0]) if q in r.questions else "" for q in questions]
    return [text_cell(s.learner), text_cell(str(s.notebook)), *cells, fmt(r.score), fmt(r.possible),
            f"{r.seconds:.1f}", "graded", text_cell("; ".join(warnings))]


def lab_table(subs: list[Submission]) -> list[list[str]]:
    """gradebook-<lab>.csv's header and rows for one lab's submissions."""
    questions = lab_questions(subs)
    copies = {key: len(group) for key, group in by_learner_and_lab(subs).items()}
    header = ["learner", "notebook", *questions, "score", "possible", "seconds", "status", "warnings"]
    return [header, *[lab_row(s, questions, copies[(s.learner, s.lab)]) for s in subs]]


def write_csv(path: Path, rows: Iterable[Sequence[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def write_lab_gradebooks(outcomes: Sequence[tuple[Path, Any]], out: Path) -> list[Path]:
    """out/gradebook-<lab>.csv for every lab handed in (gradebook-unknown.csv: notebooks whose
    lab neither grading nor their name tells)."""
    labs: dict[str, list[Submission]] = {}
    for s in submissions(outcomes):
        labs.setdefault(s.lab, []).append(s)
    return [write_csv(Path(out) / f"gradebook-{safe_name(lab)}.csv", lab_table(subs))
            for lab, subs in sorted(labs.items())]


# -- the course gradebook ---------------------------------------------------------------------------
def lab_warnings(lab: str, group: list[Submission]) -> list[str]:
    """What the course gradebook says about one learner's submissions of one lab."""
    kept = group[0]
    found = [f"{lab}: {id_warning(s.result)}" for s in group if s.result is not None and id_warning(s.result)]
    if kept.result is None:
        found.append(f"{lab}: not graded: {kept.error}")
    found += [f"{lab}: integrity: {f}" for s in group if s.result is not None for f in getattr(s.result, "flags", [])]
    if len(group) > 1:
        which = ", ".join(str(s.notebook) for s in group)
        best = (f"kept the highest, {fmt(kept.result.score)}/{fmt(kept.result.possible)}" if kept.result
                else "none graded")
        found.append(f"{lab}: {len(group)} submissions ({which}); {best}")
    return found


def lab_points(subs: Iterable[Submission]) -> dict[str, float]:
    """{lab: its points}: the most any graded submission of it could score."""
    points: dict[str, float] = {}
    for s in subs:
        if s.result is not None:
            points[s.lab] = max(points.get(s.lab, 0.0), float(s.result.possible))
        else:
            points.setdefault(s.lab, 0.0)
    return points


def build_course(outcomes: Sequence[tuple[Path, Any]], hand: Sequence[HandScore] = ()) -> Course:
    """The combined gradebook of graded outcomes and hand scores."""
    subs = submissions(outcomes)
    groups = by_learner_and_lab(subs)
    items = list(dict.fromkeys(h.item for h in hand))
    points = {**lab_points(subs), **{h.item: h.possible for h in hand}}
    learners = sorted({s.learner for s in subs} | {h.learner for h in hand})
    course = Course(sorted({s.lab for s in subs}), items, points, learners,
                    {learner: {} for learner in learners}, {learner: [] for learner in learners}, groups)
    for (learner, lab), group in sorted(groups.items()):
        if group[0].result is not None:
            course.scores[learner][lab] = float(group[0].result.score)
        course.warnings[learner] += lab_warnings(lab, group)
    for h in hand:
        course.scores[h.learner][h.item] = h.score
    handed_in = {s.learner for s in subs}
    for learner in learners:
        if subs and learner not in handed_in:      # a typo in the hand scores makes a learner of its own
            course.warnings[learner].append("only hand scores, no notebook: is the learner id right?")
        course.warnings[learner] += [f"{c}: no submission" for c in course.labs if (learner, c) not in groups]
        course.warnings[learner] += [f"{i}: no hand score" for i in items if i not in course.scores[learner]]
    return course


def score_cells(course: Course, learner: str) -> list[str]:
    mine = course.scores[learner]
    return [fmt(mine[c]) if c in mine else "" for c in course.columns]


def course_table(course: Course) -> list[list[str]]:
    """gradebook.csv's header and rows."""
    header = ["learner", *course.columns, "total", "possible", "warnings"]
    return [header, *[[text_cell(learner), *score_cells(course, learner), fmt(course.total(learner)),
                       fmt(course.possible), text_cell("; ".join(course.warnings[learner]))]
                      for learner in course.learners]]


# -- LMS imports ------------------------------------------------------------------------------------
CANVAS_STUDENT_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def canvas_table(course: Course) -> list[list[str]]:
    """The course gradebook as Canvas's gradebook import (Grades > Import) reads a CSV.

    Followed: Canvas's importer, app/models/gradebook_importer.rb of github.com/instructure/canvas-lms
    (the code behind https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807):
    the header starts Student, ID, SIS User ID, SIS Login ID and ends its student columns with
    Section; every later column is an assignment, matched to an existing one by its name (a new
    name makes a new assignment), so nothing else follows them. A row whose first cell is
    "Points Possible" sets the points of assignments the import creates, so it comes second. A
    student is matched by Canvas ID, else SIS User ID, else SIS Login ID (the learner id here),
    else by name; an empty cell leaves that grade as it is."""
    header = [*CANVAS_STUDENT_COLUMNS, *course.columns]
    points = ["Points Possible", "", "", "", "", *[fmt(course.points[c]) for c in course.columns]]
    rows = [[text_cell(learner), "", "", text_cell(learner), "", *score_cells(course, learner)]
            for learner in course.learners]
    return [header, points, *rows]


def moodle_table(course: Course, identifier: str = "Username") -> list[list[str]]:
    """The course gradebook as Moodle's CSV grade import (Grades > Import > CSV file) reads it.

    Followed: https://docs.moodle.org/311/en/Grade_import and Moodle's importer,
    grade/import/csv/classes/load_data.php of github.com/moodle/moodle: the first row names the
    columns; at import you map one column to the user (userid, username, ID number or email; here
    the learner id, in a column named by `identifier`) and each other column to a grade item (or
    a new one). An empty cell is no grade. Moodle has no points row: give each grade item its
    maximum (the `possible` of gradebook.csv) in Moodle."""
    return [[identifier, *course.columns],
            *[[text_cell(learner), *score_cells(course, learner)] for learner in course.learners]]


# -- hand scores ------------------------------------------------------------------------------------
def parse_points(raw: str, what: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{what} {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{what} {raw!r} is not a number")
    return value


def header_problems(names: Sequence[str] | None) -> list[str]:
    if not names:
        return ["line 1: the file is empty; its first line must be " + ",".join(HAND_COLUMNS)]
    cleaned = [(n or "").strip().lower() for n in names]
    problems = [f"line 1: unknown column {n!r} (the columns are {', '.join(HAND_COLUMNS)})"
                for n in cleaned if n not in HAND_COLUMNS]
    problems += [f"line 1: no column {c!r}" for c in HAND_COLUMNS if c not in cleaned]
    return problems


def hand_row(row: dict, line: int) -> HandScore | None:
    """One row as a HandScore; None for a row whose score is still empty (not scored yet).
    Raises ValueError saying what is wrong."""
    if None in row:
        raise ValueError(f"more cells than the {len(HAND_COLUMNS)} columns (a comma inside an item? quote it)")
    cell = {k.strip().lower(): (v or "").strip() for k, v in row.items()}
    if not any(cell.values()):          # a spreadsheet's trailing ",,,"
        return None
    if not cell["learner"] or not cell["item"]:
        raise ValueError("no " + ("learner" if not cell["learner"] else "item"))
    if not cell["score"]:
        return None
    score = parse_points(cell["score"], "score")
    if not cell["possible"]:
        raise ValueError("possible is empty: give the item's points (e.g. 2)")
    possible = parse_points(cell["possible"], "possible")
    if possible <= 0:
        raise ValueError(f"possible {cell['possible']} must be more than 0")
    if score < 0:
        raise ValueError(f"score {cell['score']} is negative")
    if score > possible:
        raise ValueError(f"score {cell['score']} is more than possible {cell['possible']}")
    return HandScore(cell["learner"], cell["item"], score, possible, line)


def clash(h: HandScore, seen: dict[tuple[str, str], HandScore], items: dict[str, HandScore]) -> str:
    """Why h cannot stand beside the rows read before it ("" if it can)."""
    if (h.learner, h.item) in seen:
        return f"{h.learner}'s {h.item!r} is already on line {seen[(h.learner, h.item)].line}"
    first = items.get(h.item)
    if first and first.possible != h.possible:
        return f"{h.item!r} is out of {fmt(h.possible)} here but out of {fmt(first.possible)} on line {first.line}"
    return ""


def read_hand_scores(path: Path | str) -> list[HandScore]:
    """The hand-graded scores of a CSV with the columns learner,item,score,possible (any order).
    A row with an empty score is skipped (not scored yet). Raises HandScoreError listing every
    problem with its line: unknown or missing columns, a score or possible that is not a number,
    a negative score, a score above possible, a learner's item twice, one item out of two maxima."""
    problems: list[str] = []
    found: list[HandScore] = []
    seen: dict[tuple[str, str], HandScore] = {}
    items: dict[str, HandScore] = {}
    with open(path, newline="", encoding="utf-8-sig") as f:     # -sig: Excel's byte-order mark
        reader = csv.DictReader(f)
        problems = header_problems(reader.fieldnames)
        for row in ([] if problems else reader):
            try:
                h = hand_row(row, reader.line_num)
            except ValueError as err:
                problems.append(f"line {reader.line_num}: {err}")
                continue
            why = clash(h, seen, items) if h else ""
            if why:
                problems.append(f"line {reader.line_num}: {why}")
            elif h:
                found.append(h)
                seen[(h.learner, h.item)] = h
                items.setdefault(h.item, h)
    if problems:
        raise HandScoreError(f"{path}: {len(problems)} problem(s) in the hand scores "
                             f"(columns {','.join(HAND_COLUMNS)}):\n  " + "\n  ".join(problems))
    return found


def template_items(items: Sequence[str]) -> list[tuple[str, str]]:
    """[(item, its points or "")] from "W1" or "quiz 2=4"."""
    parsed = []
    for spec in items:
        name, _, points = spec.rpartition("=") if "=" in spec else (spec, "", "")
        if points:
            try:
                parse_points(points, "points")
            except ValueError as err:
                raise HandScoreError(f"hand-score item {spec!r}: {err} (write NAME or NAME=POINTS)") from None
        if not name.strip():
            raise HandScoreError(f"hand-score item {spec!r} has no name (write NAME or NAME=POINTS)")
        parsed.append((name.strip(), points.strip()))
    return parsed


def hand_scores_template(outcomes: Sequence[tuple[Path, Any]], items: Sequence[str], path: Path | str) -> Path:
    """Write path: the hand-score CSV with one row per learner (of outcomes) per item, the
    scores empty for the instructor to fill ("quiz 2=4" also fills its possible). Refuses to
    overwrite a file (it may hold scores already typed in)."""
    path, parsed = Path(path), template_items(items)
    if path.exists():
        raise HandScoreError(f"{path} exists (it may hold scores you typed): move it away or name another file")
    learners = sorted({s.learner for s in submissions(outcomes)})
    rows = [[text_cell(learner), item, "", points] for learner in learners for item, points in parsed]
    return write_csv(path, [list(HAND_COLUMNS), *rows])


# -- feedback ---------------------------------------------------------------------------------------
def graded_feedback(lab: str, learner: str, result: Any, copies: int) -> str:
    """The learner's feedback on one graded notebook: the points per question and, for each
    question that lost points, the hints of its failed checks (never the expected values)."""
    questions = sorted(result.questions, key=question_key)
    lines = [f"# {lab}: feedback for {learner}", "", f"Score: {fmt(result.score)}/{fmt(result.possible)}", ""]
    if copies > 1:
        lines += ["You handed in this lab more than once; this is the notebook with the highest score.", ""]
    if id_warning(result):
        lines += [f"Your notebook used the learner id {result.notebook_learner}; it was graded as "
                  f"{result.learner}, with {result.learner}'s numbers.", ""]
    lines += ["| question | points |", "|---|---|"]
    lines += [f"| {q} | {fmt(result.questions[q][0])}/{fmt(result.questions[q][1])} |" for q in questions]
    lost = [q for q in questions if result.questions[q][0] < result.questions[q][1]]
    if lost:
        lines += ["", "## What to look at again", ""]
        for q in lost:
            hints = result.feedback.get(q) or ["no hint for this question: compare your answer with the lab's text"]
            lines += [f"- **{q}**: " + " ".join(hints)]
    return "\n".join(lines) + "\n"


def not_graded_feedback(lab: str, learner: str, error: str) -> str:
    advice = next((a for key, a in NOT_GRADED_ADVICE if key in error), GENERAL_ADVICE)
    return "\n".join([f"# {lab}: feedback for {learner}", "", "Your notebook could not be graded:", "",
                      f"> {error}", "", f"What to do: {advice} {AFTER_ADVICE}", ""])


def write_feedback(outcomes: Sequence[tuple[Path, Any]], out: Path) -> list[Path]:
    """out/feedback/<learner>/<lab>.md for every learner's lab: the submission the gradebook
    keeps (the highest score), or, when none was graded, why not and what to do."""
    written = []
    for (learner, lab), group in sorted(by_learner_and_lab(submissions(outcomes)).items()):
        kept = group[0]
        text = (graded_feedback(lab, learner, kept.result, len(group)) if kept.result is not None
                else not_graded_feedback(lab, learner, kept.error))
        path = Path(out) / "feedback" / safe_name(learner) / f"{safe_name(lab)}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# -- everything -------------------------------------------------------------------------------------
def write_all(outcomes: Sequence[tuple[Path, Any]], out: Path, hand: Sequence[HandScore] = (),
              lms: str | None = None) -> list[Path]:
    """Every file of the module's docstring into out/ (canvas.csv or moodle.csv when lms names
    one); returns their paths, the gradebooks first."""
    out = Path(out)
    course = build_course(outcomes, hand)
    written = write_lab_gradebooks(outcomes, out) + [write_csv(out / "gradebook.csv", course_table(course))]
    if lms == "canvas":
        written.append(write_csv(out / "canvas.csv", canvas_table(course)))
    elif lms == "moodle":
        written.append(write_csv(out / "moodle.csv", moodle_table(course)))
    elif lms:
        raise CourseError(f"unknown LMS {lms!r}: canvas or moodle")
    return written + write_feedback(outcomes, out)
