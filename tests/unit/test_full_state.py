"""FullState from what Ceph answers (osdmap states and pool flags, health checks, `osd df`), the
ClusterFull message (which flag, which OSDs, what to do) and the host disk's levels. A fake
cluster stands in for Ceph; tests/cluster/test_full.py fills real ones."""
import pytest

from cephlab.cluster import full
from cephlab.core.diskspace import FULL_BYTES, GIB, MIB, HostDisk
from cephlab.core.errors import ClusterError, ClusterFull

DUMP = {
    "flags": "sortbitwise,recovery_deletes", "flags_set": ["recovery_deletes", "sortbitwise"],
    "full_ratio": 0.05, "backfillfull_ratio": 0.045, "nearfull_ratio": 0.04,
    "osds": [{"osd": 0, "state": ["exists", "full", "up"]},
             {"osd": 1, "state": ["exists", "nearfull", "up"]},
             {"osd": 2, "state": ["exists", "up"]}],
    "pools": [{"pool_name": "data", "flags_names": "hashpspool,full"},
              {"pool_name": "capped", "flags_names": "hashpspool,full,full_quota"},
              {"pool_name": "other", "flags_names": "hashpspool"}],
}
HEALTH = {"checks": {"OSD_FULL": {"summary": {"message": "1 full osd(s)"}},
                     "POOL_FULL": {"summary": {"message": "2 pool(s) full"}},
                     "OSD_NEARFULL": {"summary": {"message": "1 nearfull osd(s)"}},
                     "PG_DEGRADED": {"summary": {"message": "not about space"}}}}


class FakeCluster:
    class backend:                  # daemons elsewhere: no host disk here
        local_daemons = False

    def __init__(self, dump=DUMP, mgr_error=False):
        self.dump, self.mgr_error = dump, mgr_error
        cluster = self

        class Client:
            def mgr(self, prefix):
                if cluster.mgr_error:
                    raise ClusterError("mgr away")
                return {"nodes": [{"id": 0, "utilization": 5.2}, {"id": 1, "utilization": 4.1}]}
        self.client = Client()

    def ceph(self, *args):
        return {("osd", "dump"): self.dump, ("health", "detail"): HEALTH}[args]


def test_flags_osds_pools_and_ratios_from_the_osdmap():
    s = full.read_full_state(FakeCluster())
    assert s.full_osds == (0,) and s.nearfull_osds == (1,) and s.backfillfull_osds == ()
    assert s.full_pools == ("data",) and s.quota_pools == ("capped",)
    assert s.ceph_flags == ("OSD_FULL", "POOL_FULL", "OSD_NEARFULL")      # not PG_DEGRADED
    assert s.ratios == {"nearfull": 0.04, "backfillfull": 0.045, "full": 0.05}
    assert s.usage == {0: 5.2, 1: 4.1} and s.host is None
    assert s.full and s.blocks("data") and s.blocks("capped") and not s.blocks("other")


def test_nothing_full_and_no_mgr():
    calm = {**DUMP, "osds": [{"osd": 0, "state": ["exists", "up"]}],
            "pools": [{"pool_name": "data", "flags_names": "hashpspool"}]}
    s = full.read_full_state(FakeCluster(calm, mgr_error=True), detail=False)
    assert not s.full and not s.blocks("data") and s.usage == {} and s.lines() == []


def test_full_pool_message_names_flags_osds_and_the_way_out():
    e = full.read_full_state(FakeCluster()).error("data", "rados bench")
    assert isinstance(e, ClusterFull) and isinstance(e, ClusterError)
    assert e.flags == ("OSD_FULL", "POOL_FULL", "OSD_NEARFULL") and e.osds == (0,) and e.pool == "data"
    text = str(e)
    assert text.startswith("cannot write to pool 'data' (rados bench): the cluster is full [OSD_FULL, POOL_FULL]")
    assert "osd.0 (5.2 % used)" in text and "full ratio 5.00 %, lowered from Ceph's 95 %" in text
    assert "lab.cleanup()" in text and "set-full-ratio" not in text


def test_quota_message_says_how_to_lift_it():
    text = full.read_full_state(FakeCluster()).message("capped")
    assert "reached its quota" in text and "ceph osd pool set-quota capped max_bytes 0" in text
    assert "past the full ratio" not in text


def test_a_pool_freed_meanwhile_says_try_again():
    assert "try again" in full.FullState().message("data")


def test_host_disk_levels_and_the_host_message():
    big = 100 * GIB
    assert HostDisk("/x", big, 40 * GIB).level == "ok"
    assert HostDisk("/x", big, 4 * GIB).level == "low"            # at most 5 %: MON_DISK_CRIT
    assert HostDisk("/x", 4 * GIB, 900 * MIB).level == "low"      # under 1 GiB
    assert HostDisk("/x", big, FULL_BYTES - 1).level == "full"
    s = full.FullState(host=HostDisk("/lab", 4 * GIB, 10 * MIB), enospc_osds=(2,))
    assert s.full and s.blocks("anything")
    e = s.error("data")
    assert e.flags == (full.HOST_FLAG,) and e.osds == (2,)
    assert "host disk is full (10 MiB free of 4.0 GiB (0 %) under /lab)" in str(e)
    assert "osd.2 stopped with ENOSPC" in str(e) and "`cephlab up`" in str(e)
    assert s.lines()[-1].startswith("host disk: 10 MiB free") and "FULL:" in s.lines()[-1]


@pytest.mark.skipif(full.rados is None, reason="needs the python3-rados binding (make setup)")
def test_enospc_from_librados_becomes_clusterfull_and_other_errors_stay():
    c = FakeCluster()
    with pytest.raises(ClusterFull, match="cluster is full"):
        full.raise_if_full(c, "data", full.rados.NoSpace("no space", errno=28))
    full.raise_if_full(c, "data", full.rados.ObjectNotFound("gone", errno=2))     # not ours
    full.raise_if_full(c, "data", OSError(28, "a local file, not Ceph"))        # not librados
