"""Static figures for measurements (a PNG in the notebook, so the course site shows it too)."""
from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure


def figure(ncols=1, figsize=None):
    """A new figure and its axes, without pyplot (no global state, no interactive backend)."""
    fig = Figure(figsize=figsize or (6.4 * ncols, 3.6), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def show(fig):
    """Display fig as a PNG image in the notebook."""
    from IPython.display import Image, display
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    display(Image(buf.getvalue()))


def bars_model_vs_measured(ax, labels, model, measured, ylabel=""):
    """Side-by-side bars: model (hatched) and measurement, per label."""
    x = np.arange(len(labels))
    ax.bar(x - 0.2, model, 0.4, label="model", hatch="//", edgecolor="black", alpha=0.6)
    ax.bar(x + 0.2, measured, 0.4, label="measured", edgecolor="black")
    ax.set_xticks(x, labels)
    ax.set_ylabel(ylabel)
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    return ax
