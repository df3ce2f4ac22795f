"""models.redundancy: scheme arithmetic, Ceph's min_size defaults, Backblaze durability, nines."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.redundancy import (
    Scheme,
    annual_loss_probability,
    data_survives,
    durability_nines,
    erasure,
    nines,
    replicated,
    serves_io,
    stripe_loss_probability,
    usable_capacity,
)

# Seed 000_ff3932318711fad8.txt (NAVER 2017): replicated "200 % overhead", erasure coded "50 %".
# min_size: Ceph v16.2.15 config.h (size - size//2) and OSDMonitor::prepare_pool_size (k + min(1, m-1)).
SCHEMES = {
    # scheme: (raw_per_usable, overhead, efficiency, min_size, min_shards, tolerated, fanout, rebuild_reads, label)
    replicated(3): (3.0, 2.0, 1 / 3, 2, 1, 2, 3, 1, "replicated size 3"),
    replicated(2): (2.0, 1.0, 1 / 2, 1, 1, 1, 2, 1, "replicated size 2"),
    replicated(1): (1.0, 0.0, 1.0, 1, 1, 0, 1, 1, "replicated size 1"),
    erasure(4, 2): (1.5, 0.5, 2 / 3, 5, 4, 2, 6, 4, "EC 4+2"),
    erasure(2, 1): (1.5, 0.5, 2 / 3, 2, 2, 1, 3, 2, "EC 2+1"),
    erasure(8, 3): (11 / 8, 3 / 8, 8 / 11, 9, 8, 3, 11, 8, "EC 8+3"),
}


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_scheme_golden_values(scheme):
    raw, over, eff, min_size, min_shards, tol, fanout, reads, label = SCHEMES[scheme]
    assert scheme.raw_per_usable == pytest.approx(raw)
    assert scheme.overhead == pytest.approx(over)
    assert scheme.efficiency == pytest.approx(eff)
    assert (scheme.min_size, scheme.min_shards, scheme.tolerated_failures) == (min_size, min_shards, tol)
    assert (scheme.write_fanout, scheme.rebuild_reads, scheme.label) == (fanout, reads, label)
    assert scheme.size == scheme.n == scheme.k + scheme.m


def test_seed000_overheads_are_200_and_50_percent():
    assert round(replicated(3).overhead * 100) == 200
    assert round(erasure(4, 2).overhead * 100) == 50


def test_replicated_k_and_m():
    s = replicated(3)
    assert (s.kind, s.k, s.m) == ("replicated", 1, 2)


def test_scheme_is_frozen():
    with pytest.raises(AttributeError):          # dataclasses.FrozenInstanceError
        replicated(3).k = 2


def test_explicit_min_size_is_kept():
    assert replicated(3, min_size=1).min_size == 1
    assert erasure(4, 2, min_size=4).min_size == 4


@pytest.mark.parametrize("call, name", [
    (lambda: replicated(0), "size"),
    (lambda: replicated(2.5), "size"),
    (lambda: replicated(3, min_size=4), "min_size"),
    (lambda: replicated(3, min_size=0), "min_size"),
    (lambda: erasure(0, 1), "k"),
    (lambda: erasure(4, 0), "m"),
    (lambda: erasure(4, -1), "m"),
    (lambda: erasure(4, 2, min_size=3), "min_size"),
    (lambda: erasure(4.5, 2), "k"),
    (lambda: replicated(True), "size"),
])
def test_invalid_schemes_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# Backblaze/erasure-coding-durability README (2018): `durability.py 4 2 0.10 1` prints the annual
# loss rate for each failure threshold of a 6-shard stripe. Threshold t = shards that must fail:
# erasure(k, m) loses data at t = m + 1 failures.
BACKBLAZE_6_SHARDS = {
    # scheme: annual loss rate (AFR 10 %, 1-day replacement)
    erasure(5, 1): 4.105e-04,
    erasure(4, 2): 1.500e-07,
    erasure(3, 3): 3.082e-11,
    erasure(2, 4): 3.377e-15,
}


@pytest.mark.parametrize("scheme", list(BACKBLAZE_6_SHARDS))
def test_backblaze_readme_table(scheme):
    assert annual_loss_probability(scheme, 0.10, 1) == pytest.approx(BACKBLAZE_6_SHARDS[scheme], rel=1e-3)


def test_backblaze_published_nines():
    # Backblaze 2018: 4+2, AFR 10 %, 1 day -> 6 nines; 17+3, AFR 0.41 %, 6.5 days -> 11 nines.
    assert durability_nines(erasure(4, 2), 0.10, 1) == 6
    assert durability_nines(erasure(17, 3), 0.0041, 6.5) == 11


def test_ec_1_plus_m_equals_replication():
    # One data chunk plus m copies is replication with m + 1 copies.
    assert annual_loss_probability(erasure(1, 2), 0.05, 3) == pytest.approx(
        annual_loss_probability(replicated(3), 0.05, 3), rel=1e-12)


def test_replicated_3_loses_data_only_when_all_three_fail():
    p = 0.02 * 2 / 365
    assert stripe_loss_probability(replicated(3), p) == pytest.approx(p ** 3, rel=1e-6)


def test_tiny_probabilities_keep_precision():
    # p = 1e-20 per disk: losing all 3 copies is 1e-60, far below float epsilon next to 1.
    assert stripe_loss_probability(replicated(3), 1e-20) == pytest.approx(1e-60, rel=1e-9)
    assert stripe_loss_probability(erasure(4, 2), 1e-20) == pytest.approx(20e-60, rel=1e-9)
    # annual: 365 periods of 1e-30 each
    tiny = annual_loss_probability(replicated(3), 1e-10 * 365 / 365, 1)
    assert tiny == pytest.approx(365 * (1e-10 / 365) ** 3, rel=1e-6)
    assert tiny > 0


def test_certain_failure_gives_certain_loss():
    assert annual_loss_probability(erasure(4, 2), 1.0, 365) == pytest.approx(1.0)
    assert annual_loss_probability(replicated(3), 0.0, 10) == 0.0


NINES = {1.2e-7: 6, 1e-6: 6, 1.5e-7: 6, 1e-3: 3, 0.5: 0, 1.0: 0, 0.1: 1, 1e-15: 15, 9.99e-12: 11}


@pytest.mark.parametrize("p", list(NINES))
def test_nines_golden(p):
    assert nines(p) == NINES[p]


def test_nines_of_zero_is_infinite():
    assert nines(0.0) == math.inf


def test_nines_vectorised_matches_scalars():
    ps = np.array(list(NINES))
    assert np.array_equal(nines(ps), [nines(float(p)) for p in ps])


@pytest.mark.parametrize("k", range(1, 30))
def test_nines_at_exact_powers_of_ten(k):
    assert nines(float(f"1e-{k}")) == k
    assert nines(float(f"1.0000001e-{k}")) == k - 1


@pytest.mark.parametrize("call, name", [
    (lambda: annual_loss_probability(erasure(4, 2), -0.1, 1), "afr"),
    (lambda: annual_loss_probability(erasure(4, 2), 1.1, 1), "afr"),
    (lambda: annual_loss_probability(erasure(4, 2), 0.1, 0), "replacement_days"),
    (lambda: annual_loss_probability(erasure(4, 2), 0.1, -1), "replacement_days"),
    (lambda: annual_loss_probability(erasure(4, 2), 0.1, 400), "replacement_days"),
    (lambda: annual_loss_probability(erasure(4, 2), float("nan"), 1), "afr"),
    (lambda: annual_loss_probability("4+2", 0.1, 1), "scheme"),
    (lambda: nines(-0.1), "p"),
    (lambda: nines(1.5), "p"),
    (lambda: usable_capacity(-1, replicated(3)), "raw"),
    (lambda: usable_capacity(10, replicated(3), 0), "fill_ratio"),
])
def test_invalid_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_annual_loss_vectorised_matches_scalars():
    afr = np.linspace(0.001, 0.2, 7)
    days = np.linspace(0.5, 30, 7)
    out = annual_loss_probability(erasure(4, 2), afr, days)
    assert isinstance(out, np.ndarray) and out.shape == (7,)
    assert np.allclose(out, [annual_loss_probability(erasure(4, 2), float(a), float(d))
                             for a, d in zip(afr, days)], rtol=1e-12)


def test_scalars_give_python_floats():
    assert type(annual_loss_probability(erasure(4, 2), 0.1, 1)) is float
    assert type(nines(1e-7)) is float
    assert type(usable_capacity(100, erasure(4, 2))) is float


def test_usable_capacity_golden():
    assert usable_capacity(300, replicated(3)) == pytest.approx(100)
    assert usable_capacity(150, erasure(4, 2)) == pytest.approx(100)
    assert usable_capacity(300, replicated(3), fill_ratio=0.85) == pytest.approx(85)
    assert np.allclose(usable_capacity(np.array([3.0, 6.0]), replicated(3)), [1.0, 2.0])


@given(k=st.integers(1, 16), m=st.integers(1, 6), extra_m=st.integers(1, 4), extra_k=st.integers(1, 8))
def test_overhead_grows_with_m_and_shrinks_with_k(k, m, extra_m, extra_k):
    assert erasure(k, m + extra_m).overhead > erasure(k, m).overhead
    assert erasure(k + extra_k, m).overhead < erasure(k, m).overhead
    assert erasure(k, m).overhead == pytest.approx(m / k)


@given(k=st.integers(1, 12), m=st.integers(1, 4), afr=st.floats(1e-4, 0.5),
       days=st.floats(0.01, 30), shrink=st.floats(0.05, 0.95))
def test_durability_improves_with_faster_replacement_and_lower_afr(k, m, afr, days, shrink):
    s = erasure(k, m)
    base = annual_loss_probability(s, afr, days)
    assert annual_loss_probability(s, afr, days * shrink) <= base
    assert annual_loss_probability(s, afr * shrink, days) <= base
    assert 0.0 <= base <= 1.0


@given(k=st.integers(1, 12), m=st.integers(1, 4), afr=st.floats(1e-4, 0.3), days=st.floats(0.1, 30))
def test_more_coding_chunks_never_hurt(k, m, afr, days):
    assert annual_loss_probability(erasure(k, m + 1), afr, days) <= annual_loss_probability(erasure(k, m), afr, days)


def test_scheme_type():
    assert isinstance(erasure(4, 2), Scheme)


# --- serving I/O vs surviving (Ceph docs, Pools: min_size) ---------------------------------
AVAILABILITY = {
    # (scheme, failed shards): (serves I/O, data survives)
    ("replicated(3)", 1): (True, True),
    ("replicated(3)", 2): (False, True),      # min_size 2: one copy left is readable, not served
    ("replicated(3, min_size=1)", 2): (True, True),
    ("erasure(2, 1)", 1): (True, True),       # Pacific default min_size k + min(1, m-1) = 2
    ("erasure(2, 1, min_size=3)", 1): (False, True),
    ("erasure(4, 2)", 2): (False, True),      # min_size 5
    ("erasure(4, 2)", 3): (False, False),
}


@pytest.mark.parametrize("case,expected", AVAILABILITY.items())
def test_serves_io_and_survival(case, expected):
    expr, failed = case
    scheme = eval(expr, {"replicated": replicated, "erasure": erasure})
    assert (serves_io(scheme, failed), data_survives(scheme, failed)) == expected


def test_serves_io_rejects_more_failures_than_shards():
    with pytest.raises(ValueError, match="failed"):
        serves_io(replicated(3), 4)


# -- small objects: stripe padding and BlueStore allocation -------------------------------------
from models import redundancy as red  # noqa: E402

KIB = 1024


@pytest.mark.parametrize("size, scheme, allocated, stored", [
    # 1 KiB: one 4 KiB unit per copy or shard, whatever the scheme: EC saves nothing here
    (1 * KIB, replicated(3), 12 * KIB, 1 * KIB),
    (1 * KIB, erasure(2, 1), 12 * KIB, 8 * KIB),
    (1 * KIB, erasure(4, 2), 24 * KIB, 16 * KIB),
    # 12 KiB in EC 2+1: two 8 KiB stripes, so each shard holds 8 KiB
    (12 * KIB, erasure(2, 1), 24 * KIB, 16 * KIB),
    (12 * KIB, replicated(3), 36 * KIB, 12 * KIB),
    # 4 MiB objects split evenly: exactly raw_per_usable
    (4 * 2**20, erasure(2, 1), 6 * 2**20, 4 * 2**20),
])
def test_small_objects_golden(size, scheme, allocated, stored):
    """Measured byte for byte on the lab cluster (Ceph 16.2.15, tests/cluster/test_pools.py)."""
    assert red.allocated_bytes(size, scheme) == allocated
    assert red.stored_bytes(size, scheme) == stored


def test_64k_allocation_of_older_hdd_osds():
    """Before Pacific an HDD OSD allocated 64 KiB units: a 1 KiB object cost 192 KiB at size 3."""
    assert red.allocated_bytes(1 * KIB, replicated(3), min_alloc_size=64 * KIB) == 192 * KIB


@given(size=st.integers(1, 2**24), k=st.integers(1, 8), m=st.integers(1, 4),
       alloc=st.sampled_from([4096, 16384, 65536]))
def test_padding_never_beats_the_ideal_and_vanishes_for_whole_stripes(size, k, m, alloc):
    scheme = erasure(k, m)
    assert red.allocated_bytes(size, scheme, alloc) >= size * scheme.raw_per_usable - 1e-6
    whole = k * max(alloc, red.EC_STRIPE_UNIT) * 3
    assert red.allocated_bytes(whole, scheme, alloc) == pytest.approx(whole * scheme.raw_per_usable)


def test_allocated_is_vectorised_and_checks_its_input():
    out = red.allocated_bytes(np.array([1 * KIB, 8 * KIB]), erasure(2, 1))
    assert out.tolist() == [12 * KIB, 12 * KIB]
    with pytest.raises(ValueError, match="object_bytes"):
        red.allocated_bytes(0, erasure(2, 1))
    with pytest.raises(ValueError, match="min_alloc_size"):
        red.allocated_bytes(1, erasure(2, 1), min_alloc_size=3)


@pytest.mark.oracle
@pytest.mark.skipif(__import__("shutil").which("ceph-conf") is None, reason="ceph-conf not installed")
@pytest.mark.parametrize("option, value", [("osd_pool_erasure_code_stripe_unit", red.EC_STRIPE_UNIT),
                                           ("bluestore_min_alloc_size_hdd", red.BLUESTORE_MIN_ALLOC),
                                           ("bluestore_min_alloc_size_ssd", red.BLUESTORE_MIN_ALLOC)])
def test_padding_defaults_are_the_installed_ceph_s(option, value):
    import subprocess
    out = subprocess.run(["ceph-conf", "-c", "/dev/null", "--show-config-value", option],
                         capture_output=True, text=True, check=True).stdout
    assert int(out) == value


# -- a whole cluster: copysets ------------------------------------------------------------------
from scipy.stats import binom as _binom  # noqa: E402


@pytest.mark.parametrize("scheme, osds, afr, days", [
    (replicated(3), 100, 0.05, 1), (erasure(4, 2), 12, 0.10, 1), (erasure(17, 3), 40, 0.0041, 6.5)])
def test_one_pg_is_the_stripe_model(scheme, osds, afr, days):
    """S = 1: the cluster model reduces exactly to Backblaze's single-stripe model."""
    assert red.cluster_loss_probability(osds, 1, scheme, afr, days) == pytest.approx(
        annual_loss_probability(scheme, afr, days), rel=1e-9)


def test_every_set_used_means_any_three_failures_lose_data():
    """S = C(10, 3) = 120: any 3 failed OSDs of 10 hold some PG's every copy."""
    p = 0.05 / 365
    expected = -np.expm1(365 * np.log1p(-_binom.sf(2, 10, p)))
    assert red.expected_copysets(10, 10**9, replicated(3)) == pytest.approx(120)
    got = red.cluster_loss_probability(10, 10**9, replicated(3), 0.05, 1)
    assert got == pytest.approx(expected, rel=1e-6)


def test_a_cluster_of_many_pgs_has_fewer_nines_than_one_stripe():
    """100 OSDs, 4096 PGs of size 3, AFR 5 %, 1-day window: 9 nines for one stripe, 5 for the
    cluster (about 4,045 distinct copysets of the 161,700 possible)."""
    assert red.expected_copysets(100, 4096, replicated(3)) == pytest.approx(4044.57, abs=0.01)
    assert nines(annual_loss_probability(replicated(3), 0.05, 1)) == 9
    assert nines(red.cluster_loss_probability(100, 4096, replicated(3), 0.05, 1)) == 5


@given(pgs=st.integers(1, 10**5), more=st.integers(1, 10**5), afr=st.floats(1e-3, 0.2))
def test_more_pgs_never_make_a_cluster_more_durable(pgs, more, afr):
    low = red.cluster_loss_probability(60, pgs, replicated(3), afr, 1)
    assert red.cluster_loss_probability(60, pgs + more, replicated(3), afr, 1) >= low * (1 - 1e-12)
    assert red.expected_copysets(60, pgs, replicated(3)) <= pgs + 1e-9


@pytest.mark.parametrize("n", [1, 12, 100, 1000])
def test_binomial_weights_match_scipy(n):
    """The cluster model's pmf (exp of log-gamma terms) against scipy.stats.binom.pmf: 3e-13
    relative (n = 100) to 2e-12 (n = 1,000; measured) wherever scipy's value is a normal float,
    exact at p = 0 and p = 1."""
    k = np.arange(n + 1)
    p = np.concatenate([[0.0, 1.0], np.logspace(-12, -1e-3, 60)])[:, None]
    ours, ref = red._binom_pmf(k, n, p), _binom.pmf(k, n, p)
    normal = ref > 1e-300
    assert np.abs(ours[normal] / ref[normal] - 1).max() < (3e-13 if n <= 100 else 3e-12)
    assert np.array_equal(ours[:2], ref[:2]) and (ours[~normal] < 1e-290).all()


def test_cluster_model_checks_its_inputs():
    with pytest.raises(ValueError, match="osds"):
        red.cluster_loss_probability(2, 10, replicated(3), 0.05, 1)
    with pytest.raises(ValueError, match="pgs"):
        red.expected_copysets(10, 0, replicated(3))
    out = red.cluster_loss_probability(100, 4096, replicated(3), np.array([0.01, 0.05]), 1)
    assert out.shape == (2,) and out[0] < out[1]
