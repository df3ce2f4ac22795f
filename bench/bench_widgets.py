"""Slider move -> new pixels for each lab's first LivePlot, old (ipympl) vs new (canvas) renderer,
in JupyterLab and in Voila, in the OS's Chromium (the machinery of tests/browser).

    .venv/bin/python bench/bench_widgets.py                  # every lab, both front ends
    .venv/bin/python bench/bench_widgets.py --labs 01 05     # some labs
    .venv/bin/python bench/bench_widgets.py --frontends voila

Per lab, front end and renderer: 12 single key steps and a 10-step drag, each timed in the page
from the input event to the first animation frame whose canvas holds new pixels (see
tests/browser/liveplot_page.py), then a fast 20-step drag whose end must show the last value.
Both renderers run in one server and one browser, lab by lab, so they share the machine's load.
Prints median, p95 and max per row and writes them to bench/results/widgets.json.
Target (a slider that feels immediate): p95 <= 100 ms, median <= 50 ms. On a shared 2-core machine
these are upper bounds.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.browser import labnotebooks  # noqa: E402
from tests.browser.jupyterlab_page import close_everything, open_and_run  # noqa: E402
from tests.browser.liveplot_page import DRAW_PROBE, LIVEPLOT, SLIDER, SliderDriver, sweep  # noqa: E402
from tests.browser.servers import CHROMIUM_FLAGS, JupyterLabServer, chromium_path  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "widgets.json"
RENDERERS = ("ipympl", "canvas")
TIMEOUT_MS = 180_000


def first_figure_copy(notebook: Path, dest: Path, renderer: str) -> str:
    """The lab's folder under dest/renderer/, its notebook cut after the first LivePlot cell and
    starting with a cell that picks the renderer; returns the notebook's path relative to dest."""
    nb = json.loads(notebook.read_text())
    cut = labnotebooks.widget_cells(nb)[0]
    nb["cells"] = nb["cells"][:cut + 1]
    nb = labnotebooks.trimmed(nb)
    pick = f"import os\nos.environ['CEPHLAB_RENDERER'] = {renderer!r}"
    nb["cells"].insert(0, {"cell_type": "code", "metadata": {}, "source": pick, "outputs": [],
                           "execution_count": None})
    folder = dest / renderer / notebook.parent.name
    shutil.copytree(notebook.parent, folder, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", ".OTTER_LOG"))
    (folder / notebook.name).write_text(json.dumps(nb, indent=1))
    return f"{renderer}/{notebook.parent.name}/{notebook.name}"


def first_slider_box(page, scope: str = ""):
    boxes = page.locator(f"{scope} {LIVEPLOT}".strip())
    boxes.first.wait_for()
    return next(boxes.nth(i) for i in range(boxes.count()) if boxes.nth(i).locator(SLIDER).count())


def run_jupyterlab(page, server, path: str):
    try:
        state = open_and_run(page, path)
        if "error" in state:
            raise RuntimeError(f"{path}: {state['error']}")
        return sweep(SliderDriver(first_slider_box(page, f"#{state['done']}")))
    finally:
        close_everything(page, server)


def run_voila(browser, server, path: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(DRAW_PROBE)
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(server.url(f"voila/render/{path}"))
        return sweep(SliderDriver(first_slider_box(page)))
    finally:
        page.close()
        server.shutdown_kernels()


def row(lab: str, frontend: str, renderer: str, result) -> dict:
    ms = np.array([m.ms_to_new_plot for m in result.moves if m.ms_to_new_plot is not None])
    stats = (dict(median=float(np.median(ms)), p95=float(np.percentile(ms, 95)), max=float(ms.max()))
             if ms.size else dict(median=None, p95=None, max=None))
    return dict(lab=lab, frontend=frontend, renderer=renderer, moves=len(result.moves), redrawn=int(ms.size),
                settled=result.settled, **stats)


def print_table(rows: list[dict]):
    def f(v):
        return f"{v:6.0f}" if v is not None else "     -"
    print(f"{'lab':28s} {'front end':10s} | {'ipympl: median   p95   max':27s} | "
          f"{'canvas: median   p95   max':27s} | moves")
    keyed = {(r["lab"], r["frontend"], r["renderer"]): r for r in rows}
    for lab, frontend in dict.fromkeys((r["lab"], r["frontend"]) for r in rows):
        cells, n = [], []
        for renderer in RENDERERS:
            r = keyed.get((lab, frontend, renderer))
            cells.append("        " + " ".join(f(r and r[k]) for k in ("median", "p95", "max")) if r else " " * 27)
            n.append(f"{r['redrawn']}/{r['moves']}{'' if r['settled'] else ' UNSETTLED'}" if r else "-")
        print(f"{lab:28s} {frontend:10s} | {cells[0]:27s} | {cells[1]:27s} | {' vs '.join(n)}")
    for renderer in RENDERERS:
        for frontend in dict.fromkeys(r["frontend"] for r in rows):
            ms = [r[k] for r in rows if r["renderer"] == renderer and r["frontend"] == frontend
                  for k in ("median",) if r[k] is not None]
            p95 = [r["p95"] for r in rows if r["renderer"] == renderer and r["frontend"] == frontend
                   and r["p95"] is not None]
            if ms:
                print(f"{renderer:7s} {frontend:10s}: median of medians {np.median(ms):.0f} ms, "
                      f"worst p95 {max(p95):.0f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labs", nargs="*", help="lab numbers or names (default: every lab)")
    ap.add_argument("--frontends", nargs="*", default=["jupyterlab", "voila"], choices=["jupyterlab", "voila"])
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    labs = [p for p in labnotebooks.lab_notebooks()
            if not args.labs or any(p.stem.startswith(w) for w in args.labs)]
    exe = chromium_path()
    if exe is None:
        sys.exit("the OS's Chromium is missing: sudo apt-get install chromium (never `playwright install`)")
    work = Path(tempfile.mkdtemp(prefix="bench-widgets-"))
    server = JupyterLabServer(work / "root", work / "state")
    (work / "root").mkdir()
    (work / "state").mkdir()
    paths = {(p.stem, r): first_figure_copy(p, work / "root", r) for p in labs for r in RENDERERS}
    rows, t0 = [], time.perf_counter()
    server.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.add_init_script(DRAW_PROBE)
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(server.url("lab", reset=""))
            page.wait_for_function("() => window.jupyterapp !== undefined")
            page.evaluate("() => window.jupyterapp.restored")
            for lab in (p.stem for p in labs):
                for frontend in args.frontends:
                    for renderer in RENDERERS:
                        path = paths[(lab, renderer)]
                        result = (run_jupyterlab(page, server, path) if frontend == "jupyterlab"
                                  else run_voila(browser, server, path))
                        rows.append(row(lab, frontend, renderer, result))
                        print(json.dumps(rows[-1]), flush=True)
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                                   "seconds": round(time.perf_counter() - t0), "rows": rows}, indent=1))
    print()
    print_table(rows)
    print(f"\n(written to {RESULTS.relative_to(ROOT)}; a shared 2-core machine: times are upper bounds)")


if __name__ == "__main__":
    main()
