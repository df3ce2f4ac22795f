"""Write amplification of Ceph's storage back ends: FileStore, BlueStore and KStore.

WAF = bytes the OSDs write to their devices / bytes the client wrote. Every model here
counts, per client write of `write_bytes`, what one replica writes, splits it into named
components, and multiplies by `replicas` (each replica OSD does the same work).

Seed 003_6caa91e4707f31ce.txt (Lee et al., "Understanding Write Behaviors of Storage
Backends in Ceph Object Store", MSST 2017; Ceph Jewel 10.2.5, 16 OSDs, 3 replicas) found:
- microbenchmark (fresh install per write size): FileStore WAF over 40 at 4 KiB, converging
  to 6 (3 replicas x 2 for the Ceph journal); KStore and BlueStore converging to 3;
- long-term 4 KiB random writes on FileStore: data 3, Ceph metadata 0.702, Ceph journal
  5.994, file system metadata 0.419, file system journal 3.635 (13.75 in all);
- BlueStore's small writes, "Because the minimum extent size is set to 64KB": "Zero-filled data
  for the hole" (a first write into a unit: bluestore_waf(4096, **BLUESTORE_JEWEL_HDD) = 52.0)
  and "WAL (Write-Ahead Logging) for small overwrite" (a later write into it, overwrite=True:
  10.0); its long run mixes the two (bluestore_longterm_waf: 12.9; the seed: "more than 13x").
The lab's authors measured BlueStore on Ceph 16.2.15 (HDD class; data/bluestore_waf_reference.csv):
4 KiB random overwrite, QD 16, WAF 10.0 = 5.25 RocksDB WAL + 3.0 deferred data + 1.07 BlueFS log
+ 0.68 not itemised; with bluestore_prefer_deferred_size_hdd = 0: 7.28.

Each result is the total WAF (a float, or an array for array input) with a `.parts` dict
{component: WAF} that sums to it.
"""
from __future__ import annotations

import numpy as np

from models import _check, data

KIB = 1024
MIB = 1024 * 1024

# FileStore bytes per client write per replica beyond the data and the Ceph journal.
# FILESTORE_LONGTERM is seed 003's long-term 4 KiB breakdown turned into bytes
# (e.g. FS journal 3.635 / 3 replicas * 4096 B = 4963 B); with it filestore_waf(4096)
# gives the seed's 13.75. FILESTORE_FRESH (the default) keeps that split but scales it
# so 4 KiB writes on a fresh install give 42, just over the seed's "over 40": a first write
# creates the object's file, allocates its extents and adds its omap keys, all of which XFS
# logs. Calibrated to the seed, not derived.
FILESTORE_LONGTERM = {"ceph_metadata_bytes": 958, "fs_metadata_bytes": 572,
                      "fs_journal_bytes": 4963}
FILESTORE_FRESH = {"ceph_metadata_bytes": 6648, "fs_metadata_bytes": 3969,
                   "fs_journal_bytes": 34439}

# BlueStore as in seed 003 (Jewel, HDD): 64 KiB allocation unit, and a small write into a
# hole is padded with zeros to the whole unit ("zero-filled data for the hole"). That is the
# first write into a unit; a later write into the same unit overwrites allocated blocks and
# goes through the WAL ("WAL (Write-Ahead Logging) for small overwrite"): pass overwrite=True.
BLUESTORE_JEWEL_HDD = {"min_alloc_size": 64 * KIB, "prefer_deferred_size": 0,
                       "zero_fill": True}

# Seed 003's long-term workload: "4KB random writes with QD=128 until the total write amount
# reaches 90% of the capacity (57.6GiB)" of its "64GiB KRBD".
SEED003_IMAGE_BYTES = 64 * 1024 * MIB
SEED003_LONGTERM_WRITTEN_BYTES = 0.9 * SEED003_IMAGE_BYTES


class WAF(float):
    """A total write amplification factor that also carries its components in .parts."""

    parts: dict[str, float]

    def __new__(cls, total, parts):
        obj = super().__new__(cls, total)
        obj.parts = parts
        return obj

    def __repr__(self):
        inner = ", ".join(f"{k}={v:.3f}" for k, v in self.parts.items())
        return f"WAF({float(self):.3f}; {inner})"


class WAFArray(np.ndarray):
    """Array version of WAF, for array input: totals, with .parts holding arrays."""

    def __new__(cls, total, parts):
        obj = np.asarray(total, dtype=float).view(cls)
        obj.parts = parts
        return obj

    def __array_finalize__(self, obj):
        self.parts = getattr(obj, "parts", None)


def filestore_waf(write_bytes, replicas=3, page_size=4096, journal_block=4096,
                  journal_overhead_bytes=1024, **metadata):
    """FileStore WAF per client write of write_bytes (vectorised over write_bytes).

    Per replica, in bytes per client write:
      data          = ceil(w / page_size) * page_size        (buffered write to the file)
      ceph_journal  = ceil((w + journal_overhead_bytes) / journal_block) * journal_block
                      (the whole transaction, data included, goes to the journal first)
      ceph_metadata = ceph_metadata_bytes                    (omap/xattrs: object info, PG log)
      fs_metadata   = fs_metadata_bytes, fs_journal = fs_journal_bytes (XFS's own)
    WAF = replicas * sum / w. Large writes: replicas * 2 (data + journal), the seed's 6.

    metadata: ceph_metadata_bytes, fs_metadata_bytes, fs_journal_bytes; defaults are
    FILESTORE_FRESH (seed's microbenchmark); pass **FILESTORE_LONGTERM for its long-term run.
    journal_overhead_bytes (1024) stands for the transaction's encoding and entry header
    (assumed; any value from 1 to 4095 gives the same 2x for 4 KiB writes).
    Source: seed 003_6caa91e4707f31ce.txt (Lee et al., MSST 2017). Provenance: paper
    (shape and calibration points) + course-defined (the component formulas).
    """
    w = _write_size(write_bytes)
    n = _replicas(replicas)
    meta = _merge(FILESTORE_FRESH, metadata)
    page = _check.integer("page_size", page_size, lo=512)
    block = _check.integer("journal_block", journal_block, lo=512)
    overhead = _check.non_negative("journal_overhead_bytes", journal_overhead_bytes)
    parts = {
        "data": _align(w, page),
        "ceph_journal": _align(w + overhead, block),
        "ceph_metadata": meta["ceph_metadata_bytes"] + 0 * w,
        "fs_metadata": meta["fs_metadata_bytes"] + 0 * w,
        "fs_journal": meta["fs_journal_bytes"] + 0 * w,
    }
    return _result(parts, w, n)


def bluestore_waf(write_bytes, replicas=3, min_alloc_size=4096, prefer_deferred_size=65536,
                  block_size=4096, zero_fill=False, kv_bytes=3072, bluefs_log_bytes=1461,
                  sst_bytes=928, overwrite=False):
    """BlueStore WAF per client write of write_bytes (vectorised over write_bytes).

    Per replica, in bytes per client write:
    - deferred write: the data goes into the RocksDB WAL with the transaction, then to its
      place on disk:
        rocksdb_wal = ceil(w / block) * block + kv_bytes, deferred_data = ceil(w / block) * block
      A write is deferred when w < prefer_deferred_size, or when overwrite is true and
      w < min_alloc_size (an overwrite of allocated blocks inside one allocation unit is
      deferred with no size test: BlueStore::_do_write_small, src/os/bluestore/
      BlueStore.cc@v18.2.7:14985-15030; seed 003: "WAL (Write-Ahead Logging) for small
      overwrite").
    - otherwise (direct write to newly allocated space):
        data = ceil(w / min_alloc) * min_alloc if zero_fill else ceil(w / block) * block,
        rocksdb_wal = kv_bytes (metadata only)
    - always: bluefs_log = bluefs_log_bytes, rocksdb_sst = sst_bytes (flushes/compaction).
    WAF = replicas * sum / w; large writes tend to replicas (the seed's 3).

    overwrite: False (default) for a write into space with nothing allocated, such as the
    first write into a hole; True for a write onto blocks already allocated. A write of a
    whole allocation unit or more gets new space either way (copy on write), so overwrite
    changes only writes below min_alloc_size; an overwrite is never zero-filled (its unit
    already holds data).
    Seed 003's two cases at 4 KiB with **BLUESTORE_JEWEL_HDD: the first write into a hole
    gives 52.0 (48 of it the 64 KiB unit, data and zeros, on 3 replicas); an overwrite gives
    10.0 (6 of it the data written twice, WAL then in place, on 3 replicas; the rest the
    metadata calibrated below). bluestore_longterm_waf mixes the two as the seed's long run did.

    Defaults are Pacific's for HDD (min_alloc 4 KiB, bluestore_prefer_deferred_size_hdd
    64 KiB, checked with ceph-conf -D on 16.2.15) and per-write metadata calibrated to the
    native-cluster measurement: kv_bytes = (5.25 / 3 - 1) * 4096, bluefs_log_bytes = 1.07 / 3
    * 4096, sst_bytes = the 0.68 the note does not itemise / 3 * 4096 (our reading: SST
    writes, the one counter left in the note's list). So bluestore_waf(4096) = 10.0, and
    with prefer_deferred_size=0 it gives 7.0 against the measured 7.28: the model keeps
    the same metadata per write, while a direct overwrite also changes the allocation
    (freelist keys), which it does not count.
    Seed 003 ran Jewel with 64 KiB allocation on HDD: pass **BLUESTORE_JEWEL_HDD.
    Source: seed 003_6caa91e4707f31ce.txt; data/bluestore_waf_reference.csv (measured, Ceph
    16.2.15); Ceph options (Pacific). Provenance: measured (calibration) + course-defined.
    """
    w = _write_size(write_bytes)
    n = _replicas(replicas)
    alloc = _check.integer("min_alloc_size", min_alloc_size, lo=512)
    block = _check.integer("block_size", block_size, lo=512)
    if alloc % block:
        raise ValueError(f"min_alloc_size must be a multiple of block_size ({block}), "
                         f"got {alloc}")
    defer = _check.non_negative("prefer_deferred_size", prefer_deferred_size)
    kv = _check.non_negative("kv_bytes", kv_bytes)
    small_overwrite = (w < alloc) & bool(overwrite)
    deferred = (w < defer) | small_overwrite
    padded = _align(w, block)
    direct = _align(w, alloc) if zero_fill else padded
    parts = {
        "data": np.where(deferred, 0.0, direct),
        "deferred_data": np.where(deferred, padded, 0.0),
        "rocksdb_wal": kv + np.where(deferred, padded, 0.0),
        "bluefs_log": _check.non_negative("bluefs_log_bytes", bluefs_log_bytes) + 0 * w,
        "rocksdb_sst": _check.non_negative("sst_bytes", sst_bytes) + 0 * w,
    }
    return _result(parts, w, n)


def first_write_fraction(write_bytes=4096, min_alloc_size=64 * KIB,
                         image_bytes=SEED003_IMAGE_BYTES, written_bytes=SEED003_LONGTERM_WRITTEN_BYTES):
    """Share of uniformly random writes that are the first into their allocation unit (vectorised).

        f = U * (1 - exp(-n / U)) / n,   U = image_bytes / min_alloc_size (units),
                                         n = written_bytes / write_bytes (writes)

    After n writes, each into a unit drawn at random, U * (1 - exp(-n/U)) units have been hit
    at least once (the expected count, for large U), and each of them was a hole exactly once.
    Seed 003's long run (4 KiB writes, 64 KiB units, 57.6 GiB into a 64 GiB image): n / U =
    14.4, f = 0.0694; the other 93 % of the writes overwrite allocated blocks.
    write_bytes: bytes, 0 < write_bytes <= min_alloc_size (a write inside one unit);
    min_alloc_size, image_bytes: bytes (> 0); written_bytes: bytes written in all (> 0).
    Source: seed 003_6caa91e4707f31ce.txt (workload). Provenance: course-defined (uniform
    random offsets, as fio's randwrite draws them).
    """
    w = _write_size(write_bytes)
    alloc = _check.positive("min_alloc_size", min_alloc_size)
    big, unit = np.broadcast_arrays(w, alloc)
    if (big > unit).any():
        raise ValueError(f"write_bytes must be in (0, min_alloc_size] (a write inside one allocation "
                         f"unit), got {big[big > unit][0]:g} > {unit[big > unit][0]:g}")
    units = _check.positive("image_bytes", image_bytes) / alloc
    writes = _check.positive("written_bytes", written_bytes) / w
    return _check.scalar(units * -np.expm1(-writes / units) / writes)


def bluestore_longterm_waf(write_bytes=4096, image_bytes=SEED003_IMAGE_BYTES,
                           written_bytes=SEED003_LONGTERM_WRITTEN_BYTES, **bluestore):
    """BlueStore WAF of a long run of random writes: first writes and overwrites mixed (vectorised).

        WAF = f * bluestore_waf(w, **bluestore) + (1 - f) * bluestore_waf(w, overwrite=True, **bluestore)
        f   = first_write_fraction(w, min_alloc_size, image_bytes, written_bytes)

    bluestore: keyword arguments of bluestore_waf (not overwrite); default **BLUESTORE_JEWEL_HDD,
    seed 003's BlueStore. At the seed's long run (4 KiB, 64 GiB image, 57.6 GiB written):
    0.0694 * 52.0 + 0.9306 * 10.0 = 12.9. The seed found "Writes are amplified by more than 13x
    in Ceph" for every back end, BlueStore's "Small write requests are logged on RocksDB WAL"
    and "Unignorable zero-filled data & compaction traffic"; the model's compaction (sst_bytes)
    is a 30 s run's on Pacific, and its metadata bytes are Pacific's, not Jewel's.
    Returns a WAF whose .parts are the mixed parts (they sum to the total).
    Source: seed 003_6caa91e4707f31ce.txt. Provenance: paper (workload, the two cases) +
    measured (metadata bytes, data/bluestore_waf_reference.csv) + course-defined (the mix).
    """
    if "overwrite" in bluestore:
        raise ValueError("overwrite is not a parameter of bluestore_longterm_waf: it mixes both cases")
    params = {**BLUESTORE_JEWEL_HDD, **bluestore}
    f = first_write_fraction(write_bytes, params["min_alloc_size"], image_bytes, written_bytes)
    hole = bluestore_waf(write_bytes, **params)
    over = bluestore_waf(write_bytes, overwrite=True, **params)
    parts = {k: f * hole.parts[k] + (1 - f) * over.parts[k] for k in hole.parts}
    total = sum(parts.values())
    if np.ndim(total) == 0:
        return WAF(float(total), {k: float(v) for k, v in parts.items()})
    return WAFArray(total, parts)


def kstore_waf(write_bytes, replicas=3, stripe_size=65536, overwrite=True, kv_bytes=3072,
               flushed_fraction=0.0, compaction_factor=0.0):
    """KStore WAF per client write of write_bytes (vectorised over write_bytes).

    KStore keeps object data in the key-value store as stripes of kstore_default_stripe_size
    (64 KiB); a write that covers part of a stripe rewrites the whole stripe value
    (KStore::_do_write reads the old stripe and writes it back with the new bytes in it).
    Per replica, in bytes per client write:
      kv_wal     = stripes + kv_bytes, stripes = ceil(w / stripe) * stripe if overwrite
                   (existing data) else w (first write, nothing to carry over)
      memtable_flush = flushed_fraction * kv_wal       (level-0 files written by flushes)
      compaction = compaction_factor * memtable_flush  (rewrites by compaction)
    flushed_fraction in [0, 1]: how much of the WAL traffic was flushed in the window
    (seed 003: "sudden WAF jumps due to memtable flush"; 0 for a run that fits in the
    memtable). compaction_factor >= 0 (the seed reports "huge compaction overhead" long
    term, without a number). kv_bytes: per-transaction metadata, assumed equal to
    BlueStore's calibrated 3072 B. Large writes tend to replicas (the seed's 3).
    Source: seed 003_6caa91e4707f31ce.txt; Ceph src/os/kstore/KStore.cc (_do_write).
    Provenance: paper (shape) + Ceph code (stripes) + course-defined.
    """
    w = _write_size(write_bytes)
    n = _replicas(replicas)
    stripe = _check.integer("stripe_size", stripe_size, lo=1)
    kv = _check.non_negative("kv_bytes", kv_bytes)
    flushed = _check.fraction("flushed_fraction", flushed_fraction)
    factor = _check.non_negative("compaction_factor", compaction_factor)
    wal = kv + (_align(w, stripe) if overwrite else w)
    parts = {"kv_wal": wal, "memtable_flush": flushed * wal,
             "compaction": factor * flushed * wal}
    return _result(parts, w, n)


def longterm_breakdown(backend="filestore"):
    """Seed 003's long-term 4 KiB random-write WAF by component, plus "total" (13.75).

    Read from data/seed003_waf_breakdown.csv. Only FileStore's numbers are in the seed's
    text, so only backend="filestore" is available. Provenance: paper.
    """
    rows = [r for r in data.load("seed003_waf_breakdown") if r["backend"] == backend]
    if not rows:
        raise ValueError(f"backend must be 'filestore': seed 003 states long-term numbers "
                         f"only for FileStore; got {backend!r}")
    parts = {r["component"]: float(r["waf"]) for r in rows}
    parts["total"] = round(sum(parts.values()), 6)
    return parts


def space_amplification(object_bytes, min_alloc_size):
    """Space used / data stored for one object: ceil(object / alloc) * alloc / object.

    object_bytes > 0 (bytes, vectorised); min_alloc_size > 0 (bytes; BlueStore: 64 KiB HDD
    / 16 KiB SSD before Octopus/Pacific, 4 KiB after). A 1 KiB object under 64 KiB
    allocation takes 64x its size. Source: Ceph docs, BlueStore configuration reference
    (bluestore_min_alloc_size_hdd/_ssd), and the Octopus and Pacific release notes. Provenance: Ceph
    code (allocation unit) + course-defined.
    """
    obj = _check.positive("object_bytes", object_bytes)
    alloc = _check.integer("min_alloc_size", min_alloc_size, lo=1)
    return _check.scalar(np.ceil(obj / alloc) * alloc / obj)


def _write_size(write_bytes):
    return _check.positive("write_bytes", write_bytes)


def _replicas(replicas):
    return _check.integer("replicas", replicas, lo=1)


def _align(x, unit):
    return np.ceil(x / unit) * unit


def _merge(defaults, given):
    unknown = set(given) - set(defaults)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)}; "
                         f"expected some of {sorted(defaults)}")
    merged = {**defaults, **given}
    return {k: float(_check.non_negative(k, v)) for k, v in merged.items()}


def _result(parts_bytes, w, replicas):
    parts = {k: replicas * np.asarray(v, dtype=float) / w for k, v in parts_bytes.items()}
    total = sum(parts.values())
    if np.ndim(total) == 0:
        return WAF(float(total), {k: float(v) for k, v in parts.items()})
    return WAFArray(total, parts)
