"""Drive a rendered LivePlot in a page (JupyterLab or Voila): move a slider, see what changed.

The DOM hooks: LivePlot's box has the CSS class `cephlab-liveplot` and its readout
`cephlab-readout` (cephlab/display/widgets.py); ipywidgets 8 sliders are noUiSlider handles
(`.noUi-handle`, with aria-valuenow/-valuemax) next to a `.widget-readout` showing the value.
The plot is a <canvas>: `canvas.cephlab-canvas` drawn in the browser (the default renderer), or
ipympl's first canvas of `.jupyter-matplotlib-canvas-div` (renderer="ipympl").

Timing happens inside the page, the same way for both renderers: DRAW_PROBE (an init script)
stamps every key press and pointer move, counts the 2D drawing calls on each canvas and notes the
animation frame that follows each draw (the frame whose paint shows it); a move's latency is that
frame, for the first draw with new pixels, minus the input's stamp. The frame is taken from the
probe's notes, not from when Playwright's poller looked: on a loaded machine the poller starts
after keyboard.press's and wait_for_function's round trips (Python -> Playwright's driver ->
Chromium), often after the plot was already drawn, and would count those round trips as well
(measured on lab 03: 37 ms median in the page, 65 ms as the poller saw it).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout

LIVEPLOT = ".cephlab-liveplot"
READOUT = ".cephlab-readout"
SLIDER = ".widget-slider"
CANVAS = "canvas.cephlab-canvas, .jupyter-matplotlib-canvas-div canvas"

DRAW_PROBE = """(() => {
  window.__cephlabInputAt = 0;
  const mark = () => { window.__cephlabInputAt = performance.now(); };
  addEventListener('keydown', mark, true);
  addEventListener('pointerdown', mark, true);
  addEventListener('pointermove', (e) => { if (e.buttons) mark(); }, true);
  const P = CanvasRenderingContext2D.prototype;
  const noteFrame = (c) => {   // the next animation frame shows what was drawn until then
    c.__framePending = true;
    requestAnimationFrame(() => {
      c.__framePending = false;
      c.__frames = (c.__frames || []).slice(-63);
      c.__frames.push({ at: performance.now(), draws: c.__draws, params: c.dataset.params });
    });
  };
  for (const name of ['drawImage', 'putImageData', 'stroke', 'fill', 'fillRect', 'clearRect']) {
    const original = P[name];
    P[name] = function (...args) { const c = this.canvas;
                                   c.__draws = (c.__draws || 0) + 1;
                                   if (!c.__framePending) noteFrame(c);
                                   return original.apply(this, args); };
  }
})();"""

# In each animation frame after the input: null until the canvas holds pixels other than `old`
# (or, for the canvas renderer, lines drawn for other control values: a step along a flat stretch
# of a model redraws the same pixels), then the ms from the input to the first frame after the
# first draw since arming (for the canvas renderer: the first that showed the new values), as
# DRAW_PROBE noted it; the current frame when that note is not written yet (the probe's frame
# callback runs after this poller's in the same frame). Also the ms until this poller saw it (the
# old measure, round trips included). Reads the pixels only when a drawing call happened since.
NEW_PIXELS = """([c, old]) => {
  if ((c.__draws || 0) === (c.__checked || 0)) return null;
  c.__checked = c.__draws || 0;
  const redrawn = c.dataset.params !== undefined && c.dataset.params !== c.__params;
  if (!redrawn && c.toDataURL() === old) return null;
  const input = window.__cephlabInputAt;
  const shown = (c.__frames || []).find((f) => f.at > input && f.draws > (c.__armedDraws || 0)
                                             && (!redrawn || f.params !== c.__params));
  const now = performance.now();
  return [(shown ? shown.at : now) - input, now - input]; }"""


@dataclass
class SliderMove:
    slider: str            # the slider's label
    key: str               # the key pressed (End, Home, ArrowRight, ...) or "drag"
    value_before: str
    value_after: str
    readout_before: str
    readout_after: str
    canvas_changed: bool
    ms_to_new_plot: float | None  # input -> first frame with new canvas pixels, or lines drawn for
    #                               the new value (round trip + kernel + drawing); None: no new plot
    ms_seen_by_poller: float | None = None  # input -> Playwright's poller saw them (>= ms_to_new_plot:
    #                                         also its own start-up round trips on a loaded machine)


def canvas_pixels(canvas) -> str:
    return canvas.evaluate("c => c.toDataURL()")


def wait_for_drawn_canvas(box, timeout_ms: float):
    """The plot's canvas once it has been painted (a blank canvas has a short, constant data URL)."""
    canvas = box.locator(CANVAS).first
    canvas.wait_for(state="attached", timeout=timeout_ms)
    blank = canvas.evaluate("c => { const b = document.createElement('canvas');"
                            " b.width = c.width; b.height = c.height; return b.toDataURL(); }")
    box.page.wait_for_function("([c, blank]) => c.width > 0 && c.toDataURL() !== blank",
                               arg=[canvas.element_handle(), blank], timeout=timeout_ms)
    return canvas


def _wait_new_pixels(page, canvas, old: str, timeout_ms: float) -> tuple[float | None, float | None]:
    """After an input made once the canvas was armed (see SliderDriver._state): (ms to the frame
    with new pixels, ms until the poller saw them), or (None, None)."""
    try:
        frame, seen = page.wait_for_function(NEW_PIXELS, arg=[canvas.element_handle(), old],
                                             polling="raf", timeout=timeout_ms).json_value()
        return frame, seen
    except PlaywrightTimeout:
        return None, None


class SliderDriver:
    """The first slider of a LivePlot box: press keys or drag it, timing each move to new pixels."""

    def __init__(self, box, timeout_ms: float = 30_000, move_timeout_ms: float = 5_000):
        # a small step may leave the pixels as they were: it waits move_timeout_ms, not timeout_ms
        self.box, self.page = box, box.page
        self.timeout_ms, self.move_timeout_ms = timeout_ms, move_timeout_ms
        self.slider = box.locator(SLIDER).first
        box.scroll_into_view_if_needed()
        self.canvas = wait_for_drawn_canvas(box, timeout_ms)
        self.handle = self.slider.locator(".noUi-handle").first
        self.value = self.slider.locator(".widget-readout").first
        self.label = self.slider.locator(".widget-label").first.inner_text().strip()
        self.readout = box.locator(READOUT).first

    def _state(self) -> dict:
        """What the next move is compared with; arms NEW_PIXELS (draws from here on count)."""
        pixels = self.canvas.evaluate(
            "c => { c.__checked = c.__armedDraws = c.__draws || 0; c.__params = c.dataset.params;"
            " return c.toDataURL(); }")
        return dict(value=self.value.inner_text(), readout=self.readout.inner_text(), canvas=pixels)

    def at_max(self) -> bool:
        return float(self.handle.get_attribute("aria-valuenow")) >= float(self.handle.get_attribute("aria-valuemax"))

    def at_min(self) -> bool:
        return float(self.handle.get_attribute("aria-valuenow")) <= float(self.handle.get_attribute("aria-valuemin"))

    def press(self, key: str, readout_moves: bool = False) -> SliderMove:
        """Press key on the handle; readout_moves: also wait for the readout's text to change."""
        before = self._state()
        self.handle.focus()
        self.page.keyboard.press(key)
        timeout = self.timeout_ms if readout_moves else self.move_timeout_ms
        ms = _wait_new_pixels(self.page, self.canvas, before["canvas"], timeout)
        return self._move(key, before, ms, readout_moves)

    def _move(self, key: str, before: dict, ms: tuple[float | None, float | None],
              readout_moves: bool = False) -> SliderMove:
        if readout_moves and before["readout"]:   # a separate widget message; allow it to land
            try:
                self.page.wait_for_function("([r, old]) => r.innerText !== old",
                                            arg=[self.readout.element_handle(), before["readout"]], timeout=5_000)
            except PlaywrightTimeout:
                pass   # the caller's assertion says what did not change
        return SliderMove(slider=self.label, key=key, value_before=before["value"], value_after=self.value.inner_text(),
                          readout_before=before["readout"], readout_after=self.readout.inner_text(),
                          canvas_changed=canvas_pixels(self.canvas) != before["canvas"], ms_to_new_plot=ms[0],
                          ms_seen_by_poller=ms[1])

    def key_steps(self, n: int) -> list[SliderMove]:
        """n single steps (ArrowRight, turning to ArrowLeft at the end of the track)."""
        moves, key = [], "ArrowLeft" if self.at_max() else "ArrowRight"
        for _ in range(n):
            if (key == "ArrowRight" and self.at_max()) or (key == "ArrowLeft" and self.at_min()):
                key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
            moves.append(self.press(key))
        return moves

    def drag(self, n: int, wait: bool = True) -> list[SliderMove]:
        """Hold the handle and move it n times along the track (towards the far end), waiting for
        each new plot when `wait`. Without waiting (a learner's fast drag) nothing is timed: the
        caller checks settled() (the last value drawn last)."""
        self.handle.scroll_into_view_if_needed()   # off-screen coordinates make noUiSlider's value NaN
        track = self.slider.locator(".noUi-base, .noUi-target").first.bounding_box()
        knob = self.handle.bounding_box()
        assert track and track["width"] > 0, \
            f"slider {self.label!r} has a track {track} wide: squeezed by its neighbours, it cannot be dragged"
        x0, y = knob["x"] + knob["width"] / 2, knob["y"] + knob["height"] / 2
        x1 = track["x"] + (track["width"] * 0.05 if x0 > track["x"] + track["width"] / 2 else track["width"] * 0.95)
        mouse, moves = self.page.mouse, []
        mouse.move(x0, y)
        mouse.down()
        before = self._state()
        for i in range(1, n + 1):
            mouse.move(x0 + (x1 - x0) * i / n, y)
            if wait and self.value.inner_text() != before["value"]:   # a coarse slider may not move
                ms = _wait_new_pixels(self.page, self.canvas, before["canvas"], self.move_timeout_ms)
                moves.append(self._move("drag", before, ms))
                before = self._state()
        mouse.up()
        return moves

    def drawn_params(self) -> dict | None:
        """The control values the canvas renderer's lines were computed for (None for ipympl)."""
        text = self.canvas.get_attribute("data-params")
        return json.loads(text) if text else None

    def settled(self, timeout_ms: float = 10_000) -> bool:
        """Whether the drawn lines come to match the slider's shown value (the latest value last)."""
        deadline = time.perf_counter() + timeout_ms / 1e3
        while time.perf_counter() < deadline:
            params, text = self.drawn_params(), self.value.inner_text().strip()
            shown = float(text)
            digits = len(text.split(".")[1]) if "." in text and "e" not in text.lower() else 0
            tol = 0.5 * 10 ** -digits + 1e-9 if "e" not in text.lower() else abs(shown) * 0.05
            if params is None or any(isinstance(v, (int, float)) and abs(v - shown) <= tol
                                     for v in params.values()):
                return True
            time.sleep(0.05)
        return False


def move_first_slider(box, timeout_ms: float = 30_000, shots: Path | None = None) -> SliderMove | None:
    """Send End (or Home) to the first slider of the LivePlot `box` and wait for a new plot.

    End/Home jump to the slider's end, a change large enough that every readout's rounded numbers
    move; an arrow key's single step can leave "8 nines" at 8. None when the box has no slider.
    """
    if box.locator(SLIDER).count() == 0:
        return None
    driver = SliderDriver(box, timeout_ms)
    if shots:
        box.screenshot(path=str(shots.with_name(shots.name + "-before.png")))
    move = driver.press("Home" if driver.at_max() else "End", readout_moves=True)
    if shots:
        box.screenshot(path=str(shots.with_name(shots.name + "-after.png")))
    return move


@dataclass
class Sweep:
    moves: list[SliderMove]   # single key steps, then a drag waiting for each new plot
    settled: bool             # after a fast drag, the lines show the slider's final value
    settle_ms: float          # mouse release -> settled (Python's clock, includes polling)


def sweep(driver: SliderDriver, key_steps: int = 12, drag_steps: int = 10, fast_steps: int = 20) -> Sweep:
    """The moves a learner makes: single steps, a slow drag, a fast drag; each slow move timed."""
    moves = driver.key_steps(key_steps) + driver.drag(drag_steps)
    if len(moves) < key_steps + drag_steps:   # a coarse slider's drag moved it fewer times
        moves += driver.key_steps(key_steps + drag_steps - len(moves))
    driver.drag(fast_steps, wait=False)
    t0 = time.perf_counter()
    ok = driver.settled()
    return Sweep(moves, ok, (time.perf_counter() - t0) * 1e3)
