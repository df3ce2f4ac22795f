"""Where the cluster puts PGs and objects, read so that lab 02's CRUSH model can be fed and checked
(labs 01, 02, 06).

    cmap, pools, state = crush_snapshot(c)             # CrushMap, {name: Pool}, OsdState
    live = live_up_sets(c, [pools[p].id for p in names])   # {pgid: up set}, once the OSDs agree
    pgs_per_osd(c, "rbd", osds)                        # PGs of a pool listing each OSD
    object_on_osd(c, pool, osd)                        # a name whose PG has a shard on osd
    wait_peered(c)                                     # no PG peering or unknown any more
    fullest_band(64, 3, 4)                             # where fullest / mean falls, 90 % of placements

The model side (pool_up_sets, with_new_osd, up_set_changes) is in models.crush.objects.
"""
from __future__ import annotations

import numpy as np

from cephlab.core.poll import poll_until
from models.crush import objects, parse_json


def crush_snapshot(cluster):
    """(CrushMap, pools by name, OsdState) from `ceph osd crush dump` and `ceph osd dump`."""
    pools, state = objects.from_osd_dump(cluster.ceph("osd", "dump"))
    return parse_json.parse(cluster.ceph("osd", "crush", "dump")), pools, state


def live_up_sets(cluster, pool_ids, timeout=60):
    """{pgid: up set} of the pools as the OSDs report them (`ceph pg dump pgs_brief`), once those
    reports have caught up with the current osdmap."""
    return cluster.wait_for_pg_stats(list(pool_ids), timeout=timeout)


def pgs_per_osd(cluster, pool, osds):
    """How many PGs of `pool` have each OSD of `osds` in their up set (the mgr's `pg ls-by-pool`),
    as floats in the order of `osds`."""
    used = [o for pg in cluster.pg_stats(pool=pool) for o in pg["up"]]
    return np.array([used.count(o) for o in osds], float)


def object_on_osd(cluster, pool, osd, prefix="probe-", tries=1000):
    """The first name prefix0, prefix1, ... whose PG has a shard on `osd` (`ceph osd map`)."""
    for i in range(tries):
        name = f"{prefix}{i}"
        if osd in cluster.ceph("osd", "map", pool, name)["acting"]:
            return name
    raise RuntimeError(f"no object of {pool} maps to osd.{osd} in {tries} names")


def _unsettled(states):
    return sorted(s for s in states if "peering" in s or "unknown" in s)


def wait_peered(cluster, timeout=60):
    """Wait until no PG is peering or unknown; returns the PG states ({state: count}) then.
    Unlike wait_for_clean this accepts degraded and undersized PGs (an OSD is down on purpose)."""
    seen: dict[str, int] = {}

    def peered():
        seen.clear()
        seen.update(cluster.pg_states())
        return dict(seen) if not _unsettled(seen) else None
    return poll_until(peered, timeout, "every PG peered", interval=1,
                      describe=lambda: f"still {_unsettled(seen)}")


def fullest_band(pg_num: int, size: int, osds: int, share: float = 0.9, trials: int = 4000,
                 seed: int = 0) -> tuple[float, float]:
    """(low, high): the fullest OSD's PG count over the mean, in the middle `share` of `trials`
    random placements (each PG on `size` distinct OSDs picked uniformly, models.placement's
    assumption). models.placement.fullest_factor is the average of this spread; one pool of a
    real cluster is one draw from it. A fixed seed gives the same band on every run."""
    if not 1 <= size <= osds or pg_num < 1 or not 0 < share < 1:
        raise ValueError(f"need pg_num >= 1, 1 <= size <= osds and 0 < share < 1, got "
                         f"{pg_num}, {size}, {osds}, {share}")
    rng = np.random.default_rng(seed)
    ranks = rng.random((trials, pg_num, osds)).argsort(axis=2).argsort(axis=2)
    counts = (ranks < size).sum(axis=1)                 # (trials, osds): PGs on each OSD
    factor = counts.max(axis=1) / (pg_num * size / osds)
    tail = (1 - share) / 2
    low, high = np.quantile(factor, [tail, 1 - tail])
    return float(low), float(high)
