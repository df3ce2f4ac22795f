"""The one checksummed write and verify: objects of random bytes whose MD5 is kept in a
manifest, read back later to prove no data was lost (faults, recovery, the smoke check).

Through librados when the Python binding imports (several writers in flight: one synchronous
write at a time waits for every replica, ~10x slower for 1 MiB objects on the lab's disk), else
through `rados put/get -` (core.run, bytes in and out).
"""
from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

from cephlab.core import run

try:
    import rados
except ImportError:                 # pragma: no cover - depends on the machine
    rados = None


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def put(cluster, pool: str, name: str, data: bytes) -> None:
    """Write one whole object."""
    if rados is None:
        run.run(["rados", "-c", cluster.conf, "-p", pool, "put", name, "-"], input=data,
                text=False, what=f"rados put {pool}/{name}")
        return
    with cluster.ioctx(pool) as io:
        io.write_full(name, data)


def get(cluster, pool: str, name: str) -> bytes | None:
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


def write_objects(cluster, pool: str, count: int, size: int, prefix: str = "obj",
                  threads: int = 8) -> dict[str, str]:
    """Write `count` objects of `size` random bytes with `threads` writers; {name: md5}."""
    def one(i):
        name, data = f"{prefix}-{i:06d}", os.urandom(size)
        put(cluster, pool, name, data)
        return name, md5(data)
    if rados is not None:
        cluster.wait_for_latest_osdmap()        # a pool re-created under the same name
    with ThreadPoolExecutor(threads) as ex:
        return dict(ex.map(one, range(count)))


def verify_objects(cluster, pool: str, manifest: dict[str, str], threads: int = 8) -> list[str]:
    """Names in the manifest whose object is missing or differs (empty list: all intact)."""
    def bad(item):
        name, want = item
        data = get(cluster, pool, name)
        return None if data is not None and md5(data) == want else name
    with ThreadPoolExecutor(threads) as ex:
        return sorted(n for n in ex.map(bad, manifest.items()) if n)
