"""Every lab's sliders in a real browser: JupyterLab in Debian's Chromium, driven by Playwright.

Per lab: open the notebook in the session's JupyterLab page, Run > Run All Cells (the notebook is
the lab cut after its last LivePlot cell, see labnotebooks.py), wait until every cell ran without
an error, then on every LivePlot move the first slider to its end and check that the slider's
value, the readout's numbers and the plot's pixels all changed; on the first figure, 22+ timed
moves (single key steps and a drag) each redraw, and a fast drag ends on its last value. Screenshots
before and after go to test-artifacts/browser/; the move-to-new-plot times are printed at the end
of the run (bench/bench_widgets.py compares the renderers).
"""
import json
import time

import pytest

pytest.importorskip("playwright.sync_api", reason="pip install playwright (bash cephlab/bootstrap.sh setup --test)")

from tests.browser import labnotebooks  # noqa: E402
from tests.browser.conftest import TIMINGS  # noqa: E402
from tests.browser.jupyterlab_page import close_everything, open_and_run  # noqa: E402
from tests.browser.liveplot_page import LIVEPLOT, SLIDER, SliderDriver, move_first_slider, sweep  # noqa: E402

LABS = labnotebooks.lab_notebooks()


def check_sweep(lab: str, boxes, where: str):
    """22 timed moves (12 key steps, a 10-step drag) and a fast drag on the lab's first figure with
    a slider: the plot redraws and ends on the slider's last value. Times are reported only."""
    box = next(boxes.nth(i) for i in range(boxes.count()) if boxes.nth(i).locator(SLIDER).count())
    result = sweep(SliderDriver(box))
    for move in result.moves:
        TIMINGS.append({"what": f"{where}: {lab} sweep", "slider": move.slider, "key": move.key,
                        "ms": move.ms_to_new_plot})
    missed = [f"{m.key} {m.value_before} -> {m.value_after}" for m in result.moves if m.ms_to_new_plot is None]
    assert not missed, f"{lab} ({where}): {len(missed)} of {len(result.moves)} slider moves drew no new plot: {missed}"
    assert result.settled, f"{lab} ({where}): after a fast drag the plot does not show the slider's last value"


def test_every_lab_is_tested():
    """The browser test follows labs/ as other labs land; an empty list would test nothing."""
    assert len(LABS) >= 2, f"expected the student labs in {labnotebooks.LABS}, found {LABS}"


@pytest.mark.browser
@pytest.mark.timeout(400)
@pytest.mark.parametrize("notebook", LABS, ids=[p.stem for p in LABS])
def test_lab_sliders_redraw_in_jupyterlab(notebook, lab_page, jupyterlab, artifacts):
    page, lab = lab_page, notebook.stem
    path = f"{lab}/{notebook.name}"
    expected_plots = len(labnotebooks.widget_cells(json.loads(notebook.read_text())))
    t0 = time.perf_counter()
    try:
        state = open_and_run(page, path)
        assert "error" not in state, f"{lab}: a cell before the widgets raised: {state['error']}"
        TIMINGS.append({"what": f"{lab}: open + run to the widgets", "ms": (time.perf_counter() - t0) * 1e3})

        boxes = page.locator(f"#{state['done']} {LIVEPLOT}")
        assert boxes.count() >= expected_plots, \
            f"{lab}: {expected_plots} LivePlot cells ran but {boxes.count()} plots rendered"
        moves = []
        for i in range(boxes.count()):
            move = move_first_slider(boxes.nth(i), shots=artifacts / f"{lab}-plot{i + 1}")
            if move is None:
                continue
            moves.append(move)
            TIMINGS.append({"what": f"{lab}: plot {i + 1}", "slider": move.slider, "key": move.key,
                            "ms": move.ms_to_new_plot})
            where = f"{lab}, plot {i + 1}, slider {move.slider!r} ({move.key})"
            assert move.value_after != move.value_before, f"{where}: the slider's value did not move"
            assert move.ms_to_new_plot is not None and move.canvas_changed, \
                f"{where}: the plot's pixels did not change (kernel callback or ipympl canvas broken?)"
            if move.readout_before:
                assert move.readout_after != move.readout_before, \
                    f"{where}: the readout kept {move.readout_before!r}"
        assert moves, f"{lab}: no LivePlot of this lab has a slider; every lab moves at least one"
        check_sweep(lab, boxes, "JupyterLab")
        page.screenshot(path=str(artifacts / f"{lab}-jupyterlab.png"))
    finally:
        close_everything(page, jupyterlab)
