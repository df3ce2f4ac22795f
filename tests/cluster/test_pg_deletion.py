"""Cluster.wait_for_pg_deletion: a lab measures its own work, not an earlier lab's deleted pools.

A deleted pool leaves the maps at once; each OSD then removes its PGs' objects in the background
(measured on Reef's mClock: 104 s for 15,835 small objects, while lab 06's data check read x0.87).
Here the deletion is slowed with osd_delete_sleep (honoured by the wpq scheduler this cluster
runs), so that it is still going on when the test looks."""
import pytest

pytestmark = pytest.mark.cluster


def test_every_osd_reports_the_counter_the_wait_reads(lab_cluster):
    # A renamed counter would make every wait return at once: ask for it by name.
    up = lab_cluster.up_osds()
    assert up
    for osd in up:
        assert "numpg_removing" in lab_cluster.perf_dump(osd)["osd"], f"osd.{osd} has no osd.numpg_removing"
    assert set(lab_cluster.pgs_being_deleted()) == set(up)


def test_wait_returns_once_the_deleted_pool_is_gone_from_every_osd(lab_cluster):
    if lab_cluster.release().mclock_default:
        pytest.skip("mClock ignores osd_delete_sleep, which this test slows the deletion with")
    pool = "pgdel-test"
    lab_cluster.create_replicated_pool(pool, size=3, pg_num=8)
    with lab_cluster.ioctx(pool) as io:
        for i in range(400):                 # 400 objects over 8 PGs: ~2 transactions of 30 per PG
            io.write_full(f"o{i}", b"x" * 4096)
    with lab_cluster.tuning() as t:
        t.set("osd", "osd_delete_sleep", 1)    # 1 s between a PG's deletion transactions
        lab_cluster.delete_pool(pool)
        seen = lab_cluster.pgs_being_deleted()
        waited = lab_cluster.wait_for_pg_deletion(timeout=120, progress=False)
        after = lab_cluster.pgs_being_deleted()
    assert sum(seen.values()) > 0, f"no OSD was deleting PGs right after the pool went: {seen}"
    assert waited >= 1.0, f"the wait returned after {waited:.1f} s, with a 1 s sleep per transaction"
    assert not any(after.values()), f"PGs still being deleted after the wait: {after}"


def test_a_pool_is_emptied_by_client_deletes_before_it_goes(lab_cluster):
    # delete_pool does this first where mClock is the default scheduler (its background PG
    # deletion is slow); the mechanism is the same on every release, so it is tested here.
    pool = "pgdel-empty"
    lab_cluster.create_replicated_pool(pool, size=3, pg_num=8)
    try:
        with lab_cluster.ioctx(pool) as io:
            for i in range(300):
                io.write_full(f"o{i}", b"x" * 4096)
            assert sum(1 for _ in io.list_objects()) == 300
            lab_cluster._empty_pool(pool)
            left = sum(1 for _ in io.list_objects())
        assert left == 0, f"{left} of 300 objects left after emptying the pool"
    finally:
        lab_cluster.delete_pool(pool)
    assert pool not in lab_cluster.pools()
