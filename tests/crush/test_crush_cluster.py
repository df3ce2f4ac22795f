"""The model predicts what the live lab cluster says: `ceph osd map POOL OBJECT`.

The map comes from `ceph osd crush dump`, the pools and OSD states from `ceph osd dump`;
each object name must give the same raw hash, PG id, up set, acting set and primaries.
"""
import pytest

from models.crush import objects, parse_json

pytestmark = pytest.mark.cluster

FIELDS = ("raw_pgid", "pgid", "up", "up_primary", "acting", "acting_primary")


def names(n, prefix):
    return [f"{prefix}-{i}" if i % 3 else f"rbd_data.{i:x}.{i * 104729:016x}" for i in range(n)]


@pytest.fixture(scope="module")
def pools(lab_cluster):
    lab_cluster.create_replicated_pool("crush_rep", size=3, pg_num=32)
    lab_cluster.create_ec_pool("crush_ec", k=2, m=1, pg_num=16)
    yield lab_cluster
    for name in ("crush_rep", "crush_ec"):
        lab_cluster.delete_pool(name)


def snapshot(cluster):
    """(epoch, CrushMap, pools, OsdState) of one OSD map epoch."""
    dump = cluster.ceph("osd", "dump")
    pools, state = objects.from_osd_dump(dump)
    return dump["epoch"], parse_json.parse(cluster.ceph("osd", "crush", "dump")), pools, state


@pytest.mark.parametrize("pool_name,count", [("crush_rep", 300), ("crush_ec", 150)])
def test_osd_map_matches_the_cluster(pools, pool_name, count):
    """Compared at the same OSD map epoch: if the cluster moved on (an OSD flapped, another
    test changed something), the model re-reads the maps first."""
    cluster = pools
    epoch, cmap, known, state = snapshot(cluster)
    for name in names(count, pool_name):
        want = cluster.ceph("osd", "map", pool_name, name)
        if want["epoch"] != epoch:
            epoch, cmap, known, state = snapshot(cluster)
            want = cluster.ceph("osd", "map", pool_name, name)
        got = objects.map_object(cmap, known[pool_name], name, state)
        if {k: got[k] for k in FIELDS} != {k: want[k] for k in FIELDS}:
            # an OSD flapping on a busy box: look again once, at a fresh snapshot
            epoch, cmap, known, state = snapshot(cluster)
            want = cluster.ceph("osd", "map", pool_name, name)
            got = objects.map_object(cmap, known[pool_name], name, state)
        assert {k: got[k] for k in FIELDS} == {k: want[k] for k in FIELDS}, name
