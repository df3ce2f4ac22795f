"""Measuring write amplification on a lab cluster (lab 07).

    prefill_image(c, pool, "img", 64)              # every block of the image written once
    run = measure_writes(c, pool, "img", bs=4096, seconds=3)
    run.waf                                         # device bytes / client bytes (/proc/<pid>/io)
    run.component_waf()                             # the same split by perf counters

Client bytes come from fio (its io_bytes). Device bytes are what the OSD processes wrote, from
/proc/<pid>/io write_bytes: each OSD's device is a plain file, so this is a clean ground truth
for BlueStore. For FileStore it counts the journal and the data the OSD dirtied in the page
cache, but not the file system's own journal and metadata, which kernel threads write.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from cephlab.core.errors import ClusterError
from cephlab.core.poll import PollTimeout, poll_until
from models import data

log = logging.getLogger(__name__)
MIB = 1024 * 1024

# (perf dump section, counter as Pacific names it) -> the name used here. Sums over OSDs; later
# releases' names come from cephlab.core.releases.
COUNTERS = {
    ("osd", "op_w_in_bytes"): "client_in",              # bytes clients sent to primaries
    ("bluefs", "bytes_written_wal"): "rocksdb_wal",
    ("bluefs", "bytes_written_sst"): "rocksdb_sst",
    ("bluefs", "logged_bytes"): "bluefs_log",
    # deferred data written in place, counted at submit (Reef: submitted_deferred_write_bytes)
    ("bluestore", "deferred_write_bytes"): "deferred_data",
    ("bluestore", "bluestore_write_big_bytes"): "write_big",
    ("bluestore", "bluestore_write_small_bytes"): "write_small",
    # bytes made deferred, counted as the transaction is prepared, as big and small are (Reef:
    # issued_deferred_write_bytes); big + small - this is the data written direct
    ("bluestore", "bluestore_write_deferred_bytes"): "write_deferred",
    ("filestore", "journal_wr_bytes"): "ceph_journal",        # FileStore's journal writes
    ("filestore", "bytes"): "filestore_applied",              # transaction bytes applied
    ("WBThrottle", "bytes_dirtied"): "wb_dirtied",
}


def prefill_image(cluster, pool, image, size_mib, chunk_mib=4):
    """Write every byte of an RBD image once, so later writes are overwrites (no first-write
    allocation in the numbers). Uses librbd; about 1 s per 100 MiB on the lab machine."""
    import rbd
    chunk = b"\xa5" * (chunk_mib * MIB)
    with cluster.ioctx(pool) as ioctx, rbd.Image(ioctx, image) as img:
        for off in range(0, size_mib * MIB, len(chunk)):
            img.write(chunk[:min(len(chunk), size_mib * MIB - off)], off)
        img.flush()


def counters(cluster, osds):
    """{name: sum over osds} for the COUNTERS an OSD has (BlueStore or FileStore)."""
    total: dict[str, float] = {}
    release = cluster.release()
    for osd in osds:
        dump = cluster.perf_dump(osd)
        for (section, counter), name in COUNTERS.items():
            value = dump.get(section, {}).get(release.counter(counter))
            if value is None:
                continue
            if isinstance(value, dict):          # long-running averages keep their total in sum
                value = value["sum"]
            total[name] = total.get(name, 0) + value
    return total


@dataclass
class WriteRun:
    """One fio run: bytes in and out, and the counters' change (sums over OSDs)."""
    block_size: int
    client_bytes: int
    device_bytes: dict                          # {osd: bytes written, from /proc/<pid>/io}
    counters: dict = field(default_factory=dict)
    bench: object = None                        # cephlab.cluster.measure.BenchResult
    repeats: int = 0                            # runs set aside for a RocksDB flush in the window

    @property
    def waf(self):
        return sum(self.device_bytes.values()) / self.client_bytes

    def component_waf(self):
        """{component: bytes / client bytes} from the perf counters.

        filestore_applied is what FileStore handed to the file system (transaction bytes, data
        included): the page cache may absorb part of it before it reaches the device.
        """
        c = self.counters
        parts = {}
        for name in ("rocksdb_wal", "rocksdb_sst", "bluefs_log", "deferred_data", "ceph_journal",
                     "filestore_applied"):
            if name in c:
                parts[name] = c[name] / self.client_bytes
        if "write_big" in c:        # direct (non-deferred) data: what BlueStore wrote in place
            direct = c["write_big"] + c["write_small"] - c["write_deferred"]
            parts["data"] = max(direct, 0) / self.client_bytes
        return parts


def drain_filestore(cluster, osds, timeout=30):
    """Wait until FileStore OSDs have applied everything they journaled (op queue empty).

    A FileStore write is acknowledged once journaled; applying it to the file comes later, and
    the op queue may hold up to filestore_queue_max_bytes (100 MiB) of it. Counting device
    bytes before the queue drains would miss that data. BlueStore OSDs return at once.
    Returns the seconds waited.
    """
    t0 = time.monotonic()
    queued = [0]

    def drained():
        queued[0] = 0
        for osd in osds:
            fs = cluster.perf_dump(osd).get("filestore")
            if fs:
                queued[0] += fs["op_queue_ops"] + fs["journal_queue_ops"]
        return not queued[0]
    poll_until(drained, timeout, f"FileStore OSDs {osds} with nothing left to apply",
               describe=lambda: f"{queued[0]} ops queued", hint="is an OSD stuck (`ceph health detail`)?")
    return time.monotonic() - t0


QUIET_BYTES_PER_S = 1 * MIB     # the OSDs together write less when idle (logs, a few KiB/s each)


def wait_until_quiet(cluster, osds, timeout=30.0, window=0.5, rate=QUIET_BYTES_PER_S):
    """Wait until `osds` together write under `rate` bytes/s over `window` s, so that no earlier
    work - an earlier lab's pool still being deleted, a RocksDB compaction - is counted as the
    next run's device bytes. Returns the seconds waited; after `timeout` it says so and goes on."""
    t0, seen = time.monotonic(), [0.0]

    def quiet():
        with cluster.measure_device_writes() as w:
            time.sleep(window)
        seen[0] = sum(w["delta"].get(o, 0) for o in osds) / window
        return seen[0] < rate
    try:
        poll_until(quiet, timeout, f"OSDs {osds} idle (under {rate / MIB:g} MiB/s)", interval=0,
                   describe=lambda: f"still {seen[0] / MIB:.1f} MiB/s")
    except PollTimeout as e:
        log.warning(f"note: {e}; the next run's device bytes include that background work")
    return time.monotonic() - t0


def measure_writes(cluster, pool, image, bs, seconds=3, iodepth=16, osds=None, settle=1.0,
                   attempts=2):
    """fio randwrite of bs bytes on pool/image for `seconds`; device bytes and counters around it.

    Starts once the OSDs are idle (wait_until_quiet). After fio, FileStore OSDs are drained
    (drain_filestore); settle: seconds to wait after that, so writes the OSDs still queue
    (BlueStore's deferred data, submitted within bluestore_max_defer_interval) are mostly counted.
    A run in which RocksDB wrote SST files (a memtable flush or a compaction, which a run of a few
    seconds does not cause by itself) measured that besides the write path: it is run again, up to
    `attempts` runs in all (WriteRun.repeats says how many were set aside). Device bytes beyond
    the counters' are not a reason: BlueFS writes its WAL through the page cache, so /proc counts
    every page a sync dirties again, a real cost that grows as fewer writes share each sync.
    """
    if not cluster.local_daemons:
        raise ClusterError("device bytes come from /proc/<pid>/io of local OSDs; on the Vagrant "
                           "backend use counters(cluster, osds) around your own run instead")
    osds = list(osds if osds is not None else (int(o) for o in cluster.ceph("osd", "ls")))
    for attempt in range(attempts):
        run = _one_write_run(cluster, pool, image, bs, seconds, iodepth, osds, settle)
        why = _not_the_write_path(run)
        if not why:
            break
        if attempt + 1 < attempts:      # run again: the figures will be clean
            log.info(f"note: during the {bs // 1024} KiB run {why}; running it again")
        else:                           # the last run's figures include that work
            log.warning(f"note: during the {bs // 1024} KiB run {why}; it stays in this run's figures")
    run.repeats = attempt
    return run


def _not_the_write_path(run):
    """Why `run` measured more than the write path, or "" (see measure_writes)."""
    if run.counters.get("rocksdb_sst"):
        return f"RocksDB wrote {run.counters['rocksdb_sst'] / MIB:.1f} MiB of SST files (a flush or compaction)"
    return ""


def _one_write_run(cluster, pool, image, bs, seconds, iodepth, osds, settle):
    wait_until_quiet(cluster, osds)
    before = counters(cluster, osds)
    with cluster.measure_device_writes() as dev:
        bench = cluster.fio_rbd(pool, image, rw="randwrite", bs=bs, iodepth=iodepth,
                                runtime=seconds)
        drain_filestore(cluster, osds)
        time.sleep(settle)
    after = counters(cluster, osds)
    client = bench.raw["jobs"][0]["write"]["io_bytes"]
    if not client:
        raise ClusterError(f"fio wrote nothing to {pool}/{image} in {seconds} s")
    delta = {k: after[k] - before.get(k, 0) for k in after}
    return WriteRun(block_size=bs, client_bytes=client,
                    device_bytes={o: dev["delta"].get(o, 0) for o in osds},
                    counters=delta, bench=bench)


def seed003_claims(measured):
    """Seed 003's stated WAF points (data/seed003_waf_microbench.csv) and its headline, "writes
    are amplified by more than 13x no matter which storage backend", against this run.

    measured: {(backend, write size in bytes or "large"): device WAF of this run}, e.g.
      {("filestore", 4096): 9.2, ("bluestore", "large"): 3.0}; points with no measurement are
      left out. Returns rows (dicts): backend, write size, the seed's relation and value, this
      run's WAF and whether the seed's statement holds for it ("converges_to" within 10 %).
    """
    points = [(r["backend"], r["write_size"], r["relation"], float(r["waf"]))
              for r in data.load("seed003_waf_microbench")]
    points += [(b, 4096, "greater_than", 13.0) for b in ("filestore", "bluestore")]   # the headline
    rows = []
    for backend, size, relation, value in points:
        got = measured.get((backend, size))
        if got is None:
            continue
        holds = got > value if relation == "greater_than" else abs(got - value) <= 0.1 * value
        rows.append({"backend": backend, "write size": size, "seed 003": f"{relation.replace('_', ' ')} {value:g}",
                     "this run": float(got), "holds here": bool(holds)})
    return rows


def metadata_room(model, deferred_measured=None):
    """How far below `model` (a models.waf result, short-window form) a run's device WAF may lie,
    as a fraction of the model: down to its data-only floor, where batching has shrunk RocksDB's
    metadata per write to nothing. The floor is the data once plus the WAL's copy of what was
    deferred: `deferred_measured` as the counters saw it (they show part of some writes below
    prefer_deferred as direct), by default the model's own deferred copy.

    floor = data + deferred_data + deferred copy;  room = max(1 - floor / model, 0)   (WAF units)
    """
    deferred = model.parts["deferred_data"] if deferred_measured is None else deferred_measured
    floor = model.parts["data"] + model.parts["deferred_data"] + deferred
    return max(1 - floor / float(model), 0.0)


PAGE = 4096


def page_room(model, bs, replicas=3, pages=2):
    """How far above `model` a run's device WAF may lie, as a fraction of the model, when every
    write syncs the WAL on its own: BlueFS writes the WAL through the page cache, so each sync
    makes the kernel write whole 4 KiB pages again (the record's last one and the BlueFS log's),
    which /proc counts in full where the model counts kv_bytes.

    room = replicas x pages x 4096 / bs / model      (bs in bytes)

    Small for large writes (1.6 % at 1 MiB), so their device-WAF check stays tight; at 4 KiB it is
    as large as the model's own metadata, which is why small writes are measured, not checked.
    """
    if bs <= 0:
        raise ValueError(f"bs must be > 0 bytes, got {bs}")
    return replicas * pages * PAGE / bs / float(model)
