"""Every lab's sliders in a real browser: JupyterLab in Debian's Chromium, driven by Playwright.

Per lab: open the notebook in the session's JupyterLab page, Run > Run All Cells (the notebook is
the lab cut after its last LivePlot cell, see labnotebooks.py), wait until every cell ran without
an error, then on every LivePlot move the first slider to its end and check that the slider's
value, the readout's numbers and the plot's pixels all changed. Screenshots before and after go
to test-artifacts/browser/; the key-press-to-new-plot times are printed at the end of the run.
"""
import json
import time

import pytest

pytest.importorskip("playwright.sync_api", reason="pip install playwright (bash cephlab/bootstrap.sh setup)")

from tests.browser import labnotebooks  # noqa: E402
from tests.browser.conftest import TIMINGS  # noqa: E402
from tests.browser.liveplot_page import LIVEPLOT, move_first_slider  # noqa: E402

LABS = labnotebooks.lab_notebooks()

CURRENT_IS = """path => { const w = window.jupyterapp.shell.currentWidget;
  return !!(w && w.context && w.context.path === path && w.context.isReady && w.sessionContext
            && w.sessionContext.session && w.sessionContext.session.kernel); }"""

# null while cells still run; {error} for the first error output; {done} when all ran and the
# kernel is idle. Reads JupyterLab's own notebook model, so it does not depend on rendering.
RUN_STATE = """() => { const w = window.jupyterapp.shell.currentWidget, cells = w.content.model.cells;
  let pending = 0;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    for (let j = 0; j < c.outputs.length; j++) {
      const o = c.outputs.get(j).toJSON();
      if (o.output_type === 'error') return {error: `cell ${i}: ${o.ename}: ${o.evalue}`};
    }
    if (c.executionCount === null) pending++;
  }
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return pending === 0 && k && k.status === 'idle' ? {done: w.id} : null; }"""


def test_every_lab_is_tested():
    """The browser test follows labs/ as other labs land; an empty list would test nothing."""
    assert len(LABS) >= 2, f"expected the student labs in {labnotebooks.LABS}, found {LABS}"


def _close_everything(page, server):
    # saved: the executed copy stays in test-artifacts/browser/notebooks/ (and closing asks nothing)
    page.evaluate("""async () => { const cmd = window.jupyterapp.commands;
        try { await cmd.execute('docmanager:save'); } catch (e) {}
        await cmd.execute('application:close-all'); }""")
    server.shutdown_kernels()


@pytest.mark.browser
@pytest.mark.timeout(400)
@pytest.mark.parametrize("notebook", LABS, ids=[p.stem for p in LABS])
def test_lab_sliders_redraw_in_jupyterlab(notebook, lab_page, jupyterlab, artifacts):
    page, lab = lab_page, notebook.stem
    path = f"{lab}/{notebook.name}"
    expected_plots = len(labnotebooks.widget_cells(json.loads(notebook.read_text())))
    t0 = time.perf_counter()
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }", path)
    try:
        page.wait_for_function(CURRENT_IS, arg=path)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_text("Run All Cells", exact=True).click()
        state = page.wait_for_function(RUN_STATE, polling=250).json_value()
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
        page.screenshot(path=str(artifacts / f"{lab}-jupyterlab.png"))
    finally:
        _close_everything(page, jupyterlab)
