"""Build the course site (Jupyter Book 1.x) into book/_build/html/.

    python book/build_book.py                      # = make book (the instructor site)
    python book/build_book.py --audience learner   # = make book-learner (build/learner-site/)
    python book/build_book.py --path-output DIR    # site in DIR/_build/html (the tests use this)

Two sites. The instructor site (the default) shows the *solutions* with the outputs they were
executed with (solutions/NN-topic.ipynb, never re-executed here), the instructor guide, the
syllabus, the rubrics, the troubleshooting page, the Ceph facts review, the pre/post quizzes with their answers
(book/quizzes/), the glossary and the references. The learner site shows the student notebooks of labs/ as learners
get them (answer cells `...`, public self-checks, no outputs: learners run them), an index for learners, the
glossary and the references; no solution, hidden test or instructor guide goes into its staging folder, and the
build stops if one would. The build works on a staged copy in build/book-src/ (learner:
build/book-src-learner/) where each solution is made fit for reading:

- otter's raw cells (`# ASSIGNMENT CONFIG`, `# BEGIN QUESTION`, ...) go; a one-line label
  "Graded question qN, P points" takes the place of `# BEGIN QUESTION`, and the test cells
  (hidden ones too) are folded under a "show" toggle;
- widget outputs cannot be live in static HTML: a LivePlot shows the PNG snapshot it stores
  next to its widget, and its controls and readout as they were when the notebook ran;
  other widgets (progress bars) keep their text form.

The table of contents and the labs table of the instructor guide are generated from the labs
that exist. Sphinx runs with -W: a broken internal link or an unrenderable output fails the build.
"""
from __future__ import annotations

import argparse
import copy
import html
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cephlab.course.student_release import SEEDS, seed_numbers

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
SOLUTIONS = ROOT / "solutions"
LABS = ROOT / "labs"
STAGING = ROOT / "build" / "book-src"
PAGES = ("index.md", "instructor-guide.md", "syllabus.md", "rubrics.md", "troubleshooting.md", "references.md",
         "ceph-facts.md", "glossary.md", "_config.yml")
QUIZZES = BOOK / "quizzes"      # the pre/post quizzes (otter masters), on the instructor site only
# The learner site: {staged name: source page}; no instructor guide. The glossary sits next to
# labs/ on both sites, where each lab's top cell links to it (`../glossary.md`).
LEARNER_PAGES = {"index.md": "learner-index.md", "glossary.md": "glossary.md", "references.md": "references.md",
                 "_config.yml": "_config.yml"}
LEARNER_OUTPUT = ROOT / "build" / "learner-site"
# Text that must never reach the learner site (otter's solution and hidden-test markers)
NOT_FOR_LEARNERS = ("# HIDDEN", "# BEGIN SOLUTION", "# END SOLUTION", "# BEGIN TESTS", "# BEGIN QUESTION",
                    "# SOLUTION")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
SOLUTION_TAIL = re.compile(r"\s*# SOLUTION(?: NO PROMPT)?\s*$")
DIRECTIVE = re.compile(r"#\s*((?:BEGIN|END)\s+(?:QUESTION|SOLUTION|TESTS|PROMPT)|ASSIGNMENT CONFIG)")


def solution_notebooks():
    return sorted(SOLUTIONS.glob("[0-9][0-9]-*.ipynb"))


def text(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def directive(cell):
    m = DIRECTIVE.match(text(cell).strip()) if cell["cell_type"] == "raw" else None
    return " ".join(m.group(1).split()) if m else None


def markdown(source, cell_id):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def question_label(cell):
    meta = dict(re.findall(r"^\s*(name|points)\s*:\s*(.+?)\s*$", text(cell), re.M))
    points = meta.get("points", "1")
    unit = "point" if points == "1" else "points"
    return markdown(f"*Graded question **{meta.get('name', '?')}**, {points} {unit} "
                    "(its tests are folded under the answer).*", f"graded-{meta.get('name', 'question')}")


# -- widgets --------------------------------------------------------------------------------------
def widget_models(nb):
    return nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def _children(models, model_id):
    state = models.get(model_id, {}).get("state", {})
    return [c.removeprefix("IPY_MODEL_") for c in state.get("children", [])]


def widget_summary(models, model_id):
    """Controls (description = value) and HTML readouts under a widget, from the saved state."""
    controls, readouts, todo = [], [], [model_id]
    while todo:
        mid = todo.pop(0)
        model = models.get(mid, {})
        name, state = model.get("model_name", ""), model.get("state", {})
        if name.endswith("SliderModel") or name in ("DropdownModel", "CheckboxModel", "ToggleButtonsModel"):
            value = state.get("value", state.get("index"))
            if name == "DropdownModel" and state.get("_options_labels") and isinstance(value, int):
                value = state["_options_labels"][value]
            controls.append(f"{state.get('description') or 'value'} = {value}")
        elif name == "HTMLModel" and state.get("value"):
            readouts.append(state["value"])
        todo += _children(models, mid)
    return controls, readouts


def static_outputs(output, models):
    """A widget output as static outputs: the PNG snapshot, then its controls and readout."""
    data = dict(output["data"])
    view = data.pop(WIDGET_VIEW)
    controls, readouts = widget_summary(models, view.get("model_id", ""))
    if not controls and not readouts and "image/png" not in data:
        return [dict(output, data=data)] if data else []   # e.g. a progress bar: its text form
    outputs = []
    if "image/png" in data:
        outputs.append({"output_type": "display_data", "metadata": {},
                        "data": {"image/png": data["image/png"], "text/plain": "<figure>"}})
    note = ("Interactive in JupyterLab" + (f"; shown here at {html.escape(', '.join(controls))}" if controls else "")
            + ("." if "image/png" in data else
               ". (This copy was executed before plots stored a static snapshot: `make solutions` adds it.)"))
    body = f"<p><em>{note}</em></p>" + "".join(f"<div>{r}</div>" for r in readouts)
    outputs.append({"output_type": "display_data", "metadata": {},
                    "data": {"text/html": body, "text/plain": note}})
    return outputs


# -- one notebook ---------------------------------------------------------------------------------
def for_the_site(nb):
    """A solution notebook made fit for static reading (see the module docstring)."""
    nb = copy.deepcopy(nb)
    models = widget_models(nb)
    cells, block = [], None
    for cell in nb["cells"]:
        d = directive(cell)
        if d == "BEGIN QUESTION":
            cells.append(question_label(cell))
        if d in ("BEGIN TESTS", "END TESTS", "BEGIN SOLUTION", "END SOLUTION"):
            block = d.split()[1] if d.startswith("BEGIN") else None
        if d or cell["cell_type"] == "raw":
            continue
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "code" and block != "TESTS":   # answers, also the own-run figures after a measurement
            cell["source"] = "\n".join(SOLUTION_TAIL.sub("", line) for line in text(cell).splitlines())
        if cell["cell_type"] == "code" and block == "TESTS":
            if cells and "hide-cell" in cells[-1]["metadata"].get("tags", []):   # one fold per question
                cells[-1]["source"] = text(cells[-1]) + "\n\n" + text(cell)
                cells[-1]["outputs"] += cell.get("outputs", [])
                continue
            cell.setdefault("metadata", {}).setdefault("tags", []).append("hide-cell")
        if cell["cell_type"] == "code":
            outputs = []
            for out in cell.get("outputs", []):
                if WIDGET_VIEW in out.get("data", {}):
                    outputs += static_outputs(out, models)
                else:
                    outputs.append(out)
            cell["outputs"] = outputs
        cells.append(cell)
    nb["cells"] = cells
    nb["metadata"].pop("widgets", None)
    nb["metadata"].pop("jupytext", None)
    return nb


def lab_facts(nb):
    """(title, what it needs) from a lab's first markdown cell."""
    first = text(next(c for c in nb["cells"] if c["cell_type"] == "markdown"))
    title = re.search(r"^#\s+(.+)$", first, re.M)
    needs = re.search(r"\*\*You need:\*\*\s*(.+?)(?:\n\s*\n|\Z)", first, re.S)
    return (title.group(1).strip() if title else "?",
            " ".join(needs.group(1).split()) if needs else "(not stated in the lab)")


def seeds_table():
    """Markdown table: each seed (the release's SEEDS), its title and the labs whose text cites it
    ("seed 003", or its file name)."""
    cites: dict[str, list[str]] = {n: [] for n in SEEDS}
    for path in solution_notebooks():
        body = "\n".join(text(c) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])
        named = seed_numbers(body) | {n for n, seed in SEEDS.items() if seed.file[:20] in body}
        for n in sorted(named & set(SEEDS)):
            cites[n].append(f"[lab {path.stem[:2]}](labs/{path.stem}.ipynb)")
    rows = [f"| {n} | {seed.by.split(';')[0]}, *{seed.title}*, {seed.kind}, {seed.where} | `{seed.file}` | "
            f"{', '.join(cites[n]) or '-'} |" for n, seed in SEEDS.items()]
    return "| seed | title | file | cited by |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"


# -- the learner site -----------------------------------------------------------------------------
def student_notebook(stem):
    """labs/<stem>/<stem>.ipynb, the learner's copy of a lab."""
    path = LABS / stem / f"{stem}.ipynb"
    if not path.exists():
        raise SystemExit(f"no student notebook {path}: run `make student` to generate labs/ from solutions/")
    return path


def for_learners(nb, name):
    """A student notebook for the learner site, as it is; stops the build on any otter marker
    (a stale or hand-edited labs/ notebook could carry a solution or a hidden test)."""
    nb = copy.deepcopy(nb)
    for cell in nb["cells"]:
        found = [m for m in NOT_FOR_LEARNERS if m in text(cell)]
        if found or directive(cell):
            raise SystemExit(f"{name}: a cell holds {found or directive(cell)}, which learners must not see: "
                             "regenerate labs/ with `make student`")
    nb["metadata"].pop("widgets", None)
    return nb


# -- the whole site -------------------------------------------------------------------------------
def stage(staging=STAGING, audience="instructor"):
    """Write the book's source tree into staging/; returns the lab stems staged."""
    if staging.exists():
        shutil.rmtree(staging)
    (staging / "labs").mkdir(parents=True)
    pages = LEARNER_PAGES if audience == "learner" else {page: page for page in PAGES}
    for staged, page in pages.items():
        shutil.copy(BOOK / page, staging / staged)
    labs, rows = [], []
    for path in solution_notebooks():
        nb = json.loads(path.read_text(encoding="utf-8"))
        if audience == "learner":
            student = json.loads(student_notebook(path.stem).read_text(encoding="utf-8"))
            site_nb = for_learners(student, path.stem)
        else:
            site_nb = for_the_site(nb)
        (staging / "labs" / path.name).write_text(json.dumps(site_nb, indent=1), encoding="utf-8")
        title, needs = lab_facts(nb)
        labs.append(path.stem)
        rows.append(f"| [{title}](labs/{path.stem}.ipynb) | {needs.replace('|', '/')} |")
    quizzes = sorted(QUIZZES.glob("[0-9][0-9]-*-quiz.ipynb")) if audience != "learner" else []
    for path in quizzes:
        (staging / "quizzes").mkdir(exist_ok=True)
        site_nb = for_the_site(json.loads(path.read_text(encoding="utf-8")))
        (staging / "quizzes" / path.name).write_text(json.dumps(site_nb, indent=1), encoding="utf-8")
    (staging / "seeds-table.md").write_text(seeds_table(), encoding="utf-8")
    (staging / "labs-table.md").write_text(
        "| lab | what it needs, and how long it runs |\n|---|---|\n" + "\n".join(rows) + "\n", encoding="utf-8")
    caption = "Labs" if audience == "learner" else "Labs (solutions)"
    toc = ["format: jb-book", "root: index", "parts:", f"  - caption: {caption}", "    chapters:"]
    toc += [f"      - file: labs/{stem}" for stem in labs]
    if audience == "learner":
        toc += ["  - caption: Words and sources", "    chapters:", "      - file: glossary", "      - file: references"]
    else:
        toc += ["  - caption: For instructors", "    chapters:", "      - file: instructor-guide",
                "      - file: syllabus", "      - file: rubrics", "      - file: troubleshooting",
                "      - file: ceph-facts", "      - file: glossary", "      - file: references"]
        if quizzes:
            toc += ["  - caption: Quizzes (solutions)", "    chapters:"]
            toc += [f"      - file: quizzes/{path.stem}" for path in quizzes]
    (staging / "_toc.yml").write_text("\n".join(toc) + "\n", encoding="utf-8")
    return labs


def build(path_output=BOOK, staging=STAGING, audience="instructor"):
    """Stage, then run Jupyter Book with warnings as errors; returns jupyter-book's exit code."""
    stage(staging, audience)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb) if jb.exists() else "jupyter-book", "build", str(staging), "--path-output", str(path_output),
           "--all", "-W", "--keep-going"]
    return subprocess.run(cmd).returncode


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audience", choices=("instructor", "learner"), default="instructor",
                    help="instructor: solutions and the instructor guide (default); learner: the student "
                         "notebooks, no answers, no hidden tests, no guide")
    ap.add_argument("--path-output", type=Path,
                    help="the site goes to PATH/_build/html (default: book/, learner: build/learner-site/)")
    ap.add_argument("--staging", type=Path,
                    help="where the source tree is staged (default: build/book-src/, learner: build/book-src-learner/)")
    args = ap.parse_args(argv)
    learner = args.audience == "learner"
    path_output = args.path_output or (LEARNER_OUTPUT if learner else BOOK)
    staging = args.staging or (STAGING.with_name("book-src-learner") if learner else STAGING)
    t0 = time.monotonic()
    code = build(path_output.resolve(), staging.resolve(), args.audience)
    where = path_output.resolve() / "_build" / "html" / "index.html"
    print(f"book ({args.audience}): {'built' if code == 0 else 'FAILED'} in {time.monotonic() - t0:.0f} s"
          + (f": {where}" if code == 0 else " (warnings are errors: see above)"))
    return code


if __name__ == "__main__":
    sys.exit(main())
