"""`cephlab grade`: score filled-in lab notebooks with the lab's otter autograder.

    cephlab grade 01-redundancy.ipynb              # per-question points, last line "score: X/Y"
    cephlab grade submissions/ --csv grades.csv    # every notebook under a folder, one row each
    cephlab grade submissions/ --learner-from-folder   # submissions/<learner>/NN-topic.ipynb
    cephlab grade submissions/ --learner-from-folder --out grades/ --hand-scores hand.csv --lms canvas

Each notebook is graded against its lab's solution (found by its name, NN-topic) with the
hidden tests included, on a copy that stops after the last question, so no cluster is needed.
Each grading runs in a sandbox (bubblewrap: no network, no file of yours but the submission and
the autograder, --memory per process, --timeout); --no-sandbox runs learners' code as you.
"""
from __future__ import annotations

import argparse
import csv
import sys
import threading
from pathlib import Path

from cephlab.course import gradebook, grading, integrity, params


def register(sub):
    p = sub.add_parser("grade", help="grade filled-in lab notebooks (otter-grader, hidden tests included)",
                       description=__doc__.split("\n\n")[2])
    p.add_argument("notebooks", nargs="+", metavar="NOTEBOOK",
                   help="a lab notebook (NN-topic.ipynb) or a folder of submissions")
    p.add_argument("--csv", type=Path, metavar="FILE",
                   help="also write one row per notebook: path, lab, score, possible, q1, q2, ... (every "
                        "lab's questions in one table; --out writes one gradebook per lab)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="write the class's files into DIR: gradebook-<lab>.csv (one row per submission), "
                        "gradebook.csv (one row per learner: each lab, each hand-graded item, total), "
                        "similarity.csv (pairs of notebooks whose answers look copied, also flagged in the "
                        "gradebooks' warnings) and feedback/<learner>/<lab>.md (points and hints, for the learner)")
    p.add_argument("--hand-scores", type=Path, metavar="CSV",
                   help="hand-graded scores (columns learner,item,score,possible) to add to DIR/gradebook.csv; "
                        "checked before grading starts")
    p.add_argument("--hand-template", nargs="+", metavar=("CSV", "ITEM"),
                   help="write CSV, a hand-score file with one row per learner graded per ITEM "
                        "(\"01-redundancy W1\", or \"quiz 2=4\" with its points) for you to fill in; "
                        "put it after the notebooks")
    p.add_argument("--lms", choices=["canvas", "moodle"],
                   help="also write DIR/canvas.csv or DIR/moodle.csv, the course gradebook as that LMS imports it")
    p.add_argument("-j", "--jobs", type=int, default=2,
                   help="notebooks graded at once (default 2; each one runs its own kernel)")
    p.add_argument("--timeout", type=float, default=300,
                   help="seconds one notebook may take before it counts as failed (default 300)")
    p.add_argument("--memory", type=int, default=grading.SANDBOX.memory_mib, metavar="MIB",
                   help="address space per process in the sandbox "
                        f"(default {grading.SANDBOX.memory_mib} MiB; a kernel needs about 600)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--learner-from-folder", action="store_true",
                     help="grade each notebook as the learner its folder is named after "
                          "(submissions/<learner>/NN-topic.ipynb): the per-learner parameters "
                          "then come from where you collected it, not from the id typed in it")
    who.add_argument("--learner", metavar="ID", help="grade every notebook given as this learner")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run learners' code without the sandbox, as you, with your files and network "
                        "(only for notebooks you trust, or where bwrap cannot run)")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("params", help="a learner's question parameters in a lab (every lab has them), "
                                      "as their notebook shows them and their hidden tests use them")
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="LAB LEARNER... [--json]")
    p.set_defaults(func=lambda args: params.main(args.rest))


def fmt(x):
    return f"{x:g}" if abs(x - round(x)) < 1e-9 else f"{x:.2f}"


NO_SANDBOX_WARNING = ("cephlab grade: warning: --no-sandbox: the notebooks' code runs as you, with your "
                      "files, your network and no memory limit; grade only notebooks you trust this way")


def sandbox_of(args):
    """The sandbox the arguments ask for, or None (after a warning) for --no-sandbox."""
    if args.no_sandbox:
        print(NO_SANDBOX_WARNING, file=sys.stderr)
        return None
    return grading.Sandbox(memory_mib=args.memory)


def learner_of(args):
    """The learner_of function the arguments ask for (None: the id typed in each notebook)."""
    if args.learner_from_folder:
        return grading.learner_from_folder
    if args.learner:
        return lambda notebook: args.learner
    return None


def class_files_problem(args):
    """Why the class-file options cannot work (checked before grading, which takes minutes), else
    None. Reads the hand scores into args.hand."""
    args.hand = []
    if (args.hand_scores or args.lms) and not args.out:
        return "--hand-scores and --lms add to the gradebooks of --out DIR: give --out"
    try:
        if args.hand_scores:
            args.hand = gradebook.read_hand_scores(args.hand_scores)
        if args.hand_template:
            if len(args.hand_template) < 2:
                return "--hand-template CSV ITEM...: name at least one item after the file"
            gradebook.template_items(args.hand_template[1:])
            if Path(args.hand_template[0]).exists():
                return f"--hand-template: {args.hand_template[0]} exists (it may hold scores): name another file"
    except (gradebook.HandScoreError, OSError) as err:
        return str(err)
    return None


def cmd_grade(args):
    problem = class_files_problem(args)
    if problem:
        print(f"cephlab grade: {problem}", file=sys.stderr)
        return 2
    args.sandbox = sandbox_of(args)
    args.learner_of = learner_of(args)
    try:
        notebooks = grading.find_notebooks(args.notebooks)
    except grading.GradingError as err:
        print(f"cephlab grade: {err}", file=sys.stderr)
        return 2
    if not notebooks:
        print(f"cephlab grade: no .ipynb notebooks in {' '.join(args.notebooks)}", file=sys.stderr)
        return 2
    if len(notebooks) == 1:
        return grade_one(notebooks[0], args)
    return grade_batch(notebooks, args)


def grade_one(notebook, args):
    try:
        result = grading.grade(notebook, timeout=args.timeout, sandbox=args.sandbox, learner_of=args.learner_of)
    except grading.GradingError as err:
        print(f"cephlab grade: {notebook}: {err}", file=sys.stderr)
        write_class_files(args, [(notebook, err)])
        return 1
    print(f"{notebook} (lab {result.lab}, graded in {result.seconds:.0f} s)")
    for q, (score, possible) in sorted(result.questions.items(), key=lambda kv: gradebook.question_key(kv[0])):
        print(f"  {q:<6} {fmt(score)}/{fmt(possible)}")
    if gradebook.id_warning(result):
        print(f"cephlab grade: warning: {notebook}: {gradebook.id_warning(result)}", file=sys.stderr)
    if args.csv:
        write_csv(args.csv, [(notebook, result)])
    write_class_files(args, [(notebook, result)])
    print(f"score: {fmt(result.score)}/{fmt(result.possible)}")
    return 0


def grade_batch(notebooks, args):
    lock = threading.Lock()

    def report(nb, outcome):
        with lock:
            if isinstance(outcome, grading.GradingError):
                first = str(outcome).strip().splitlines()[0]
                print(f"{nb}: NOT GRADED: {first}", flush=True)
            else:
                print(f"{nb}: score: {fmt(outcome.score)}/{fmt(outcome.possible)}", flush=True)
                if gradebook.id_warning(outcome):     # a typed id that is not the one graded: look at it
                    print(f"{nb}: warning: {gradebook.id_warning(outcome)}", flush=True)

    try:
        outcomes = grading.grade_many(notebooks, jobs=args.jobs, timeout=args.timeout, on_result=report,
                                      sandbox=args.sandbox, learner_of=args.learner_of)
    except grading.GradingError as err:      # the whole batch: e.g. the sandbox cannot run here
        print(f"cephlab grade: {err}", file=sys.stderr)
        return 2
    failed = [nb for nb, o in outcomes if isinstance(o, grading.GradingError)]
    if args.csv:
        write_csv(args.csv, outcomes)
        print(f"wrote {args.csv}")
    write_class_files(args, outcomes)
    print(f"graded {len(outcomes) - len(failed)} of {len(outcomes)} notebooks"
          + (f"; not graded: {', '.join(str(nb) for nb in failed)}" if failed else ""))
    return 1 if failed else 0


def write_class_files(args, outcomes):
    """The files of --out (gradebooks, LMS import, feedback) and --hand-template, with a line each."""
    if args.hand_template:
        path = gradebook.hand_scores_template(outcomes, args.hand_template[1:], args.hand_template[0])
        print(f"wrote {path}: fill in the scores, then grade again with --hand-scores {path}")
    if not args.out:
        return
    integrity.attach(outcomes, integrity.review(outcomes, args.out))
    written = [args.out / integrity.REPORT] + gradebook.write_all(outcomes, args.out, args.hand, args.lms)
    feedback = [p for p in written if "feedback" in p.relative_to(args.out).parts]
    for path in written:
        if path not in feedback:
            print(f"wrote {path}")
    print(f"wrote {len(feedback)} feedback files in {args.out / 'feedback'}/ (one per learner and lab)")


def write_csv(path, outcomes):
    """One row per notebook; a notebook that could not be graded gets its error instead of points."""
    questions = sorted({q for _, o in outcomes if not isinstance(o, Exception) for q in o.questions},
                       key=gradebook.question_key)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["notebook", "lab", "score", "possible", *questions, "error"])
        for nb, o in outcomes:
            if isinstance(o, Exception):
                w.writerow([nb, "", "", "", *[""] * len(questions), str(o).strip().splitlines()[0]])
            else:
                w.writerow([nb, o.lab, fmt(o.score), fmt(o.possible),
                            *[fmt(o.questions[q][0]) if q in o.questions else "" for q in questions], ""])
