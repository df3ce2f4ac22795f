"""Slider move -> new pixels in the labs' LivePlots: ipympl vs canvas renderer, JupyterLab and Voila.

Each lab's first LivePlot (or every one with a slider), old (ipympl) vs new (canvas) renderer, in
the OS's Chromium (the machinery of tests/browser).

    .venv/bin/python bench/bench_widgets.py                  # every lab, both front ends
    .venv/bin/python bench/bench_widgets.py --labs 01 05     # some labs
    .venv/bin/python bench/bench_widgets.py --frontends voila
    .venv/bin/python bench/bench_widgets.py --plots all --renderers canvas --frontends jupyterlab \
        --out bench/results/widgets-every-plot.json          # every slider plot, as learners get them

Per lab, front end, renderer (and plot, with --plots all): 12 single key steps and a 10-step drag
of the plot's first slider, each timed in the page from the input event to the first animation
frame whose canvas holds new pixels (see tests/browser/liveplot_page.py), then a fast 20-step drag
whose end must show the last value. The rows also give median and p95 of when Playwright's poller
saw the new pixels (poller_median, poller_p95: the measure before 2026-11-26, which on a loaded
machine adds Playwright's own round trips). Both renderers run in one server and one browser, lab by lab,
so they share the machine's load. Prints median, p95 and max per row, and over all moves pooled,
and writes them with each row's moves and the load average (1 min, taken before each row) to
bench/results/widgets.json (or --out).
Target (a slider that feels immediate): p95 <= 100 ms, median <= 50 ms. On a shared 2-core machine
these are upper bounds.
"""
from __future__ import annotations

import argparse
import json
import os
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


def first_figure_copy(notebook: Path, dest: Path, renderer: str, every_plot: bool = False) -> str:
    """The lab's folder under dest/renderer/, its notebook cut after the first LivePlot cell (the
    last one with every_plot) and starting with a cell that picks the renderer; returns the
    notebook's path relative to dest."""
    nb = json.loads(notebook.read_text())
    cut = labnotebooks.widget_cells(nb)[-1 if every_plot else 0]
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


def slider_boxes(page, scope: str = "", every_plot: bool = False) -> list:
    """(plot number from 1, box) of the first LivePlot with a slider, or of every one."""
    boxes = page.locator(f"{scope} {LIVEPLOT}".strip())
    boxes.first.wait_for()
    found = [(i + 1, boxes.nth(i)) for i in range(boxes.count()) if boxes.nth(i).locator(SLIDER).count()]
    return found if every_plot else found[:1]


def sweep_plots(boxes: list, on_row) -> None:
    for plot, box in boxes:
        load = os.getloadavg()[0]
        driver = SliderDriver(box)
        on_row(plot, driver.label, load, sweep(driver))


def run_jupyterlab(page, server, path: str, every_plot: bool, on_row):
    try:
        state = open_and_run(page, path)
        if "error" in state:
            raise RuntimeError(f"{path}: {state['error']}")
        sweep_plots(slider_boxes(page, f"#{state['done']}", every_plot), on_row)
    finally:
        close_everything(page, server)


def run_voila(browser, server, path: str, every_plot: bool, on_row):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(DRAW_PROBE)
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(server.url(f"voila/render/{path}"))
        sweep_plots(slider_boxes(page, every_plot=every_plot), on_row)
    finally:
        page.close()
        server.shutdown_kernels()


def stats(ms) -> dict:
    ms = np.asarray(ms, dtype=float)
    return (dict(median=float(np.median(ms)), p95=float(np.percentile(ms, 95)), max=float(ms.max()))
            if ms.size else dict(median=None, p95=None, max=None))


def row(lab: str, frontend: str, renderer: str, result, plot: int = 1, slider: str = "",
        load: float | None = None) -> dict:
    ms = [round(m.ms_to_new_plot, 1) for m in result.moves if m.ms_to_new_plot is not None]
    seen = stats([m.ms_seen_by_poller for m in result.moves if m.ms_seen_by_poller is not None])
    return dict(lab=lab, plot=plot, slider=slider, frontend=frontend, renderer=renderer, moves=len(result.moves),
                redrawn=len(ms), settled=result.settled, **stats(ms), load_1min=load,
                poller_median=seen["median"], poller_p95=seen["p95"], ms=ms)


def print_table(rows: list[dict]):
    def f(v):
        return f"{v:6.0f}" if v is not None else "     -"
    print(f"{'lab, plot (slider)':44s} {'front end':10s} | {'ipympl: median   p95   max':27s} | "
          f"{'canvas: median   p95   max':27s} | moves | load")
    keyed = {(r["lab"], r["plot"], r["frontend"], r["renderer"]): r for r in rows}
    for lab, plot, frontend in dict.fromkeys((r["lab"], r["plot"], r["frontend"]) for r in rows):
        cells, n, loads, slider = [], [], [], ""
        for renderer in RENDERERS:
            r = keyed.get((lab, plot, frontend, renderer))
            cells.append("        " + " ".join(f(r and r[k]) for k in ("median", "p95", "max")) if r else " " * 27)
            n.append(f"{r['redrawn']}/{r['moves']}{'' if r['settled'] else ' UNSETTLED'}" if r else "-")
            loads += [f"{r['load_1min']:.1f}"] if r and r.get("load_1min") is not None else []
            slider = slider or (r["slider"] if r else "")
        name = f"{lab}, {plot} ({slider})"
        print(f"{name[:44]:44s} {frontend:10s} | {cells[0]:27s} | {cells[1]:27s} | {' vs '.join(n)} | "
              f"{'/'.join(loads)}")
    for renderer in RENDERERS:
        for frontend in dict.fromkeys(r["frontend"] for r in rows):
            mine = [r for r in rows if r["renderer"] == renderer and r["frontend"] == frontend]
            medians = [r["median"] for r in mine if r["median"] is not None]
            if medians:
                pooled = stats([ms for r in mine for ms in r["ms"]])
                print(f"{renderer:7s} {frontend:10s}: median of medians {np.median(medians):.0f} ms, "
                      f"worst p95 {max(r['p95'] for r in mine if r['p95'] is not None):.0f} ms; "
                      f"all {sum(len(r['ms']) for r in mine)} moves pooled: median {pooled['median']:.0f} ms, "
                      f"p95 {pooled['p95']:.0f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labs", nargs="*", help="lab numbers or names (default: every lab)")
    ap.add_argument("--frontends", nargs="*", default=["jupyterlab", "voila"], choices=["jupyterlab", "voila"])
    ap.add_argument("--renderers", nargs="*", default=list(RENDERERS), choices=RENDERERS)
    ap.add_argument("--plots", default="first", choices=["first", "all"],
                    help="sweep each lab's first LivePlot with a slider, or every one (default: first)")
    ap.add_argument("--out", type=Path, default=RESULTS, help=f"results file (default: {RESULTS.relative_to(ROOT)})")
    args = ap.parse_args()
    every_plot = args.plots == "all"
    renderers = [r for r in RENDERERS if r in args.renderers]
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
    paths = {(p.stem, r): first_figure_copy(p, work / "root", r, every_plot) for p in labs for r in renderers}
    rows, t0, load_before = [], time.perf_counter(), os.getloadavg()
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
                    for renderer in renderers:
                        def on_row(plot, slider, load, result, lab=lab, frontend=frontend, renderer=renderer):
                            rows.append(row(lab, frontend, renderer, result, plot, slider, load))
                            print(json.dumps({k: v for k, v in rows[-1].items() if k != "ms"}), flush=True)
                        path = paths[(lab, renderer)]
                        if frontend == "jupyterlab":
                            run_jupyterlab(page, server, path, every_plot, on_row)
                        else:
                            run_voila(browser, server, path, every_plot, on_row)
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                               "seconds": round(time.perf_counter() - t0), "cpus": os.cpu_count(),
                               "load_before": load_before, "load_after": os.getloadavg(),
                               "args": sys.argv[1:], "rows": rows}, indent=1))
    print()
    print_table(rows)
    print(f"\nload average (1, 5, 15 min) before {load_before}, after {os.getloadavg()} on {os.cpu_count()} CPUs")
    print(f"(written to {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}; "
          "a shared 2-core machine: times are upper bounds)")


if __name__ == "__main__":
    main()
