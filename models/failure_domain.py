"""What one host going down does to the PGs of a pool: shards lost per PG, by failure domain.

A CRUSH rule names the bucket type its copies must differ in (`chooseleaf firstn 0 type host`
or `... type osd`). With failure domain *host*, no two shards of a PG share a host, so a stopped
host costs every PG at most one shard. With failure domain *osd*, two or three shards of a PG
can sit on the OSDs of one host; when that host stops, such a PG keeps fewer than `min_size`
shards and stops serving I/O (seed 002_696ca3a238e3edbe.txt, J. Neudecker, HAW Hamburg 2021:
failure domains and PG states; seed 000_ff3932318711fad8.txt, NAVER 2017: min_size).

Two ways to get the numbers:

* `shard_loss_distribution` -- the probabilities, for PGs placed uniformly at random on equal
  weights (hypergeometric: the failure-domain units are drawn without replacement). This is
  what CRUSH's straw2 approximates. Provenance: course-defined.
* `crush_shards_on` / `crush_loss_counts` -- the exact count for a real CRUSH map and pool,
  through models.crush (bit for bit as Ceph places PGs). Provenance: Ceph code, Pacific.

`hosts_map` builds the map of the Vagrant cluster (N hosts x k OSDs) with both rules.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import hypergeom

from models import _check
from models.crush import analysis, build, mapper
from models.crush.crushmap import ITEM_NONE
from models.crush.mapper import PAD

DOMAINS = ("host", "osd")

def _domain(domain):
    if domain not in DOMAINS:
        raise ValueError(f"domain must be one of {', '.join(DOMAINS)}, got {domain!r}")
    return domain


def _units(hosts, osds_per_host, domain):
    """(failure-domain units in the cluster, units on the failed host)."""
    if _domain(domain) == "host":
        return hosts, np.ones_like(hosts)
    return hosts * osds_per_host, osds_per_host


def shard_loss_distribution(hosts, osds_per_host, size, domain="host"):
    """P(a PG has j of its `size` shards on one given host), for j = 0..size.

        domain host: P(j) = hypergeom(j; N = hosts,           K = 1,             n = size)
        domain osd:  P(j) = hypergeom(j; N = hosts x osds_per_host, K = osds_per_host, n = size)

    i.e. the `size` distinct units a PG uses are drawn without replacement from all units, K of
    which are on the failed host. Example: 3 hosts x 2 OSDs, size 3: domain host -> P(1) = 1
    (every PG loses exactly one shard); domain osd -> P(0, 1, 2) = 0.2, 0.6, 0.2.
    Returns an array with a last axis of length size + 1 (sums to 1). Units: probability.
    Valid: hosts >= 1, osds_per_host >= 1, size >= 1 and at most the number of units (hosts for
    domain host, hosts x osds_per_host for osd: else CRUSH cannot place the PG at all).
    Vectorised over hosts and osds_per_host. Source: seed 002 (failure domains); provenance:
    course-defined (equal weights, uniform placement, which straw2 approximates).
    """
    hosts = _check.integer("hosts", hosts, lo=1)
    per_host = _check.integer("osds_per_host", osds_per_host, lo=1)
    size = int(_check.integer("size", size, lo=1))
    hosts, per_host = np.broadcast_arrays(hosts, per_host)
    units, on_host = _units(hosts, per_host, domain)
    if (units < size).any():
        raise ValueError(f"size must be at most the number of {domain}s ({int(units.min())}), "
                         f"got {size}: CRUSH cannot put {size} shards on distinct {domain}s")
    j = np.arange(size + 1)
    return hypergeom.pmf(j, units[..., None], on_host[..., None], size)


def blocked_fraction(hosts, osds_per_host, size, min_size, domain="host"):
    """Share of PGs that stop serving I/O when one host stops: fewer than min_size shards left.

        blocked = sum of P(j) over j with size - j < min_size

    Example: 3 hosts x 2 OSDs, size 3, min_size 2: domain host -> 0; domain osd -> 0.2.
    Units: fraction of PGs. Valid: as shard_loss_distribution, 1 <= min_size <= size.
    Vectorised over hosts and osds_per_host. Provenance: course-defined.
    """
    p = shard_loss_distribution(hosts, osds_per_host, size, domain)
    min_size = int(_check.integer("min_size", min_size, lo=1, hi=int(size)))
    left = int(size) - np.arange(int(size) + 1)
    return _check.scalar(p[..., left < min_size].sum(axis=-1))


def unavailable_fraction(hosts, osds_per_host, size, domain="host"):
    """Share of PGs with every shard on the stopped host (no copy reachable until it returns).

        P(j = size). Units: fraction of PGs. Valid and vectorised as shard_loss_distribution.
    Provenance: course-defined.
    """
    return _check.scalar(shard_loss_distribution(hosts, osds_per_host, size, domain)[..., -1])


def recovers_without_host(hosts, osds_per_host, size, domain="host"):
    """Whether Ceph can rebuild the missing shards while the host stays away.

        domain host: hosts - 1 >= size;   domain osd: (hosts - 1) x osds_per_host >= size

    With 3 hosts and size 3 (the Vagrant cluster), a host-domain pool has nowhere to put a
    third copy: its PGs stay active+undersized+degraded until the host comes back, even after
    the OSDs are marked out. Valid: hosts >= 1, osds_per_host >= 1, size >= 1. Vectorised.
    Source: Ceph docs, *CRUSH Maps* (Pacific); provenance: docs.
    """
    hosts = _check.integer("hosts", hosts, lo=1)
    per_host = _check.integer("osds_per_host", osds_per_host, lo=1)
    size = _check.integer("size", size, lo=1)
    units, _ = _units(hosts - 1, per_host, domain)
    return _check.scalar(units >= size)


# -- exact: a CRUSH map -------------------------------------------------------------------------
def hosts_map(hosts, osds_per_host, weight=1.0, prefix="ceph"):
    """parse_text.parse(hosts_map_text(...)): the CrushMap (same arguments); models.crush.build."""
    return build.hosts_map(hosts, osds_per_host, weight, prefix)


def hosts_map_text(hosts, osds_per_host, weight=1.0, prefix="ceph"):
    """The `crushtool -d` text of `hosts` hosts (ceph1..) with `osds_per_host` OSDs each, weight `weight` TiB,
    OSDs numbered host by host, and two replicated rules: 0 "by_host" (chooseleaf ... type host)
    and 1 "by_osd" (choose ... type osd). Pacific tunables. Built by models.crush.build."""
    hosts = int(_check.integer("hosts", hosts, lo=1, hi=100))
    per_host = int(_check.integer("osds_per_host", osds_per_host, lo=1, hi=100))
    weight = float(_check.positive("weight", weight))
    return build.hosts_map_text(hosts, per_host, weight, prefix)


def host_osds(cmap, host):
    """The device ids below bucket `host` (a name or a bucket id) of a CrushMap."""
    bid = cmap.item_id(host) if isinstance(host, str) else int(host)
    if bid not in cmap.buckets:
        raise ValueError(f"host must be a bucket of the map, got {host!r}")
    return sorted(dev for dev, _ in analysis._leaf_weights(cmap, bid))


def shards_on(placements, osds):
    """How many entries of each placement (rows of OSD ids) are in `osds`.

        count[i] = |{placement[i][r]} ∩ osds|

    placements: an int array (PGs x size; PAD/ITEM_NONE entries ignored) or a list of lists
    (the up sets of `ceph pg dump`). Returns an int array, one count per row. Provenance:
    course-defined (counting).
    """
    if isinstance(placements, np.ndarray):
        rows = [[int(o) for o in row if o not in (PAD, ITEM_NONE)] for row in placements]
    else:
        rows = [list(row) for row in placements]
    wanted = {int(o) for o in osds}
    return np.array([sum(1 for o in row if o in wanted) for row in rows], dtype=np.int64)


def crush_shards_on(cmap, rule, osds, size, pg_num, pool_id=1):
    """Shards each PG of a pool (pool_id, pg_num a power of two, all OSDs up and in) places on
    the OSDs `osds`, exactly as CRUSH computes it. Returns an int array of length pg_num.
    Provenance: Ceph code, Pacific (src/crush/mapper.c via models.crush)."""
    pg_num = int(_check.integer("pg_num", pg_num, lo=1))
    placed, _ = mapper.do_rule(cmap, rule, analysis.pg_inputs(pool_id, pg_num), int(size))
    return shards_on(placed, osds)


def loss_counts(shards_lost, size):
    """PGs that lose 0, 1, ..., size shards: np.bincount with length size + 1."""
    size = int(_check.integer("size", size, lo=1))
    counts = np.asarray(shards_lost, dtype=np.int64)
    if counts.size and (counts.min() < 0 or counts.max() > size):
        raise ValueError(f"shards_lost must be whole numbers from 0 to size ({size})")
    return np.bincount(counts, minlength=size + 1)
