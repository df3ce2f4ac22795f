"""PGs on distinct OSDs: how many each OSD gets, and how many move when an OSD joins.

CRUSH never puts two shards of one PG on the same OSD. If each PG picks its `size` OSDs as a
uniformly random subset of `osds` equal OSDs, one OSD is in a given PG's set with probability
q = size / osds, independently from PG to PG, so its PG count is exactly

    count ~ Binomial(pg_num, q),  mean = pg_num q,  std = sqrt(pg_num q (1 - q))

models.pgs uses Binomial(pg_num x size, 1 / osds) instead (shards placed one by one, repeats
allowed). The two agree on big clusters; on a small one the distinct-OSD form is much tighter:
with size 3 on 4 OSDs every PG skips exactly one OSD, and the std is sqrt(1/3) = 0.58 of the
binomial one. The labs run on 4-5 OSDs, so they need this form.

Adding an OSD: straw2 moves only what must move (a PG's shard goes to the new OSD only when the
new OSD wins that shard's straw draw; nothing else changes), so a new OSD with share f of the
weight takes f of all shards, and a PG changes when its set includes the new OSD.

Sources: seed 000_ff3932318711fad8.txt (NAVER, OpenStack Days 2017: CRUSH decides placement,
no lookup table) and seed 002_696ca3a238e3edbe.txt (J. Neudecker, HAW Hamburg 2021: PGs and
the uneven `ceph osd df` spread, MIN/MAX VAR 0.66/1.36); Weil et al., "CRUSH", SC 2006, and
the straw2 bucket (Ceph Hammer, 2015) for the minimal-movement property.
Provenance: course-defined.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import comb
from scipy.stats import binom

from models import _check, pgs


class PgCount(NamedTuple):
    """PGs per OSD when each PG uses `size` distinct OSDs."""

    mean: float   # pg_num x size / osds
    std: float    # sqrt(pg_num q (1 - q)), q = size / osds
    cv: float     # std / mean


def _inputs(pg_num, size, osds):
    pg_num = _check.integer("pg_num", pg_num, lo=1)
    osds = _check.integer("osds", osds, lo=1)
    size = _check.integer("size", size, lo=1)
    if (size > osds).any():
        raise ValueError(f"size must be <= osds (a PG needs size distinct OSDs), got size "
                         f"{size.max()} with {osds.min()} OSDs")
    return pg_num, size / osds, osds


def pg_count_stats(pg_num, size, osds):
    """Mean, std and coefficient of variation of one OSD's PG count (distinct-OSD model).

        q = size / osds,  mean = pg_num q,  std = sqrt(pg_num q (1 - q)),  cv = std / mean

    Example: 128 PGs of size 3 on 4 OSDs: mean 96, std 4.90, cv 0.051 (models.pgs would say
    std 8.49). Valid: whole numbers, pg_num >= 1, 1 <= size <= osds. Vectorised (broadcasts).
    Provenance: course-defined.
    """
    n, q, _ = _inputs(pg_num, size, osds)
    mean = n * q
    std = np.sqrt(n * q * (1.0 - q))
    return PgCount(_check.scalar(mean), _check.scalar(std), _check.scalar(std / mean))


def expected_fullest(pg_num, size, osds, fast=False):
    """Expected PG count of the fullest OSD (distinct-OSD model, OSDs taken as independent).

    E[max] of `osds` Binomial(pg_num, size/osds) counts, by models.pgs.expected_max_binomial:
    exact (default) sums 1 - F(k)^osds over the CDF F; fast=True (for sliders) is its normal
    order statistic with a skew term. No OSD can hold more than pg_num PGs (the cap).
    The counts really sum to pg_num x size; treating them as independent is a small error
    from 4 OSDs up. With size = osds every OSD holds every PG: the result is pg_num.
    Valid: as pg_count_stats. Vectorised (broadcasts). Provenance: course-defined.
    """
    n, q, N = _inputs(pg_num, size, osds)
    return _check.scalar(np.minimum(pgs.expected_max_binomial(n, q, N, exact=not fast), n))


def fullest_factor(pg_num, size, osds, fast=False):
    """Expected fullest / mean PG count: how much more the fullest OSD holds than the average.

    A pool is full when its fullest OSD is (models.capacity), so this is the share of space
    the spread costs. Same model and arguments as expected_fullest. Vectorised.
    Provenance: course-defined.
    """
    mean = np.asarray(pg_count_stats(pg_num, size, osds).mean)
    return _check.scalar(np.asarray(expected_fullest(pg_num, size, osds, fast)) / mean)


def _one_pool(pg_num, size, osds):
    """(pg_num, q, osds) as _inputs for one pool: single numbers, not arrays (the histograms
    sweep load, not the pool)."""
    for name, value in (("pg_num", pg_num), ("size", size), ("osds", osds)):
        if np.ndim(value) != 0:
            raise ValueError(f"{name} must be a single whole number here (the load is the array), got {value!r}")
    n, q, N = _inputs(pg_num, size, osds)
    return float(n), float(q), int(N)


def count_bin_width(pg_num, size, osds):
    """Whole PGs per histogram bin of pg_count_density: max(1, round(std / 3)), std as in
    pg_count_stats, so a histogram has ~25 bins across the distribution at any pg_num (a bin of
    1 PG up to std 4.5; 4 PGs at 157 PGs per OSD on 10,000 OSDs). Scalars; valid as
    pg_count_stats. Provenance: course-defined (a display choice, shared by both densities)."""
    n, q, _ = _one_pool(pg_num, size, osds)
    return int(max(1, round(float(np.sqrt(n * q * (1.0 - q))) / 3)))


def _load_bins(load, mean, width):
    """The bin index (counts j*width .. j*width + width - 1) of each relative load >= 0."""
    load = _check.non_negative("load", load)
    return np.floor((load * mean + 0.5) / width).astype(np.int64)


def pg_count_density(pg_num, size, osds, load):
    """How the OSDs spread over relative load (PG count / mean): the binomial model, binned.

    With count ~ Binomial(pg_num, q = size/osds), mean = pg_num q and bins of w =
    count_bin_width(...) whole PGs (bin j: counts jw .. jw + w - 1, i.e. loads from
    (jw - 1/2) / mean to (jw + w - 1/2) / mean), the density at a relative load x in bin j is

        d(x) = P(jw <= count <= jw + w - 1) / (w / mean) = [F(jw + w - 1) - F(jw - 1)] mean / w

    in % of the OSDs per 1 % of the mean load (per unit of load, the same number), F the
    binomial CDF. It integrates to 1 over load. observed_count_density bins measured counts the
    same way, so the two curves compare bin by bin. Example: 65,536 PGs of size 3 on 10,000 OSDs
    (mean 19.66, std 4.43, w = 1): d(1.0) = P(count = 20) x 19.66 = 0.0886 x 19.66 = 1.74.
    Valid: pg_num, size, osds whole-number scalars as pg_count_stats; load >= 0 (unitless),
    an array. Provenance: course-defined (the binomial of pg_count_stats).
    """
    n, q, _ = _one_pool(pg_num, size, osds)
    mean = n * q
    width = count_bin_width(pg_num, size, osds)
    first = _load_bins(load, mean, width) * width
    share = binom.cdf(first + width - 1, n, q) - binom.cdf(first - 1, n, q)
    return _check.scalar(share * mean / width)


def observed_count_density(counts, pg_num, size, load):
    """pg_count_density's histogram for measured PG counts (e.g. CRUSH's, one per OSD).

        d(x) = |{osd : count_osd in bin j}| / len(counts) x mean / w,   mean = pg_num x size / len(counts)

    with the bins of pg_count_density for osds = len(counts) (same w, same edges), in % of the
    OSDs per 1 % of the mean load. counts: whole numbers >= 0, one per equal OSD holding the
    pool (every PG's `size` copies counted once on its OSD, so they sum to pg_num x size).
    Valid: at least `size` counts; pg_num, size as pg_count_stats; load >= 0, an array.
    Provenance: course-defined.
    """
    counts = _check.integer("counts", np.ravel(counts), lo=0)
    osds = len(counts)
    if osds == 0:
        raise ValueError("counts must hold one PG count per OSD (at least `size` of them), got none")
    n, q, _ = _one_pool(pg_num, size, osds)
    mean = n * q
    width = count_bin_width(pg_num, size, osds)
    per_bin = np.bincount(counts // width) / osds
    bins = _load_bins(load, mean, width)
    share = np.where(bins < len(per_bin), per_bin[np.minimum(bins, len(per_bin) - 1)], 0.0)
    return _check.scalar(share * mean / width)


class Movement(NamedTuple):
    """What changes when OSDs join a flat bucket of equal OSDs."""

    shards_moved: float   # share of all PG shards that go to a new OSD (the least possible)
    pgs_changed: float    # share of PGs whose OSD set includes a new OSD


def movement_on_add(osds, size, added=1):
    """Shards and PGs that move when `added` equal OSDs join `osds` equal OSDs (one bucket).

        shards_moved = added / (osds + added)                 (the new OSDs' weight share)
        pgs_changed  = 1 - C(osds, size) / C(osds + added, size)
                     = size / (osds + 1)  for one added OSD

    shards_moved is also the least any placement can move: the new OSDs must be filled to
    their share, and straw2 moves nothing else. Example: 4 -> 5 OSDs, size 3: 20 % of the
    shards move and 60 % of the PGs change. Valid: whole numbers, osds >= 1, added >= 1,
    1 <= size <= osds. Vectorised. Provenance: course-defined.
    """
    osds = _check.integer("osds", osds, lo=1)
    size = _check.integer("size", size, lo=1)
    added = _check.integer("added", added, lo=1)
    if (size > osds).any():
        raise ValueError(f"size must be <= osds, got size {size.max()} with {osds.min()} OSDs")
    shards = added / (osds + added)
    pgs = 1.0 - comb(osds, size) / comb(osds + added, size)
    return Movement(_check.scalar(shards), _check.scalar(pgs))
