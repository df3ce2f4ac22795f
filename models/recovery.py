"""How long data stays degraded after an OSD fails, and what that does to durability.

When an OSD dies, the monitors mark it out after mon_osd_down_out_interval; then every PG it held
is re-replicated by the OSDs that share PGs with it ("declustered" recovery: many peers each copy
a little). Each OSD's recovery is throttled by Ceph's options: at most osd_max_backfills PGs at a
time, and on HDDs a pause of osd_recovery_sleep_hdd (0.1 s) before each recovery op. That pause is
one schedule for the whole OSD (OSD::do_recovery, OSDService::recovery_schedule_time, Pacific), so
with the defaults an HDD OSD starts at most osd_recovery_max_single_start (1) push per 0.1 s:
10 objects/s, ~40 MiB/s of 4 MiB objects, whatever the disk could do.

The window (detection + recovery) is the "replacement time" of the Backblaze durability model in
models.redundancy. Defaults below: Ceph v16.2.15 (src/common/options.cc; checked against
`ceph-conf --show-config-value` of the installed 16.2.15). Reference model: ceph/ceph-tools
models/reliability (M. Kampe), RadosRely.rebuild_time.
"""
from __future__ import annotations

import numpy as np

from models import _check
from models.redundancy import annual_loss_probability

MiB = 1024 * 1024
SECONDS_PER_DAY = 86400.0

# Ceph v16.2.15 defaults (src/common/options.cc)
OSD_MAX_BACKFILLS = 1
OSD_RECOVERY_SLEEP_HDD = 0.1          # s before each recovery op on an HDD OSD
OSD_RECOVERY_SLEEP_SSD = 0.0
OSD_RECOVERY_SLEEP_HYBRID = 0.025
OSD_RECOVERY_MAX_ACTIVE_HDD = 3       # recovery ops in flight per HDD OSD
OSD_RECOVERY_MAX_ACTIVE_SSD = 10
OSD_RECOVERY_MAX_SINGLE_START = 1     # pushes started per wake-up
OSD_RECOVERY_MAX_CHUNK = 8 * MiB      # largest single push
OSD_MIN_PG_LOG_ENTRIES = 250          # a PG log is trimmed to between these two
OSD_MAX_PG_LOG_ENTRIES = 10000
OSD_TARGET_PG_LOG_ENTRIES_PER_OSD = 300000    # shared by the OSD's PGs
MON_OSD_DOWN_OUT_INTERVAL = 600.0     # s from "down" to "out" (recovery starts)
OSD_HEARTBEAT_GRACE = 20.0            # s of missed heartbeats before peers report an OSD down
OBJECT_SIZE = 4 * MiB                 # RBD/RGW/CephFS default object size (rbd_default_order 22)

# ceph-tools models/reliability (M. Kampe): recovery 50 MB/s per PG stream, disks 75 % full,
# 200 PGs per OSD, mark-out after 10 minutes.
KAMPE_RECOVERY_RATE = 50e6
KAMPE_FULLNESS = 0.75
KAMPE_PGS_PER_OSD = 200


def recovery_peers(osds, pgs_per_osd, size):
    """OSDs that can take part in re-replicating one failed OSD (upper bound).

        peers = min(osds - 1, pgs_per_osd x (size - 1))

    Each of the failed OSD's PGs has size - 1 surviving shards on other OSDs; there are no more
    peers than surviving OSDs. Valid: osds >= 2, pgs_per_osd >= 0, size >= 2. Vectorised.
    Source: references note "rebuild declustered over min(surviving OSDs, PGs per OSD)"
    (ceph-tools models/reliability, M. Kampe); provenance: course-defined.
    """
    osds = _check.integer("osds", osds, lo=2)
    pgs = _check.non_negative("pgs_per_osd", pgs_per_osd)
    size = _check.integer("size", size, lo=2)
    return _check.scalar(np.minimum(osds - 1, pgs * (size - 1)).astype(float))


def expected_recovery_peers(osds, pgs_per_osd, size):
    """Expected number of distinct peers when the shards land on random surviving OSDs.

        E[peers] = (osds - 1) x (1 - (1 - 1/(osds - 1))^(pgs_per_osd x (size - 1)))

    Always <= recovery_peers. Valid as recovery_peers. Vectorised. Provenance: course-defined
    (balls into bins).
    """
    osds = _check.integer("osds", osds, lo=2).astype(float)
    pgs = _check.non_negative("pgs_per_osd", pgs_per_osd)
    size = _check.integer("size", size, lo=2)
    return _check.scalar(_distinct(osds - 1, pgs * (size - 1)))


def _distinct(bins, balls):
    """Expected bins hit by `balls` thrown uniformly into `bins`: bins x (1 - (1 - 1/bins)^balls);
    1 for a single bin (where log1p(-1) is -inf)."""
    with np.errstate(divide="ignore"):
        return bins * -np.expm1(balls * np.log1p(-1.0 / bins))


def sleep_limited_rate(recovery_sleep, object_size=OBJECT_SIZE, max_single_start=OSD_RECOVERY_MAX_SINGLE_START):
    """Bytes/s one OSD can recover when every recovery op waits recovery_sleep first.

        rate = max_single_start x object_size / recovery_sleep      (inf when recovery_sleep = 0)

    Pacific HDD defaults: 1 x 4 MiB / 0.1 s = 40 MiB/s per OSD. Objects larger than
    osd_recovery_max_chunk (8 MiB) take several pushes; this ignores that. Valid:
    recovery_sleep >= 0, object_size > 0, max_single_start >= 1. Vectorised. Source: Ceph
    v16.2.15 OSD::do_recovery / OSDService::_maybe_queue_recovery; provenance: Ceph code, Pacific
    (simplified: one push per wake-up, no other load).
    """
    sleep = _check.non_negative("recovery_sleep", recovery_sleep)
    obj = _check.positive("object_size", object_size)
    starts = _check.in_range("max_single_start", max_single_start, 1.0)
    with np.errstate(divide="ignore", over="ignore"):   # a vanishing sleep means no throttle: inf
        rate = np.where(sleep > 0, starts * obj / np.where(sleep > 0, sleep, 1.0), np.inf)
    return _check.scalar(rate)


def per_osd_recovery_rate(per_osd_rate, max_backfills=OSD_MAX_BACKFILLS, recovery_sleep=0.0,
                          object_size=OBJECT_SIZE, max_single_start=OSD_RECOVERY_MAX_SINGLE_START,
                          device_rate=np.inf):
    """Bytes/s one peer OSD contributes to recovery: the slower of bandwidth and the sleep throttle.

        bandwidth = min(max_backfills x per_osd_rate, device_rate)
        rate      = min(bandwidth, sleep_limited_rate(recovery_sleep, object_size, max_single_start))

    per_osd_rate is what one backfilling PG moves per second on the OSD; osd_max_backfills PGs
    run at once, up to the device's own bandwidth. The sleep is one schedule per OSD, so more
    backfills do not lift the sleep bound: with the HDD default sleep, raising max_backfills
    alone changes little -- the lesson of the recovery lab. Units: bytes/s. Valid: rates > 0,
    max_backfills >= 1, as sleep_limited_rate. Vectorised. Provenance: course-defined, with
    Ceph Pacific's throttles.
    """
    rate = _check.positive("per_osd_rate", per_osd_rate)
    backfills = _check.in_range("max_backfills", max_backfills, 1.0)
    device = _check.positive("device_rate", device_rate)
    bandwidth = np.minimum(backfills * rate, device)
    return _check.scalar(np.minimum(bandwidth, sleep_limited_rate(recovery_sleep, object_size, max_single_start)))


def recovery_bottleneck(per_osd_rate, max_backfills=OSD_MAX_BACKFILLS, recovery_sleep=0.0,
                        object_size=OBJECT_SIZE, max_single_start=OSD_RECOVERY_MAX_SINGLE_START,
                        device_rate=np.inf):
    """Which bound sets per_osd_recovery_rate: 'sleep' or 'bandwidth' (same arguments)."""
    rate = _check.positive("per_osd_rate", per_osd_rate)
    backfills = _check.in_range("max_backfills", max_backfills, 1.0)
    device = _check.positive("device_rate", device_rate)
    bandwidth = np.minimum(backfills * rate, device)
    sleep_bound = np.asarray(sleep_limited_rate(recovery_sleep, object_size, max_single_start))
    return _check.scalar(np.where(sleep_bound < bandwidth, "sleep", "bandwidth"))


def recovery_time(data_bytes, peers, per_osd_rate, max_backfills=OSD_MAX_BACKFILLS, recovery_sleep=0.0,
                  object_size=OBJECT_SIZE, max_single_start=OSD_RECOVERY_MAX_SINGLE_START,
                  device_rate=np.inf):
    """Seconds to re-replicate data_bytes lost with one OSD, spread over `peers` OSDs.

        time = data_bytes / (peers x per_osd_recovery_rate(...))

    data_bytes: what the failed OSD held (size x fill). peers: recovery_peers(...) or
    expected_recovery_peers(...). recovery_sleep: pass OSD_RECOVERY_SLEEP_HDD (0.1) for Pacific's
    HDD default; 0 means no throttle. Example: 100 GB over 30 peers at 50 MB/s, no sleep ->
    66.7 s; with the HDD sleep and 4 MiB objects each peer is held to 41.9 MB/s -> 79.5 s.
    Units: s. Valid: data_bytes >= 0, peers >= 1, as per_osd_recovery_rate. Vectorised.
    Source: ceph-tools models/reliability (M. Kampe): size x fullness / (speed x PGs);
    provenance: course-defined.
    """
    data = _check.non_negative("data_bytes", data_bytes)
    peers = _check.in_range("peers", peers, 1.0)
    rate = per_osd_recovery_rate(per_osd_rate, max_backfills, recovery_sleep, object_size,
                                 max_single_start, device_rate)
    return _check.scalar(data / (peers * np.asarray(rate)))


def pg_log_entries(pgs_per_osd):
    """Entries a PG log keeps before it is trimmed (Pacific's defaults).

        entries = min(max(osd_target_pg_log_entries_per_osd / pgs_per_osd, osd_min_pg_log_entries),
                      osd_max_pg_log_entries)          = clamp(300,000 / PGs, 250, 10,000)

    A PG whose whole history is in its log recovers from the log; one with more writes than its
    log holds is backfilled. Units: entries (about one per write). Valid: pgs_per_osd > 0.
    Vectorised. Source: src/common/options.cc and PrimaryLogPG's log trimming (Pacific
    v16.2.15); provenance: Ceph code, Pacific (the trim also waits for osd_pg_log_trim_min).
    """
    pgs = _check.positive("pgs_per_osd", pgs_per_osd)
    return _check.scalar(np.clip(OSD_TARGET_PG_LOG_ENTRIES_PER_OSD / pgs, OSD_MIN_PG_LOG_ENTRIES,
                                 OSD_MAX_PG_LOG_ENTRIES))


def is_backfilled(objects_per_pg, pgs_per_osd):
    """True when a PG has been written more often than its log holds, so that a new OSD must be
    backfilled (copied whole) rather than recovered from the log: objects_per_pg >
    pg_log_entries(pgs_per_osd), counting one write per object (a lower bound on writes).
    Valid: objects_per_pg >= 0, pgs_per_osd > 0. Vectorised. Provenance: as pg_log_entries."""
    objects = _check.non_negative("objects_per_pg", objects_per_pg)
    return _check.scalar(objects > np.asarray(pg_log_entries(pgs_per_osd)))


def recovery_sources(osds, pgs_on_failed):
    """Expected survivors that are primary of at least one of a failed OSD's PGs.

        S = osds - 1,  P = pgs_on_failed
        sources = S x (1 - (1 - 1/S)^P)

    Each of the failed OSD's P PGs is recovered by its primary, a survivor, which pushes the
    objects to the PG's new OSD. The primaries of P PGs on S random survivors are P balls in S
    bins, so about this many distinct OSDs can push at all. Units: OSDs (an expectation, not a
    whole number). Valid: osds >= 2, pgs_on_failed >= 1. Vectorised. Provenance: course-defined
    (balls into bins; CRUSH spreads PGs pseudo-randomly).
    """
    survivors = _check.integer("osds", osds, lo=2).astype(float) - 1
    return _check.scalar(_distinct(survivors, _check.in_range("pgs_on_failed", pgs_on_failed, 1.0)))


def pgs_at_once(osds, pgs_on_failed, size=3, max_backfills=OSD_MAX_BACKFILLS, backfill=True):
    """Upper bound on the failed OSD's PGs that copy at the same time under Ceph's reservations.

        remotes r = 1 if backfill else size - 1
        at_once = min(P, max_backfills x sources, floor(S x max_backfills / r))

    Before a PG copies, its primary takes one of the osd_max_backfills slots of its own local
    reserver, and one slot of the remote reserver of each OSD it writes to: a backfill reserves
    only the new OSD it fills, recovery from the log every replica. So each source runs at most
    max_backfills PGs, the S survivors' remote slots hold S x max_backfills / r PGs, and no more
    PGs run than the failed OSD held. On 200 OSDs with 100 PGs each, backfill runs ~79 of the 100
    at once with the default 1 slot, all 100 with 4; on 5 survivors, recovery from the log runs 2.
    Units: PGs. Valid: osds >= 2, pgs_on_failed >= 1, size >= 2, max_backfills >= 1. Vectorised.
    Source: doc/dev/osd_internals/backfill_reservation.rst, recovery_reservation.rst and
    src/osd/PeeringState.cc (WaitRemoteBackfillReserved, WaitRemoteRecoveryReserved), Pacific;
    checked against every OSD's `dump_recovery_reservations` and the PG states on a 6-OSD cluster
    (tests/cluster/test_backfill_reservations.py); provenance: Ceph code, Pacific (counting bound).
    """
    pgs = _check.in_range("pgs_on_failed", pgs_on_failed, 1.0)
    slots = _check.in_range("max_backfills", max_backfills, 1.0)
    size = _check.integer("size", size, lo=2)
    survivors = _check.integer("osds", osds, lo=2) - 1
    remotes = np.ones_like(size) if backfill else size - 1
    bound = np.minimum(slots * np.asarray(recovery_sources(osds, pgs)), np.floor(survivors * slots / remotes))
    return _check.scalar(np.maximum(1.0, np.minimum(pgs, bound)))


def _plan(osds, pgs_on_failed, size, max_backfills, backfill):
    """(sources at work, PG streams each): the sources are the distinct primaries, no more than
    the PGs at once; each runs its share of those PGs, at least one."""
    at_once = np.asarray(pgs_at_once(osds, pgs_on_failed, size, max_backfills, backfill))
    sources = np.minimum(np.asarray(recovery_sources(osds, pgs_on_failed)), at_once)
    return sources, np.maximum(1.0, at_once / sources)


def reservation_time(data_bytes, osds, pgs_on_failed, per_pg_rate, max_backfills=OSD_MAX_BACKFILLS,
                     recovery_sleep=0.0, object_size=OBJECT_SIZE, device_rate=np.inf, size=3, backfill=True):
    """Seconds to copy back what one failed OSD held, under Ceph's reservations and throttles.

        sources, streams = the distinct primaries among pgs_at_once(...) PGs, their PGs each
        per_source = min(streams x per_pg_rate, device_rate, object_size / recovery_sleep)
        time       = data_bytes / (sources x per_source)

    The recovery sleep is one schedule per OSD (OSD::do_recovery), so a source it binds moves no
    faster with more PGs: raising osd_max_backfills alone then changes nothing once every source
    works. backfill: the PGs are longer than their logs (is_backfilled); else they recover from
    the log. Units: s. Valid: data_bytes >= 0, per_pg_rate > 0, as pgs_at_once and
    sleep_limited_rate. Vectorised. Source: as pgs_at_once; per-PG streams after ceph-tools
    models/reliability (M. Kampe); provenance: course-defined, with Ceph Pacific's reservations
    and throttles (per-PG costs such as reservation hand-offs and backfill scans left out).
    """
    data = _check.non_negative("data_bytes", data_bytes)
    sources, streams = _plan(osds, pgs_on_failed, size, max_backfills, backfill)
    rate = per_osd_recovery_rate(per_pg_rate, streams, recovery_sleep, object_size, device_rate=device_rate)
    return _check.scalar(data / (sources * np.asarray(rate)))


def reservation_bottleneck(osds, pgs_on_failed, per_pg_rate, max_backfills=OSD_MAX_BACKFILLS, recovery_sleep=0.0,
                           object_size=OBJECT_SIZE, device_rate=np.inf, size=3, backfill=True):
    """What limits each source in reservation_time (same arguments, without data_bytes): 'sleep'
    when the recovery sleep's schedule is slower than its streams and its device, else
    'bandwidth'. Vectorised. Provenance: as reservation_time."""
    _, streams = _plan(osds, pgs_on_failed, size, max_backfills, backfill)
    return recovery_bottleneck(per_pg_rate, streams, recovery_sleep, object_size, device_rate=device_rate)


def backfill_slots(primaries, targets, max_backfills=OSD_MAX_BACKFILLS):
    """The most PGs that can hold both their reservations at once, for PGs known one by one.

        max |B|, B a set of the PGs, such that every OSD is the primary of <= max_backfills PGs
        of B (its local reserver) and the target of <= max_backfills (its remote reserver)

    primaries[i], targets[i]: the OSD ids of PG i's primary and of the OSD it backfills (from the
    PG maps before and after the failure). A maximum b-matching of the bipartite graph primary ->
    target, found by augmenting paths; Ceph grants reservations first come first served, so it
    can reach fewer, never more. Units: PGs. Valid: as many primaries as targets, ids >= 0,
    max_backfills >= 1 (whole). Not vectorised (one cluster's PGs). Source: as pgs_at_once;
    provenance: Ceph code, Pacific (exact bound for the given PGs).
    """
    if len(primaries) != len(targets):
        raise ValueError(f"primaries and targets must have the same length, got {len(primaries)} "
                         f"and {len(targets)}")
    slots = int(_check.integer("max_backfills", max_backfills, lo=1))
    edges = [(int(p), int(t)) for p, t in zip(_check.integer("primaries", list(primaries), lo=0).tolist(),
                                              _check.integer("targets", list(targets), lo=0).tolist())]
    return _max_flow(edges, slots)


def _max_flow(edges, slots):
    """Max flow source -> primary (slots) -> target (1 per PG) -> sink (slots), by augmenting
    paths (depth-first). Nodes: ("p", osd), ("t", osd); a few hundred PGs at most."""
    cap: dict = {}
    adj: dict = {}

    def link(u, v, c):
        for x, y in ((u, v), (v, u)):
            adj.setdefault(x, set()).add(y)
            cap.setdefault((x, y), 0)
        cap[u, v] += c
    for p, t in edges:
        link("source", ("p", p), 0)
        cap["source", ("p", p)] = slots          # its local reserver, however many PGs it leads
        link(("t", t), "sink", 0)
        cap[("t", t), "sink"] = slots            # its remote reserver
        link(("p", p), ("t", t), 1)              # one per PG (two PGs may share both OSDs)

    def push(u, seen):
        if u == "sink":
            return True
        seen.add(u)
        for v in adj[u]:
            if v not in seen and cap[u, v] > 0 and push(v, seen):
                cap[u, v] -= 1
                cap[v, u] += 1
                return True
        return False
    flow = 0
    while "source" in adj and push("source", set()):
        flow += 1
    return flow


def kampe_rebuild_time(disk_bytes, pgs_per_osd=KAMPE_PGS_PER_OSD, speed=KAMPE_RECOVERY_RATE,
                       fullness=KAMPE_FULLNESS):
    """ceph-tools' RADOS rebuild time: disk_bytes x fullness / (speed x pgs_per_osd), in seconds.

    Every PG of the failed disk recovers in parallel at `speed` bytes/s (no throttles, no peer
    limit). 4 TB, defaults -> 300 s. Vectorised. Source: ceph/ceph-tools
    models/reliability/RadosRely.py, RADOS.rebuild_time (M. Kampe); provenance: paper (model).
    """
    disk = _check.non_negative("disk_bytes", disk_bytes)
    pgs = _check.positive("pgs_per_osd", pgs_per_osd)
    speed = _check.positive("speed", speed)
    full = _check.fraction("fullness", fullness)
    return _check.scalar(disk * full / (speed * pgs))


def degraded_window(recovery_seconds, down_out_interval=MON_OSD_DOWN_OUT_INTERVAL, heartbeat_grace=0.0):
    """Seconds data stays short of a shard after a failure: detection + recovery.

        window = heartbeat_grace + down_out_interval + recovery_seconds

    Ceph marks a silent OSD down after osd_heartbeat_grace (20 s; 0 by default here, as in
    Kampe's model) and out after mon_osd_down_out_interval (600 s); only then does recovery
    start. Units: s. Valid: all >= 0. Vectorised. Provenance: Ceph code, Pacific defaults.
    """
    rec = _check.non_negative("recovery_seconds", recovery_seconds)
    out = _check.non_negative("down_out_interval", down_out_interval)
    grace = _check.non_negative("heartbeat_grace", heartbeat_grace)
    return _check.scalar(grace + out + rec)


def window_days(seconds):
    """Seconds as days, for redundancy.annual_loss_probability(replacement_days=...). Vectorised."""
    return _check.scalar(_check.non_negative("seconds", seconds) / SECONDS_PER_DAY)


def annual_loss_with_recovery(scheme, afr, recovery_seconds, down_out_interval=MON_OSD_DOWN_OUT_INTERVAL):
    """Annual stripe-loss probability when the replacement time is Ceph's degraded window.

        annual_loss_probability(scheme, afr, (down_out_interval + recovery_seconds) / 86400)

    Links this module to the Backblaze model: faster recovery (fewer throttles, more peers) ->
    shorter window -> more nines. Treats the PG's shards as one stripe on `size` disks, which
    ignores that declustering makes more disk pairs able to lose some PG (course-defined).
    Vectorised in afr and recovery_seconds. Provenance: course-defined.
    """
    window = degraded_window(recovery_seconds, down_out_interval)
    return annual_loss_probability(scheme, afr, window_days(window))


def concurrent_recoveries(osds, size, max_backfills=OSD_MAX_BACKFILLS, backfill=False, receivers=None):
    """How many PGs can recover at the same time under Ceph's recovery reservations (upper bound).

        remote slots per PG  r = 1 if backfill else size - 1
        concurrent = max(1, min(osds x max_backfills, floor(osds x max_backfills / r)))
        with receivers R:  concurrent = min(concurrent, R x max_backfills)

    Before a PG copies anything, its primary takes one slot of its own OSD's local reserver and
    then one slot of the remote reserver of each OSD it will write to; each reserver has
    osd_max_backfills slots. Log-based recovery reserves every replica of the PG (size - 1
    remotes), backfill only the OSD being filled. So on 3 surviving OSDs with size 3 and the
    default max_backfills 1, only ONE PG recovers at a time, and only its primary's recovery-sleep
    schedule does any work: use min(peers, concurrent_recoveries(...)) as recovery_time's peers.
    osds: OSDs taking part (the survivors). receivers: how many distinct OSDs take the failed
    OSD's place (every recovering PG reserves a slot on its receiver); with failure domain host
    and as many hosts as copies, only the failed OSD's host-mates can (1 on 3 hosts of 2 OSDs),
    so one PG at a time however many OSDs survive. None: no such limit.
    Valid: osds >= 1, size >= 2, max_backfills >= 1, receivers >= 1. Vectorised.
    Source: Ceph docs, doc/dev/osd_internals/recovery_reservation.rst, and
    src/osd/PeeringState.cc (WaitRemoteRecoveryReserved), Pacific; provenance: Ceph code, Pacific
    (counting bound; without receivers it ignores which OSDs each PG actually spans).
    """
    osds = _check.integer("osds", osds, lo=1)
    size = _check.integer("size", size, lo=2)
    slots = osds * _check.integer("max_backfills", max_backfills, lo=1)
    remotes = np.ones_like(size) if backfill else size - 1
    concurrent = np.maximum(1, np.minimum(slots, slots // remotes))
    if receivers is not None:
        receivers = _check.integer("receivers", receivers, lo=1)
        concurrent = np.minimum(concurrent, receivers * _check.integer("max_backfills", max_backfills, lo=1))
    return _check.scalar(concurrent)
