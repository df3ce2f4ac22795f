"""How long one replicated write takes: the primary-copy write path as a latency sum.

Seed 000_ff3932318711fad8.txt (NAVER, OpenStack Days 2017), "Write Flow" slide: (1) the client
sends the write to the PG's primary OSD; (2) the primary sends it to the replica OSDs and writes
its own copy; (3) each replica writes its copy and acknowledges to the primary; (4) the primary
acknowledges to the client once every copy is on disk. Step (2) fans out in parallel, so a write
costs one extra round trip to the replicas, not one per replica -- but the ack waits for the
*slowest* copy, which is why one slow SATA disk slows every write (the seed's "slow requests"
slide). Waiting for every copy before acknowledging is what makes Ceph a CP system in CAP terms.

Units: milliseconds everywhere. All functions broadcast over numpy arrays (for sliders).
"""
from __future__ import annotations

import numpy as np

from models import _check

LOOPBACK_ONE_WAY_MS = 0.05   # course-defined: one hop over 127.0.0.1 (and roughly a 10 GbE LAN hop)


def _inputs(net_ms, disk_ms, osd_ms, replicas, slowest_disk_ms):
    net = _check.non_negative("net_ms", net_ms)
    disk = _check.non_negative("disk_ms", disk_ms)
    osd = _check.non_negative("osd_ms", osd_ms)
    size = _check.integer("replicas", replicas, lo=1, hi=20)
    slow = disk if slowest_disk_ms is None else _check.non_negative("slowest_disk_ms", slowest_disk_ms)
    return net, disk, osd, size, slow


def replica_round_trip_ms(net_ms, disk_ms, osd_ms=0.0):
    """One replica's share of a write, seen from the primary: net + osd + disk + net.

    The primary sends the data (net), the replica processes it (osd: CPU time of one OSD op)
    and commits it (disk), then acknowledges (net). Milliseconds, vectorised.
    Source: seed 000 (NAVER 2017), write flow steps (2)-(3). Provenance: course-defined.
    """
    net = _check.non_negative("net_ms", net_ms)
    disk = _check.non_negative("disk_ms", disk_ms)
    osd = _check.non_negative("osd_ms", osd_ms)
    return _check.scalar(2 * net + osd + disk)


def write_latency_ms(net_ms, disk_ms, osd_ms=0.0, replicas=3, slowest_disk_ms=None):
    """Latency of one write to a replicated pool, replicas written in parallel (Ceph's way):

        T = net + osd + max(disk, R x (net + osd + slowest_disk + net)) + net
        R = 1 if replicas > 1 else 0

    net_ms: one-way network latency of one hop (client->primary, primary->replica, acks);
    disk_ms: commit latency of one copy (the primary's disk, and every replica's by default);
    osd_ms: CPU time an OSD spends on its part of the op (primary and each replica alike);
    replicas: pool size (1 = a single copy, no fan-out); slowest_disk_ms: commit latency of the
    slowest replica's disk (seed 000's slow SATA disk), default disk_ms.
    Returns milliseconds (float, or an array when inputs are arrays; broadcast).
    Source: seed 000_ff3932318711fad8.txt (NAVER 2017), "Write Flow" and slow-disk slides;
    Ceph docs "Architecture: Data consistency / replication" (the primary acks after all
    replicas). Provenance: course-defined (a sum of measured or chosen parts; queueing,
    batching and the run-queue wait of a busy CPU are left out).
    """
    net, disk, osd, size, slow = _inputs(net_ms, disk_ms, osd_ms, replicas, slowest_disk_ms)
    fan_out = np.where(size > 1, 2 * net + osd + slow, 0.0)
    return _check.scalar(net + osd + np.maximum(disk, fan_out) + net)


def serial_write_latency_ms(net_ms, disk_ms, osd_ms=0.0, replicas=3, slowest_disk_ms=None):
    """Contrast: the same write if the primary wrote the copies one after another.

        T = net + osd + disk + (replicas - 2) x (net + osd + disk + net)
              + [replicas > 1] x (net + osd + slowest_disk + net) + net

    Same parameters and units as write_latency_ms. Ceph does not do this (its primary fans out
    in parallel); the contrast shows what the parallel step (2) of seed 000's write flow saves.
    Provenance: course-defined.
    """
    net, disk, osd, size, slow = _inputs(net_ms, disk_ms, osd_ms, replicas, slowest_disk_ms)
    hop = 2 * net + osd
    chain = np.maximum(size - 2, 0) * (hop + disk) + np.where(size > 1, hop + slow, 0.0)
    return _check.scalar(net + osd + disk + chain + net)


def measured_parts_latency_ms(net_ms, outside_ms, commit_ms, subop_ms=0.0, replicas=3, serial=False):
    """A write's latency from parts measured on a cluster (lab 00's measurement):

        parallel (Ceph):    T = outside + 2 x net + max(commit, R x (2 x net + subop)),  R = [replicas > 1]
        serial (contrast):  T = outside + 2 x net + commit + (replicas - 1) x (2 x net + subop)

    outside_ms: what a write spends outside BlueStore's commit and the two client hops (client
    library, messenger, the primary's op processing), read from a size-1 pool;
    commit_ms: BlueStore's commit of the primary's copy (perf counter bluestore.commit_lat, Reef
    and later txc_commit_lat: from the transaction's start to its commit in RocksDB);
    subop_ms: one replica's sub-op, from receiving it to replying, its own commit included
    (osd.subop_w_latency); net_ms: one hop. Milliseconds, vectorised (broadcast).
    It is write_latency_ms with outside = osd, commit = disk and subop = osd + slowest disk.
    Source: seed 000_ff3932318711fad8.txt (NAVER 2017), "Write Flow"; the counters:
    BlueStore.cc@v18.2.7:12992-12993, ReplicatedBackend.cc@v18.2.7:97-110 (book/ceph-facts.md).
    Provenance: course-defined (a sum of measured parts).
    """
    net = _check.non_negative("net_ms", net_ms)
    outside = _check.non_negative("outside_ms", outside_ms)
    commit = _check.non_negative("commit_ms", commit_ms)
    subop = _check.non_negative("subop_ms", subop_ms)
    size = _check.integer("replicas", replicas, lo=1, hi=20)
    trip = 2 * net + subop
    if serial:
        return _check.scalar(outside + 2 * net + commit + (size - 1) * trip)
    return _check.scalar(outside + 2 * net + np.maximum(commit, np.where(size > 1, trip, 0.0)))


def write_path_steps(net_ms, disk_ms, osd_ms=0.0, replicas=3, slowest_disk_ms=None):
    """The write of write_latency_ms step by step (scalars only), for a table.

    Returns a list of (step, ms, on_critical_path) in seed 000's order: (1) client -> primary,
    primary OSD processing, (2) primary's local commit, (2)-(3) the slowest replica's round trip,
    (4) ack to the client. The steps on the critical path add up to write_latency_ms(...).
    Provenance: course-defined.
    """
    given = (net_ms, disk_ms, osd_ms, replicas, 0 if slowest_disk_ms is None else slowest_disk_ms)
    if any(np.ndim(v) for v in given):
        raise ValueError("write_path_steps takes scalars; use write_latency_ms for arrays")
    net, disk, osd, size, slow = _inputs(net_ms, disk_ms, osd_ms, replicas, slowest_disk_ms)
    net, disk, osd, size, slow = float(net), float(disk), float(osd), int(size), float(slow)
    trip = 2 * net + osd + slow if size > 1 else 0.0
    local_critical = disk >= trip
    steps = [("(1) client -> primary", net, True),
             ("primary OSD processes the op", osd, True),
             ("(2) primary commits its copy", disk, local_critical)]
    if size > 1:
        steps.append((f"(2)-(3) slowest of {size - 1} replica round trips", trip, not local_critical))
    steps.append(("(4) primary -> client ack", net, True))
    return steps
