"""Fixtures of the browser tests: ONE JupyterLab server and ONE Chromium page for tests/browser
(package scope: both end when the last browser test is done, before the notebook tests start).

JupyterLab takes ~10-20 s to start and its page as long to load, so both happen once; each lab
then opens in that page (File > Open, through JupyterLab's docmanager:open command) and closes
again with its kernel shut down. Screenshots, the executed trimmed notebooks, JupyterLab's log
and the slider timings go to test-artifacts/browser/ (git-ignored; CI keeps it).
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.browser import labnotebooks
from tests.browser.liveplot_page import DRAW_PROBE
from tests.browser.servers import CHROMIUM_FLAGS, JupyterLabServer, chromium_path

ARTIFACTS = labnotebooks.ROOT / "test-artifacts" / "browser"
PAGE_TIMEOUT_MS = 180_000   # a 2-core machine under load: JupyterLab's page alone took 20 s
TIMINGS: list[dict] = []    # one row per slider move, printed at the end of the session


@pytest.fixture(scope="package")
def artifacts() -> Path:
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.fixture(scope="package")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="pip install playwright (bash cephlab/bootstrap.sh setup --test)")
    exe = chromium_path()
    if exe is None:
        pytest.skip("the OS's Chromium is missing: sudo apt-get install chromium "
                    "(bash cephlab/bootstrap.sh setup --test installs it; never `playwright install`)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)  # a new empty profile each time
        yield b
        b.close()


@pytest.fixture(scope="package")
def jupyterlab(artifacts, tmp_path_factory):
    """JupyterLab on artifacts/notebooks/, which holds a trimmed copy of every lab."""
    root = artifacts / "notebooks"
    root.mkdir()
    for nb in labnotebooks.lab_notebooks():
        labnotebooks.copy_trimmed_lab(nb, root)
    server = JupyterLabServer(root, tmp_path_factory.mktemp("jupyterlab")).start()
    TIMINGS.append({"what": "JupyterLab server start", "ms": server.startup_s * 1e3})
    yield server
    server.stop()
    shutil.copy(server.log_path, artifacts / "jupyterlab.log")


@pytest.fixture(scope="package")
def lab_page(browser, jupyterlab):
    """One page with JupyterLab loaded (its ~1 MB of JavaScript loads once)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(DRAW_PROBE)   # input stamps and canvas draw counts for the timings
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    t0 = time.perf_counter()
    page.goto(jupyterlab.url("lab", reset=""))
    page.wait_for_function("() => window.jupyterapp !== undefined")
    page.evaluate("() => window.jupyterapp.restored")   # a promise: resolves when the layout is up
    page.locator("#jp-main-dock-panel").wait_for()
    TIMINGS.append({"what": "JupyterLab page load", "ms": (time.perf_counter() - t0) * 1e3})
    yield page
    page.close()


def pytest_terminal_summary(terminalreporter):
    if not TIMINGS:
        return
    # one line per (what, slider, key): the sweeps repeat a move a dozen times, and a line each
    # pushed the rest of the summary (the slowest tests) out of CI's visible log
    groups: dict[tuple, list] = {}
    for t in TIMINGS:
        groups.setdefault((t["what"], t.get("slider", ""), t.get("key", "")), []).append(t["ms"])
    lines = ["what | slider | key | n | median ms | max ms"]
    for (what, slider, key), values in groups.items():
        ms = sorted(v for v in values if v is not None)
        shown = f"{ms[len(ms) // 2]:.0f} | {ms[-1]:.0f}" if ms else "no new plot | -"
        missed = len(values) - len(ms)
        lines.append(f"{what} | {slider} | {key} | {len(values)} | {shown}"
                     + (f" ({missed} without a new plot)" if ms and missed else ""))
    moves = sorted(t["ms"] for t in TIMINGS if "slider" in t and t["ms"] is not None)
    if moves:
        p95 = moves[min(len(moves) - 1, round(0.95 * (len(moves) - 1)))]
        lines.append(f"slider move -> new plot: median {moves[len(moves) // 2]:.0f} ms, p95 {p95:.0f} ms, "
                     f"max {moves[-1]:.0f} ms over {len(moves)} moves")
    terminalreporter.write_sep("-", "browser tests: timings (also in test-artifacts/browser/timings.json)")
    for line in lines:
        terminalreporter.write_line(line)
    if ARTIFACTS.is_dir():
        (ARTIFACTS / "timings.json").write_text(json.dumps(TIMINGS, indent=1))
