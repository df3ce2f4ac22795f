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
