"""remove_osd() undoes add_osd(): the OSD leaves the osdmap, CRUSH and auth, its data folder
and its entry in the cluster's state go, `cephlab up` does not bring it back, and every object
survives because the other OSDs hold all the copies again."""
import time

import pytest

from cephlab import Cluster, ClusterError
from cephlab.backends.native import lifecycle as native

pytestmark = pytest.mark.cluster


def crush_devices(c):
    return {n["id"] for n in c.ceph("osd", "tree")["nodes"] if n["id"] >= 0}


def test_add_then_remove_an_osd_keeps_every_object(lab_cluster):
    c = lab_cluster
    before = sorted(c.state["osds"])
    with c.resources() as r:
        r.replicated_pool("t_remove", size=3, pg_num=32)
        manifest = c.write_checked_objects("t_remove", count=40, size=65536, prefix="rm")
        pool_id = c.ceph("osd", "pool", "stats", "t_remove")[0]["pool_id"]
        new = c.add_osd()
        assert new not in before and new in crush_devices(c)
        c.wait_for_clean(timeout=240, progress=False)
        # the OSDs' reports catch up with the osdmap, and the new OSD holds some PGs
        reported = c.wait_for_pg_stats([pool_id])
        assert len(reported) == 32 and reported == c.up_sets([pool_id], source="osdmap")
        assert any(new in up for up in reported.values())

        c.remove_osd(new)
        c.wait_for_clean(timeout=240, progress=False)
        assert new not in [int(i) for i in c.ceph("osd", "ls")]
        assert new not in crush_devices(c)
        assert f"osd.{new}" not in [e["entity"] for e in c.ceph("auth", "ls")["auth_dump"]]
        assert not (c.dir / "osd" / str(new)).exists()
        assert sorted(native.load_state(c.dir)["osds"]) == before == sorted(c.state["osds"])
        assert c.verify_objects("t_remove", manifest) == []
    # `cephlab up` on the running cluster finds nothing to repair: osd.N is forgotten
    again = Cluster.start(name=c.name, osds=len(before), progress=False)
    assert sorted(again.state["osds"]) == before
    assert wait_health_ok(c), c.health_detail()


def wait_health_ok(c, timeout=60):
    """Health checks lag the osdmap by a few seconds (e.g. a transient OSD_DOWN)."""
    deadline = time.monotonic() + timeout
    while c.health() != "HEALTH_OK":
        if time.monotonic() > deadline:
            return False
        time.sleep(1)
    return True


def test_removing_an_unknown_osd_says_which_exist(lab_cluster):
    with pytest.raises(ClusterError, match="does not exist"):
        lab_cluster.remove_osd(99)


def test_up_sets_names_its_two_sources(lab_cluster):
    with pytest.raises(ValueError, match="'mgr' or 'osdmap'"):
        lab_cluster.up_sets([1], source="crush")
