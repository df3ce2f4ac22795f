"""LivePlot bugs the browser tests found, pinned down without a browser (fast, always run)."""
import json

import ipywidgets as W
import numpy as np
import pytest

from cephlab.display.widgets import LivePlot


def _plot(**kwargs):
    return LivePlot(x=np.linspace(0.25, 30, 50), curves={"y": lambda x, s: s * x},
                    controls={"s": W.FloatSlider(value=1.0, min=0.5, max=2.0)}, **kwargs)


def test_fixed_ylim_still_fits_x_to_the_data():
    """Lab 01's durability plot (x 0.25-30 days, ylim fixed) showed an x axis of -0.05..0.05 and no
    line in JupyterLab: x was only autoscaled when ylim was None."""
    plot = _plot(ylim=(0.1, 100))
    lo, hi = plot.ax.get_xlim()
    assert lo <= 0.25 and hi >= 30 and hi - lo < 40, (lo, hi)
    assert plot.ax.get_ylim() == (0.1, 100)


def test_free_ylim_follows_the_slider():
    plot = _plot()
    top = plot.ax.get_ylim()[1]
    plot.controls["s"].value = 2.0
    assert plot.ax.get_ylim()[1] > 1.9 * top - 1e-9


def test_css_hooks_for_the_browser_tests():
    plot = _plot(readout=lambda s: f"s = {s}")
    assert "cephlab-liveplot" in plot.widget()._dom_classes
    assert "cephlab-readout" in plot.readout._dom_classes
    plot.controls["s"].value = 1.5
    assert plot.readout.value == "s = 1.5"


def _lab01_durability_plot(renderer):
    """Lab 01's durability plot as solutions/01-redundancy.py builds it."""
    from models import redundancy as red
    schemes = [red.replicated(3), red.erasure(2, 1), red.erasure(4, 2), red.erasure(8, 3)]
    return LivePlot(
        x=np.linspace(0.25, 30, 200), logy=True, ylim=(1e-22, 1), renderer=renderer,
        curves={s.label: (lambda x, afr, s=s: np.maximum(red.annual_loss_probability(s, afr, x), 1e-300))
                for s in schemes},
        controls={"afr": W.FloatSlider(value=0.02, min=0.005, max=0.20, step=0.005)})


@pytest.mark.parametrize("renderer", ["canvas", "ipympl"])
def test_lab01_log_axis_follows_the_curves(renderer):
    """The lab 01 screenshot showed 1e-21..1 around curves in 1e-9..1e-2: the axis must hug the
    finite data after every move, in both renderers and in the PNG snapshot's figure."""
    plot = _lab01_durability_plot(renderer)
    for afr in (0.02, 0.005, 0.2):
        plot.controls["afr"].value = afr
        ys = np.concatenate([line.get_ydata() for line in plot.lines.values()])
        ys = ys[(ys > 1e-22) & np.isfinite(ys)]
        lo, hi = plot.ax.get_ylim()
        assert lo <= ys.min() and hi >= ys.max()
        assert np.log10(hi / lo) <= 1.15 * np.log10(ys.max() / ys.min()), (afr, lo, hi, ys.min(), ys.max())
        if renderer == "canvas":
            assert plot.canvas.ylim == [lo, hi]


def test_canvas_sends_y_arrays_not_pictures():
    plot = _plot(readout=lambda s: f"s = {s}")
    plot.controls["s"].value = 1.5
    y = np.frombuffer(plot.canvas.ys, dtype="<f8")
    assert np.allclose(y, 1.5 * plot.x) and json.loads(plot.canvas.params) == {"s": 1.5}
    assert len(plot.canvas.ys) == 8 * plot.x.size


def test_renderer_is_selectable(monkeypatch):
    monkeypatch.setenv("CEPHLAB_RENDERER", "ipympl")
    assert _plot().renderer == "ipympl"
    monkeypatch.setenv("CEPHLAB_RENDERER", "bogus")
    with pytest.raises(ValueError, match="CEPHLAB_RENDERER"):
        _plot()


def test_set_linestyle_reaches_the_canvas():
    """Lab 05 dashes its kernel-limit line after building the plot, then calls update()."""
    plot = _plot()
    plot.lines["y"].set_linestyle("--")
    plot.update()
    assert plot.canvas.series[0]["dash"] == "--"
