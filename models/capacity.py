"""How much to buy, and how much of it you can really fill.

Seed 004_3d50276d8cea0e54.txt (Xu Xuehan, "Ceph Goes Online at Qihoo 360", Cephalocon APAC 2018)
plans capacity as C_total = N_vm x C_per_vm / (thin_ratio x 0.7) and warns that "one OSD full ==
cluster full". Ceph stops writes to a pool as soon as any OSD it uses passes the full ratio, so
the usable space is set by the fullest OSD relative to its share of the data -- which is exactly
how `ceph df` computes a pool's MAX AVAIL (PGMap::get_rule_avail, Ceph v16.2.15 src/mon/PGMap.cc).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models import _check
from models.redundancy import Scheme

# Ceph's default fill thresholds (mon_osd_nearfull_ratio, mon_osd_backfillfull_ratio,
# mon_osd_full_ratio in src/common/options.cc, v16.2.15): HEALTH_WARN at 85 %, no backfill into
# an OSD above 90 %, no client writes once any OSD of the pool passes 95 %.
NEARFULL = 0.85
BACKFILLFULL = 0.90
FULL = 0.95

# Seed 004's planning fill: buy so that the pool sits at 70 % when everything is provisioned.
PLANNING_FILL = 0.7


def _scheme(scheme):
    if not isinstance(scheme, Scheme):
        raise ValueError(f"scheme must be a Scheme from models.redundancy (replicated(3), erasure(4, 2)), "
                         f"got {scheme!r}")
    return scheme


def required_capacity(n_vms, capacity_per_vm, thin_ratio, fill_ratio=PLANNING_FILL):
    """Usable pool capacity to buy for n_vms virtual machines (seed 004's rule).

        C_total = N_vm x C_per_vm / (thin_ratio x fill_ratio)

    thin_ratio is the thin-provisioning overcommit (provisioned / written; 1 = thick), fill_ratio
    the fill the pool should reach when every VM is in use. Seed 004 uses 0.7: it stays under
    Ceph's nearfull warning (0.85) with room for one failure domain's data to be re-replicated
    before backfillfull (0.90) and full (0.95) stop backfill and writes. Units: those of
    capacity_per_vm (usable, before replication: see raw_capacity). Valid: n_vms >= 0,
    capacity_per_vm >= 0, thin_ratio > 0, 0 < fill_ratio <= 1. Vectorised.
    Source: seed 004_3d50276d8cea0e54.txt; provenance: course-defined.
    """
    n = _check.non_negative("n_vms", n_vms)
    per_vm = _check.non_negative("capacity_per_vm", capacity_per_vm)
    thin = _check.positive("thin_ratio", thin_ratio)
    fill = _check.in_range("fill_ratio", fill_ratio, 0.0, 1.0, lo_open=True)
    return _check.scalar(n * per_vm / (thin * fill))


def raw_capacity(usable, scheme):
    """Raw space that stores `usable` client bytes: usable x raw_per_usable (3x, or 1.5x for 4+2).

    Units: those of usable. Valid: usable >= 0. Vectorised. Provenance: course-defined.
    """
    usable = _check.non_negative("usable", usable)
    return _check.scalar(usable * _scheme(scheme).raw_per_usable)


def fill_state(used_fraction):
    """Ceph's name for an OSD's fill level: 'ok', 'nearfull', 'backfillfull' or 'full'.

    Thresholds NEARFULL, BACKFILLFULL, FULL (Ceph's defaults). A scalar gives a str, an array
    an array of str. Valid: 0 <= used_fraction <= 1. Provenance: docs.
    """
    used = _check.fraction("used_fraction", used_fraction)
    state = np.select([used >= FULL, used >= BACKFILLFULL, used >= NEARFULL],
                      ["full", "backfillfull", "nearfull"], default="ok")
    return _check.scalar(state)


def max_avail(osd_sizes, weights, scheme, osd_used=0.0, full_ratio=FULL):
    """A pool's MAX AVAIL as `ceph df` computes it (Ceph code, Pacific v16.2.15).

    PGMap::get_rule_avail: each OSD i under the pool's CRUSH rule, with normalised weight
    w_i = weight_i / sum(weight), projects how much raw data the whole rule could take before
    that OSD passes the full ratio; the smallest projection wins, and `ceph df` divides it by the
    pool's raw-used rate (PGMapDigest::dump_object_stat_sum, avail / raw_used_rate):

        proj_i    = max(0, size_i x full_ratio - used_i) / w_i
        MAX AVAIL = min_i proj_i / raw_per_usable

    OSDs with weight 0 or size 0 are skipped, as Ceph does. Ceph passes CRUSH weights (normally
    proportional to size); pass the real share of data (e.g. PGs per OSD x size) to see what the
    imbalance costs. Units: those of osd_sizes. Arrays: per-OSD values on the last axis,
    anything before it broadcasts (a sweep). Valid: sizes, weights, used >= 0,
    0 < full_ratio <= 1, at least one OSD with weight > 0.
    Source: src/mon/PGMap.cc, PGMap::get_rule_avail; CrushWrapper::get_rule_weight_osd_map.
    """
    proj = _projections(osd_sizes, weights, osd_used, full_ratio)
    return _check.scalar(proj.min(axis=-1) / _scheme(scheme).raw_per_usable)


def _projections(osd_sizes, weights, osd_used, full_ratio):
    sizes = _check.non_negative("osd_sizes", osd_sizes)
    w = _check.non_negative("weights", weights)
    used = _check.non_negative("osd_used", osd_used)
    full = _check.in_range("full_ratio", full_ratio, 0.0, 1.0, lo_open=True)
    sizes, w, used = np.broadcast_arrays(np.atleast_1d(sizes), np.atleast_1d(w), np.atleast_1d(used))
    total = w.sum(axis=-1, keepdims=True)
    if (total <= 0).any():
        raise ValueError("weights must have at least one OSD with weight > 0; all weights are 0")
    share = w / total
    room = np.maximum(0.0, sizes * np.asarray(full)[..., None] - used)
    counted = (share > 0) & (sizes > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        proj = np.where(counted, room / share, np.inf)
    return proj


class CapacityAtFull(NamedTuple):
    """What a pool holds at the moment its fullest OSD reaches the full ratio."""

    usable: float             # client data stored (unit of osd_sizes)
    raw_stored: float         # raw bytes stored = usable x raw_per_usable
    wasted_fraction: float    # share of all raw space still empty then: 1 - raw_stored / sum(sizes)
    stranded_fraction: float  # share of the fillable space (full_ratio x sizes) left empty by imbalance
    fullest_osd: int          # index of the OSD that fills first


def usable_before_full(osd_sizes, shares, scheme, full_ratio=FULL):
    """"One OSD full = cluster full" (seed 004): client data a pool holds when its first OSD fills.

    Data lands on OSD i in proportion to shares_i (CRUSH weight, or the OSD's PG count for the
    real spread). Starting empty, the pool's raw data T puts T x s_i on OSD i, so it stops at
        T = min_i (full_ratio x size_i / s_i),   usable = T / raw_per_usable
    -- the same projection as max_avail() (Ceph's MAX AVAIL) with nothing stored yet.
    wasted_fraction = 1 - T / sum(size) counts the full-ratio reserve as well;
    stranded_fraction = 1 - T / (full_ratio x sum(size)) is the part lost to imbalance alone
    (0 when shares are proportional to sizes). Units: those of osd_sizes. Per-OSD values on the
    last axis; leading axes broadcast. Source: seed 004_3d50276d8cea0e54.txt and
    PGMap::get_rule_avail (Ceph v16.2.15); provenance: Ceph code, Pacific.
    """
    s = _scheme(scheme)
    proj = _projections(osd_sizes, shares, 0.0, full_ratio)
    raw_stored = proj.min(axis=-1)
    fullest = proj.argmin(axis=-1)
    sizes = np.broadcast_to(np.atleast_1d(np.asarray(osd_sizes, dtype=float)), proj.shape)
    total = sizes.sum(axis=-1)
    full = np.asarray(full_ratio, dtype=float)
    return CapacityAtFull(
        usable=_check.scalar(raw_stored / s.raw_per_usable),
        raw_stored=_check.scalar(raw_stored),
        wasted_fraction=_check.scalar(1.0 - raw_stored / total),
        stranded_fraction=_check.scalar(1.0 - raw_stored / (full * total)),
        fullest_osd=_check.scalar(fullest),
    )


def usable_with_imbalance(raw, scheme, max_over_mean, full_ratio=FULL):
    """Usable space of equal OSDs when the fullest holds max_over_mean x the average share.

        usable = raw x full_ratio / max_over_mean / raw_per_usable

    Feed max_over_mean from models.pgs.fullest_osd_factor(pg_num, size, osds): with few PGs per
    OSD the fullest OSD carries far more than the mean, and the whole pool is full when it is.
    Units: those of raw. Valid: raw >= 0, max_over_mean >= 1, 0 < full_ratio <= 1. Vectorised.
    Provenance: course-defined.
    """
    raw = _check.non_negative("raw", raw)
    factor = _check.in_range("max_over_mean", max_over_mean, 1.0)
    full = _check.in_range("full_ratio", full_ratio, 0.0, 1.0, lo_open=True)
    return _check.scalar(raw * full / factor / _scheme(scheme).raw_per_usable)
