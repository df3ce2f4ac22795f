"""Learner times: how long each STUDENT notebook takes, measured once as a learner would run it.

    .venv/bin/cephlab up --name it-times --osds 4
    CEPHLAB_NAME=it-times .venv/bin/python bench/learner_times.py run        # executes labs/NN/NN.ipynb
    .venv/bin/python bench/learner_times.py estimate                          # adds the reading estimate
    .venv/bin/python bench/learner_times.py table                             # the instructor guide's table
    .venv/bin/cephlab down --name it-times

`run` executes each student notebook (labs/NN-topic/NN-topic.ipynb, answers left as `...`, so the
self-checks fail softly) top to bottom with nbclient, one at a time, every cell even after an error
(allow_errors, as tests/notebooks/test_labs.py does), and records the wall-clock time of the whole
notebook (kernel start included) and of its slowest cells. `estimate` adds a learner-time
estimate from the student notebook's text:

    learner minutes = machine minutes
                    + words in Markdown cells / 200 words per minute (reading)
                    + code lines the learner reads / 20 lines per minute
                    + 3 min per graded numeric/code question (BEGIN QUESTION ... `...` answer cells)
                      and per figure read off the learner's own run (a `run.check` cell)
                    + 5 min per written (free-text) question and per explanation (W1, W2)
                    + 2 min per interactive plot (a LivePlot with sliders to move)

and rounds the total up to the next 5 minutes. Raw numbers go to bench/results/learner_times.json.
"""
from __future__ import annotations

import json
import math
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "labs"
OUT = ROOT / "bench" / "results" / "learner_times.json"
WORDS_PER_MIN, CODE_LINES_PER_MIN, MIN_PER_QUESTION, MIN_PER_WRITTEN, MIN_PER_PLOT = 200, 20, 3, 5, 2


def student_notebooks(only=()):
    paths = sorted(LABS.glob("[0-9][0-9]-*/[0-9][0-9]-*.ipynb"))
    return [p for p in paths if not only or p.stem[:2] in only]


def load():
    return json.loads(OUT.read_text()) if OUT.exists() else {"method": __doc__, "labs": {}}


def save(data):
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def _cell_seconds(cell):
    ex = cell.metadata.get("execution", {})
    a, b = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
    if not (a and b):
        return None
    from datetime import datetime
    f = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (f(b) - f(a)).total_seconds()


def run(only=()):
    import os

    import nbformat
    from nbclient import NotebookClient
    data = load()
    for path in student_notebooks(only):
        with tempfile.TemporaryDirectory() as tmp:     # a copy: otter's logs stay out of labs/
            work = Path(tmp) / path.parent.name
            shutil.copytree(path.parent, work)
            nb = nbformat.read(work / path.name, as_version=4)
            t0 = time.monotonic()
            NotebookClient(nb, timeout=1800, kernel_name="python3", allow_errors=True, record_timing=True,
                           resources={"metadata": {"path": str(work)}}).execute()
            wall = time.monotonic() - t0
        code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        errors = [f"cell {i}: {o.ename}: {str(o.evalue)[:160]}" for i, c in code
                  for o in c.outputs if o.output_type == "error"]
        cells = sorted(((s, i) for i, c in code if (s := _cell_seconds(c)) is not None), reverse=True)
        data["labs"].setdefault(path.stem, {}).update({
            "machine_seconds": round(wall, 1), "errors": errors,
            "slowest_cells": [{"cell": i, "seconds": round(s, 1)} for s, i in cells[:3]],
            "load_average_1min_after": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
            "cluster": os.environ.get("CEPHLAB_NAME", "?"),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "python": sys.version.split()[0]})
        save(data)
        print(f"{path.stem}: {wall:.0f} s, {len(errors)} error outputs", flush=True)


def text_counts(path):
    nb = json.loads(path.read_text())
    src = lambda c: "".join(c["source"]) if isinstance(c["source"], list) else c["source"]  # noqa: E731
    md = [src(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    code = [src(c) for c in nb["cells"] if c["cell_type"] == "code"]
    words = sum(len(re.findall(r"[A-Za-z0-9][\w'.,%-]*", re.sub(r"<[^>]+>|\$[^$]*\$", " ", m))) for m in md)
    code_lines = sum(1 for c in code for line in c.splitlines()
                     if line.strip() and not line.strip().startswith("#"))
    checks = re.findall(r'grader\.check\("([^"]+)"\)', "\n".join(code))
    tests = path.parent / "tests"
    questions = sorted(set(checks) | ({p.stem for p in tests.glob("*.py")} if tests.exists() else set()))
    written = [q for q in questions if _is_written(path.parent, q)]
    # the learner's own work: explanations (W1, W2: prose graded by hand) and own-run figures (run.check)
    explanations = sum(len(re.findall(r"\*\*W\d\. ", m)) for m in md)
    run_figures = "\n".join(code).count("run.check(")
    return {"markdown_words": words, "code_lines": code_lines, "questions": len(questions) + run_figures,
            "written_questions": len(written), "explanations": explanations,
            "interactive_plots": "\n".join(code).count("LivePlot(")}


def _is_written(folder, q):
    """A question whose answer is prose: its public test only checks a string's length/words."""
    t = folder / "tests" / f"{q}.py"
    return t.exists() and bool(re.search(r"len\(.*(split|strip)\(\)", t.read_text()))


def estimate():
    data = load()
    data["method"] = __doc__
    for path in student_notebooks():
        lab = data["labs"].setdefault(path.stem, {})
        counts = text_counts(path)
        machine_min = lab.get("machine_seconds", 0) / 60
        minutes = (machine_min + counts["markdown_words"] / WORDS_PER_MIN
                   + counts["code_lines"] / CODE_LINES_PER_MIN
                   + MIN_PER_QUESTION * (counts["questions"] - counts["written_questions"])
                   + MIN_PER_WRITTEN * (counts["written_questions"] + counts["explanations"])
                   + MIN_PER_PLOT * counts["interactive_plots"])
        lab.update(counts, estimated_learner_minutes=int(5 * math.ceil(minutes / 5)))
        print(f"| {path.stem} | {lab.get('machine_seconds', '?')} s | "
              f"{lab['estimated_learner_minutes']} min | "
              f"{counts['markdown_words']} words, {counts['code_lines']} code lines, "
              f"{counts['questions']} questions "
              f"({counts['written_questions']} written), {counts['explanations']} explanations |")
    save(data)


def table():
    """The Markdown table of the instructor guide, from the raw numbers."""
    rows = ["| lab | machine time, measured | learner time, estimated | how measured (student notebook) |",
            "|---|---|---|---|"]
    for stem, lab in sorted(load()["labs"].items()):
        note = "; cluster part skipped (no cephadm cluster)" if stem.startswith("11-") else ""
        errors = f"; {len(lab['errors'])} cells raised" if lab.get("errors") else ""
        rows.append(f"| [lab {stem[:2]}](labs/{stem}.ipynb) | {lab['machine_seconds']:.0f} s | "
                    f"{lab['estimated_learner_minutes']} min | nbclient run{note}{errors}; "
                    f"{lab['markdown_words']:,} words, {lab['code_lines']} code lines, {lab['questions']} "
                    f"questions, {lab.get('explanations', 0)} explanations, "
                    f"{lab['interactive_plots']} interactive plot(s) |")
    print("\n".join(rows))


if __name__ == "__main__":
    cmd, *only = sys.argv[1:] or ["estimate"]
    {"run": lambda: run(only), "estimate": estimate, "table": table}[cmd]()
