"""Redundancy schemes (replication, erasure coding), their cost, and how long data survives.

A `Scheme` says how a pool stores one unit of client data: as `size` full copies (replicated) or as
k data chunks plus m coding chunks (erasure coded). From it follow the raw space per usable byte,
the shards each write touches, the chunks read to rebuild a lost one, and -- with a disk failure
rate and a replacement time -- the chance of losing data in a year (Backblaze's stripe model).

Sources: seed 000_ff3932318711fad8.txt (NAVER, OpenStack Days 2017: "200 % overhead" for
replication vs "50 % overhead" for erasure coding); Ceph v16.2.15 src/mon/OSDMonitor.cc
(OSDMonitor::prepare_pool_size, default min_size) and src/common/config.h
(md_config_t::get_osd_pool_default_min_size); Backblaze, "Backblaze Durability is 99.999999999%" / erasure-coding
durability calculator (B. Beach, 2018).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import comb, gammaln, xlog1py, xlogy
from scipy.stats import binom, hypergeom

from models import _check

DAYS_PER_YEAR = 365.0


@dataclass(frozen=True)
class Scheme:
    """How a pool stores data: k data shards + m redundancy shards (replicated: k=1, m=size-1).

    Attributes: kind ('replicated' | 'erasure'), k, m, min_size (shards a PG needs to accept I/O).
    Everything else is derived; see the properties.
    """

    kind: str
    k: int
    m: int
    min_size: int

    @property
    def size(self) -> int:
        """Shards (OSDs) per placement group: size for replicated, k+m for erasure."""
        return self.k + self.m

    @property
    def n(self) -> int:
        """Same as size: the stripe width n = k + m in Backblaze's notation."""
        return self.size

    @property
    def min_shards(self) -> int:
        """Shards needed to reconstruct the data: 1 copy (replicated) or any k chunks (EC)."""
        return 1 if self.kind == "replicated" else self.k

    @property
    def raw_per_usable(self) -> float:
        """Raw bytes stored per client byte: size (replicated) or (k+m)/k (EC). 3.0; 1.5 for 4+2."""
        return self.size / self.k

    @property
    def overhead(self) -> float:
        """Extra raw space as a fraction of usable: raw/usable - 1 (2.0 = seed 000's "200 %")."""
        return self.raw_per_usable - 1.0

    @property
    def efficiency(self) -> float:
        """Usable / raw: 1/3 for size 3, 2/3 for 4+2."""
        return self.k / self.size

    @property
    def tolerated_failures(self) -> int:
        """Shards that can be lost with the data still intact: size-1 (replicated) or m (EC)."""
        return self.size - self.min_shards

    @property
    def write_fanout(self) -> int:
        """Shards written per client write: every copy, or every chunk of the stripe."""
        return self.size

    @property
    def rebuild_reads(self) -> int:
        """Chunks read to rebuild one lost chunk: 1 copy (replicated) or k chunks (EC)."""
        return self.min_shards

    @property
    def label(self) -> str:
        """Short name for plots and tables: "replicated size 3" or "EC 4+2"."""
        if self.kind == "replicated":
            return f"replicated size {self.size}"
        return f"EC {self.k}+{self.m}"


def _whole(name, value, lo):
    """A Python int >= lo, or a ValueError naming the parameter."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number >= {lo}, got {value!r}")
    return int(_check.integer(name, value, lo=lo))


def replicated(size, min_size=None):
    """A replicated pool with `size` copies.

    min_size defaults to size - size // 2 (2 for size 3), what Ceph uses when
    osd_pool_default_min_size is 0, its default (Ceph code, v16.2.15: src/common/config.h,
    md_config_t::get_osd_pool_default_min_size). Valid: size >= 1,
    1 <= min_size <= size.
    """
    size = _whole("size", size, 1)
    if min_size is None:
        min_size = size - size // 2
    min_size = int(_check.integer("min_size", min_size, lo=1, hi=size))
    return Scheme("replicated", 1, size - 1, min_size)


def erasure(k, m, min_size=None):
    """An erasure-coded pool with k data chunks and m coding chunks.

    min_size defaults to k + min(1, m - 1), i.e. k+1 whenever m >= 2 (Ceph code, v16.2.15:
    src/mon/OSDMonitor.cc, OSDMonitor::prepare_pool_size). Valid: k >= 1, m >= 1,
    k <= min_size <= k+m. m = 0 is refused because it has no redundancy at all and Ceph's
    plugins refuse it too (ErasureCode::sanity_check_k_m: "m must be >= 1"); k = 1 is
    kept (Ceph wants k >= 2) because EC 1+m is exactly replication with m+1 copies, a useful
    comparison.
    """
    k = _whole("k", k, 1)
    m = _whole("m", m, 1)
    if min_size is None:
        min_size = k + min(1, m - 1)
    min_size = int(_check.integer("min_size", min_size, lo=k, hi=k + m))
    return Scheme("erasure", k, m, min_size)


def _require_scheme(scheme):
    if not isinstance(scheme, Scheme):
        raise ValueError(f"scheme must be a Scheme from replicated(...) or erasure(...), got {scheme!r}")
    return scheme


def stripe_loss_probability(scheme, p_disk):
    """Chance that one stripe loses data when each of its n disks fails with probability p_disk.

    Data is lost when more than n - min_shards shards fail:
        P = sum_{j > n - min_shards} C(n, j) p^j (1-p)^(n-j)    (binomial upper tail)
    scipy's binom.sf keeps full relative precision down to p ~ 1e-30 (checked in the tests).
    Vectorised in p_disk. Source: Backblaze durability model (2018); provenance: paper.
    """
    s = _require_scheme(scheme)
    p = _check.fraction("p_disk", p_disk)
    return _check.scalar(binom.sf(s.size - s.min_shards, s.size, p))


def annual_loss_probability(scheme, afr, replacement_days):
    """Probability of losing a given stripe within one year (Backblaze's model).

        p        = afr * replacement_days / 365        each disk's failure chance per period
        q        = P[more than n - min_shards of n disks fail in one period]   (binomial tail)
        annual   = 1 - (1 - q)^(365 / replacement_days)
                 = -expm1(365/replacement_days * log1p(-q))   (keeps tiny probabilities exact)

    Units: afr is a fraction per year (0.10 = 10 %), replacement_days in days (the time a failed
    disk's data stays missing: detection + rebuild). Valid: 0 <= afr <= 1,
    0 < replacement_days <= 365 (a period longer than the year has no meaning in an annual rate,
    and it keeps p <= 1). Vectorised in afr and replacement_days.
    Golden: EC 4+2, AFR 10 %, 1 day -> 6 nines; EC 17+3, AFR 0.41 %, 6.5 days -> 11 nines.
    Source: Backblaze, erasure-coding durability (B. Beach, 2018); provenance: paper.
    """
    s = _require_scheme(scheme)
    afr = _check.fraction("afr", afr)
    days = _check.in_range("replacement_days", replacement_days, 0.0, DAYS_PER_YEAR, lo_open=True)
    p_period = afr * days / DAYS_PER_YEAR
    q = binom.sf(s.size - s.min_shards, s.size, p_period)
    periods = DAYS_PER_YEAR / days
    with np.errstate(divide="ignore"):
        annual = -np.expm1(periods * np.log1p(-q))
    return _check.scalar(annual)


def durability_nines(scheme, afr, replacement_days):
    """nines(annual_loss_probability(...)): e.g. 6 for EC 4+2 at AFR 10 %, 1-day replacement."""
    return nines(annual_loss_probability(scheme, afr, replacement_days))


# A probability within this relative distance of a power of ten counts as that power, so that
# the float nearest 1e-6 gives 6 nines whichever side of the true value it rounds to.
_POWER_OF_TEN_TOLERANCE = 1e-9


def nines(p):
    """Leading nines of 1 - p: p = 1.2e-7 -> 0.99999988 -> 6; p = 1e-6 -> 0.999999 -> 6.

        nines = floor(-log10(p))     (computed from p, never from 1 - p, which would round away)
    p = 0 gives inf, p = 1 gives 0. Valid: 0 <= p <= 1. Vectorised; returns floats.
    Provenance: course-defined (the usual "number of nines" of a durability figure).
    """
    p = _check.fraction("p", p)
    with np.errstate(divide="ignore"):
        count = np.floor(-np.log10(p) + _POWER_OF_TEN_TOLERANCE)
    return _check.scalar(np.maximum(count, 0.0))


def usable_capacity(raw, scheme, fill_ratio=1.0):
    """Client data a pool can hold on `raw` raw space: raw / raw_per_usable * fill_ratio.

    Units: whatever unit raw is in (bytes, TB, ...). The default fill_ratio is 1.0 so the answer
    is the pure cost of redundancy (seed 000's 200 % vs 50 %) -- the same arithmetic as
    `ceph df` applies to raw space; pass capacity.NEARFULL (0.85) or the 0.7 planning ratio of
    capacity.required_capacity to leave headroom. Valid: raw >= 0, 0 < fill_ratio <= 1.
    Vectorised in raw and fill_ratio. Provenance: course-defined.
    """
    s = _require_scheme(scheme)
    raw = _check.non_negative("raw", raw)
    fill = _check.in_range("fill_ratio", fill_ratio, 0.0, 1.0, lo_open=True)
    return _check.scalar(raw / s.raw_per_usable * fill)


def serves_io(scheme, failed):
    """Whether a PG of this scheme still serves reads and writes with `failed` of its shards down.

        serves = (size - failed) >= min_size
    Below min_size Ceph blocks I/O to the PG (it stays inactive) rather than accept writes that
    too few copies hold -- consistency before availability (the CP choice, seed 000). Vectorised
    in failed; valid: 0 <= failed <= size, whole numbers. Source: Ceph docs, "Pools" (min_size);
    seed 000_ff3932318711fad8.txt (strong consistency, CP); provenance: docs.
    """
    s = _require_scheme(scheme)
    failed = _check.integer("failed", failed, lo=0, hi=s.size)
    return _check.scalar(s.size - failed >= s.min_size)


def data_survives(scheme, failed):
    """Whether the data of a PG is still readable/recoverable with `failed` shards lost.

        survives = failed <= size - min_shards       (m for EC, size - 1 for replication)
    Vectorised in failed; valid: 0 <= failed <= size. Provenance: course-defined (the definition
    of the scheme's failure tolerance).
    """
    s = _require_scheme(scheme)
    failed = _check.integer("failed", failed, lo=0, hi=s.size)
    return _check.scalar(failed <= s.size - s.min_shards)


# -- small objects: stripe padding and allocation units ----------------------------------------
EC_STRIPE_UNIT = 4096          # osd_pool_erasure_code_stripe_unit, Ceph 16.2.15 default
BLUESTORE_MIN_ALLOC = 4096     # bluestore_min_alloc_size_{hdd,ssd}, Pacific default (64 KiB HDD before)


def _round_up(x, unit):
    return np.ceil(x / unit) * unit


def _object_args(object_bytes, scheme, min_alloc_size, stripe_unit):
    s = _require_scheme(scheme)
    size = _check.positive("object_bytes", object_bytes)
    alloc = _check.integer("min_alloc_size", min_alloc_size, lo=512, hi=2**22)
    unit = _check.integer("stripe_unit", stripe_unit, lo=512, hi=2**22)
    return s, size, alloc, unit


def shard_bytes(object_bytes, scheme, stripe_unit=EC_STRIPE_UNIT):
    """Bytes of one object that each shard holds before allocation.

        replicated: s                        (every copy is the whole object)
        erasure:    ceil(s / (k x u)) x u     (stripes of k x u bytes; the last one is padded)
    s = object_bytes > 0 (bytes), u = stripe_unit (bytes, 512 .. 4 MiB). Vectorised in
    object_bytes. Source: Ceph docs, "Erasure code profiles" (stripe_unit: the data in a chunk per
    stripe); src/osd/ECUtil.h (stripe_info_t, logical to chunk offsets), v16.2.15. Provenance:
    Ceph code, release 16.2.15.
    """
    s, size, _, unit = _object_args(object_bytes, scheme, BLUESTORE_MIN_ALLOC, stripe_unit)
    if s.kind == "replicated":
        return _check.scalar(size.astype(float))
    return _check.scalar(_round_up(size, s.k * unit) / s.k)


def stored_bytes(object_bytes, scheme, stripe_unit=EC_STRIPE_UNIT):
    """What `ceph df` reports as STORED for one object: s for replication, the object padded to
    whole stripes, ceil(s / (k x u)) x k x u, for erasure coding. Units: bytes; vectorised.
    Source: as shard_bytes; checked on the lab cluster (tests/cluster/test_pools.py).
    Provenance: Ceph code, release 16.2.15.
    """
    s = _require_scheme(scheme)
    return _check.scalar(shard_bytes(object_bytes, s, stripe_unit) * s.k)


def allocated_bytes(object_bytes, scheme, min_alloc_size=BLUESTORE_MIN_ALLOC, stripe_unit=EC_STRIPE_UNIT):
    """Raw bytes all shards of one object take on BlueStore (what `ceph df` reports as USED).

        allocated = (k + m) x ceil(shard_bytes / a) x a       (replicated: size x ceil(s / a) x a)
    a = min_alloc_size (bytes; 4 KiB in Pacific for HDD and SSD, 64 KiB on HDD before Pacific,
    fixed when an OSD is created). A 1 KiB object takes 12 KiB in a size-3 pool and 24 KiB in an
    EC 4+2 pool, not 1.5 KiB: for small objects erasure coding saves nothing. Vectorised in
    object_bytes. Source: shard_bytes; Ceph docs, BlueStore configuration reference
    (bluestore_min_alloc_size); checked byte for byte on the lab cluster
    (tests/cluster/test_pools.py). Provenance: Ceph code, release 16.2.15.
    """
    s, _size, alloc, _unit = _object_args(object_bytes, scheme, min_alloc_size, stripe_unit)
    return _check.scalar(s.size * _round_up(shard_bytes(object_bytes, s, stripe_unit), alloc))


# -- a whole cluster: many PGs, each its own copyset --------------------------------------------
def expected_copysets(osds, pgs, scheme):
    """Expected number of distinct OSD sets ("copysets") that `pgs` PGs of n = k + m shards use
    when placement spreads them at random over `osds` OSDs (CRUSH's aim):

        C = C(osds, n);   S = C x (1 - (1 - 1/C)^pgs)      (<= min(pgs, C))
    Valid: osds >= n, pgs >= 1 (whole numbers); vectorised in pgs. Source: Cidon et al.,
    "Copysets: Reducing the Frequency of Data Loss in Cloud Storage", USENIX ATC 2013 (random
    replication and its copysets). Provenance: paper.
    """
    s = _require_scheme(scheme)
    n_osds = int(_check.integer("osds", osds, lo=s.size))
    count = _check.integer("pgs", pgs, lo=1)
    total = float(comb(n_osds, s.size, exact=True))
    if total == 1:                     # osds == n: every PG uses the one set there is
        return _check.scalar(np.ones_like(count, dtype=float))
    return _check.scalar(-total * np.expm1(count * np.log1p(-1.0 / total)))


def _binom_pmf(k, n, p):
    """Binomial(n, p) pmf at k: exp(ln C(n, k) + k ln p + (n - k) ln(1 - p)) (0 ln 0 = 0, so p = 0
    and p = 1 are exact). Within 3e-13 (n = 100) to 2e-12 (n = 1000) of scipy.stats.binom.pmf
    relative to it (the rounding of the log terms, ~1e-15 x |ln pmf|), and ~3x as fast
    over a slider's grid (200 windows x 101 failure counts: ~1.4 ms against ~4.4 ms), which keeps
    lab 08's cluster curve inside the slider budget."""
    return np.exp(gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + xlogy(k, p) + xlog1py(n - k, -p))


def cluster_loss_probability(osds, pgs, scheme, afr, replacement_days):
    """Probability that a cluster of `osds` OSDs loses some data within a year, when its data is
    spread over `pgs` placement groups (all pools together) of this scheme.

    Per replacement period each OSD fails with p = afr x days / 365 (as annual_loss_probability).
    With f OSDs failed, one PG loses data when more than n - min_shards of its n shards are among
    them (hypergeometric tail h_f); S = expected_copysets(osds, pgs) distinct sets can do it:
        q      = sum_f Binom(f; osds, p) x min(1, S x h_f)      (union bound over copysets)
        annual = 1 - (1 - q)^(365 / days)
    One PG (S = 1) gives exactly the single-stripe model; S = C(osds, n) (every set used) gives
    the chance that any n - min_shards + 1 OSDs fail together. More PGs mean more copysets and so
    more ways to lose data: the nines of one stripe overstate a whole cluster's (lab 08), while
    more peers also shorten recovery (the window `replacement_days`). The union bound matters
    only for f > n - min_shards + 1, which is rare at realistic p.
    Units: afr per year (fraction), replacement_days in days; osds, pgs whole numbers.
    Vectorised in afr and replacement_days. Source: Cidon et al., USENIX ATC 2013 (copysets);
    Backblaze's stripe model (B. Beach, 2018) per period. Provenance: paper + course-defined.
    """
    s = _require_scheme(scheme)
    n_osds = int(_check.integer("osds", osds, lo=s.size))
    copysets = float(expected_copysets(n_osds, int(_check.integer("pgs", pgs, lo=1)), s))
    afr = _check.fraction("afr", afr)
    days = _check.in_range("replacement_days", replacement_days, 0.0, DAYS_PER_YEAR, lo_open=True)
    p_period = afr * days / DAYS_PER_YEAR
    failed = np.arange(n_osds + 1)
    # h_f: chance that a given copyset of n OSDs has more than n - min_shards among f failed ones
    tail = hypergeom.sf(s.size - s.min_shards, n_osds, failed, s.size)
    per_f = np.minimum(1.0, copysets * tail)
    weights = _binom_pmf(failed, n_osds, np.asarray(p_period, dtype=float)[..., None])
    q = np.sum(weights * per_f, axis=-1)
    periods = DAYS_PER_YEAR / days
    with np.errstate(divide="ignore"):
        annual = -np.expm1(periods * np.log1p(-q))
    return _check.scalar(annual)
