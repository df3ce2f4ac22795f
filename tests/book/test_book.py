"""The course site: what book/build_book.py makes of a solution, and the real Jupyter Book builds
(into a temporary folder, warnings as errors) with their pages, figures and internal links: the
instructor site (solutions) and the learner site (student notebooks: no solution code, no hidden
test text, no instructor guide; its build takes about 10 s more)."""
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.leaks import folder_texts, leaks

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("build_book", ROOT / "book" / "build_book.py")
build_book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_book)

LAB01 = ROOT / "solutions" / "01-redundancy.ipynb"
LABS = [p.stem for p in build_book.solution_notebooks()]
OTTER_MARKERS = ("# BEGIN QUESTION", "# END QUESTION", "# ASSIGNMENT CONFIG", "# BEGIN TESTS",
                 "# BEGIN SOLUTION", "# SOLUTION")


def src(cell):
    return build_book.text(cell)


@pytest.fixture(scope="module")
def lab01_site():
    return build_book.for_the_site(json.loads(LAB01.read_text()))


def test_otter_cells_and_markers_are_gone(lab01_site):
    assert all(c["cell_type"] != "raw" for c in lab01_site["cells"])
    code = "\n".join(src(c) for c in lab01_site["cells"] if c["cell_type"] == "code")
    assert not [m for m in OTTER_MARKERS if m in code]
    assert "q1_overhead = erasure(P[\"q1_k\"], P[\"q1_m\"]).overhead\n" in code + "\n"


def test_each_question_is_labelled_and_its_tests_folded_once(lab01_site):
    labels = [src(c) for c in lab01_site["cells"] if c["cell_type"] == "markdown" and "Graded question" in src(c)]
    assert [re.search(r"\*\*(q\d)\*\*, (\d) point", label).groups() for label in labels] == [
        ("q1", "1"), ("q2", "1"), ("q3", "2"), ("q4", "1"), ("q5", "1"), ("q6", "2")]
    folded = [src(c) for c in lab01_site["cells"] if "hide-cell" in c["metadata"].get("tags", [])]
    assert len(folded) == 6, "one folded test cell per question"
    assert all("# HIDDEN" in f and "assert" in f for f in folded)


def test_liveplots_become_their_snapshot_and_readout(lab01_site):
    outs = [o for c in lab01_site["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert not any(build_book.WIDGET_VIEW in o.get("data", {}) for o in outs)
    assert "widgets" not in lab01_site["metadata"]
    plot_cell = next(c for c in lab01_site["cells"] if src(c).rstrip().endswith("durability_plot"))
    kinds = [sorted(o["data"]) for o in plot_cell["outputs"]]
    assert kinds == [["image/png", "text/plain"], ["text/html", "text/plain"]]
    note = plot_cell["outputs"][1]["data"]["text/html"]
    assert "AFR = 0.02" in note and "replicated size 3: 10 nines (1 day)" in note


def test_a_widget_without_snapshot_says_how_to_get_one():
    models = {"box": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_s", "IPY_MODEL_h"]}},
              "s": {"model_name": "IntSliderModel", "state": {"description": "k", "value": 4}},
              "h": {"model_name": "HTMLModel", "state": {"value": "<b>EC 4+2</b>"}}}
    out = {"output_type": "display_data", "metadata": {},
           "data": {build_book.WIDGET_VIEW: {"model_id": "box"}, "text/plain": "VBox(...)"}}
    [only] = build_book.static_outputs(out, models)
    assert "shown here at k = 4" in only["data"]["text/html"] and "make solutions" in only["data"]["text/html"]
    assert "<b>EC 4+2</b>" in only["data"]["text/html"]


def test_a_progress_bar_widget_keeps_its_text():
    out = {"output_type": "display_data", "metadata": {},
           "data": {build_book.WIDGET_VIEW: {"model_id": "nope"}, "text/plain": "100%|##########| 16/16"}}
    assert build_book.static_outputs(out, {}) == [{"output_type": "display_data", "metadata": {},
                                                  "data": {"text/plain": "100%|##########| 16/16"}}]


def test_lab_facts_come_from_the_first_cell():
    title, needs = build_book.lab_facts(json.loads(LAB01.read_text()))
    assert title == "Lab 01 — Replication vs erasure coding"
    assert needs == "the lab cluster (3 OSDs or more; `make lab` starts it). About 2 minutes."


def test_seeds_table_names_every_seed_and_who_cites_it():
    table = build_book.seeds_table()
    assert len(table.strip().splitlines()) == 2 + 5
    assert "[lab 01](labs/01-redundancy.ipynb)" in table.splitlines()[2]      # seed 000: lab 01 cites it


# -- the real build ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    run = subprocess.run([sys.executable, str(ROOT / "book" / "build_book.py"), "--path-output", str(out),
                          "--staging", str(out / "src")], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"book build failed (warnings are errors):\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}"
    return out / "_build" / "html"


@pytest.mark.timeout(900)
def test_site_has_an_index_every_lab_the_guide_and_the_references(site):
    assert (site / "index.html").exists()
    for lab in LABS:
        assert (site / "labs" / f"{lab}.html").exists(), lab
    guide = (site / "instructor-guide.html").read_text()
    for lab in LABS:
        assert f'href="labs/{lab}.html"' in guide, f"the guide's lab table misses {lab}"
    refs = (site / "references.html").read_text()
    assert "Understanding Write Behaviors of Storage Backends" in refs and "src/mon/OSDMonitor.cc" in refs


@pytest.mark.timeout(900)
def test_no_otter_markup_reaches_the_pages(site):
    for page in (site / "labs").glob("*.html"):
        body = page.read_text()
        assert not [m for m in OTTER_MARKERS if m in body], page.name


@pytest.mark.timeout(900)
def test_lab01_shows_its_figures(site):
    body = (site / "labs" / "01-redundancy.html").read_text()
    images = re.findall(r'<img[^>]+src="([^"]+)"', body)
    assert len(images) >= 3, "two LivePlot snapshots and the model-vs-measurement bars"
    for img in images:
        assert (site / "labs" / unquote(img)).resolve().exists(), img


@pytest.mark.timeout(900)
def test_every_internal_link_resolves(site):
    broken = []
    for page in site.rglob("*.html"):
        if "_static" in page.parts:
            continue
        for href in re.findall(r'href="([^"]+)"', page.read_text()):
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("#", "mailto:", "//")) or not parts.path:
                continue
            if not (page.parent / unquote(parts.path)).resolve().exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
    assert not broken, broken[:20]


@pytest.mark.timeout(300)
def test_a_broken_link_fails_the_build(tmp_path):
    """The build's -W turns a link to a missing page into an error (so CI catches it)."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "book" / "_config.yml", src / "_config.yml")
    (src / "_toc.yml").write_text("format: jb-book\nroot: index\n")
    (src / "index.md").write_text("# Broken\n\nSee [the guide](no-such-page.md).\n")
    jb = Path(sys.executable).with_name("jupyter-book")
    run = subprocess.run([str(jb), "build", str(src), "--path-output", str(tmp_path), "-W", "--keep-going"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    assert "no-such-page" in run.stdout + run.stderr


# -- the learner site -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def learner_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("learner-book")
    run = subprocess.run([sys.executable, str(ROOT / "book" / "build_book.py"), "--audience", "learner",
                          "--path-output", str(out), "--staging", str(out / "src")],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, (f"learner site failed (warnings are errors):\n"
                                 f"{run.stdout[-4000:]}\n{run.stderr[-4000:]}")
    return out / "_build" / "html"


@pytest.mark.timeout(900)
def test_learner_site_has_every_lab_and_no_instructor_guide(learner_site):
    assert (learner_site / "index.html").exists() and (learner_site / "references.html").exists()
    for lab in LABS:
        body = (learner_site / "labs" / f"{lab}.html").read_text()
        assert "grader" in body and "check" in body, f"{lab}: the self-check cells are missing"
    assert not list(learner_site.rglob("instructor-guide*"))
    assert "instructor-guide" not in (learner_site / "index.html").read_text()


@pytest.mark.timeout(900)
def test_learner_site_holds_no_solution_code_and_no_hidden_test(learner_site):
    texts = folder_texts(learner_site)
    assert not leaks(texts, "solution"), leaks(texts, "solution")[:5]
    assert not leaks(texts, "hidden"), leaks(texts, "hidden")[:5]
    assert not [p for p, body in texts.items() if "# HIDDEN" in body or "# BEGIN SOLUTION" in body]


@pytest.mark.timeout(900)
def test_the_leak_search_finds_the_answers_in_the_instructor_site(site):
    """The negative control: the same search on the instructor site finds both, in every lab."""
    texts = folder_texts(site)
    for which in ("solution", "hidden"):
        assert {lab for lab, _, _ in leaks(texts, which)} == set(LABS), which


@pytest.mark.timeout(900)
def test_learner_site_links_resolve(learner_site):
    broken = []
    for page in learner_site.rglob("*.html"):
        for href in [] if "_static" in page.parts else re.findall(r'href="([^"]+)"', page.read_text()):
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("#", "mailto:", "//")) or not parts.path:
                continue
            if not (page.parent / unquote(parts.path)).resolve().exists():
                broken.append(f"{page.relative_to(learner_site)} -> {href}")
    assert not broken, broken[:20]


def test_a_student_notebook_with_a_solution_marker_stops_the_learner_build():
    nb = {"cells": [{"cell_type": "code", "source": "x = 1  # SOLUTION", "metadata": {}, "outputs": []}],
          "metadata": {}}
    with pytest.raises(SystemExit, match="make student"):
        build_book.for_learners(nb, "01-redundancy")
