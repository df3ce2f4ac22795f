"""models.pgs: PGCalc, the Pacific pg_autoscaler (golden vectors and parity with the installed
module), and the binomial spread of PGs over OSDs (checked against osdmaptool)."""
import importlib.util
import logging
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models import pgs

# --- PGCalc ------------------------------------------------------------------------------------
# Golden values derived by hand from doc/_static/js/pgcalc.js (ceph/ceph, the archived PGCalc page)
# for its own presets: 100 OSDs, size 3, target 200 PGs per OSD.
PGCALC = {
    # (osds, size, target, percent): pg_num
    (100, 3, 200, 53): 4096,     # "OpenStack": cinder-volumes  raw 3533 -> 4096
    (100, 3, 200, 25): 2048,     # cinder-backup                raw 1666 -> 2048
    (100, 3, 200, 15): 1024,     # ephemeral-vms                raw 1000 -> 1024
    (100, 3, 200, 7): 512,       # glance-images                raw 466  -> 512
    (100, 3, 200, 42.8): 4096,   # "OpenStack w RGW": raw 2853, 2048 is >25 % below -> 4096
    (100, 3, 200, 19): 1024,     # default.rgw.buckets.data     raw 1266 -> 1024 (19 % below)
    (100, 3, 200, 3): 256,       # default.rgw.buckets.index    raw 200  -> 256
    (100, 3, 200, 0.1): 64,      # small rgw pools: raw 6 -> 8, floor nearestPow2(34) = 32 -> x2 = 64
    (100, 3, 200, 75): 4096,     # "RBD and libRados": rbd      raw 5000 -> 4096
    (10, 3, 100, 100): 256,      # raw 333 -> 256, only 23 % below: kept
    (50, 2, 100, 1): 64,         # raw 25 -> 32; floor nearestPow2(26) = 32 < 50 -> 64 wins
    (3, 3, 100, 100): 128,       # raw 100 -> 128; floor nearestPow2(2) = 2 < 3 -> 4
    (12, 6, 100, 100): 256,      # EC 4+2 (size = k+m): raw 200 -> 256
}


@pytest.mark.parametrize("args", list(PGCALC))
def test_pgcalc_golden(args):
    assert pgcalc_result(*args) == PGCALC[args]


def pgcalc_result(osds, size, target, percent):
    return pgs.pgcalc(osds, size, target_pgs_per_osd=target, data_percent=percent)


def test_pgcalc_nearest_pow2_rule():
    # 2^round(log2 x), doubled when more than 25 % below x
    assert pgs.pgcalc_nearest_pow2(2853) == 4096
    assert pgs.pgcalc_nearest_pow2(2730) == 2048   # 2048 = 0.7502 x 2730: kept
    assert pgs.pgcalc_nearest_pow2(2731) == 4096   # 2048 < 0.75 x 2731: doubled
    assert pgs.pgcalc_nearest_pow2(0) == 0


def _pgcalc_floor(osds, size):
    floor = pgs.pgcalc_nearest_pow2(osds // size + 1)
    return 2 * floor if floor < osds else floor


@given(osds=st.integers(1, 5000), size=st.integers(1, 12), target=st.sampled_from([100, 200, 300]),
       percent=st.floats(0, 100))
def test_pgcalc_is_a_power_of_two_at_least_the_floor(osds, size, target, percent):
    n = pgs.pgcalc(osds, size, target, percent)
    assert isinstance(n, int) and n >= 1 and n & (n - 1) == 0
    assert n >= _pgcalc_floor(osds, size)


def test_pgcalc_vectorised():
    osds = np.array([3, 10, 100, 1000])
    out = pgs.pgcalc(osds, 3)
    assert list(out) == [pgs.pgcalc(int(o), 3) for o in osds]


# --- pg_autoscaler -----------------------------------------------------------------------------
# Golden vectors: src/pybind/mgr/pg_autoscaler/tests/test_cal_final_pg_target.py (ceph/ceph commit
# 703f7ac70ab7622e569118042cd27c5c610770f6, the bulk-flag version shipped in Pacific 16.2.x).
# Each case is one CRUSH root: its PG budget and its pools in order:
# (name, capacity_ratio, bulk, expected pg_num, expected final_ratio); every pool has size 1.
AUTOSCALER = {
    "even_pools_one_meta_three_bulk": (400, [
        ("meta_0", 0.2, False, 64, 0.2), ("bulk_0", 0.2, True, 128, 1 / 3),
        ("bulk_1", 0.2, True, 128, 1 / 3), ("bulk_2", 0.1, True, 128, 1 / 3)]),
    "even_pools_two_meta_two_bulk": (400, [
        ("meta0", 0.2, False, 64, 0.2), ("meta1", 0.2, False, 64, 0.2),
        ("bulk0", 0.2, True, 128, 0.5), ("bulk1", 0.1, True, 128, 0.5)]),
    "uneven_pools_one_meta_three_bulk": (400, [
        ("meta0", 0.1, False, 32, 0.1), ("bulk0", 0.5, True, 128, 0.5),
        ("bulk1", 0.1, True, 64, 0.5), ("bulk2", 0.1, True, 64, 0.5)]),
    "uneven_pools_two_meta_two_bulk": (400, [
        ("meta0", 0.1, False, 32, 0.1), ("meta1", 0.1, False, 32, 0.1),
        ("bulk0", 0.5, True, 128, 0.5), ("bulk1", 0.1, True, 128, 0.5)]),
    "uneven_pools_with_diff_roots/root0": (5000, [
        ("meta0", 0.3, False, 1024, 0.3), ("bulk2", 0.6, True, 2048, 0.6), ("bulk3", 0.1, True, 1024, 1.0)]),
    "uneven_pools_with_diff_roots/root1": (5000, [
        ("meta1", 0.6, False, 2048, 0.6), ("bulk4", 0.4, True, 2048, 1.0)]),
    "even_pools_with_diff_roots/root0": (5000, [
        ("meta0", 0.4, False, 2048, 0.4), ("bulk1", 0.2, True, 1024, 0.5), ("bulk2", 0.1, True, 1024, 0.5)]),
    "even_pools_with_diff_roots/root1": (5000, [
        ("meta1", 0.6, False, 2048, 0.6), ("bulk3", 0.25, True, 2048, 1.0)]),
}


@pytest.mark.parametrize("case", list(AUTOSCALER))
def test_autoscaler_golden_vectors(case):
    budget, rows = AUTOSCALER[case]
    pools = [dict(name=n, capacity_ratio=r, size=1, bulk=b, pg_num_target=32) for n, r, b, _, _ in rows]
    got = pgs.autoscale_pools(pools, budget)
    for name, _, _, pg_num, ratio in rows:
        assert got[name].pg_num == pg_num, name
        assert got[name].final_ratio == pytest.approx(ratio), name


# src/pybind/mgr/pg_autoscaler/tests/test_autoscaler.py (Pacific): ratios are always divided by
# their total; target bytes then scale what is left.
EFFECTIVE_RATIO = {
    (0.2, 0.9, 0, 0): 0.2 / 0.9, (2, 9, 0, 0): 2 / 9, (0.9, 0.9, 0, 0): 1.0, (1, 2, 0, 0): 0.5,
    (1, 10, 5, 10): 0.05, (0.1, 1, 5, 10): 0.05, (1, 1, 5, 10): 0.5, (1, 1, 0, 10): 1.0,
    (0, 1, 5, 10): 0.0, (1, 1, 10, 10): 0.0,
}


@pytest.mark.parametrize("args", list(EFFECTIVE_RATIO))
def test_effective_target_ratio_pacific(args):
    assert pgs.effective_target_ratio(*args) == pytest.approx(EFFECTIVE_RATIO[args])


AUTOSCALE_TARGET = {
    # (capacity_ratio, osds, size, current): (ideal, pg_num, would_adjust) -- worked by hand
    (1.0, 3, 3, 32): (100.0, 128, True),     # 3 OSDs x 100 / 3 = 100 -> 128 (4x of 32)
    (0.5, 3, 3, 32): (50.0, 64, False),      # 64 is only 2x of 32: the 3x threshold holds it
    (0.01, 10, 3, 128): (10 / 3, 32, True),  # pg_num_min 32 floors it; 32 < 128 / 3
    (1.0, 12, 6, 32): (200.0, 256, True),    # EC 4+2: size is k+m
    (0.25, 100, 3, 256): (2500 / 3, 1024, True),
}


@pytest.mark.parametrize("args", list(AUTOSCALE_TARGET))
def test_autoscale_target_single_pool(args):
    ratio, osds, size, current = args
    ideal, pg_num, adjust = AUTOSCALE_TARGET[args]
    got = pgs.autoscale_target(ratio, osds, size, current_pg_num=current)
    assert got.ideal == pytest.approx(ideal)
    assert (got.pg_num, got.would_adjust) == (pg_num, adjust)


def test_autoscale_target_respects_min_max_and_bias():
    assert pgs.autoscale_target(0.0, 3, 3, pg_num_min=1).pg_num == 1
    assert pgs.autoscale_target(1.0, 100, 3, pg_num_max=512).pg_num == 512
    assert pgs.autoscale_target(0.1, 30, 3, bias=4.0).ideal == pytest.approx(400.0)


def test_autoscale_target_vectorised():
    ratios = np.linspace(0, 1, 9)
    got = pgs.autoscale_target(ratios, 30, 3, current_pg_num=32)
    assert list(got.pg_num) == [pgs.autoscale_target(float(r), 30, 3).pg_num for r in ratios]


NEAREST = {0.5: 0, 1: 1, 2: 2, 3: 4, 5: 4, 6: 8, 80: 64, 96: 128, 106.67: 128, 1500: 1024, 1537: 2048}


def test_autoscaler_nearest_power_of_two():
    for n, expected in NEAREST.items():
        assert pgs.nearest_power_of_two(n) == expected, n


def _load_installed_autoscaler(monkeypatch):
    """Import Pacific's pg_autoscaler/module.py from the installed ceph-mgr with stub mgr imports."""
    path = Path("/usr/share/ceph/mgr/pg_autoscaler/module.py")
    if not path.exists():
        pytest.skip("ceph-mgr's pg_autoscaler module is not installed")
    mgr_module = types.ModuleType("mgr_module")
    mgr_module.MgrModule = type("MgrModule", (), {})
    mgr_module.CLIReadCommand = mgr_module.CLIWriteCommand = lambda *a, **k: (lambda f: f)
    mgr_module.Option = lambda *a, **k: dict(k)
    mgr_module.HealthChecksT = dict
    mgr_module.CRUSHMap = mgr_module.OSDMap = object
    monkeypatch.setitem(sys.modules, "mgr_module", mgr_module)
    monkeypatch.setitem(sys.modules, "mgr_util", types.ModuleType("mgr_util"))
    spec = importlib.util.spec_from_file_location("pacific_pg_autoscaler", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Root:
    def __init__(self, pool_count, budget):
        self.pool_count, self.pg_target, self.pg_left, self.pool_used = pool_count, budget, budget, 0


def _installed_passes(module, pools, budget):
    """Run the installed module's three passes over one root the way _get_pool_status does."""
    me = types.SimpleNamespace(log=logging.getLogger("pacific_pg_autoscaler"))
    calc = module.PgAutoscaler._calc_final_pg_target
    root_map = {0: _Root(len(pools), budget)}
    out, bulk_pools, even_pools = {}, {}, {}
    for stage, group in (("first", None), ("second", bulk_pools), ("third", even_pools)):
        members = pools if group is None else list(group.values())
        for p in members:
            ratio, ideal, final = calc(me, p, p["name"], root_map, 0, p["capacity_ratio"], p["bias"],
                                       even_pools, bulk_pools, stage, p["bulk"])
            if ratio is not None:
                out[p["name"]] = (ratio, ideal, final)
    return out


@pytest.mark.oracle
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.sampled_from([1, 2, 3, 6]),
                          st.sampled_from([1.0, 4.0]), st.sampled_from([1, 32])),
                min_size=1, max_size=6),
       st.integers(50, 20000))
def test_autoscale_pools_matches_installed_pacific_module(monkeypatch_session, rows, budget):
    module = monkeypatch_session
    pools = [dict(pool_name=f"p{i}", name=f"p{i}", capacity_ratio=r, bulk=b, size=s, bias=bias,
                  pg_num_target=32, options={"pg_num_min": pmin}, pg_num_min=pmin)
             for i, (r, b, s, bias, pmin) in enumerate(rows)]
    ours = pgs.autoscale_pools(pools, budget)
    theirs = _installed_passes(module, pools, budget)
    assert set(ours) == set(theirs)
    for name, (ratio, ideal, final) in theirs.items():
        assert ours[name].final_ratio == pytest.approx(ratio, rel=1e-12)
        assert ours[name].ideal == pytest.approx(ideal, rel=1e-12)
        assert ours[name].pg_num == final


@pytest.fixture(scope="module")
def monkeypatch_session():
    mp = pytest.MonkeyPatch()
    yield _load_installed_autoscaler(mp)
    mp.undo()


@pytest.mark.oracle
@given(st.floats(0, 1e6))
def test_nearest_power_of_two_matches_installed_module(monkeypatch_session, n):
    assert pgs.nearest_power_of_two(n) == monkeypatch_session.nearest_power_of_two(n)


@pytest.mark.oracle
@given(st.floats(0, 10), st.one_of(st.just(0.0), st.floats(1e-3, 10)), st.integers(0, 1000),
       st.integers(0, 1000))
def test_effective_target_ratio_matches_installed_module(monkeypatch_session, r, total, tb, cap):
    assert pgs.effective_target_ratio(r, total, tb, cap) == pytest.approx(
        monkeypatch_session.effective_target_ratio(r, total, tb, cap))


# --- spread of PGs -----------------------------------------------------------------------------
SPREAD = {
    # (pg_num, size, osds): (mean, std, cv) of Binomial(pg_num x size, 1/osds), by hand
    (128, 3, 10): (38.4, 5.8787754, 0.15309311),
    (1280, 3, 40): (96.0, 9.6747093, 0.10077822),  # osdmaptool prints "expected 9.67471 0.100778x"
    (32, 1, 1): (32.0, 0.0, 0.0),
}


@pytest.mark.parametrize("args", list(SPREAD))
def test_pgs_per_osd_stats_golden(args):
    got = pgs.pgs_per_osd_stats(*args)
    assert (got.mean, got.std, got.cv) == pytest.approx(SPREAD[args], rel=1e-6, abs=1e-12)


def test_expected_max_small_cases_by_hand():
    # 1 PG replica, 2 OSDs, independent Bernoulli(1/2): E[max] = 1 - 1/4
    assert pgs.expected_max_pgs(1, 1, 2, exact=True) == pytest.approx(0.75)
    # one OSD holds everything
    assert pgs.expected_max_pgs(64, 3, 1, exact=True) == pytest.approx(192)
    assert pgs.fullest_osd_factor(64, 3, 1) == pytest.approx(1.0)


def test_expected_max_exact_against_simulation():
    rng = np.random.default_rng(20240611)
    for pg_num, size, osds in [(128, 3, 10), (64, 3, 40), (512, 2, 7)]:
        draws = rng.binomial(pg_num * size, 1 / osds, size=(20000, osds)).max(axis=1)
        exact = pgs.expected_max_pgs(pg_num, size, osds, exact=True)
        assert exact == pytest.approx(draws.mean(), abs=4 * draws.std() / np.sqrt(len(draws)))


APPROX_TOLERANCE = {0.5: 0.10, 2: 0.03, 10: 0.004, 100: 0.002}


@pytest.mark.parametrize("per_osd", list(APPROX_TOLERANCE))
@pytest.mark.parametrize("osds", [3, 10, 100, 1000])
def test_fast_expected_max_is_close_to_exact(per_osd, osds):
    pg_num = max(1, int(per_osd * osds / 3))
    fast = pgs.expected_max_pgs(pg_num, 3, osds)
    exact = pgs.expected_max_pgs(pg_num, 3, osds, exact=True)
    assert fast == pytest.approx(exact, rel=APPROX_TOLERANCE[per_osd])


@given(pg_num=st.integers(1, 4096), size=st.integers(1, 6), osds=st.integers(1, 500))
def test_expected_max_at_least_mean(pg_num, size, osds):
    mean = pg_num * size / osds
    assert pgs.expected_max_pgs(pg_num, size, osds) >= mean * (1 - 1e-9)
    assert pgs.expected_max_pgs(pg_num, size, osds, exact=True) >= mean * (1 - 1e-9)
    assert pgs.fullest_osd_factor(pg_num, size, osds) >= 1 - 1e-9


def test_more_pgs_spread_better():
    factors = pgs.fullest_osd_factor(np.array([32, 128, 512, 2048]), 3, 40)
    assert np.all(np.diff(factors) < 0)
    assert pgs.usable_fraction_of_spread(2048, 3, 40) > pgs.usable_fraction_of_spread(32, 3, 40)


def test_spread_vectorised_and_types():
    pg = np.arange(1, 201) * 16
    out = pgs.fullest_osd_factor(pg, 3, 100)
    assert out.shape == (200,)
    assert np.allclose(out[[0, 99, 199]], [pgs.fullest_osd_factor(int(p), 3, 100) for p in pg[[0, 99, 199]]])
    exact = pgs.expected_max_pgs(pg[:5], 3, 100, exact=True)
    assert np.allclose(exact, [pgs.expected_max_pgs(int(p), 3, 100, exact=True) for p in pg[:5]])
    assert type(pgs.fullest_osd_factor(128, 3, 10)) is float
    assert type(pgs.pgs_per_osd(128, 3, 10)) is float


def _osdmaptool_spread(osds, pg_bits, tmp_path):
    om = tmp_path / f"om_{osds}_{pg_bits}"
    subprocess.run(["osdmaptool", str(om), "--createsimple", str(osds), "--pg-bits", str(pg_bits),
                    "--with-default-pool", "--clobber", "--osd-crush-chooseleaf-type", "0"],
                   check=True, capture_output=True)
    out = subprocess.run(["osdmaptool", str(om), "--test-map-pgs", "--pool", "1", "--mark-up-in"],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"avg (\S+) stddev (\S+) \(\S+\) \(expected (\S+) ", out)
    counts = [int(line.split()[1]) for line in out.splitlines() if line.startswith("osd.")]
    return float(m.group(1)), float(m.group(2)), float(m.group(3)), counts


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("osdmaptool") is None, reason="osdmaptool (ceph-base) not installed")
@pytest.mark.parametrize("osds, pg_bits", [(40, 5), (100, 3), (12, 6), (200, 2)])
def test_spread_against_osdmaptool(osds, pg_bits, tmp_path):
    pg_num = osds << pg_bits   # osdmaptool --createsimple: pg_num = osds x 2^pg_bits, size 3
    avg, stddev, expected_std, counts = _osdmaptool_spread(osds, pg_bits, tmp_path)
    model = pgs.pgs_per_osd_stats(pg_num, 3, osds)
    assert avg == pytest.approx(model.mean)
    assert expected_std == pytest.approx(model.std, rel=1e-5)      # osdmaptool's own binomial figure
    assert stddev == pytest.approx(model.std, rel=0.35)             # CRUSH's real spread is close
    assert max(counts) / avg == pytest.approx(pgs.fullest_osd_factor(pg_num, 3, osds), rel=0.15)


@pytest.mark.parametrize("call, name", [
    (lambda: pgs.pgcalc(0, 3), "osds"),
    (lambda: pgs.pgcalc(10, 0), "size"),
    (lambda: pgs.pgcalc(10, 3, 0), "target_pgs_per_osd"),
    (lambda: pgs.pgcalc(10, 3, 100, 101), "data_percent"),
    (lambda: pgs.pgs_per_osd_stats(0, 3, 10), "pg_num"),
    (lambda: pgs.pgs_per_osd_stats(10, 0, 10), "size"),
    (lambda: pgs.fullest_osd_factor(10, 3, 0), "osds"),
    (lambda: pgs.autoscale_target(-0.1, 3, 3), "capacity_ratio"),
    (lambda: pgs.autoscale_target(0.1, 3, 3, threshold=1.5), "threshold"),
    (lambda: pgs.autoscale_target(0.1, 3, 3, bias=0), "bias"),
    (lambda: pgs.nearest_power_of_two(-1), "n"),
])
def test_invalid_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
