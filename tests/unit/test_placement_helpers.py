"""cephlab.helpers.placement (labs 01, 02, 06) on a fake cluster: no Ceph needed."""
import json

import numpy as np
import pytest

from cephlab.core import poll
from cephlab.helpers import placement
from models.crush import build, objects

OSD_DUMP = {"max_osd": 4, "pools": [{"pool": 3, "pool_name": "rbd", "pg_num": 32, "pgp_num": 32, "size": 3,
                       "min_size": 2, "crush_rule": 1, "type": 1, "flags": 1, "erasure_code_profile": ""}],
            "osds": [{"osd": i, "up": 1, "in": 1, "weight": 1.0, "primary_affinity": 1.0}
                     for i in range(4)],
            "pg_upmap": [], "pg_upmap_items": [], "pg_temp": [], "primary_temp": []}


class FakeCluster:
    def __init__(self, states=()):
        self.states = list(states)
        self.calls = []

    def ceph(self, *args):
        self.calls.append(args)
        if args == ("osd", "dump"):
            return json.loads(json.dumps(OSD_DUMP))
        if args[:2] == ("osd", "map"):
            name = args[3]
            return {"acting": [0, 1, 2] if name != "probe-2" else [1, 2, 3]}
        raise AssertionError(args)

    def pg_stats(self, pool=None, osd=None):
        return [{"pgid": "3.0", "up": [0, 1, 2]}, {"pgid": "3.1", "up": [1, 2, 3]},
                {"pgid": "3.2", "up": [2, 3, 0]}]

    def wait_for_pg_stats(self, pool_ids, timeout=60):
        return {"pool_ids": pool_ids, "timeout": timeout}

    def pg_states(self):
        return self.states.pop(0) if len(self.states) > 1 else self.states[0]



def test_crush_snapshot_parses_both_dumps(monkeypatch):
    monkeypatch.setattr(placement.parse_json, "parse", lambda dump: ("crush", dump))
    fake = FakeCluster()
    fake.ceph = lambda *a, _c=fake.ceph: {"crush": 1} if a == ("osd", "crush", "dump") else _c(*a)
    cmap, pools, state = placement.crush_snapshot(fake)
    assert cmap == ("crush", {"crush": 1})
    assert pools["rbd"].id == 3 and pools["rbd"].pg_num == 32 and pools["rbd"].crush_rule == 1
    assert state.up.tolist() == [True] * 4 and state.weight.tolist() == [0x10000] * 4
    # the snapshot feeds the model: the up sets of a 4-OSD host map, 3 distinct OSDs per PG
    sets = objects.pool_up_sets(build.hosts_map(1, 4), pools["rbd"], state)
    assert len(sets) == 32 and all(len(set(up)) == 3 for up in sets.values())


def test_pgs_per_osd_counts_the_up_sets():
    got = placement.pgs_per_osd(FakeCluster(), "rbd", [0, 1, 2, 3, 9])
    assert got.dtype == float and got.tolist() == [2.0, 2.0, 3.0, 2.0, 0.0]


def test_live_up_sets_passes_the_pools_on():
    assert placement.live_up_sets(FakeCluster(), (3, 4), timeout=5) == {"pool_ids": [3, 4], "timeout": 5}


def test_object_on_osd_asks_until_a_pg_has_a_shard_there():
    fake = FakeCluster()
    assert placement.object_on_osd(fake, "ec", 3) == "probe-2"
    assert [c[3] for c in fake.calls] == ["probe-0", "probe-1", "probe-2"]
    with pytest.raises(RuntimeError, match="osd.7"):
        placement.object_on_osd(fake, "ec", 7, tries=3)


def test_wait_peered_accepts_degraded_and_waits_out_peering(clock):
    fake = FakeCluster([{"peering": 5, "active+clean": 27}, {"unknown": 1, "active+undersized": 31},
                        {"active+undersized+degraded": 32}])
    assert placement.wait_peered(fake) == {"active+undersized+degraded": 32}
    assert clock[0] == pytest.approx(2.0)


def test_wait_peered_times_out_naming_the_states(clock):
    with pytest.raises(poll.PollTimeout, match=r"every PG peered not reached after 5 s \(still \['peering'\]\)"):
        placement.wait_peered(FakeCluster([{"peering": 1}]), timeout=5)
    assert np.isclose(clock[0], 5.0)


def test_fullest_band_brackets_the_model_and_narrows_with_more_pgs():
    from models import placement as pl
    low16, high16 = placement.fullest_band(16, 3, 4)
    low128, high128 = placement.fullest_band(128, 3, 4)
    assert 1 <= low16 <= pl.fullest_factor(16, 3, 4) <= high16
    assert 1 <= low128 <= pl.fullest_factor(128, 3, 4) <= high128
    assert high128 - low128 < high16 - low16                 # more PGs per OSD: a tighter spread
    assert placement.fullest_band(16, 3, 4) == (low16, high16)   # seeded: the same on every run
    assert placement.fullest_band(8, 4, 4) == (1.0, 1.0)     # size = osds: every OSD holds every PG
    with pytest.raises(ValueError):
        placement.fullest_band(16, 5, 4)
