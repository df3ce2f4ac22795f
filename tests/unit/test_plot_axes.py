"""The axis-fitting rules of LivePlot (cephlab/display/plot_axes.py): pure Python, no browser."""
import math

import numpy as np
import pytest

from cephlab.display.plot_axes import fit_axis, fit_linear, fit_log


def decades(lo, hi):
    return math.log10(hi) - math.log10(lo)


def test_log_axis_hugs_the_data_inside_wide_bounds():
    """Lab 01's durability curves sit in 1e-9..1e-2 under ylim=(1e-22, 1): the axis spans the data."""
    lo, hi = fit_log([np.logspace(-9, -2, 50)], bounds=(1e-22, 1))
    assert 1e-10 < lo < 1e-9 and 1e-2 < hi < 1e-1
    assert decades(lo, hi) == pytest.approx(7 * 1.1)


def test_log_axis_ignores_zeros_negatives_nans_and_infs():
    y = np.array([0.0, -1.0, np.nan, np.inf, -np.inf, 1e-6, 1e-3])
    lo, hi = fit_log([y], bounds=(1e-20, 1))
    assert 1e-7 < lo < 1e-6 and 1e-3 < hi < 1e-2


def test_a_clip_floor_takes_the_axis_to_its_bound_only():
    assert fit_log([np.array([1e-300, 1e-6, 1e-3])], bounds=(1e-20, 1))[0] == 1e-20


def test_log_axis_stays_inside_its_bounds():
    assert fit_log([np.array([1e-40, 1e-25])], bounds=(1e-30, 1)) == pytest.approx((1e-30, 1e-25 * 10 ** 0.75))
    assert fit_log([np.array([5.0, 50.0])], bounds=(1e-3, 20)) == pytest.approx((5 / 10 ** 0.05, 20))
    assert fit_log([np.array([1e-9, 1e-8])], bounds=(1e-3, 1)) == (1e-3, 1)   # all outside: the bounds


def test_log_axis_of_a_flat_line_spans_a_decade():
    lo, hi = fit_log([np.full(10, 1e-4)])
    assert decades(lo, hi) == pytest.approx(1.0) and lo < 1e-4 < hi


def test_no_drawable_data_falls_back_to_the_bounds():
    assert fit_log([np.array([np.nan, 0.0])], bounds=(1e-5, 1)) == (1e-5, 1)
    assert fit_log([np.array([np.nan])]) == (1.0, 10.0)
    assert fit_linear([np.array([np.nan])]) == (0.0, 1.0)


def test_linear_axis_keeps_fixed_limits_and_pads_free_ones():
    assert fit_axis([np.array([0.2, 0.3])], log=False, limits=(0, 1)) == (0.0, 1.0)
    assert fit_axis([np.array([0.0, 10.0])], log=False) == pytest.approx((-0.5, 10.5))
    assert fit_axis([np.arange(1, 11)], log=False, pad=0.0) == (1.0, 10.0)


def test_several_curves_share_one_range():
    lo, hi = fit_log([np.array([1e-3, 1e-2]), np.array([1e-8, 1e-7])], pad=0.0)
    assert (lo, hi) == pytest.approx((1e-8, 1e-2))
