"""How many threads Ceph OSDs need, and how close a host gets to the kernel's limits.

Two messengers, two stories:
- SimpleMessenger (default up to Jewel, removed from Ceph in 2019 by PR #27007) ran two
  threads (reader + writer) per connection, so an OSD's thread count grew with its clients
  and its peers. Seed 004_3d50276d8cea0e54.txt (Xu Xuehan, Qihoo 360, Cephalocon APAC 2018)
  gives Max_threads_per_osd = 2 x (clients + 1 + 6 x pg_num_per_osd); no primary Ceph source
  for the formula was found by the lab's authors, so it is historical and
  course-defined. It can be computed, not run: Pacific has no SimpleMessenger.
- AsyncMessenger (default since Luminous) serves every connection from a fixed pool of
  ms_async_op_threads (3) event-loop workers per process, so threads stay flat as clients
  grow. The lab's authors measured 59 threads per OSD (Ceph 16.2.15,
  ms_type async+posix) whether idle or serving 1, 8 or 32 clients
  (data/native_cluster_reference.csv, row osd_threads).

Every thread is a kernel task with its own ID, so a host's threads count against
kernel.threads-max, kernel.pid_max (IDs are shared by processes and threads) and the
ceph user's RLIMIT_NPROC.
"""
from __future__ import annotations

import resource
from pathlib import Path

import numpy as np

from models import _check

ASYNC_OSD_THREADS_MEASURED = 59   # per OSD, Ceph 16.2.15: data/native_cluster_reference.csv
MS_ASYNC_OP_THREADS = 3           # Ceph default (ceph-conf -D, 16.2.15)
PID_MAX_DEFAULT = 32768           # kernel default for kernel.pid_max
PID_MAX_LIMIT_64BIT = 4194304     # the most kernel.pid_max may be set to on 64-bit
                                  # (systemd raises pid_max to it on many distributions)


def simple_messenger_threads(clients, pgs_per_osd):
    """Threads per OSD with SimpleMessenger: 2 x (clients + 1 + 6 x pgs_per_osd).

    clients: client connections to the OSD (whole number >= 0).
    pgs_per_osd: placement groups (copies) on the OSD (whole number >= 0).
    Returns threads per OSD (int, or an int array when inputs are arrays; broadcast).
    Source: seed 004_3d50276d8cea0e54.txt (Qihoo 360, Cephalocon APAC 2018).
    Provenance: historical (SimpleMessenger, removed 2019) + course-defined (no primary
    source for the formula).
    """
    c = _check.integer("clients", clients, lo=0)
    pgs = _check.integer("pgs_per_osd", pgs_per_osd, lo=0)
    return _check.scalar(2 * (c + 1 + 6 * pgs))


def async_messenger_threads(clients=0, ms_async_op_threads=MS_ASYNC_OP_THREADS,
                            other_threads=ASYNC_OSD_THREADS_MEASURED - MS_ASYNC_OP_THREADS):
    """Threads per OSD with AsyncMessenger: other_threads + ms_async_op_threads, any clients.

    The messenger's workers are one pool per process, so the count does not depend on
    clients (accepted only so the two messengers can be swept side by side; the result
    has its shape). other_threads (op shards, BlueStore, RocksDB, finishers, timers, admin
    socket, log...) defaults to the measured 59 minus the 3 workers: measured, not computed.
    Returns threads per OSD (int or int array).
    Source: data/native_cluster_reference.csv (59 threads per OSD at 0, 1, 8 and 32 clients,
    Ceph 16.2.15); Ceph option ms_async_op_threads (default 3). Provenance: measured.
    """
    c = _check.integer("clients", clients, lo=0)
    workers = _check.integer("ms_async_op_threads", ms_async_op_threads, lo=1, hi=24)
    other = _check.integer("other_threads", other_threads, lo=0)
    return _check.scalar(np.zeros_like(c) + workers + other)


def host_threads(osds_per_host, clients, pgs_per_osd, messenger="simple"):
    """Threads of all OSDs on one host: osds_per_host x threads per OSD.

    messenger: "simple" (seed 004 formula) or "async" (measured 59 per OSD).
    clients and pgs_per_osd are per OSD, as in seed 004's formula. Vectorised (broadcast).
    Provenance: as simple_messenger_threads / async_messenger_threads.
    """
    osds = _check.integer("osds_per_host", osds_per_host, lo=0)
    if messenger == "simple":
        per_osd = simple_messenger_threads(clients, pgs_per_osd)
    elif messenger == "async":
        _check.integer("pgs_per_osd", pgs_per_osd, lo=0)
        per_osd = async_messenger_threads(clients)
    else:
        raise ValueError(f"messenger must be 'simple' or 'async', got {messenger!r}")
    return _check.scalar(osds * np.asarray(per_osd))


def simple_messenger_threads_in_pool(clients, pgs_per_osd, pool_osds, size=3):
    """Seed 004's formula with the peer term capped by the pool's OSD count:

        threads = 2 x (clients + 1 + 3 x min((size - 1) x pgs_per_osd, pool_osds - 1))

    Our reading of seed 004's "6 x pg_num_per_osd": each PG of a size-3 pool gives an OSD
    (size - 1) = 2 peers, and SimpleMessenger kept 3 connections per peer (cluster messenger,
    front and back heartbeats), so 6 per PG -- but only while every PG brings new peers. An
    OSD cannot have more distinct peers than the pool has other OSDs, so in a small pool the
    term stops growing. That is why Qihoo 360 split one big pool into many small ones: "too
    many OSDs in one pool could lead to too many threads in one machine".
    For a big pool (pool_osds - 1 >= (size - 1) x pgs_per_osd) and size 3 this equals
    simple_messenger_threads(clients, pgs_per_osd). Whole numbers: clients >= 0,
    pgs_per_osd >= 0, pool_osds >= 1, size in [1, 20]. Vectorised (broadcast). Threads per OSD.
    Source: seed 004_3d50276d8cea0e54.txt (Qihoo 360, Cephalocon APAC 2018). Provenance:
    historical (SimpleMessenger) + course-defined (the cap and the 3-connections reading).
    """
    c = _check.integer("clients", clients, lo=0)
    pgs = _check.integer("pgs_per_osd", pgs_per_osd, lo=0)
    osds = _check.integer("pool_osds", pool_osds, lo=1)
    r = _check.integer("size", size, lo=1, hi=20)
    peers = np.minimum((r - 1) * pgs, osds - 1)
    return _check.scalar(2 * (c + 1 + 3 * peers))


def max_clients_per_osd(limit, osds_per_host, pgs_per_osd):
    """Most clients per OSD a host can serve with SimpleMessenger before its OSDs' threads
    exceed `limit` (e.g. kernel.pid_max):

        clients = floor(limit / (2 x osds_per_host)) - 1 - 6 x pgs_per_osd

    (host_threads(osds, clients, pgs) <= limit, solved for clients). Negative: even with no
    clients the host is over the limit. limit > 0, osds_per_host >= 1, pgs_per_osd >= 0 (whole
    numbers). Vectorised (broadcast). Source: seed 004 formula. Provenance: historical +
    course-defined (the inversion; other processes' threads are ignored).
    """
    lim = _check.positive("limit", limit)
    osds = _check.integer("osds_per_host", osds_per_host, lo=1)
    pgs = _check.integer("pgs_per_osd", pgs_per_osd, lo=0)
    return _check.scalar((np.floor(lim / (2 * osds)) - 1 - 6 * pgs).astype(np.int64))


def pipe_threads(connections):
    """Threads SimpleMessenger would run for `connections` open connections: 2 per connection
    (a reader and a writer thread, seed 004: "two threads per connection"). Whole number >= 0,
    vectorised. Used to ask what today's measured connections would have cost in Jewel.
    Provenance: historical (SimpleMessenger's Pipe, removed 2019).
    """
    return _check.scalar(2 * _check.integer("connections", connections, lo=0))


def headroom(threads, threads_max, pid_max=PID_MAX_DEFAULT, nproc=None):
    """Threads the host can still start: min(threads_max, pid_max, nproc) - threads.

    threads: threads the OSDs need (>= 0, vectorised). threads_max, pid_max, nproc: the
    kernel limits (kernel.threads-max, kernel.pid_max, the ceph user's RLIMIT_NPROC; None
    or inf for nproc = unlimited). A negative result is how many threads would fail to
    start (pthread_create/clone return EAGAIN). Ignores the threads of other processes:
    subtract them from the limits first. Provenance: Linux kernel documentation
    (Documentation/admin-guide/sysctl/kernel.rst), course-defined comparison.
    """
    need = _check.non_negative("threads", threads)
    limit = min(float(_check.positive("threads_max", threads_max)),
                float(_check.positive("pid_max", pid_max)),
                np.inf if nproc is None else float(_check.positive("nproc", nproc)))
    return _check.scalar(limit - need)


def kernel_thread_limits(proc=Path("/proc/sys/kernel")):
    """Read this machine's limits: {"threads_max", "pid_max", "nproc"} (nproc None = unlimited).

    The only function here that looks at the live system; pass its values to headroom().
    """
    limits: dict[str, int | None] = {}
    for key, name in (("threads_max", "threads-max"), ("pid_max", "pid_max")):
        path = Path(proc) / name
        try:
            limits[key] = int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError) as err:
            raise ValueError(f"cannot read {path} ({err}); pass the limits to headroom() "
                             f"yourself") from None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NPROC)
    limits["nproc"] = None if soft == resource.RLIM_INFINITY else int(soft)
    return limits
