"""The plot LivePlot draws in the browser: an anywidget whose ESM (canvas_plot.js) paints lines on
a <canvas>.

A slider move sends only the new y arrays as float64 bytes (4 curves x 200 points: 6.4 KiB, one
comm message with the fitted axis limits) instead of a PNG of the whole figure (~87 KiB, ~100 ms of
Agg drawing and encoding on the kernel side). The ESM travels over the kernel's comm with the
widget, so JupyterLab and Voila render it with nothing fetched from elsewhere.
"""
from __future__ import annotations

import json
from pathlib import Path

import anywidget
import numpy as np
import traitlets as T

ESM = Path(__file__).with_name("canvas_plot.js")


def float_bytes(values) -> bytes:
    """A float64 little-endian buffer (what canvas_plot.js reads as a Float64Array)."""
    return np.ascontiguousarray(values, dtype="<f8").tobytes()


class CanvasPlot(anywidget.AnyWidget):
    """Lines y_i(x) with their style, axis limits and labels; the browser redraws on any change."""

    _esm = ESM
    x = T.Bytes(b"").tag(sync=True)
    ys = T.Bytes(b"").tag(sync=True)            # every curve's y, one after the other
    series: T.List[dict] = T.List().tag(sync=True)   # [{label, color, dash, width}] in the order of ys
    xlim = T.List([0.0, 1.0]).tag(sync=True)
    ylim = T.List([0.0, 1.0]).tag(sync=True)
    logx = T.Bool(False).tag(sync=True)
    logy = T.Bool(False).tag(sync=True)
    xlabel = T.Unicode("").tag(sync=True)
    ylabel = T.Unicode("").tag(sync=True)
    title = T.Unicode("").tag(sync=True)
    width = T.Int(640).tag(sync=True)           # CSS pixels
    height = T.Int(360).tag(sync=True)
    params = T.Unicode("{}").tag(sync=True)     # the control values the lines were computed for

    def show_lines(self, ys: list, series: list[dict], xlim, ylim, params: dict):
        """Send one frame: all of it in a single comm message, so the browser never draws new
        lines against old limits."""
        with self.hold_sync():
            self.ys = float_bytes(np.concatenate([np.ravel(y) for y in ys]) if ys else [])
            if series != self.series:
                self.series = series
            self.xlim, self.ylim = [float(v) for v in xlim], [float(v) for v in ylim]
            self.params = json.dumps(params, default=str, sort_keys=True)
