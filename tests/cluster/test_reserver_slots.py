"""rh.reserver_slots reads the slots an OSD's reservers really give (dump_recovery_reservations'
max_allowed), which lab 08 compares with osd_max_backfills: under wpq they follow the option at
runtime; under mClock (Reef and later) they stay at the default without the override, which the
lab measures on those releases (the bare-system run executes it there)."""
import pytest

from cephlab.helpers import recovery as rh

pytestmark = pytest.mark.cluster


def test_slots_follow_osd_max_backfills_under_wpq_and_come_back(lab_cluster):
    if lab_cluster.release().mclock_default:
        pytest.skip("under mClock the slots stay at the default without the override: lab 08 measures that")
    osds = lab_cluster.up_osds()
    before = rh.reserver_slots(lab_cluster, osds)
    assert set(before) == set(osds) and all(pair == (1, 1) for pair in before.values()), before
    with lab_cluster.tuning() as t:
        t.set("osd", "osd_max_backfills", 3)
        tuned = rh.wait_for_slots(lab_cluster, osds, 3)
    assert all(pair == (3, 3) for pair in tuned.values()), rh.slots_text(tuned)
    after = rh.wait_for_slots(lab_cluster, osds, 1)
    assert all(pair == (1, 1) for pair in after.values()), rh.slots_text(after)


def test_wait_for_slots_returns_what_the_osds_give_when_they_never_get_there(lab_cluster):
    # the hold lab 08 measures: the wait gives up after its timeout and reports, it does not raise
    osds = lab_cluster.up_osds()
    got = rh.wait_for_slots(lab_cluster, osds, 7, timeout=1.0)
    assert set(got) == set(osds) and all(pair == (1, 1) for pair in got.values()), rh.slots_text(got)
    assert rh.slots_text(got).startswith(f"osd.{min(osds)} 1/1")
