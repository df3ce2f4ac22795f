"""How many placement groups a pool gets, and how evenly they land on the OSDs.

Three ways to pick pg_num, from oldest to newest: the PGCalc web page (its JavaScript, kept in
Ceph's docs), the Pacific pg_autoscaler (mgr module, Ceph v16.2.15), and the rule of thumb both
start from: about 100 PG replicas per OSD. Then the spread: with P PGs of `size` shards placed
pseudo-randomly on N equal OSDs, each OSD's count is about Binomial(P x size, 1/N), and the fullest
OSD -- which decides when the pool is full (models.capacity) -- carries more than the mean.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import ndtri
from scipy.stats import binom

from models import _check

# Ceph defaults (src/common/options.cc, v16.2.15): the autoscaler aims at 100 PG replicas per
# OSD; the monitors refuse pool changes that would put more than 250 on an OSD.
MON_TARGET_PG_PER_OSD = 100
MON_MAX_PG_PER_OSD = 250

# pg_autoscaler/module.py (v16.2.15): a pool never goes below 32 PGs unless its own pg_num_min
# says so, and pg_num changes only when the ideal is more than 3x away from the current value.
AUTOSCALE_PG_NUM_MIN = 32
AUTOSCALE_THRESHOLD = 3.0

# PGCalc: a power of two more than 25 % below the raw value is replaced by the next one up.
PGCALC_BELOW_THRESHOLD = 0.25


# --- PGCalc (docs) ---------------------------------------------------------------------------

def _js_round(x):
    """JavaScript's Math.round: halves go up (Python's round() would go to even)."""
    return np.floor(x + 0.5)


def pgcalc_nearest_pow2(value):
    """PGCalc's rounding: the nearest power of two, or the next one up if that is >25 % below.

        p = 2^round(log2 value);  if p < value x (1 - 0.25): p = 2p.     value = 0 gives 0.
    Source: Ceph docs, doc/_static/js/pgcalc.js, nearestPow2(); provenance: docs.
    """
    v = _check.non_negative("value", value)
    with np.errstate(divide="ignore"):
        p = np.power(2.0, _js_round(np.log(v) / np.log(2.0)))
    p = np.where(p < v * (1.0 - PGCALC_BELOW_THRESHOLD), 2.0 * p, p)
    return _check.scalar(p.astype(np.int64))


def pgcalc(osds, size, target_pgs_per_osd=100, data_percent=100.0):
    """Suggested pg_num of one pool, exactly as the Ceph PGCalc page computes it.

        raw   = floor(target_pgs_per_osd x osds x data_percent / (100 x size))
        calc  = nearestPow2(raw)
        floor = nearestPow2(floor(osds / size) + 1), doubled once if it is still below osds
        pg_num = max(calc, floor)

    nearestPow2 is pgcalc_nearest_pow2. The page's text says the floor is OSDs / size; its code
    (above) is what it shows, so that is what this returns. size is the replica count, or k+m for
    an erasure-coded pool. Example (the page's "OpenStack" preset, 100 OSDs, size 3, target 200):
    cinder-volumes 53 % -> 4096, cinder-backup 25 % -> 2048, ephemeral-vms 15 % -> 1024,
    glance-images 7 % -> 512. Valid: osds >= 1 and size >= 1 whole numbers,
    target_pgs_per_osd > 0, 0 <= data_percent <= 100 (the page flags more than 100 as an error).
    Vectorised; returns ints. Source: doc/rados/operations/pgcalc and doc/_static/js/pgcalc.js
    (ceph/ceph, archived from old.ceph.com/pgcalc), updatePGCount(); provenance: docs.
    """
    osds = _check.integer("osds", osds, lo=1).astype(float)
    size = _check.integer("size", size, lo=1).astype(float)
    target = _check.positive("target_pgs_per_osd", target_pgs_per_osd)
    percent = _check.in_range("data_percent", data_percent, 0.0, 100.0)
    floor_pgs = np.asarray(pgcalc_nearest_pow2(np.floor(osds / size) + 1))
    floor_pgs = np.where(floor_pgs < osds, 2 * floor_pgs, floor_pgs)
    calc = np.asarray(pgcalc_nearest_pow2(np.floor(target * osds * percent / (100.0 * size))))
    return _check.scalar(np.maximum(floor_pgs, calc))


# --- pg_autoscaler (Ceph code, Pacific v16.2.15) --------------------------------------------

def nearest_power_of_two(n):
    """The autoscaler's rounding: the power of two nearest to n, ties going up.

    Takes v = the smallest power of two >= int(n) and x = v / 2, and returns x when n is closer
    to x (strictly), else v; n < 1 gives 0. Vectorised; returns ints. Source:
    src/pybind/mgr/pg_autoscaler/module.py, nearest_power_of_two (v16.2.15); provenance:
    Ceph code, Pacific.
    """
    n = _check.non_negative("n", n)
    whole = np.floor(n)
    # frexp(m)[1] is the bit length of a whole m >= 0, so 2**that is the next power of two.
    v = np.where(whole >= 1, np.ldexp(1.0, np.frexp(np.maximum(whole - 1, 0))[1]), 0.0)
    x = np.floor(v / 2)
    return _check.scalar(np.where((v - n) > (n - x), x, v).astype(np.int64))


def effective_target_ratio(target_ratio, total_target_ratio, total_target_bytes, capacity):
    """A pool's target_size_ratio after Pacific normalises it (module.py, effective_target_ratio).

        ratio = target_ratio / total_target_ratio            (if total_target_ratio > 0)
        ratio = ratio x (1 - min(1, total_target_bytes / capacity))   (if both > 0)

    Pacific always divides by the total, so 0.2 of a total 0.9 becomes 0.222 (later releases
    leave totals below 1 alone). Scalars. Provenance: Ceph code, Pacific.
    """
    ratio = float(_check.non_negative("target_ratio", target_ratio))
    total_ratio = float(_check.non_negative("total_target_ratio", total_target_ratio))
    total_bytes = float(_check.non_negative("total_target_bytes", total_target_bytes))
    cap = float(_check.non_negative("capacity", capacity))
    if total_ratio:
        ratio = ratio / total_ratio
    if total_bytes and cap:
        ratio *= 1.0 - min(1.0, total_bytes / cap)
    return ratio


class AutoscaleTarget(NamedTuple):
    """One pool's autoscaler result (the columns of `ceph osd pool autoscale-status`)."""

    final_ratio: float   # share of the subtree's PG budget the pool gets
    ideal: float         # pool_pg_target before rounding (IDEAL PG_NUM shows int(ideal))
    pg_num: int          # NEW PG_NUM: nearest power of two, at least pg_num_min, at most pg_num_max
    would_adjust: bool | np.ndarray   # True when pg_num is more than threshold x away from the
                                      # current one (an array of them when vectorised)


def _final_pg_num(ideal, pg_num_min, pg_num_max):
    final = np.maximum(pg_num_min, np.asarray(nearest_power_of_two(ideal)))
    if pg_num_max:
        final = np.minimum(final, pg_num_max)
    return final


def _would_adjust(final, final_ratio, current, threshold):
    if current is None:
        return False
    far = (final > current * threshold) | (final < current / threshold)
    return far & (final_ratio >= 0.0) & (final_ratio <= 1.0)


def autoscale_target(capacity_ratio, osds, size, bias=1.0, target_pg_per_osd=MON_TARGET_PG_PER_OSD,
                     pg_num_min=AUTOSCALE_PG_NUM_MIN, pg_num_max=None, current_pg_num=None,
                     threshold=AUTOSCALE_THRESHOLD):
    """pg_num the Pacific autoscaler picks for a (non-bulk) pool alone in its CRUSH subtree.

        capacity_ratio = stored x raw_used_rate / subtree capacity
                         (or the pool's target_size_ratio, whichever is larger)
        ideal          = capacity_ratio x osds x target_pg_per_osd / size x bias
        pg_num         = max(pg_num_min, nearest_power_of_two(ideal)), capped by pg_num_max
        would_adjust   = pg_num > current x threshold  or  pg_num < current / threshold

    size is the pool's size (replicas, or k+m for EC). With several pools, each takes its
    share of the subtree's budget in turn: see autoscale_pools. Valid: 0 <= capacity_ratio,
    osds >= 1, size >= 1, bias > 0, target_pg_per_osd > 0, threshold >= 2 (Ceph asserts it).
    Vectorised in capacity_ratio and osds. Source: src/pybind/mgr/pg_autoscaler/module.py,
    _calc_final_pg_target first pass and _get_pool_pg_targets (v16.2.15); provenance: Ceph
    code, Pacific.
    """
    ratio = _check.non_negative("capacity_ratio", capacity_ratio)
    osds = _check.integer("osds", osds, lo=1)
    size = _check.integer("size", size, lo=1)
    bias = _check.positive("bias", bias)
    per_osd = _check.positive("target_pg_per_osd", target_pg_per_osd)
    threshold = float(_check.in_range("threshold", threshold, 2.0))
    ideal = ratio * (osds * per_osd) / size * bias
    final = _final_pg_num(ideal, int(_check.integer("pg_num_min", pg_num_min, lo=1)), pg_num_max)
    adjust = _would_adjust(final, ratio, current_pg_num, threshold)
    return AutoscaleTarget(_check.scalar(ratio), _check.scalar(ideal), _check.scalar(final),
                           bool(adjust) if np.ndim(adjust) == 0 else np.asarray(adjust))


def autoscale_pools(pools, pg_target, threshold=AUTOSCALE_THRESHOLD):
    """The Pacific autoscaler's three passes over the pools of one CRUSH subtree.

    pools: list of dicts in pool-id order, each with name, capacity_ratio, size, and optionally
    bulk (False), bias (1.0), pg_num_min (32), pg_num_max (None), pg_num_target (current pg_num).
    pg_target: the subtree's PG budget, osds x mon_target_pg_per_osd.
      1st pass, non-bulk pools: take capacity_ratio of what is left of the budget
           (the budget shrinks by int(used)); ideal = used / size x bias.
      2nd pass, bulk pools: even_ratio = 1 / (pools not yet served); a pool using more than that
           takes max(its ratio, even_ratio) of what is left, the rest wait for the 3rd pass.
      3rd pass: the waiting pools split what is left evenly: ideal = left / (pools not yet
           served) / size x bias.
    Each ideal is rounded with nearest_power_of_two, floored at pg_num_min, capped at pg_num_max.
    Returns {name: AutoscaleTarget}. Scalars only. Source: src/pybind/mgr/pg_autoscaler/module.py,
    _calc_final_pg_target and _get_pool_status (v16.2.15); provenance: Ceph code, Pacific.
    """
    budget_left = int(_check.integer("pg_target", pg_target, lo=0))
    threshold = float(_check.in_range("threshold", threshold, 2.0))
    pool_count = len(pools)
    served = 0
    results = {}

    def settle(p, final_ratio, ideal):
        final = int(_final_pg_num(ideal, p.get("pg_num_min", AUTOSCALE_PG_NUM_MIN), p.get("pg_num_max")))
        adjust = bool(_would_adjust(final, final_ratio, p.get("pg_num_target"), threshold))
        results[p["name"]] = AutoscaleTarget(float(final_ratio), float(ideal), final, adjust)

    bulk, even = [], []
    for p in pools:
        if p.get("bulk", False):
            bulk.append(p)
            continue
        ratio = float(_check.non_negative("capacity_ratio", p["capacity_ratio"]))
        used = ratio * budget_left
        budget_left -= int(used)
        served += 1
        settle(p, ratio, used / p["size"] * p.get("bias", 1.0))
    for p in bulk:
        ratio = float(_check.non_negative("capacity_ratio", p["capacity_ratio"]))
        even_ratio = 1.0 / (pool_count - served)
        if ratio <= even_ratio:
            even.append(p)
            continue
        served += 1
        used = ratio * budget_left
        budget_left -= int(used)
        settle(p, ratio, used / p["size"] * p.get("bias", 1.0))
    for p in even:
        share = 1.0 / (pool_count - served)
        settle(p, share, share * budget_left / p["size"] * p.get("bias", 1.0))
    return results


# --- spread of PGs over OSDs (course-defined) ------------------------------------------------

class PgSpread(NamedTuple):
    """PG replicas per OSD under the binomial model."""

    mean: float   # pg_num x size / osds
    std: float    # sqrt(pg_num x size x (1/osds) x (1 - 1/osds))
    cv: float     # std / mean


def _spread_inputs(pg_num, size, osds):
    pg_num = _check.integer("pg_num", pg_num, lo=1)
    size = _check.integer("size", size, lo=1)
    osds = _check.integer("osds", osds, lo=1)
    return pg_num * size, 1.0 / osds, osds


def pgs_per_osd_stats(pg_num, size, osds):
    """Mean, standard deviation and coefficient of variation of PG replicas per OSD.

    Model: each of the pg_num x size PG replicas lands on one of `osds` equal OSDs uniformly at
    random, so an OSD's count is Binomial(n = pg_num x size, p = 1/osds):
        mean = n p,  std = sqrt(n p (1-p)),  cv = std / mean  (~ 1/sqrt(mean) for many OSDs)
    CRUSH never puts two shards of one PG on the same OSD, which makes it slightly more even than
    this. Valid: whole numbers >= 1. Vectorised. Provenance: course-defined.
    """
    n, p, _ = _spread_inputs(pg_num, size, osds)
    mean = n * p
    std = np.sqrt(n * p * (1.0 - p))
    return PgSpread(_check.scalar(mean), _check.scalar(std), _check.scalar(std / mean))


# Blom's plotting position: E[max of N normals] ~ mean + std x ndtri((N - a) / (N - 2a + 1)).
_BLOM_ALPHA = 0.375


def expected_max_pgs(pg_num, size, osds, exact=False):
    """Expected PG-replica count of the fullest of `osds` OSDs (binomial model).

    exact=False (fast, for sliders): normal order statistic with Blom's plotting position and a
    Cornish-Fisher skew term,
        z = ndtri((N - 0.375) / (N + 0.25)),  z' = z + (z^2 - 1) g / 6,  g = (1 - 2p) / std
        E[max] ~ mean + std x z'
    exact=True: the sum over the binomial CDF F,  E[max] = sum_{k>=0} (1 - F(k)^N),  evaluated
    over mean +- 12 std (+ 25), where the terms are 1 and 0 to double precision.
    Independence between OSDs is assumed (the counts really sum to n), a small error for N >= 4.
    The fast form is within 0.3 % of the exact one from 10 PG replicas per OSD up, within 3 % at
    2 per OSD and ~9 % at 0.5 (measured in tests/models/test_pgs.py); a 200-point sweep takes
    ~0.05 ms fast and ~13 ms exact. Valid: whole numbers >= 1. Vectorised.
    Provenance: course-defined.
    """
    n, p, N = _spread_inputs(pg_num, size, osds)
    return _check.scalar(expected_max_binomial(n, p, N, exact))


def expected_max_binomial(n, p, N, exact=False):
    """E[max] of N independent Binomial(n, p) counts -- the fullest of N OSDs.

    fast: mean + std x z',  z = ndtri((N - 0.375) / (N + 0.25)),  z' = z + (z^2 - 1) g / 6,
          g = (1 - 2p) / std   (Blom's normal order statistic with a Cornish-Fisher skew term)
    exact: sum_{k>=0} (1 - F(k)^N) over mean +- 12 std (+ 25), where the terms are 1 and 0 to
          double precision (F the binomial CDF).
    Takes validated arrays (n >= 1 trials, 0 < p <= 1, N >= 1); models.pgs and models.placement
    call it with their own (n, p). Vectorised (broadcasts). Provenance: course-defined.
    """
    n, p, N = np.broadcast_arrays(np.asarray(n, float), np.asarray(p, float), np.asarray(N, float))
    mean = n * p
    std = np.sqrt(n * p * (1.0 - p))
    if not exact:
        z = ndtri((N - _BLOM_ALPHA) / (N - 2 * _BLOM_ALPHA + 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            skew = np.where(std > 0, (1.0 - 2.0 * p) / std, 0.0)
        return mean + std * (z + (z * z - 1.0) * skew / 6.0)
    lo = np.maximum(0, np.floor(mean - 12 * std)).astype(np.int64)
    width = int(np.max(np.ceil(24 * std) + 25))
    k = lo[..., None] + np.arange(width)
    sf = binom.sf(k, n[..., None], p[..., None])
    # 1 - F^N = 1 - (1 - sf)^N, written so a tiny sf keeps its digits (sf = 1 gives log 0)
    with np.errstate(divide="ignore"):
        terms = -np.expm1(N[..., None] * np.log1p(-sf))
    return lo + terms.sum(axis=-1)


def fullest_osd_factor(pg_num, size, osds, exact=False):
    """Expected max / mean of PG replicas per OSD: how much fuller the fullest OSD is.

    A pool is full when its fullest OSD is (models.capacity.usable_before_full), so only
    1 / factor of the raw space can be filled: feed this to capacity.usable_with_imbalance.
    Same model and arguments as expected_max_pgs. Vectorised. Provenance: course-defined.
    """
    n, p, _ = _spread_inputs(pg_num, size, osds)
    return _check.scalar(np.asarray(expected_max_pgs(pg_num, size, osds, exact)) / (n * p))


def usable_fraction_of_spread(pg_num, size, osds, exact=False):
    """Share of the ideal usable space left once the fullest OSD limits the pool: 1 / factor."""
    return _check.scalar(1.0 / np.asarray(fullest_osd_factor(pg_num, size, osds, exact)))


def pgs_per_osd(pg_num, size, osds):
    """Average PG replicas per OSD: pg_num x size / osds (compare with 100 target, 250 maximum)."""
    n, p, _ = _spread_inputs(pg_num, size, osds)
    return _check.scalar(n * p)


# The name the labs' brief uses for the same quantity.
expected_max_share = fullest_osd_factor
