"""Tuning: a change reaches the running OSDs and tuning() undoes it, also on error."""
import time

import pytest

pytestmark = pytest.mark.cluster

OPTION = "osd_max_backfills"


def shown(cluster, daemon, option, want, timeout=15):
    """`config show` lags a set by a second or two (notes: native-cluster.md); poll for it."""
    deadline = time.monotonic() + timeout
    while True:
        value = cluster.config_show(daemon)[option]
        if value == want or time.monotonic() > deadline:
            return value
        time.sleep(0.3)


def test_change_visible_on_osds_and_reverted(lab_cluster):
    default = lab_cluster.config_show("osd.0")[OPTION]
    assert default == "1"                                      # Pacific's default
    assert lab_cluster.config_db("osd", OPTION) is None
    with lab_cluster.tuning() as t:
        t.set("osd", OPTION, 7)
        lab_cluster.config_set("osd.1", OPTION, 5)             # recorded by the active tuning()
        assert shown(lab_cluster, "osd.0", OPTION, "7") == "7"
        assert shown(lab_cluster, "osd.3", OPTION, "7") == "7"
        assert shown(lab_cluster, "osd.1", OPTION, "5") == "5"
    assert lab_cluster.config_db("osd", OPTION) is None
    assert lab_cluster.config_db("osd.1", OPTION) is None
    assert shown(lab_cluster, "osd.0", OPTION, default) == default


def test_reverts_to_an_earlier_database_value_on_error(lab_cluster):
    lab_cluster.config_set("osd", "osd_recovery_max_active_hdd", 4)
    try:
        with pytest.raises(KeyError):
            with lab_cluster.tuning() as t:
                t.set("osd", "osd_recovery_max_active_hdd", 9)
                t.rm("osd", "osd_memory_target")
                assert lab_cluster.config_get("osd", "osd_recovery_max_active_hdd") == "9"
                raise KeyError("simulated failure inside a lab cell")
        assert lab_cluster.config_db("osd", "osd_recovery_max_active_hdd") == "4"
        assert lab_cluster.config_db("osd", "osd_memory_target") == "939524096"
    finally:
        lab_cluster.config_rm("osd", "osd_recovery_max_active_hdd")


def test_config_entries_and_wait_config_gone(lab_cluster):
    """recovery.config_entries reads the config database; wait_config_gone returns once an entry is
    gone and, where nothing removes it (wpq on Pacific keeps a changed osd_max_backfills: no
    mClock hold), times out naming the entry left (its negative control)."""
    from cephlab.core.poll import PollTimeout
    from cephlab.helpers import recovery as rh

    with lab_cluster.tuning() as t:
        t.set("osd", OPTION, 3)
        assert ("osd", "3") in rh.config_entries(lab_cluster, OPTION)
        if not lab_cluster.release().op_queue.startswith("mclock"):
            with pytest.raises(PollTimeout, match="osd_max_backfills"):
                rh.wait_config_gone(lab_cluster, OPTION, timeout=1.5)
    assert rh.wait_config_gone(lab_cluster, OPTION, timeout=10) < 10
    assert rh.config_entries(lab_cluster, OPTION) == []
