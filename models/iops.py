"""IOPS of disks and of a replicated Ceph cluster: what to expect before measuring.

The planning arithmetic of seed 000_ff3932318711fad8.txt (NAVER, OpenStack Days 2017): every client
write lands on `replicas` disks, so a cluster of D disks of R IOPS each can take about R x D / replicas
client writes per second -- divided again if each replica writes twice (a FileStore journal on the
same disk, BlueStore's deferred writes through the RocksDB WAL). Then Little's law ties IOPS,
queue depth and latency together, reads and writes mix harmonically (seed 001 "IOPS by read
percentage"), and on all-flash the CPU becomes the ceiling (seed 004: "10^4 IOPS per CPU", read
here as per core).
"""
from __future__ import annotations

import numpy as np

from models import _check, data
from models import throttle as thr

MS_PER_S = 1000.0

# Pacific's default bluestore_prefer_deferred_size_hdd (64 KiB) and _ssd (0): BlueStore sends a
# new write smaller than this through the RocksDB WAL first (BlueStore::_do_alloc_write uses a
# strict "<"), so the data reaches the device twice (Ceph code, v16.2.15 src/common/options.cc).
# Twice in bytes, not in device writes: device_writes_per_write is 2 deferred or direct.
PREFER_DEFERRED_SIZE_HDD = 65536
PREFER_DEFERRED_SIZE_SSD = 0


def disk_classes():
    """Rows of data/disk_classes.csv: class, iops (4 KiB random write), mb_s, latency_ms, source."""
    return data.load("disk_classes")


def disk_class(name):
    """One row of data/disk_classes.csv by class name, e.g. disk_class("10k SAS HDD")["iops"] == 600."""
    return data.lookup("disk_classes", "class", name)


def seed000_cases():
    """Seed 000's four 4 KiB random-write cases (data/seed000_4k_randwrite.csv), measured."""
    return data.load("seed000_4k_randwrite")


def expected_write_iops(disk_iops, disks, replicas=3, journal_writes=1):
    """Client write IOPS a cluster should sustain if the disks are the bottleneck.

        IOPS = disk_iops x disks / (replicas x journal_writes)

    Units: IOPS. journal_writes counts device writes per replica write (2 for a FileStore journal
    on the data disk, 2 for a BlueStore write that commits alone, device_writes_per_write; 1 when
    only the data write counts). disk_iops is a rate the disk keeps for these writes: with
    queue-depth-1 random IOPS (hdd_iops) the result is a lower bound, since a deep queue of
    sorted or sequential writes costs a disk less per write (seed 000 case 1, journal on the
    SAS disks: rule 900 with 600 IOPS per disk, 200 with hdd_iops' 133, measured 2,094). Seed 000: 600 IOPS x 9 SAS
    disks / 3 replicas = 1,800 (measured 2,094). Valid: disk_iops >= 0, disks >= 1, replicas >= 1,
    journal_writes >= 1. Vectorised. Source: seed 000_ff3932318711fad8.txt; provenance:
    course-defined (the seed's planning rule).
    """
    disk_iops = _check.non_negative("disk_iops", disk_iops)
    disks = _check.in_range("disks", disks, 1.0)
    replicas = _check.integer("replicas", replicas, lo=1)
    journal_writes = _check.in_range("journal_writes", journal_writes, 1.0)
    return _check.scalar(disk_iops * disks / (replicas * journal_writes))


def mixed_iops(read_iops, write_iops, read_fraction):
    """IOPS of a read/write mix when each op costs 1/R (read) or 1/W (write) of the device time.

        IOPS(f) = 1 / (f / R + (1 - f) / W)        (weighted harmonic mean)

    f = read_fraction in [0, 1]: f = 0 gives W, f = 1 gives R; the curve rises slowly and then
    steeply towards pure reads, the shape of seed 001's "Performance by READ percentage" chart.
    Valid: R, W > 0. Vectorised in all three. Source: seed 001_eae3490e2ea9fcac.txt (Ocado);
    provenance: course-defined.
    """
    read_iops = _check.positive("read_iops", read_iops)
    write_iops = _check.positive("write_iops", write_iops)
    f = _check.fraction("read_fraction", read_fraction)
    return _check.scalar(1.0 / (f / read_iops + (1.0 - f) / write_iops))


def latency_ms(iops, queue_depth):
    """Average latency from Little's law: latency = queue_depth / IOPS, in milliseconds.

    Seed 000 case 1: 2,094 IOPS at 34.36 ms means ~72 I/Os in flight. Valid: iops > 0,
    queue_depth > 0. Vectorised. Provenance: course-defined (Little's law, L = lambda W).
    """
    iops = _check.positive("iops", iops)
    qd = _check.positive("queue_depth", queue_depth)
    return _check.scalar(qd / iops * MS_PER_S)


def iops_from_latency(latency_ms, queue_depth):
    """Inverse of latency_ms: IOPS = queue_depth / latency (latency in ms). Vectorised."""
    lat = _check.positive("latency_ms", latency_ms)
    qd = _check.positive("queue_depth", queue_depth)
    return _check.scalar(qd / lat * MS_PER_S)


def queue_depth_from(iops, latency_ms):
    """I/Os in flight implied by a measurement: queue_depth = IOPS x latency (Little's law)."""
    iops = _check.non_negative("iops", iops)
    lat = _check.non_negative("latency_ms", latency_ms)
    return _check.scalar(iops * lat / MS_PER_S)


def hdd_iops(rpm, seek_ms):
    """Random IOPS of one spinning disk at queue depth 1: 1000 / (seek + half a rotation).

        IOPS = 1000 / (seek_ms + 30000 / rpm)

    7,200 rpm with 8.5 ms seek -> 79; 10,000 rpm, 4.5 ms -> 133; 15,000 rpm, 3.5 ms -> 182.
    Valid: rpm > 0, seek_ms >= 0. Vectorised. Provenance: course-defined (disk mechanics).
    """
    rpm = _check.positive("rpm", rpm)
    seek = _check.non_negative("seek_ms", seek_ms)
    return _check.scalar(MS_PER_S / (seek + 30000.0 / rpm))


def cpu_ceiling_iops(cores, iops_per_core=1e4):
    """Client IOPS the OSD hosts' CPUs can process: cores x iops_per_core.

    Seed 004_3d50276d8cea0e54.txt (Qihoo 360, Cephalocon APAC 2018), on its all-SSD Hammer
    cluster: "10^4 IOPS per CPU (CPU: Xeon E5-2630 v3)" and "The more SSDs per cpu, the less IOPS
    per cpu". The default reads that figure per core (iops_per_core=1e4). An E5-2630 v3 has 8
    cores, so read per socket it would be 1e4 / 8 = 1,250 IOPS per core, a ceiling 8x lower.
    Valid: cores >= 0, iops_per_core > 0. Vectorised. Provenance: measured (seed 004),
    historical (Hammer); per core is the course's reading.
    """
    cores = _check.non_negative("cores", cores)
    per_core = _check.positive("iops_per_core", iops_per_core)
    return _check.scalar(cores * per_core)


def device_writes_per_write(io_size, commit_share=1.0, max_blob_size=65536):
    """Device writes BlueStore issues per replica write of io_size bytes: its data and its commit.

        writes = commit_share + ceil(io_size / max_blob_size)

    A direct write sends its data (one aio per 64 KiB blob) and then commits the transaction to
    RocksDB (a WAL write); a deferred write commits first, the data riding in the WAL record,
    and writes the data in place later. Either way a 4 KiB or a 64 KiB write costs 2 device
    writes when each transaction commits alone (commit_share = 1, one write in flight: the
    count for a disk's queue-depth-1 random IOPS). With several in flight BlueStore's kv sync
    thread commits them together and each pays 1 / (transactions per commit); commit_share = 0
    is the limit of many, one device write per replica write. Deferral changes the bytes
    (models.waf), not this count.
    This is models.throttle.bluestore_device_ios, the same model lab 04 uses: the throttle's
    charge (bluestore_write_ios) counts the commit and the direct aios, but not a deferred
    write's in-place aio, which BlueStore queues after the commit.
    Valid: io_size > 0 (bytes), 0 <= commit_share <= 1, max_blob_size > 0 (bytes). Vectorised.
    Source: Ceph BlueStore::_txc_calc_cost, _kv_sync_thread (src/os/bluestore/BlueStore.cc,
    v18.2.7) and bluestore_max_blob_size; provenance: Ceph code, v16.2-v20.2.
    """
    size = _check.positive("io_size", io_size)
    return thr.bluestore_device_ios(size, max_blob_size, commit_share)


def cluster_write_iops(device_iops, osds, replicas=3, wal_writes=1, cores=None, iops_per_core=1e4):
    """Client write IOPS of a cluster: the lower of the disk bound and (if cores given) the CPU bound.

        disk bound = device_iops x osds / (replicas x wal_writes)
        CPU bound  = cores x iops_per_core
        IOPS       = min(disk bound, CPU bound)

    wal_writes is device_writes_per_write(...) for BlueStore (2 for a 4 KiB or a 64 KiB write
    that commits alone) or 2 for a FileStore journal on the data disk. Valid as in
    expected_write_iops and cpu_ceiling_iops.
    Vectorised. Sources: seeds 000 and 004; provenance: course-defined.
    """
    disk_bound = expected_write_iops(device_iops, osds, replicas, wal_writes)
    if cores is None:
        return disk_bound
    return _check.scalar(np.minimum(disk_bound, cpu_ceiling_iops(cores, iops_per_core)))


def measured_vs_expected(measured_iops, expected_iops):
    """Ratio measured / expected (seed 000 case 1: 2,094 / 1,800 = 1.16). Vectorised."""
    measured = _check.non_negative("measured_iops", measured_iops)
    expected = _check.positive("expected_iops", expected_iops)
    return _check.scalar(measured / expected)
