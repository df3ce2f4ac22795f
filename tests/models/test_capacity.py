"""models.capacity: seed 004's planning rule, fill ratios, MAX AVAIL and one OSD full = cluster full."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import capacity
from models.redundancy import erasure, replicated

# Seed 004_3d50276d8cea0e54.txt (Qihoo 360, 2018): C_total = N_vm x C_per_vm / (thin_ratio x 0.7).
REQUIRED = {
    # (n_vms, capacity_per_vm, thin_ratio): C_total (same unit as capacity_per_vm)
    (1000, 100, 1.0): 142857.142857,
    (1000, 100, 2.0): 71428.571429,
    (70, 10, 1.0): 1000.0,
    (0, 100, 1.5): 0.0,
}


@pytest.mark.parametrize("args", list(REQUIRED))
def test_required_capacity_seed004(args):
    assert capacity.required_capacity(*args) == pytest.approx(REQUIRED[args], rel=1e-9)


def test_required_then_raw():
    usable = capacity.required_capacity(700, 100, 1.0)
    assert capacity.raw_capacity(usable, replicated(3)) == pytest.approx(300000)
    assert capacity.raw_capacity(usable, erasure(4, 2)) == pytest.approx(150000)


def test_ceph_fill_ratio_defaults():
    # mon_osd_nearfull_ratio, mon_osd_backfillfull_ratio, mon_osd_full_ratio (Pacific defaults)
    assert (capacity.NEARFULL, capacity.BACKFILLFULL, capacity.FULL) == (0.85, 0.90, 0.95)
    assert capacity.PLANNING_FILL < capacity.NEARFULL
    assert list(capacity.fill_state([0.5, 0.85, 0.9, 0.95, 1.0])) == [
        "ok", "nearfull", "backfillfull", "full", "full"]
    assert capacity.fill_state(0.84) == "ok"


# PGMap::get_rule_avail (Ceph v16.2.15): proj_i = (size_i x full - used_i) / w_i, min over OSDs,
# then `ceph df` divides by the pool's raw-used rate. Values worked by hand.
MAX_AVAIL = {
    # (sizes, weights, used, scheme): MAX AVAIL
    ((100, 100, 100), (1, 1, 1), (0, 0, 0), replicated(3)): 95.0,
    ((100, 100, 100), (1, 1, 1), (50, 60, 70), replicated(3)): 25.0,   # osd.2: (95-70)/(1/3)/3
    ((100, 100, 200), (1, 1, 2), (0, 0, 0), replicated(3)): 126.6667,   # weights follow sizes
    ((100, 100, 200), (1, 1, 1), (0, 0, 0), replicated(3)): 95.0,       # equal weights: small OSDs bind
    ((100, 100, 100, 100, 100, 100), (1,) * 6, (0,) * 6, erasure(4, 2)): 380.0,
    ((100, 100, 100), (1, 1, 0), (0, 0, 0), replicated(2)): 95.0,       # weight 0 is skipped
    ((100, 100, 100), (1, 1, 1), (96, 0, 0), replicated(3)): 0.0,       # past full: nothing
}


@pytest.mark.parametrize("args", list(MAX_AVAIL))
def test_max_avail_as_ceph_df(args):
    sizes, weights, used, scheme = args
    assert capacity.max_avail(sizes, weights, scheme, osd_used=used) == pytest.approx(MAX_AVAIL[args], rel=1e-5)


def test_one_osd_full_is_cluster_full():
    # Four 1 TB OSDs, but one holds 14 of 44 PG replicas instead of 11.
    r = capacity.usable_before_full([1, 1, 1, 1], [10, 10, 10, 14], replicated(3))
    assert r.fullest_osd == 3
    assert r.raw_stored == pytest.approx(0.95 * 44 / 14)
    assert r.usable == pytest.approx(0.95 * 44 / 14 / 3)
    assert r.stranded_fraction == pytest.approx(1 - 11 / 14)
    assert r.wasted_fraction == pytest.approx(1 - 0.95 * 11 / 14)


def test_balanced_shares_strand_nothing():
    r = capacity.usable_before_full([2, 1, 1], [2, 1, 1], erasure(2, 1))
    assert r.stranded_fraction == pytest.approx(0.0, abs=1e-12)
    assert r.wasted_fraction == pytest.approx(0.05)
    assert r.usable == pytest.approx(4 * 0.95 / 1.5)


def test_usable_before_full_matches_max_avail_on_empty_osds():
    sizes, shares = [4, 4, 8, 8], [3, 5, 9, 7]
    r = capacity.usable_before_full(sizes, shares, replicated(3))
    assert r.usable == pytest.approx(capacity.max_avail(sizes, shares, replicated(3)))


def test_usable_before_full_sweeps_over_leading_axis():
    shares = np.array([[1, 1, 1, 1], [10, 10, 10, 14], [1, 1, 1, 2]])
    r = capacity.usable_before_full([1, 1, 1, 1], shares, replicated(3))
    assert r.usable.shape == (3,)
    for i, row in enumerate(shares):
        assert r.usable[i] == pytest.approx(capacity.usable_before_full([1, 1, 1, 1], row, replicated(3)).usable)


def test_usable_with_imbalance():
    assert capacity.usable_with_imbalance(300, replicated(3), 1.0) == pytest.approx(95)
    assert capacity.usable_with_imbalance(300, replicated(3), 1.25) == pytest.approx(76)


@pytest.mark.parametrize("call, name", [
    (lambda: capacity.required_capacity(10, 10, 0), "thin_ratio"),
    (lambda: capacity.required_capacity(10, 10, -1), "thin_ratio"),
    (lambda: capacity.required_capacity(-1, 10, 1), "n_vms"),
    (lambda: capacity.required_capacity(10, -10, 1), "capacity_per_vm"),
    (lambda: capacity.required_capacity(10, 10, 1, 0), "fill_ratio"),
    (lambda: capacity.required_capacity(10, 10, 1, 1.2), "fill_ratio"),
    (lambda: capacity.raw_capacity(-5, replicated(3)), "usable"),
    (lambda: capacity.raw_capacity(5, 3), "scheme"),
    (lambda: capacity.max_avail([1, 1], [0, 0], replicated(2)), "weights"),
    (lambda: capacity.max_avail([1, 1], [1, -1], replicated(2)), "weights"),
    (lambda: capacity.max_avail([1, 1], [1, 1], replicated(2), full_ratio=0), "full_ratio"),
    (lambda: capacity.usable_before_full([-1, 1], [1, 1], replicated(2)), "osd_sizes"),
    (lambda: capacity.usable_with_imbalance(10, replicated(3), 0.5), "max_over_mean"),
    (lambda: capacity.fill_state(1.5), "used_fraction"),
])
def test_invalid_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_vectorised_and_scalar_types():
    n = np.arange(0, 1000, 100)
    out = capacity.required_capacity(n, 50, 1.5)
    assert isinstance(out, np.ndarray)
    assert np.allclose(out, [capacity.required_capacity(int(x), 50, 1.5) for x in n])
    assert type(capacity.required_capacity(10, 50, 1.5)) is float
    assert type(capacity.max_avail([1, 1, 1], [1, 1, 1], replicated(3))) is float
    assert type(capacity.usable_before_full([1, 1, 1], [1, 1, 1], replicated(3)).fullest_osd) is int


@given(n=st.integers(0, 10**6), c=st.floats(0.1, 1e4), t=st.floats(0.1, 10), k=st.integers(2, 10))
def test_required_capacity_is_linear_in_n(n, c, t, k):
    assert capacity.required_capacity(k * n, c, t) == pytest.approx(k * capacity.required_capacity(n, c, t))


@given(shares=st.lists(st.floats(0.1, 10), min_size=2, max_size=12))
def test_imbalance_never_gains_capacity(shares):
    sizes = [1.0] * len(shares)
    uneven = capacity.usable_before_full(sizes, shares, replicated(3))
    even = capacity.usable_before_full(sizes, sizes, replicated(3))
    assert uneven.usable <= even.usable * (1 + 1e-12)
    assert -1e-12 <= uneven.stranded_fraction < 1
