"""CephFS metadata throughput: clients, latency, and the one MDS that serves them all.

Every metadata operation a client cannot answer from its own cache (create, rename, unlink, a
lookup of a name it has no lease on) is a request to the MDS, and an MDS rank handles its requests
one at a time under a single lock (the "Single Thread MDS" of seed 004, Xu Xuehan, *Ceph Goes
Online at Qihoo 360*, Cephalocon APAC 2018; Ceph's `MDSRank` runs request handling under
`mds_lock`). So metadata throughput behaves like a closed queueing network with one server:

    X(N) = min(N / R0, 1 / S)

with N clients each waiting for its reply before the next request (mdtest), R0 one request's
round trip when nobody queues (s) and S the MDS's time per request (s). Below N* = R0 / S
clients throughput grows with N; above, it is capped at 1 / S and extra clients only queue
(Little's law: response time = N / X). Operational laws: P. Denning and J. Buzen, *The
operational analysis of queueing network models*, ACM Computing Surveys 10(3), 1978.

A directory shared by several clients costs more requests per operation than private ones: the
MDS must revoke the directory's capabilities from one client before another may change it, and a
client that lost them must look names up again instead of answering from its cache. Seed 004's
mdtest table (data/seed004_mdtest.csv: 70 clients, one active MDS) shows the cost as a
serialisation factor, separate-directory ops/s over shared-directory ops/s: 1.6 for file
creation, 3.2 for removal, 6.3 for rename.
"""
from __future__ import annotations

import numpy as np

from models import _check
from models.data import load

SEED_TABLE = "seed004_mdtest"
SEED_CLIENTS = 70


def closed_loop_ops(clients, latency_s, service_s):
    """Metadata operations per second of `clients` closed-loop clients against one MDS.

        X = min(clients / latency_s, 1 / service_s)

    clients: clients with one request outstanding each (>= 1). latency_s: one request's round
    trip without queueing (> 0 s). service_s: the MDS's serialised time per request (> 0 s).
    Units: ops/s. Vectorised. Source: operational laws (Denning and Buzen 1978: throughput
    bounds of a closed network); single-threaded MDS from seed 004 (Xu Xuehan, Qihoo 360,
    Cephalocon APAC 2018). Provenance: course-defined.
    """
    n = _check.in_range("clients", clients, 1.0)
    r0 = _check.positive("latency_s", latency_s)
    s = _check.positive("service_s", service_s)
    return _check.scalar(np.minimum(n / r0, 1.0 / s))


def saturation_clients(latency_s, service_s):
    """N* = latency_s / service_s: the client count beyond which the MDS caps throughput.

    Units: clients (a real number). Valid: both > 0 s. Vectorised. Provenance: course-defined
    (the knee of the closed-loop bounds, Denning and Buzen 1978).
    """
    r0 = _check.positive("latency_s", latency_s)
    s = _check.positive("service_s", service_s)
    return _check.scalar(r0 / s)


def response_time(clients, latency_s, service_s):
    """Mean time one client waits per request: R = clients / X = max(latency_s, clients x service_s).

    Little's law applied to closed_loop_ops. Units: s. Valid as closed_loop_ops. Vectorised.
    Provenance: course-defined (Little's law).
    """
    n = _check.in_range("clients", clients, 1.0)
    return _check.scalar(n / np.asarray(closed_loop_ops(n, latency_s, service_s)))


def ops_with_requests(clients, latency_s, service_s, requests_per_op=1.0):
    """ops/s when each operation costs `requests_per_op` MDS requests, one after the other.

        X = closed_loop_ops(clients, latency_s x k, service_s x k) = closed_loop_ops(...) / k

    k = 1 for a create in a folder only this client uses; more in a folder shared with other
    clients (lookups after losing the folder's capabilities, capability revocations); 0 < k < 1
    when the client's cache answers some operations (a stat of a file it holds caps on).
    Units: ops/s. Valid: requests_per_op > 0, the rest as closed_loop_ops. Vectorised.
    Provenance: course-defined.
    """
    k = _check.positive("requests_per_op", requests_per_op)
    return _check.scalar(np.asarray(closed_loop_ops(clients, latency_s, service_s)) / k)


def serialisation_factor(separate_ops, shared_ops):
    """separate_ops / shared_ops: how many times slower a shared directory is (>= 1 expected).

    Units: dimensionless. Valid: both > 0 ops/s. Vectorised. Provenance: course-defined (the
    ratio seed 004's table invites).
    """
    sep = _check.positive("separate_ops", separate_ops)
    sh = _check.positive("shared_ops", shared_ops)
    return _check.scalar(sep / sh)


# -- seed 004's mdtest table ------------------------------------------------------------------------
def seed_table():
    """{(operation, directory): ops/s} of seed 004's mdtest run (directory: shared, separate, n/a)."""
    return {(row["operation"], row["directory"]): float(row["ops_per_s"]) for row in load(SEED_TABLE)}


def _seed_ops(operation, directory):
    table = seed_table()
    if (operation, directory) not in table:
        ops = sorted({op for op, _ in table})
        raise ValueError(f"operation must be one of {ops} with directory 'shared', 'separate' or "
                         f"'n/a' as the table has it, got ({operation!r}, {directory!r})")
    return table[(operation, directory)]


def seed_serialisation(operation):
    """Seed 004's separate / shared ops/s for `operation` (e.g. "File Creation" -> 1.643).

    Source: data/seed004_mdtest.csv (seed 004, Xu Xuehan, Qihoo 360, Cephalocon APAC 2018);
    provenance: measured.
    """
    return serialisation_factor(_seed_ops(operation, "separate"), _seed_ops(operation, "shared"))


def seed_service_time(operation, directory="separate"):
    """The MDS time per operation implied by seed 004's table: S = 1 / ops/s (s).

    70 clients kept one MDS saturated (the seed's "low cpu utilization" MDS was busy on one
    core), so its ops/s is the service rate. Provenance: measured (seed 004), interpreted with
    the course's closed-loop model.
    """
    return 1.0 / _seed_ops(operation, directory)


def seed_client_latency(operation, directory="separate", clients=SEED_CLIENTS):
    """Each client's mean time per operation in seed 004's run, by Little's law: clients / ops/s (s).

    File creation in separate directories: 70 / 4311.339 = 16.2 ms. Provenance: measured
    (seed 004) with Little's law.
    """
    n = _check.in_range("clients", clients, 1.0)
    return _check.scalar(n / _seed_ops(operation, directory))
