"""The one checksummed write and verify: objects of random bytes whose MD5 is kept in a
manifest, read back later to prove no data was lost (faults, recovery, the smoke check).

Through librados when the Python binding imports (several writers in flight: one synchronous
write at a time waits for every replica, ~10x slower for 1 MiB objects on the lab's disk), else
through `rados put/get -` (core.run, bytes in and out).

When space runs out a write raises ClusterFull (which flag, which OSDs, what to do) rather than
wait: a full pool answers at once (Cluster.ioctx asks for ENOSPC), and a write still pending when
the host disk under the cluster fills (the OSD that hit ENOSPC will never answer) is given up.
write_objects() then puts what it had written into the error's .written, so nothing
acknowledged goes unchecked.
"""
from __future__ import annotations

import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from cephlab.cluster import full
from cephlab.cluster.base import ClusterCore
from cephlab.core import run
from cephlab.core.errors import ClusterError, ClusterFull

try:
    import rados
except ImportError:                 # pragma: no cover - depends on the machine
    rados = None

WAIT_SLICE_S = 1.0      # how often a pending write looks at the host disk


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def put(cluster: ClusterCore, pool: str, name: str, data: bytes) -> None:
    """Write one whole object; ClusterFull when space has run out."""
    full.check_host(cluster, pool)
    if rados is None:
        try:
            run.run(["rados", "-c", cluster.conf, "-p", pool, "put", name, "-"], input=data,
                    text=False, what=f"rados put {pool}/{name}")
        except ClusterError as e:
            full.diagnose(cluster, pool, e)
            raise
        return
    with cluster.ioctx(pool) as io:
        done = threading.Event()
        completion = io.aio_write_full(name, data, oncomplete=lambda _: done.set())
        while not done.wait(WAIT_SLICE_S):
            full.check_host(cluster, pool)
        ret = completion.get_return_value()
        if ret < 0:     # raised inside the context, which turns ENOSPC into ClusterFull
            raise rados.Error(f"write_full {pool}/{name}: {os.strerror(-ret)}", errno=-ret)


def get(cluster: ClusterCore, pool: str, name: str) -> bytes | None:
    """One whole object, or None when it does not exist."""
    if rados is None:
        out = run.run(["rados", "-c", cluster.conf, "-p", pool, "get", name, "-"], text=False,
                      check=False)
        return out.stdout if out.returncode == 0 else None
    with cluster.ioctx(pool) as io:
        try:
            size, _ = io.stat(name)
            return io.read(name, length=max(size, 1))
        except rados.ObjectNotFound:
            return None


def write_objects(cluster: ClusterCore, pool: str, count: int, size: int, prefix: str = "obj",
                  threads: int = 8) -> dict[str, str]:
    """Write `count` objects of `size` random bytes with `threads` writers; {name: md5}.

    ClusterFull when space runs out; its .written holds {name: md5} of the objects written
    (acknowledged) before that."""
    written: dict[str, str] = {}
    stop = threading.Event()

    def one(i: int) -> None:
        if stop.is_set():
            return
        name, data = f"{prefix}-{i:06d}", os.urandom(size)
        try:
            put(cluster, pool, name, data)
        except Exception:
            stop.set()          # the writers still queued give up instead of failing one by one
            raise
        written[name] = md5(data)
    if rados is not None:
        cluster.wait_for_latest_osdmap()        # a pool re-created under the same name
    full.check_writable(cluster, pool)
    try:
        with ThreadPoolExecutor(threads) as ex:
            list(ex.map(one, range(count)))
    except ClusterFull as e:
        e.written = dict(written)
        raise
    return {n: written[n] for n in (f"{prefix}-{i:06d}" for i in range(count))}


def verify_objects(cluster: ClusterCore, pool: str, manifest: dict[str, str], threads: int = 8) -> list[str]:
    """Names in the manifest whose object is missing or differs (empty list: all intact)."""
    def bad(item: tuple[str, str]) -> str | None:
        name, want = item
        data = get(cluster, pool, name)
        return None if data is not None and md5(data) == want else name
    if rados is not None:
        # an OSD restarted since this client's last map listens elsewhere: reads sent to its old
        # address wait seconds for a retry
        cluster.wait_for_latest_osdmap()
    with ThreadPoolExecutor(threads) as ex:
        return sorted(n for n in ex.map(bad, manifest.items()) if n)
