"""models.throttle: Ceph's BackoffThrottle delay, checked against Throttle.cc and the seed."""
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.throttle import (
    FILESTORE_THROTTLE_OPTIONS,
    WBTHROTTLE_XFS_OPTIONS,
    backoff_delay,
    filestore_throttle_params,
    max_rate,
)

# Hand-computed from BackoffThrottle::_get_delay (src/common/Throttle.cc) with
# low 0.3, high 0.9, expected 200 ops/s, high_multiple 2, max_multiple 10:
# e = 2/200 = 0.01 s, m = 10/200 = 0.05 s, s0 = 0.01/0.6, s1 = 0.04/0.1 = 0.4.
TUNED = dict(low=0.3, high=0.9, expected_throughput=200.0, high_multiple=2.0, max_multiple=10.0)
GOLDEN = {
    0.0: 0.0,
    0.29: 0.0,
    0.3: 0.0,                  # ramp starts at exactly 0
    0.6: 0.3 * 0.01 / 0.6,     # halfway up the ramp: e / 2
    0.9: 0.01,                 # e at r = high
    0.95: 0.01 + 0.05 * 0.4,   # 0.03
    1.0: 0.05,                 # m at r = 1
    1.2: 0.01 + 0.3 * 0.4,     # not clamped above 1: keeps rising
}


@pytest.mark.parametrize("r,expected", GOLDEN.items())
def test_golden_delays_from_throttle_cc(r, expected):
    assert backoff_delay(r, **TUNED) == pytest.approx(expected, abs=1e-12)


def test_cost_scales_delay_like_the_bytes_throttle():
    # Throttle.cc multiplies the per-unit delay by c, the units asked for (bytes here).
    assert backoff_delay(0.95, cost=4096, **TUNED) == pytest.approx(4096 * 0.03)


def test_seed000_slide_formula_matches():
    # Seed 000 (NAVER 2017) "Dynamic Throttle" slide, written out with its own names.
    low, high, expected, high_multiple, max_multiple = 0.8, 0.9, 15000.0, 1.0, 4.0
    high_delay_per_count = high_multiple / expected
    max_delay_per_count = max_multiple / expected
    s0 = high_delay_per_count / (high - low)
    s1 = (max_delay_per_count - high_delay_per_count) / (1 - high)
    for r in (0.5, 0.85, 0.95):
        slide = 0 if r < low else ((r - low) * s0 if r < high else high_delay_per_count + (r - high) * s1)
        assert backoff_delay(r, low, high, expected, high_multiple, max_multiple) == \
            pytest.approx(slide)


def test_defaults_give_no_delay():
    # Ceph ships both multiples at 0: the throttle only blocks at the hard limit.
    assert np.all(backoff_delay(np.linspace(0, 2, 50)) == 0)


def test_equal_thresholds_jump_to_e():
    # set_params: high == low sets s0 = 0, so the delay steps from 0 to e at r = high.
    kw = dict(low=0.5, high=0.5, expected_throughput=100.0, high_multiple=1.0, max_multiple=3.0)
    assert backoff_delay(0.499, **kw) == 0
    assert backoff_delay(0.5, **kw) == pytest.approx(0.01)


def test_high_one_stays_at_e():
    # set_params: high == 1 sets s1 = 0, so from r = 1 on the delay is e.
    kw = dict(low=0.5, high=1.0, expected_throughput=100.0, high_multiple=1.0, max_multiple=3.0)
    assert backoff_delay(0.75, **kw) == pytest.approx(0.005)
    assert backoff_delay(1.0, **kw) == pytest.approx(0.01)
    assert backoff_delay(1.5, **kw) == pytest.approx(0.01)


def test_max_rate_is_expected_throughput_at_high():
    # FIFO waiters: at r = high with high_multiple 1 the throttle passes expected ops/s.
    assert max_rate(0.9, low=0.3, high=0.9, expected_throughput=200.0, high_multiple=1.0,
                    max_multiple=1.0) == pytest.approx(200.0)
    assert max_rate(0.1, **TUNED) == np.inf


@pytest.mark.parametrize("kwargs,word", [
    (dict(r=-0.1), "r"),
    (dict(r=0.5, low=0.9, high=0.3), "low"),
    (dict(r=0.5, low=-0.1), "low"),
    (dict(r=0.5, high=1.5), "high"),
    (dict(r=0.5, high_multiple=3.0, max_multiple=2.0), "high_multiple"),
    (dict(r=0.5, high_multiple=-1.0), "high_multiple"),
    (dict(r=0.5, expected_throughput=0.0), "expected_throughput"),
    (dict(r=0.5, cost=-1.0), "cost"),
    (dict(r=float("nan")), "r"),
])
def test_invalid_parameters_raise(kwargs, word):
    with pytest.raises(ValueError, match=word):
        backoff_delay(**kwargs)


def test_vectorised_equals_scalar_loop():
    r = np.linspace(0, 1.3, 200)
    assert np.array_equal(backoff_delay(r, **TUNED), [backoff_delay(x, **TUNED) for x in r])


params = st.tuples(
    st.floats(0, 1), st.floats(0, 1), st.floats(1, 1e9),
    st.floats(0, 100), st.floats(0, 100),
).map(lambda p: dict(low=min(p[0], p[1]), high=max(p[0], p[1]), expected_throughput=p[2],
                     high_multiple=min(p[3], p[4]), max_multiple=max(p[3], p[4])))


@given(params, st.lists(st.floats(0, 2), min_size=2, max_size=30))
def test_non_decreasing_and_zero_below_low(kw, rs):
    rs = np.sort(rs)
    d = backoff_delay(rs, **kw)
    assert np.all(np.diff(d) >= -1e-12)
    assert np.all(d[rs < kw["low"]] == 0)


@given(params, st.floats(0, 1.5))
def test_continuous_when_thresholds_are_apart(kw, r):
    # With low < high < 1 there is no jump (both joins meet: the ramp ends at e).
    if not (kw["high"] - kw["low"] > 1e-3 and kw["high"] < 1 - 1e-3):
        return
    step = 1e-9
    lo, hi = backoff_delay(max(r - step, 0), **kw), backoff_delay(r + step, **kw)
    slope = max(kw["high_multiple"], kw["max_multiple"]) / kw["expected_throughput"] / 1e-3
    assert abs(hi - lo) <= 2 * step * slope + 1e-12


def test_filestore_params_use_defaults_and_overrides():
    assert filestore_throttle_params("ops") == dict(
        low=0.3, high=0.9, expected_throughput=200.0, high_multiple=0.0, max_multiple=0.0)
    tuned = filestore_throttle_params("bytes", {"filestore_queue_high_delay_multiple": 2,
                                                "filestore_queue_max_delay_multiple": 10})
    assert tuned["expected_throughput"] == 209715200.0
    assert (tuned["high_multiple"], tuned["max_multiple"]) == (2, 10)
    assert filestore_throttle_params("journal")["low"] == 0.6
    with pytest.raises(ValueError, match="unknown throttle option"):
        filestore_throttle_params("ops", {"filestore_queue_low_threshold": 0.2})  # one h
    with pytest.raises(ValueError, match="kind"):
        filestore_throttle_params("inodes")


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("ceph-conf") is None, reason="ceph-conf (ceph-common) not installed")
def test_option_defaults_match_installed_ceph():
    # Parity with the installed Ceph (16.2.15 in the lab): `ceph-conf -D` prints defaults.
    out = subprocess.run(["ceph-conf", "-c", "/dev/null", "-D"], capture_output=True,
                         text=True, timeout=60).stdout
    live = dict(line.split(" = ", 1) for line in out.splitlines() if " = " in line)
    for name, value in {**FILESTORE_THROTTLE_OPTIONS, **WBTHROTTLE_XFS_OPTIONS}.items():
        if isinstance(value, bool):
            assert live[name] == str(value).lower(), name
        else:
            assert float(live[name]) == pytest.approx(value), name


# -- BlueStore's byte throttles ---------------------------------------------------------------
from models.throttle import (  # noqa: E402  (this section's names, next to its tests)
    BLUESTORE_THROTTLE_OPTIONS,
    bluestore_deferred_throttle_max,
    bluestore_device_ios,
    bluestore_max_inflight,
    bluestore_txc_cost,
    bluestore_write_ios,
)

# Hand-computed from BlueStore::_txc_calc_cost (cost = ios * cost_per_io + bytes) with the
# Pacific defaults; 675547 B per 4 KiB write was measured on the lab cluster (perf dump
# get_sum / get of throttle-bluestore_throttle_bytes: 4096 B of data + ~1.45 KB of encoding).
BLUESTORE_GOLDEN = {
    # (txn_bytes, ios, cost_per_io): (cost, max in flight in 64 MiB)
    (4096, 1, 670000): (674096, 99),          # deferred 4 KiB write on HDD
    (65536 + 1024, 2, 670000): (1406560, 47),  # direct 64 KiB write on HDD: one aio more
    (4096, 1, 4000): (8096, 8289),            # the same write on SSD
    (0, 1, 0): (0, float("inf")),             # cost 0: the throttle never fills
}


@pytest.mark.parametrize("args,expected", BLUESTORE_GOLDEN.items())
def test_bluestore_cost_and_inflight_golden(args, expected):
    size, ios, per_io = args
    assert bluestore_txc_cost(size, ios, per_io) == expected[0]
    assert bluestore_max_inflight(size, ios, per_io) == expected[1]


# I/Os per write transaction (issue 46): measured on the lab's Pacific cluster with
# bluestore_throttle_cost_per_io = 670000: (get_sum / get - bytes) / 670000 over 90 transactions of
# 4 KiB, 90 of 64 KiB and 24 of 4 MiB gave 1.003, 2.002 and 65.002 (the encoding adds the 0.00x).
@pytest.mark.parametrize("size, deferred, ios", [
    (4096, True, 1), (65536, False, 2), (4 * 2**20, False, 65), (65537, False, 3), (2**20, False, 17),
])
def test_bluestore_write_ios_one_aio_per_64k_blob(size, deferred, ios):
    assert bluestore_write_ios(size, deferred=deferred) == ios


def test_a_4mib_write_fills_most_of_the_hdd_budget_one_in_flight():
    """The table lab 04 used to print: '4 MiB direct, hdd, 2 I/Os ... 12 in flight' (the plausible
    wrong model, one aio per write); one aio per blob gives 47.7 MB and one in flight."""
    ios = int(bluestore_write_ios(4 * 2**20))
    assert bluestore_txc_cost(4 * 2**20, ios, 670000) == 47_744_304
    assert bluestore_max_inflight(4 * 2**20, ios, 670000) == 1
    assert bluestore_max_inflight(4 * 2**20, 2, 670000) == 12      # the old table's row


def test_bluestore_write_ios_is_vectorised_and_checks_its_input():
    assert list(bluestore_write_ios(np.array([4096, 65536, 4 * 2**20]))) == [2, 2, 65]
    with pytest.raises(ValueError, match="write_bytes"):
        bluestore_write_ios(0)
    with pytest.raises(ValueError, match="max_blob_size"):
        bluestore_write_ios(4096, max_blob_size=0)


# Device writes per replica write (issue 46): one model for lab 03's disk bound and lab 04's throttle.
@pytest.mark.parametrize("size, device, charged_deferred, charged_direct", [
    (4096, 2, 1, 2), (65535, 2, 1, 2), (65536, 2, 1, 2), (4 * 2**20, 65, 1, 65),
])
def test_device_writes_are_the_charged_ios_plus_a_deferred_writes_in_place_aio(size, device, charged_deferred,
                                                                              charged_direct):
    """A write commits once and writes its data once in place, deferred or not (2 device writes up to
    64 KiB); _txc_calc_cost charges the commit and the direct aios, not the in-place aio of a deferred
    write, which is queued after the commit."""
    assert bluestore_device_ios(size) == device
    assert bluestore_write_ios(size, deferred=True) == charged_deferred
    assert bluestore_write_ios(size) == charged_direct == bluestore_device_ios(size)
    blobs = -(-size // 65536)
    assert bluestore_device_ios(size) == bluestore_write_ios(size, deferred=True) + blobs


def test_device_writes_share_the_commit_when_it_is_batched():
    assert bluestore_device_ios(4096, commit_share=0.0) == 1.0          # many transactions per commit
    assert bluestore_device_ios(4096, commit_share=1 / 16) == pytest.approx(1.0625)
    assert list(bluestore_device_ios(np.array([4096, 65536, 131072]), commit_share=0.5)) == [1.5, 1.5, 2.5]
    with pytest.raises(ValueError, match="commit_share"):
        bluestore_device_ios(4096, commit_share=1.5)
    with pytest.raises(ValueError, match="write_bytes"):
        bluestore_device_ios(-1)


def test_bluestore_deferred_max_is_the_sum_seen_in_perf_dump():
    # `perf dump` on the lab's BlueStore OSDs (16.2.15): throttle-bluestore_throttle_deferred_bytes max
    assert bluestore_deferred_throttle_max() == 201326592


def test_bluestore_one_request_always_fits():
    # An empty Throttle admits a request bigger than its max (Throttle::_should_wait).
    assert bluestore_max_inflight(10**9, throttle_bytes=1024) == 1


@pytest.mark.parametrize("kwargs,word", [
    (dict(txn_bytes=-1), "txn_bytes"), (dict(txn_bytes=4096, ios=0), "ios"),
    (dict(txn_bytes=4096, ios=1.5), "ios"), (dict(txn_bytes=4096, cost_per_io=-1), "cost_per_io"),
])
def test_bluestore_cost_invalid_raise(kwargs, word):
    with pytest.raises(ValueError, match=word):
        bluestore_txc_cost(**kwargs)


def test_bluestore_inflight_invalid_budget_raises():
    with pytest.raises(ValueError, match="throttle_bytes"):
        bluestore_max_inflight(4096, throttle_bytes=0)


@given(st.floats(0, 1e8), st.floats(0, 1e8), st.integers(1, 64), st.floats(1, 1e7))
def test_bluestore_cost_monotone_and_inflight_fits(a, b, ios, per_io):
    lo, hi = sorted((a, b))
    assert bluestore_txc_cost(lo, ios, per_io) <= bluestore_txc_cost(hi, ios, per_io)
    n = bluestore_max_inflight(hi, ios, per_io)
    cost = bluestore_txc_cost(hi, ios, per_io)
    assert n == 1 or n * cost <= 67108864 < (n + 1) * cost


def test_bluestore_vectorised_equals_scalar_loop():
    sizes = np.linspace(0, 4 * 2**20, 50)
    assert np.array_equal(bluestore_max_inflight(sizes), [bluestore_max_inflight(s) for s in sizes])


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("ceph-conf") is None, reason="ceph-conf (ceph-common) not installed")
def test_bluestore_option_defaults_match_installed_ceph():
    out = subprocess.run(["ceph-conf", "-c", "/dev/null", "-D"], capture_output=True,
                         text=True, timeout=60).stdout
    live = dict(line.split(" = ", 1) for line in out.splitlines() if " = " in line)
    for name, value in BLUESTORE_THROTTLE_OPTIONS.items():
        assert float(live[name]) == value, name


def test_a_gap_too_narrow_for_a_double_is_no_gap():
    """Found by hypothesis in CI: high - low = 2.2e-313 made the ramp's slope inf and the delay
    0 x inf = NaN at r = low. Such a gap is taken as high == low, as set_params does for 0."""
    kw = dict(low=0.0, high=2.2250738585e-313, expected_throughput=1.0, high_multiple=1.0, max_multiple=1.0)
    assert list(backoff_delay([0.0, 0.5], **kw)) == [0.0, 1.0]        # below the (merged) thresholds, then e
    assert list(backoff_delay([0.0, 0.5], **{**kw, "high": 0.0})) == [1.0, 1.0]
