"""Cluster.pg_stats unwraps both shapes Ceph answers with; the checksummed write/verify finds a
changed and a missing object. A fake client stands in for the cluster (no Ceph needed)."""
import contextlib
import types

import pytest

from cephlab.cluster import checksums
from cephlab.cluster.pools import Pools

PGS = [{"pgid": "1.0", "up": [0, 1], "acting": [0, 1]}, {"pgid": "1.1", "up": [2, 1], "acting": [2, 1]}]


class FakeClient:
    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def mgr(self, prefix, **kw):
        self.asked.append((prefix, kw))
        return self.answer


class FakePools(Pools):
    def __init__(self, answer):
        self.client = FakeClient(answer)


@pytest.mark.parametrize("answer", [PGS, {"pg_ready": True, "pg_stats": PGS}])
def test_both_shapes_give_the_list(answer):
    c = FakePools(answer)
    assert c.pg_stats(pool="p") == PGS
    assert c.client.asked == [("pg ls-by-pool", {"poolstr": "p"})]


def test_by_osd_and_by_pool_and_osd():
    c = FakePools({"pg_stats": PGS})
    assert c.pg_stats(osd=2) == PGS and c.client.asked[-1] == ("pg ls-by-osd", {"osd": 2})
    assert [p["pgid"] for p in c.pg_stats(pool="p", osd=0)] == ["1.0"]


class FakeObjects:
    """Objects in a dict, behind the `ioctx` a Cluster gives."""
    class backend:                  # daemons elsewhere: no host disk here to check
        local_daemons = False

    def __init__(self):
        self.store = {}

    def wait_for_latest_osdmap(self):
        pass

    def ceph(self, *args):          # `osd dump`: nothing full, so the writes go ahead
        return {"osds": [], "pools": [], "flags": ""}

    @contextlib.contextmanager
    def ioctx(self, pool):
        store = self.store

        class Io:
            def write_full(self, name, data):
                store[(pool, name)] = data

            def aio_write_full(self, name, data, oncomplete):
                self.write_full(name, data)
                done = types.SimpleNamespace(get_return_value=lambda: 0)
                oncomplete(done)
                return done

            def stat(self, name):
                if (pool, name) not in store:
                    raise checksums.rados.ObjectNotFound("gone")
                return len(store[(pool, name)]), 0

            def read(self, name, length):
                return store[(pool, name)][:length]
        yield Io()


@pytest.mark.skipif(checksums.rados is None, reason="needs the python3-rados binding (make setup)")
def test_verify_finds_a_changed_and_a_missing_object():
    c = FakeObjects()
    manifest = checksums.write_objects(c, "p", count=5, size=64, threads=2)
    assert len(manifest) == 5 and checksums.verify_objects(c, "p", manifest) == []
    c.store[("p", "obj-000001")] = b"x" * 64
    del c.store[("p", "obj-000003")]
    assert checksums.verify_objects(c, "p", manifest) == ["obj-000001", "obj-000003"]
