"""cephlab.backends.native.lifecycle's pure checks: arguments, and what keeps a cluster from ready
(fast tier: no cluster)."""
import pytest

from cephlab.backends.native import lifecycle as native
from cephlab.core.errors import SetupError

STATE = {"osds": [0, 1, 2]}


def status(health="HEALTH_OK", up=3, in_=3, mgr=True, clean=32, pgs=32, checks=None):
    return {"health": {"status": health, "checks": checks or {}},
            "osdmap": {"num_up_osds": up, "num_in_osds": in_},
            "mgrmap": {"available": mgr},
            "pgmap": {"num_pgs": pgs, "pgs_by_state": [{"state_name": "active+clean", "count": clean}]}}


@pytest.mark.parametrize("osds", [0, 17, 2.5, True, "3"])
def test_osd_count_out_of_range_names_the_range(osds):
    with pytest.raises(SetupError, match="osds must be an integer from 1 to 16"):
        native.check_args(osds, "bluestore")


def test_unknown_objectstore_names_the_choices():
    with pytest.raises(SetupError, match="bluestore"):
        native.check_args(3, "kstore")


def test_a_ready_cluster_has_no_gaps():
    assert native.health_gaps(status(), STATE) == []


def test_each_gap_is_named():
    gaps = native.health_gaps(status("HEALTH_WARN", up=2, mgr=False, clean=30,
                                     checks={"OSD_DOWN": {}}), STATE)
    assert gaps == ["HEALTH_WARN (OSD_DOWN)", "2/3 OSDs up", "mgr not available", "30/32 PGs active+clean"]


def test_older_releases_nest_the_osdmap():
    nested = status()
    nested["osdmap"] = {"osdmap": nested["osdmap"]}
    assert native.health_gaps(nested, STATE) == []


def test_an_mds_cluster_waits_for_an_active_mds():
    s = status()
    s["fsmap"] = {"up": 1, "by_rank": [{"status": "up:replay"}]}
    assert native.health_gaps(s, {**STATE, "mds": True}) == ["MDS not active"]
    s["fsmap"]["by_rank"][0]["status"] = "up:active"
    assert native.health_gaps(s, {**STATE, "mds": True}) == []
