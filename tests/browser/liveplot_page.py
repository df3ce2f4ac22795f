"""Drive a rendered LivePlot in a page (JupyterLab or Voila): move a slider, see what changed.

The DOM hooks: LivePlot's box has the CSS class `cephlab-liveplot` and its readout
`cephlab-readout` (cephlab/widgets.py); ipywidgets 8 sliders are noUiSlider handles
(`.noUi-handle`, with aria-valuenow/-valuemax) next to a `.widget-readout` showing the value;
ipympl draws the figure on the first <canvas> of `.jupyter-matplotlib-canvas-div`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

LIVEPLOT = ".cephlab-liveplot"
READOUT = ".cephlab-readout"
SLIDER = ".widget-slider"
CANVAS = ".jupyter-matplotlib-canvas-div canvas"


@dataclass
class SliderMove:
    slider: str            # the slider's label
    key: str               # End (to its maximum) or Home (when it already sat at the maximum)
    value_before: str
    value_after: str
    readout_before: str
    readout_after: str
    canvas_changed: bool
    ms_to_new_plot: float | None  # key press -> canvas pixels differ (round trip + kernel + PNG);
    #                               None: no new plot within the timeout


def canvas_pixels(canvas) -> str:
    return canvas.evaluate("c => c.toDataURL()")


def wait_for_drawn_canvas(box, timeout_ms: float):
    """The plot's canvas once ipympl has painted it (a blank canvas has a short, constant data URL)."""
    canvas = box.locator(CANVAS).first
    canvas.wait_for(state="attached", timeout=timeout_ms)
    blank = canvas.evaluate("c => { const b = document.createElement('canvas');"
                            " b.width = c.width; b.height = c.height; return b.toDataURL(); }")
    box.page.wait_for_function("([c, blank]) => c.width > 0 && c.toDataURL() !== blank",
                               arg=[canvas.element_handle(), blank], timeout=timeout_ms)
    return canvas


def move_first_slider(box, timeout_ms: float = 30_000, shots: Path | None = None) -> SliderMove | None:
    """Send End (or Home) to the first slider of the LivePlot `box` and wait for a new plot.

    End/Home jump to the slider's end, a change large enough that every readout's rounded numbers
    move; an arrow key's single step can leave "8 nines" at 8. None when the box has no slider.
    """
    page = box.page
    slider = box.locator(SLIDER).first
    if slider.count() == 0:
        return None
    box.scroll_into_view_if_needed()
    canvas = wait_for_drawn_canvas(box, timeout_ms)
    handle, value = slider.locator(".noUi-handle").first, slider.locator(".widget-readout").first
    label = slider.locator(".widget-label").first.inner_text().strip()
    readout = box.locator(READOUT).first
    before = dict(value=value.inner_text(), readout=readout.inner_text(), canvas=canvas_pixels(canvas))
    at_max = float(handle.get_attribute("aria-valuenow")) >= float(handle.get_attribute("aria-valuemax"))
    key = "Home" if at_max else "End"
    if shots:
        box.screenshot(path=str(shots.with_name(shots.name + "-before.png")))
    handle.focus()
    t0 = time.perf_counter()
    page.keyboard.press(key)
    try:
        page.wait_for_function("([c, old]) => c.toDataURL() !== old",
                               arg=[canvas.element_handle(), before["canvas"]], polling="raf", timeout=timeout_ms)
        ms = (time.perf_counter() - t0) * 1e3
    except PlaywrightTimeout:
        ms = None
    if before["readout"]:   # the readout is set before the redraw; allow its message to land
        try:
            page.wait_for_function("([r, old]) => r.innerText !== old",
                                   arg=[readout.element_handle(), before["readout"]], timeout=5_000)
        except PlaywrightTimeout:
            pass   # the test's assertion says what did not change
    if shots:
        box.screenshot(path=str(shots.with_name(shots.name + "-after.png")))
    return SliderMove(slider=label, key=key, value_before=before["value"], value_after=value.inner_text(),
                      readout_before=before["readout"], readout_after=readout.inner_text(),
                      canvas_changed=canvas_pixels(canvas) != before["canvas"], ms_to_new_plot=ms)
