"""Input validation shared by the models: one error message shape everywhere.

Each check accepts scalars or numpy arrays and raises ValueError naming the parameter and the
valid range, so a slider or a learner never gets a silent NaN.
"""
from __future__ import annotations

import numpy as np


def _as_array(name, value):
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if np.isnan(arr).any():
        raise ValueError(f"{name} must be a number, got NaN")
    return arr


def in_range(name, value, lo=-np.inf, hi=np.inf, lo_open=False, hi_open=False):
    """Return value as a float array after checking lo <= value <= hi (open ends if asked)."""
    arr = _as_array(name, value)
    bad_lo = arr <= lo if lo_open else arr < lo
    bad_hi = arr >= hi if hi_open else arr > hi
    if bad_lo.any() or bad_hi.any():
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        worst = arr[bad_lo | bad_hi].flat[0]
        raise ValueError(f"{name} must be in {left}{_fmt(lo)}, {_fmt(hi)}{right}, got {_fmt(worst)}")
    return arr


def positive(name, value):
    """value > 0."""
    return in_range(name, value, 0.0, np.inf, lo_open=True)


def non_negative(name, value):
    """value >= 0."""
    return in_range(name, value, 0.0)


def fraction(name, value):
    """0 <= value <= 1."""
    return in_range(name, value, 0.0, 1.0)


def integer(name, value, lo=-np.inf, hi=np.inf):
    """A whole number (or array of them) in [lo, hi]; returned as an int array."""
    arr = in_range(name, value, lo, hi)
    if (arr != np.round(arr)).any():
        raise ValueError(f"{name} must be a whole number in [{_fmt(lo)}, {_fmt(hi)}], got {value!r}")
    return arr.astype(np.int64)


def scalar(x):
    """Give back a Python scalar for 0-d results, the array otherwise."""
    arr = np.asarray(x)
    return arr.item() if arr.ndim == 0 else arr


def _fmt(x):
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"
