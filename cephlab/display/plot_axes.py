"""Axis ranges that follow the data: the limits LivePlot gives its axes after every slider move.

Pure Python (numpy only) so the rules are tested without a browser. Both renderers use them: the
browser plot (cephlab/canvas_plot.js) draws the limits it is sent, the matplotlib figure behind
the PNG snapshot and the ipympl fallback gets them through set_xlim/set_ylim.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

PAD = 0.05   # of the span on each side, as matplotlib's default margins


def _finite(arrays: Iterable, log: bool) -> np.ndarray:
    values = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in arrays] or [np.empty(0)])
    keep = np.isfinite(values) & (values > 0 if log else True)
    return values[keep]


def _clamp(lo: float, hi: float, bounds: tuple[float, float] | None) -> tuple[float, float]:
    if bounds is None:
        return lo, hi
    b_lo, b_hi = sorted(bounds)
    lo, hi = max(lo, b_lo), min(hi, b_hi)
    return (lo, hi) if lo < hi else (b_lo, b_hi)   # data wholly outside the bounds: show the bounds


def fit_log(arrays: Iterable, bounds: tuple[float, float] | None = None,
            pad: float = PAD) -> tuple[float, float]:
    """(lo, hi) of a log axis around the finite, positive values of arrays, padded by `pad` of the
    span in decades (half a decade each side for a flat line), then kept within bounds.

    A lab's ylim on a log axis is such a bound: a curve clipped at 1e-300 (a probability that
    underflowed to 0, kept drawable) takes the axis down to the bound, not to 1e-300.
    """
    values = _finite(arrays, log=True)
    if values.size == 0:
        if bounds is None:
            return 1.0, 10.0
        b_lo, b_hi = sorted(bounds)
        return b_lo, b_hi
    lo, hi = np.log10(values.min()), np.log10(values.max())
    margin = (hi - lo) * pad if hi > lo else 0.5
    return _clamp(float(10 ** (lo - margin)), float(10 ** (hi + margin)), bounds)


def fit_linear(arrays: Iterable, pad: float = PAD) -> tuple[float, float]:
    """(lo, hi) of a linear axis around the finite values of arrays, padded by `pad` of the span."""
    values = _finite(arrays, log=False)
    if values.size == 0:
        return 0.0, 1.0
    lo, hi = float(values.min()), float(values.max())
    margin = (hi - lo) * pad if hi > lo else max(abs(lo) * 0.1, 0.5)
    return lo - margin, hi + margin


def fit_axis(arrays: Iterable, log: bool, limits: tuple[float, float] | None = None,
             pad: float = PAD) -> tuple[float, float]:
    """The range of one axis: a linear axis keeps fixed limits when given them, a log axis treats
    them as the outer bounds it fits the data within (see fit_log)."""
    if log:
        return fit_log(arrays, limits, pad)
    if limits is not None:
        return float(limits[0]), float(limits[1])
    return fit_linear(arrays, pad)
