"""A SQL database on Ceph: commit latency, and the transactions per second it allows.

Seed 002_696ca3a238e3edbe.txt (J. Neudecker, HAW Hamburg thesis, 2021) ran mysqlslap with 4 to 20
concurrent users against MySQL on Ceph, an HDD and an SSD, and timed a fixed batch of queries. None
was local: MySQL ran in a VM on "a physically separate machine, which had the storage mounted by
either NFS or the ceph kernel-module". Ceph was one to two orders of magnitude slower, and its time
per batch fell as users were added. This module explains both with two ideas:

- A commit is durable only when the write-ahead log (WAL) record is on stable storage. Locally
  that is one fdatasync; on Ceph it is one replicated write: the client sends it to the primary
  OSD, the primary fans it out to the replicas in parallel, and acknowledges when the slowest
  copy is on disk (seed 000's write flow, models.writepath).
- Each client has one transaction in flight (a closed loop). One client alone needs R0 = CPU time
  + commit time per transaction; N clients can do at most N / R0 per second, and never more than
  the busiest resource allows (asymptotic bounds of a closed queueing network: E. Lazowska et al.,
  *Quantitative System Performance*, 1984, ch. 5). Group commit (PostgreSQL and InnoDB flush every
  waiting commit with one WAL write) keeps the log from being that resource; without it, commits
  go one flush at a time and tps stops at 1000 / commit_ms.

Units: milliseconds, transactions per second (tps), seconds per batch. Vectorised over clients.
"""
from __future__ import annotations

import numpy as np

from models import _check, writepath

MS_PER_S = 1000.0


def ceph_commit_ms(net_ms, wal_ms, osd_ms=0.0, replicas=3, flushes=1):
    """Commit latency of a database whose WAL lives on a replicated Ceph pool (RBD or CephFS).

        commit = flushes x write_latency(net, wal, osd, replicas)
        write_latency = net + osd + max(wal, 2 net + osd + wal) + net     (models.writepath)

    net_ms: one-way hop latency; wal_ms: an OSD's own durable write (BlueStore WAL commit on its
    device, about one local fdatasync); osd_ms: CPU time an OSD spends on one op; flushes: serial
    replicated writes per commit (1 for an overwrite of a preallocated WAL segment; a file
    system journal commit adds one). Milliseconds. Valid: times >= 0, replicas 1-20, flushes >= 1.
    Vectorised. Source: seed 000_ff3932318711fad8.txt (write flow) via models.writepath; seed
    002 (database on Ceph). Provenance: course-defined.
    """
    flushes = _check.in_range("flushes", flushes, 1.0)
    one = writepath.write_latency_ms(net_ms, wal_ms, osd_ms, replicas)
    return _check.scalar(flushes * one)


def transaction_ms(cpu_ms, commit_ms):
    """Time one client alone needs per transaction: R0 = cpu_ms + commit_ms.

    cpu_ms: everything that is not the commit's wait for storage (parsing, executing, the client's
    round trips over the local socket); commit_ms: the WAL flush. Milliseconds; valid >= 0 and
    R0 > 0. Vectorised. Provenance: course-defined.
    """
    cpu = _check.non_negative("cpu_ms", cpu_ms)
    commit = _check.non_negative("commit_ms", commit_ms)
    total = cpu + commit
    if np.any(total <= 0):
        raise ValueError("cpu_ms + commit_ms must be > 0 ms (a transaction takes some time); "
                         f"got {cpu_ms!r} + {commit_ms!r}")
    return _check.scalar(total)


def max_tps(cpu_ms_per_txn=0.0, cores=1.0, commit_ms=0.0, group_commit=True):
    """The throughput ceiling of the busiest resource, in transactions per second.

        CPU:  cores x 1000 / cpu_ms_per_txn        (inf when cpu_ms_per_txn = 0)
        log:  1000 / commit_ms without group commit (one flush per transaction); none with it
        max_tps = the lower of the two

    Valid: cpu_ms_per_txn >= 0, cores > 0, commit_ms >= 0. Vectorised. Source: asymptotic bounds
    (Lazowska et al. 1984, ch. 5); group commit: PostgreSQL 15 docs, "WAL Configuration"
    (commit_delay, commit_siblings). Provenance: course-defined.
    """
    cpu = _check.non_negative("cpu_ms_per_txn", cpu_ms_per_txn)
    cores = _check.positive("cores", cores)
    commit = _check.non_negative("commit_ms", commit_ms)
    with np.errstate(divide="ignore"):
        cpu_cap = np.where(cpu > 0, cores * MS_PER_S / np.where(cpu > 0, cpu, 1.0), np.inf)
        log_cap = np.inf if group_commit else np.where(commit > 0, MS_PER_S / np.where(commit > 0, commit, 1.0), np.inf)
    return _check.scalar(np.minimum(cpu_cap, log_cap))


def closed_loop_tps(clients, r0_ms, ceiling_tps=np.inf):
    """Transactions per second of `clients` clients, each with one transaction in flight.

        tps(N) = min(N x 1000 / R0, ceiling)

    An upper bound that real systems approach from below (queueing at the knee). Seed 002's
    mysqlslap users and pgbench's -c clients are such closed loops. Valid: clients >= 1,
    r0_ms > 0, ceiling_tps > 0. Vectorised. Provenance: course-defined (asymptotic bounds).
    """
    n = _check.in_range("clients", clients, 1.0)
    r0 = _check.positive("r0_ms", r0_ms)
    cap = _check.positive("ceiling_tps", ceiling_tps)
    return _check.scalar(np.minimum(n * MS_PER_S / r0, cap))


def latency_ms(clients, tps):
    """Average time per transaction seen by a client (Little's law): N x 1000 / tps, in ms."""
    n = _check.in_range("clients", clients, 1.0)
    tps = _check.positive("tps", tps)
    return _check.scalar(n * MS_PER_S / tps)


def batch_seconds(transactions, tps):
    """Seed 002's measure: seconds to finish a batch of `transactions` at `tps` (Little/rate).

    Valid: transactions >= 0, tps > 0. Vectorised. Provenance: course-defined.
    """
    tx = _check.non_negative("transactions", transactions)
    tps = _check.positive("tps", tps)
    return _check.scalar(tx / tps)
