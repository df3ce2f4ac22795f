"""FileStore's backoff ("dynamic") throttle: the delay Ceph injects as a queue fills.

Ceph's `BackoffThrottle` (src/common/Throttle.cc) slows callers of
`FileStore::queue_transactions` down gradually instead of letting them run into the hard
limit. It watches how full its queue is, r = current / max, and makes each caller wait

    delay(r) = 0                                   r < low
             = cost * (r - low) * s0               low <= r < high
             = cost * (e + (r - high) * s1)        r >= high

    e  = high_multiple / expected_throughput       (seconds per unit of cost at r = high)
    m  = max_multiple  / expected_throughput       (seconds per unit of cost at r = 1)
    s0 = e / (high - low)                          (slope between low and high)
    s1 = (m - e) / (1 - high)                      (slope between high and 1)

Seed 000_ff3932318711fad8.txt (NAVER, OpenStack Days 2017), "Dynamic Throttle" slide, gives
the same piecewise form (without the cost factor and without the edge cases below).
doc/dev/osd_internals/osd_throttles.rst describes it in words. The FileStore op queue has two
of these throttles: one counts ops (cost 1 per transaction), the other bytes (cost = the
transaction's size in bytes), each with its own expected throughput.

Details taken from the code, which the slide does not show:
- r is not clamped at 1: above 1 the last segment keeps rising past m. (r can exceed 1
  when a single op is larger than max, or when max is lowered at run time.)
- `set_params` rejects low > high, a threshold outside [0, 1], a negative multiple,
  high_multiple > max_multiple, and a negative expected throughput. It accepts an expected
  throughput of 0, which would divide by zero; this model rejects it instead.
- high == low: Ceph sets s0 = 0, so the delay jumps from 0 to cost * e at r = high.
- high == 1: Ceph sets s1 = 0, so the delay stays at cost * e from r = 1 on.
- max == 0 (a disabled throttle) gives no delay; pass r = 0 for that case.
- Callers queue in FIFO order and each sleeps its delay once it reaches the head of the
  queue, so the throttle lets at most 1 / delay ops per second through: at r = high with
  high_multiple = 1 that is exactly expected_throughput.

All multiples default to 0 in Ceph, so out of the box the delay is 0 everywhere and only
the hard limit (queue max) acts.
"""
from __future__ import annotations

import numpy as np

from models import _check

# FileStore/journal throttle options and their defaults in Ceph 16.2.15 (Pacific), as
# printed by `ceph-conf -D` from Debian's ceph-base 16.2.15 (tests/models/test_throttle.py
# re-reads them when ceph-conf is installed). "threshhold" is Ceph's own spelling.
FILESTORE_THROTTLE_OPTIONS = {
    "filestore_queue_max_ops": 50,
    "filestore_queue_max_bytes": 104857600,
    "filestore_queue_low_threshhold": 0.3,
    "filestore_queue_high_threshhold": 0.9,
    "filestore_expected_throughput_ops": 200.0,
    "filestore_expected_throughput_bytes": 209715200.0,
    "filestore_queue_high_delay_multiple": 0.0,
    "filestore_queue_max_delay_multiple": 0.0,
    "filestore_queue_high_delay_multiple_ops": 0.0,
    "filestore_queue_max_delay_multiple_ops": 0.0,
    "filestore_queue_high_delay_multiple_bytes": 0.0,
    "filestore_queue_max_delay_multiple_bytes": 0.0,
    "filestore_caller_concurrency": 10,
    "journal_throttle_low_threshhold": 0.6,
    "journal_throttle_high_threshhold": 0.9,
    "journal_throttle_high_multiple": 0.0,
    "journal_throttle_max_multiple": 0.0,
    "journal_max_write_bytes": 10485760,
    "journal_max_write_entries": 100,
    "osd_journal_size": 5120,  # MiB
}

# The WBThrottle limits for XFS (per OSD), Pacific defaults; seed 000 shows the same values
# (Luminous) and the tuned ones it used in case 4.
WBTHROTTLE_XFS_OPTIONS = {
    "filestore_wbthrottle_enable": True,
    "filestore_wbthrottle_xfs_bytes_start_flusher": 41943040,
    "filestore_wbthrottle_xfs_bytes_hard_limit": 419430400,
    "filestore_wbthrottle_xfs_ios_start_flusher": 500,
    "filestore_wbthrottle_xfs_ios_hard_limit": 5000,
    "filestore_wbthrottle_xfs_inodes_start_flusher": 500,
    "filestore_wbthrottle_xfs_inodes_hard_limit": 5000,
}


def backoff_delay(r, low=0.3, high=0.9, expected_throughput=200.0, high_multiple=0.0,
                  max_multiple=0.0, cost=1.0):
    """Seconds a caller waits in Ceph's BackoffThrottle at fill ratio r (vectorised over r).

    delay = 0 for r < low; cost*(r-low)*e/(high-low) for low <= r < high;
    cost*(e + (r-high)*(m-e)/(1-high)) for r >= high, with e = high_multiple /
    expected_throughput and m = max_multiple / expected_throughput (see the module text
    for the edge cases high == low and high == 1, taken from `BackoffThrottle::set_params`).

    r: current / max of the throttle, >= 0 (dimensionless; may exceed 1).
    low, high: thresholds as fractions of max, 0 <= low <= high <= 1.
    expected_throughput: units of cost per second the store is expected to sustain (> 0).
    high_multiple, max_multiple: delay multiples at r = high and r = 1, 0 <= high <= max.
    cost: units the caller asks for (1 for the ops throttle, bytes for the bytes throttle).
    Returns seconds (float for scalar r, array otherwise).

    Source: Ceph src/common/Throttle.cc, BackoffThrottle::_get_delay and set_params (same
    in every stored version from Luminous on); seed 000_ff3932318711fad8.txt "Dynamic
    Throttle" slide. Provenance: Ceph code, v12.2-v16.2.
    """
    r = _check.non_negative("r", r)
    low, high, e, s0, s1 = _params(low, high, expected_throughput, high_multiple, max_multiple)
    cost = float(_check.non_negative("cost", cost))
    ramp = cost * (r - low) * s0
    steep = cost * (e + (r - high) * s1)
    delay = np.where(r < low, 0.0, np.where(r < high, ramp, steep))
    return _check.scalar(delay)


def max_rate(r, **params):
    """Ops per second the throttle lets through at fill ratio r: 1 / delay (inf where 0).

    Callers wait one after another (FIFO, each sleeping its delay at the head of the queue),
    so the delay is a time per op, not per caller. Same parameters as backoff_delay.
    Source: BackoffThrottle::get in src/common/Throttle.cc. Provenance: Ceph code.
    """
    delay = np.asarray(backoff_delay(r, **params), dtype=float)
    with np.errstate(divide="ignore"):
        rate = np.where(delay > 0, 1.0 / np.where(delay > 0, delay, 1.0), np.inf)
    return _check.scalar(rate)


def filestore_throttle_params(kind="ops", config=None):
    """backoff_delay keyword arguments for one of FileStore's throttles, from Ceph options.

    kind: "ops" or "bytes" (the two op-queue throttles) or "journal" (JournalThrottle).
    config: {option name: value}, e.g. what a lab set with `ceph config set osd ...`;
    options not given take their Pacific defaults (FILESTORE_THROTTLE_OPTIONS).

    Which multiple is used: the generic filestore_queue_{high,max}_delay_multiple when it is
    non-zero, else the _ops/_bytes one. Luminous 12.1.3's FileStore::set_throttle_params
    (read) passes only the generic pair; the split options appear in Pacific's option
    list, and the fall-back order here follows later FileStore.cc as we recall it (not
    checked against a stored v16 copy). Set the generic pair and both readings agree.
    Provenance: Ceph code (options), course-defined (fall-back order).
    """
    opts = dict(FILESTORE_THROTTLE_OPTIONS)
    unknown = set(config or {}) - set(opts)
    if unknown:
        raise ValueError(f"unknown throttle option(s) {sorted(unknown)}; "
                         f"known: {sorted(opts)}")
    opts.update(config or {})
    if kind not in ("ops", "bytes", "journal"):
        raise ValueError(f"kind must be 'ops', 'bytes' or 'journal', got {kind!r}")
    unit = "bytes" if kind == "bytes" else "ops"
    expected = opts[f"filestore_expected_throughput_{unit}"]
    if kind == "journal":
        return dict(low=opts["journal_throttle_low_threshhold"],
                    high=opts["journal_throttle_high_threshhold"],
                    expected_throughput=expected,
                    high_multiple=opts["journal_throttle_high_multiple"],
                    max_multiple=opts["journal_throttle_max_multiple"])
    high = opts["filestore_queue_high_delay_multiple"] or \
        opts[f"filestore_queue_high_delay_multiple_{kind}"]
    top = opts["filestore_queue_max_delay_multiple"] or \
        opts[f"filestore_queue_max_delay_multiple_{kind}"]
    return dict(low=opts["filestore_queue_low_threshhold"],
                high=opts["filestore_queue_high_threshhold"],
                expected_throughput=expected, high_multiple=high, max_multiple=top)


def _params(low, high, expected_throughput, high_multiple, max_multiple):
    """Validate like BackoffThrottle::set_params and return (low, high, e, s0, s1)."""
    low = float(_check.fraction("low", low))
    high = float(_check.fraction("high", high))
    if low > high:
        raise ValueError(f"low must be <= high (Ceph's set_params rejects low > high), "
                         f"got low={low:g}, high={high:g}")
    expected = float(_check.positive("expected_throughput", expected_throughput))
    hm = float(_check.non_negative("high_multiple", high_multiple))
    mm = float(_check.non_negative("max_multiple", max_multiple))
    if hm > mm:
        raise ValueError(f"high_multiple must be <= max_multiple (Ceph's set_params rejects "
                         f"it otherwise), got {hm:g} > {mm:g}")
    e, m = hm / expected, mm / expected
    # A gap so narrow that its slope overflows a double (high - low ~ 1e-313) is taken as no gap:
    # Ceph's own arithmetic would multiply 0 by inf there and sleep NaN seconds.
    with np.errstate(over="ignore", divide="ignore"):
        s0 = np.float64(e) / (high - low) if high - low > 0 else np.inf
        s1 = np.float64(m - e) / (1 - high) if 1 - high > 0 else np.inf
    if not np.isfinite(s0):
        low, s0 = high, 0.0
    if not np.isfinite(s1):
        high, s1 = 1.0, 0.0
    return low, high, e, float(s0), float(s1)


# BlueStore's transaction throttles and their Pacific defaults (`ceph-conf -D`, Debian's
# ceph-base 16.2.15). BlueStore has no backoff curve: a transaction either fits under the
# byte budget or waits (the plain Throttle of src/common/Throttle.cc).
BLUESTORE_THROTTLE_OPTIONS = {
    "bluestore_throttle_bytes": 67108864,
    "bluestore_throttle_deferred_bytes": 134217728,
    "bluestore_throttle_cost_per_io_hdd": 670000,
    "bluestore_throttle_cost_per_io_ssd": 4000,
    "bluestore_max_blob_size_hdd": 65536,      # and _ssd: 64 KiB in 16.2.15, 18.2.7 and 20.2.4
}


def bluestore_device_ios(write_bytes, max_blob_size=65536, commit_share=1.0):
    """Device writes one BlueStore replica write causes, first to last (vectorised over write_bytes).

    ios = commit_share + ceil(write_bytes / max_blob_size)

    direct:   one aio per blob of at most bluestore_max_blob_size (64 KiB), then the key-value
              commit (a RocksDB WAL write) that records where the data went;
    deferred: the commit, whose WAL record carries the data, then the same data written in
              place later, one aio per blob (BlueStore's deferred queue).
    The count is the same either way, so the function does not ask which: deferring changes the
    bytes (the data is written twice, models.waf) and when the in-place write happens, not how
    many writes reach the device.
    commit_share: the part of one WAL write each transaction pays, 0 <= commit_share <= 1:
      1 when every transaction commits alone (one write in flight, the queue-depth-1 count of a
      disk-IOPS bound); BlueStore's kv sync thread commits every transaction queued since its
      last commit in one synchronous RocksDB write (BlueStore::_kv_sync_thread), so with n
      transactions per commit each pays 1 / n.
    write_bytes: the replica write in bytes (> 0); max_blob_size: bytes (> 0).
    bluestore_write_ios, what _txc_calc_cost charges, is this count with a whole commit and
    without the deferred write's in-place aio, which is queued after the commit, outside the
    transaction's own I/O context. models.iops.device_writes_per_write (lab 03) is this count.
    Source: BlueStore::_txc_calc_cost (src/os/bluestore/BlueStore.cc@v18.2.7:12594),
    IOContext::get_num_ios (src/blk/BlockDevice.cc@v18.2.7:78), one aio per
    KernelDevice::aio_write (src/blk/kernel/KernelDevice.cc@v18.2.7:1086), the blob size
    (src/common/options/global.yaml.in@v18.2.7:4659), BlueStore::_kv_sync_thread (the batch).
    Provenance: Ceph code, v16.2-v20.2.
    """
    size = np.asarray(_check.positive("write_bytes", write_bytes), dtype=float)
    blob = _check.positive("max_blob_size", max_blob_size)
    share = _check.fraction("commit_share", commit_share)
    return _check.scalar(share + np.ceil(size / blob))


def bluestore_write_ios(write_bytes, deferred=False, max_blob_size=65536):
    """The I/Os one BlueStore write transaction is charged for (vectorised over write_bytes).

    ios = 1                                       deferred (its data rides in the commit)
    ios = 1 + ceil(write_bytes / max_blob_size)   direct

    That is bluestore_device_ios(write_bytes, max_blob_size, commit_share=1) less,
    for a deferred write, its in-place aio (one per blob), which BlueStore queues only after the
    commit and does not charge here. BlueStore cuts a direct write into blobs of at most
    bluestore_max_blob_size (64 KiB on HDD and SSD) and queues one aio per blob; _txc_calc_cost
    charges one I/O for the key-value commit plus one per queued aio (IOContext::get_num_ios
    counts pending_aios). So a 64 KiB direct write is 2 I/Os, a 4 MiB one 65: at 670,000 bytes
    per I/O on HDD that is 47.7 MB of a 64 MiB budget, one such transaction in flight per OSD,
    not a dozen.
    write_bytes: the client write in bytes (> 0); max_blob_size: bytes (> 0).
    Source: BlueStore::_txc_calc_cost (src/os/bluestore/BlueStore.cc@v18.2.7:12594),
    IOContext::get_num_ios (src/blk/BlockDevice.cc@v18.2.7:78), one aio per
    KernelDevice::aio_write (src/blk/kernel/KernelDevice.cc@v18.2.7:1086), the blob size
    (src/common/options/global.yaml.in@v18.2.7:4659); measured on the lab's Pacific cluster:
    2.002 and 65.002 I/Os per 64 KiB and 4 MiB transaction (the encoding's ~1.5 KB adds the
    0.002). Provenance: Ceph code, v16.2-v20.2, and measured.
    """
    ios = np.asarray(bluestore_device_ios(write_bytes, max_blob_size, 1.0), dtype=float)
    blobs = ios - 1.0                       # the data's aios, direct, or in place after a deferral
    return _check.scalar(ios - blobs if deferred else ios)


def bluestore_txc_cost(txn_bytes, ios=1, cost_per_io=670000):
    """What one BlueStore transaction charges to bluestore_throttle_bytes (vectorised).

    cost = ios * cost_per_io + txn_bytes

    txn_bytes: the transaction's encoded size in bytes, data included (>= 0).
    ios: 1 for the key-value commit plus one per aio the transaction queues itself (a
      deferred write adds none: its data rides in the commit; a direct write one per 64 KiB
      blob, bluestore_write_ios), >= 1.
    cost_per_io: bluestore_throttle_cost_per_io_hdd (670000) or _ssd (4000), bytes per I/O.
    Returns bytes of throttle budget. A 4 KiB deferred write on HDD costs about 674 KB:
    the I/O count, not the data, fills the budget.
    Source: Ceph src/os/bluestore/BlueStore.cc, BlueStore::_txc_calc_cost (Pacific);
    option defaults from ceph-conf -D 16.2.15. Provenance: Ceph code, v16.2.
    """
    size = _check.non_negative("txn_bytes", txn_bytes)
    n = _check.integer("ios", ios, lo=1)
    per_io = _check.non_negative("cost_per_io", cost_per_io)
    return _check.scalar(n * per_io + size)


def bluestore_max_inflight(txn_bytes, ios=1, cost_per_io=670000, throttle_bytes=67108864):
    """How many such transactions fit in bluestore_throttle_bytes at once (vectorised).

    n = max(1, floor(throttle_bytes / cost)), cost from bluestore_txc_cost.
    A Throttle get waits while count + cost > max, except that an empty throttle always
    admits one request, hence at least 1. With HDD defaults that is 99 in-flight 4 KiB
    writes per OSD, 8289 on SSD: the cost per I/O stands in for the device's queue depth.
    throttle_bytes: bluestore_throttle_bytes (bytes, > 0).
    Source: BlueStore::_txc_calc_cost and Throttle::_should_wait (src/common/Throttle.cc).
    Provenance: Ceph code, v16.2.
    """
    cost = np.asarray(bluestore_txc_cost(txn_bytes, ios, cost_per_io), dtype=float)
    budget = _check.positive("throttle_bytes", throttle_bytes)
    with np.errstate(divide="ignore"):
        n = np.where(cost > 0, np.floor(budget / np.where(cost > 0, cost, 1.0)), np.inf)
    return _check.scalar(np.maximum(n, 1.0))


def bluestore_deferred_throttle_max(throttle_bytes=67108864, deferred_bytes=134217728):
    """The max of throttle-bluestore_throttle_deferred_bytes: throttle_bytes + deferred_bytes.

    Deferred writes are charged to a second throttle whose limit BlueStore sets to the sum of
    the two options (bytes; 64 MiB + 128 MiB = 192 MiB by default), so `perf dump` shows a
    max of 201326592, not the 134217728 of bluestore_throttle_deferred_bytes.
    Source: BlueStore's throttle reset in src/os/bluestore/BlueStore.cc (Pacific), checked
    against `ceph tell osd.N perf dump` on the lab cluster. Provenance: Ceph code + measured.
    """
    a = _check.non_negative("throttle_bytes", throttle_bytes)
    b = _check.non_negative("deferred_bytes", deferred_bytes)
    return _check.scalar(a + b)
