"""Fast interactive plots for the labs: lines that update in place when a slider moves.

A lab cell stays a thin wrapper around pure model functions:

    plot = LivePlot(x=np.linspace(0.01, 0.2, 200), xlabel="AFR", ylabel="annual loss",
                    curves={"EC 4+2": lambda x, days: loss(erasure(4, 2), x, days)},
                    controls={"days": FloatSlider(value=1, min=0.5, max=30)})
    plot.show()

Two renderers draw the same figure:
- "canvas" (default): the browser draws the lines (cephlab/display/canvas_plot.py); a move sends only the
  new y arrays and the fitted axis limits, a few KiB.
- "ipympl": matplotlib draws on the kernel and ipympl ships a PNG per move (~100 ms, ~87 KiB);
  kept as the fallback and for before/after benches. Choose it with LivePlot(..., renderer="ipympl")
  or CEPHLAB_RENDERER=ipympl.
Both keep a matplotlib figure whose PNG goes next to the widget for static viewers (the course
site, GitHub, nbconvert), and fit the axes to the data after every move (cephlab/display/plot_axes.py).

A continuous drag stays current: ipywidgets' front end keeps one slider message in flight and
sends only the latest value when the kernel is free, and the canvas draws at most once per
animation frame, always from the latest state.
"""
from __future__ import annotations

import base64
import io
import os
import time

import ipywidgets as W
import numpy as np
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from cephlab.display.plot_axes import fit_axis

try:  # ipympl renders the figure as a live canvas in JupyterLab
    from ipympl.backend_nbagg import Canvas, FigureManager
except ImportError:  # pragma: no cover - ipympl is a dependency, this is for odd kernels
    Canvas = None

RENDERERS = ("canvas", "ipympl")
_figure_numbers = iter(range(1000, 10**6))


def default_renderer() -> str:
    name = os.environ.get("CEPHLAB_RENDERER", "canvas").strip().lower() or "canvas"
    if name not in RENDERERS:
        raise ValueError(f"CEPHLAB_RENDERER={name!r} is not a LivePlot renderer; use one of {RENDERERS}")
    return name


def make_canvas(fig):
    """A widget showing fig that redraws cheaply: ipympl's canvas, else a PNG Image widget."""
    if Canvas is not None:
        canvas = Canvas(fig)
        FigureManager(canvas, next(_figure_numbers))
        canvas.header_visible = False
        canvas.toolbar_visible = False
        return canvas, canvas.draw_idle
    image = W.Image(format="png")

    def redraw():
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        image.value = buf.getvalue()
    redraw()
    return image, redraw


def line_style(line) -> dict:
    """What canvas_plot.js needs of a matplotlib line (so lines[label].set_linestyle shows there)."""
    dpi = line.figure.dpi if line.figure else 100
    return {"label": line.get_label(), "color": to_hex(line.get_color()),
            "dash": str(line.get_linestyle()), "width": round(line.get_linewidth() * dpi / 72, 2)}


class LivePlot:
    """Curves y = f(x, **control values), redrawn in place whenever a control changes.

    curves:   {label: f(x, **params) -> array like x}
    controls: {param name: ipywidget with .value}
    readout:  optional f(**params) -> str shown under the plot (the numbers a learner reads)
    fixed:    extra keyword arguments passed to every curve and the readout
    ylim:     fixed limits of a linear y axis; on a log axis the outer bounds inside which the axis
              fits the data (curves clipped at 1e-300 must not drag it there)
    renderer: "canvas" or "ipympl" (default: $CEPHLAB_RENDERER, else "canvas")
    """

    def __init__(self, x, curves, controls, xlabel="", ylabel="", title="", readout=None,
                 logx=False, logy=False, ylim=None, fixed=None, figsize=(6.4, 3.6), renderer=None):
        self.x = np.asarray(x)
        self.curves = dict(curves)
        self.controls = dict(controls)
        self.readout_fn = readout
        self.fixed = dict(fixed or {})
        self.ylim, self.logx, self.logy = ylim, logx, logy
        self.renderer = renderer or default_renderer()
        if self.renderer not in RENDERERS:
            raise ValueError(f"renderer={self.renderer!r} is not a LivePlot renderer; use one of {RENDERERS}")
        self.fig, self.ax, self.lines = self._figure(figsize, xlabel, ylabel, title)
        self.canvas, self._redraw = self._view(figsize, xlabel, ylabel, title)
        self.readout = W.HTML()
        self.readout.add_class("cephlab-readout")  # stable hooks for tests/browser
        self.last_update_ms = None
        for w in self.controls.values():
            w.observe(lambda change: self.update(), names="value")
        self.update()

    def _figure(self, figsize, xlabel, ylabel, title):
        """The matplotlib figure: the PNG snapshot, the ipympl view, and the lines' styles."""
        fig = Figure(figsize=figsize, layout="constrained")
        ax = fig.add_subplot()
        ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
        if self.logx:
            ax.set_xscale("log")
        if self.logy:
            ax.set_yscale("log")
        lines = {label: ax.plot(self.x, self.x * np.nan, label=label)[0] for label in self.curves}
        if len(lines) > 1:
            ax.legend(loc="best")
        ax.grid(True, alpha=0.3)
        return fig, ax, lines

    def _view(self, figsize, xlabel, ylabel, title):
        if self.renderer == "ipympl":
            return make_canvas(self.fig)
        from cephlab.display.canvas_plot import CanvasPlot, float_bytes
        dpi = self.fig.dpi
        plot = CanvasPlot(x=float_bytes(self.x), logx=self.logx, logy=self.logy, xlabel=xlabel,
                          ylabel=ylabel, title=title, width=round(figsize[0] * dpi),
                          height=round(figsize[1] * dpi))
        return plot, self._send

    def params(self):
        return {**self.fixed, **{name: w.value for name, w in self.controls.items()}}

    def values(self):
        """{label: y array} for the current control values (what the lines show)."""
        p = self.params()
        return {label: np.broadcast_to(np.asarray(f(self.x, **p), dtype=float), self.x.shape)
                for label, f in self.curves.items()}

    def update(self):
        """Recompute every curve and redraw in place; returns the time it took in ms."""
        t0 = time.perf_counter()
        for label, y in self.values().items():
            self.lines[label].set_ydata(y)
        self._rescale()
        self._redraw()   # the lines' message first: the readout's text is cheaper to wait for
        if self.readout_fn:
            self.readout.value = self.readout_fn(**self.params())
        self.last_update_ms = (time.perf_counter() - t0) * 1e3
        return self.last_update_ms

    def limits(self):
        """(xlim, ylim) fitted to the curves as they are now (cephlab/display/plot_axes.py)."""
        ys = [line.get_ydata() for line in self.lines.values()]
        return fit_axis([self.x], self.logx, pad=0.0), fit_axis(ys, self.logy, self.ylim)

    def _rescale(self):
        # The lines start as NaN, so matplotlib's own first x range is +-0.05: set both axes.
        xlim, ylim = self.limits()
        self.ax.set_xlim(*xlim)
        self.ax.set_ylim(*ylim)

    def _send(self):
        """The canvas renderer's redraw: the new y arrays, styles and limits, one comm message."""
        params = {k: v for k, v in self.params().items() if k in self.controls}
        self.canvas.show_lines([line.get_ydata() for line in self.lines.values()],
                               [line_style(line) for line in self.lines.values()],
                               self.ax.get_xlim(), self.ax.get_ylim(), params)

    def widget(self):
        # wrap: a row of four sliders in a narrow notebook squeezed their tracks to 0 px (undraggable)
        controls = W.HBox(list(self.controls.values()), layout=W.Layout(flex_flow="row wrap"))
        box = W.VBox([controls, self.canvas, self.readout])
        box.add_class("cephlab-liveplot")
        box.add_class(f"cephlab-renderer-{self.renderer}")
        return box

    def png(self):
        """The figure as it is now, as PNG bytes."""
        buf = io.BytesIO()
        self.fig.savefig(buf, format="png")
        return buf.getvalue()

    def _display(self):
        # The widget view plus a PNG snapshot in one output: JupyterLab shows the live widget,
        # static viewers (the course site, GitHub, nbconvert) show the snapshot instead.
        from IPython.display import display
        bundle = dict(self.widget()._repr_mimebundle_())
        bundle["image/png"] = base64.b64encode(self.png()).decode("ascii")
        display(bundle, raw=True)

    def show(self):
        self._display()
        return self

    def _ipython_display_(self):  # `plot` alone on the last line of a cell shows it
        self._display()
