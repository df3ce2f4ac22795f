"""Losing one OSD of four while a client writes: the cluster heals and no byte is lost.

Recovery settings as measured by the lab's authors (data/native_cluster_reference.csv: back-in
119 s with the defaults, 21 s with these), applied through tuning() so they are undone afterwards.
"""
import threading

import pytest

pytestmark = pytest.mark.cluster

FAST_RECOVERY = {"osd_recovery_sleep_hdd": 0, "osd_max_backfills": 4,
                 "osd_recovery_max_active_hdd": 8}


def acting_sets(c, pool):
    out = c.ceph("pg", "ls-by-pool", pool)
    return [p["acting"] for p in (out["pg_stats"] if isinstance(out, dict) else out)]


def test_kill_and_out_one_osd_while_writing(lab_cluster):
    c = lab_cluster
    victim = 3
    with c.tuning() as t, c.resources() as r:
        for option, value in FAST_RECOVERY.items():
            t.set("osd", option, value)
        r.replicated_pool("t_fault", size=3, min_size=2, pg_num=32)
        r.ec_pool("t_fault_ec", k=2, m=1, pg_num=16)
        manifest = c.write_checked_objects("t_fault", count=100, size=16384, prefix="before")
        ec_manifest = c.write_checked_objects("t_fault_ec", count=40, size=65536, prefix="ec")

        during = {}

        def writer():
            during.update(c.write_checked_objects("t_fault", count=150, size=16384, prefix="during"))

        thread = threading.Thread(target=writer)
        thread.start()
        c.kill_osd(victim)
        c.osd_out(victim)
        thread.join(timeout=240)
        assert not thread.is_alive(), "writes blocked while one OSD of four was down"
        c.wait_for_clean(timeout=240, progress=False)
        # healed without osd.3: every PG has three copies again, none on the lost OSD
        for pool in ("t_fault", "t_fault_ec"):
            acting = acting_sets(c, pool)
            assert all(len(a) == 3 and victim not in a for a in acting), (pool, acting)

        c.start_osd(victim)
        c.osd_in(victim)
        c.wait_for_clean(timeout=240, progress=False)
        assert c.health() == "HEALTH_OK"
        assert any(victim in a for a in acting_sets(c, "t_fault"))     # back in use
        assert len(during) == 150
        assert c.verify_objects("t_fault", {**manifest, **during}) == []
        assert c.verify_objects("t_fault_ec", ec_manifest) == []
        assert c.verify_objects("t_fault", {"missing-object": "0" * 32}) == ["missing-object"]
    assert c.config_db("osd", "osd_max_backfills") is None
