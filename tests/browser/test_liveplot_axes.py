"""LivePlot bugs the browser tests found, pinned down without a browser (fast, always run)."""
import ipywidgets as W
import numpy as np

from cephlab.widgets import LivePlot


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
