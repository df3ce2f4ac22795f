"""Lab 01 as an app: Voila renders the lab's widgets without code cells, and its sliders work.

Voila runs as the JupyterLab server's extension at /voila/render/<path>, the URL a Binder or
JupyterHub user opens (`voila labs/01-redundancy/01-redundancy.ipynb` serves the same page
standalone). Voila executes the whole notebook, so it gets the trimmed copy (cells up to the
widgets) that the JupyterLab test uses.
"""
import time

import pytest

pytest.importorskip("playwright.sync_api", reason="pip install playwright (bash cephlab/bootstrap.sh setup --test)")

from tests.browser.conftest import PAGE_TIMEOUT_MS, TIMINGS  # noqa: E402
from tests.browser.liveplot_page import DRAW_PROBE, LIVEPLOT, READOUT, move_first_slider  # noqa: E402
from tests.browser.test_lab_widgets import check_sweep  # noqa: E402

APP_LAB = "01-redundancy"


def _size3_readout(afr):
    from models import redundancy as red
    nines = [red.durability_nines(red.replicated(3), afr, days) for days in (1, 7)]
    return f"replicated size 3: {nines[0]:.0f} nines (1 day), {nines[1]:.0f} (7 days)"


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_lab01_as_a_voila_app(browser, jupyterlab, artifacts):
    pytest.importorskip("voila", reason="pip install voila (bash cephlab/bootstrap.sh setup --test)")
    if not (jupyterlab.root_dir / APP_LAB).is_dir():
        pytest.fail(f"labs/{APP_LAB} is missing: the Voila test renders that lab")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(DRAW_PROBE)
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    try:
        t0 = time.perf_counter()
        page.goto(jupyterlab.url(f"voila/render/{APP_LAB}/{APP_LAB}.ipynb"))
        boxes = page.locator(LIVEPLOT)
        boxes.first.wait_for()
        page.wait_for_function(f"() => document.querySelectorAll('{LIVEPLOT}').length >= 2")
        TIMINGS.append({"what": f"Voila: {APP_LAB} first page with widgets", "ms": (time.perf_counter() - t0) * 1e3})
        # an app shows the results, not the code
        assert page.locator(".jp-InputArea-editor, .CodeMirror, .cm-editor").count() == 0
        assert "Replication vs erasure coding" in page.inner_text("body")

        move = move_first_slider(boxes.first, shots=artifacts / f"voila-{APP_LAB}-plot1")
        TIMINGS.append({"what": f"Voila: {APP_LAB} plot 1", "slider": move.slider, "key": move.key,
                        "ms": move.ms_to_new_plot})
        assert move.slider == "AFR"
        assert (move.value_before, move.value_after) == ("0.020", "0.200"), "End takes AFR to its maximum, 0.20"
        assert move.ms_to_new_plot is not None and move.canvas_changed, "the plot did not redraw in Voila"
        # the readout shows models.redundancy's numbers: 10 and 8 nines at AFR 2 %, 7 and 5 at 20 %
        assert _size3_readout(0.02) == "replicated size 3: 10 nines (1 day), 8 (7 days)"
        assert _size3_readout(0.02) in move.readout_before
        assert _size3_readout(0.20) in move.readout_after
        check_sweep(APP_LAB, boxes, "Voila")
        # after 22 moves and a fast drag the readout still shows the model at the slider's value
        afr = boxes.first.locator(".widget-slider .widget-readout").first
        expected = _size3_readout(float(afr.inner_text()))
        readout = boxes.first.locator(READOUT).first
        deadline = time.perf_counter() + 5
        while expected not in readout.inner_text() and time.perf_counter() < deadline:
            time.sleep(0.1)
        assert expected in readout.inner_text(), (afr.inner_text(), readout.inner_text())
        page.screenshot(path=str(artifacts / f"voila-{APP_LAB}.png"))
    finally:
        page.close()
        jupyterlab.shutdown_kernels()
