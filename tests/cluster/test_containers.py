"""cephlab.helpers.containers (lab 11): the Vagrant gate, and placement read from a live cluster against
models.crush (run on the native test cluster; orch/vagrant parts need the Vagrant cluster)."""
import time

import pytest

from cephlab.helpers import containers
from models import failure_domain as fd


def test_gate_says_why(monkeypatch, tmp_path):
    monkeypatch.delenv("CEPHLAB_BACKEND", raising=False)
    ok, why = containers.cephadm_ready()
    assert not ok and "the native cluster has no cephadm orchestrator" in why
    monkeypatch.setenv("CEPHLAB_BACKEND", "vagrant")
    monkeypatch.setenv("CEPHLAB_VAGRANT_EXPORT", str(tmp_path))
    ok, why = containers.cephadm_ready()
    assert not ok and str(tmp_path) in why
    (tmp_path / "ceph.conf").write_text("[global]\n")
    assert containers.cephadm_ready() == (True, "")


def test_daemon_counts_only_running():
    rows = [{"daemon": "osd.0", "status": "running"}, {"daemon": "osd.1", "status": "stopped"},
            {"daemon": "mon.ceph1", "status": "running"}]
    assert containers.daemon_counts(rows) == {"osd": 1, "mon": 1}


@pytest.mark.cluster
def test_placement_and_blocked_pgs_on_a_live_cluster(lab_cluster):
    """models.crush predicts every up set; stopping 2 OSDs blocks exactly the PGs with 2+ shards."""
    c = lab_cluster
    up_osds = [o["osd"] for o in c.ceph("osd", "dump")["osds"] if o["up"] and o["in"]]
    assert len(up_osds) >= 4, "the test cluster should have 4 OSDs up"
    with c.resources() as r:
        pool = r.replicated_pool("t_containers", size=3, pg_num=16)
        placement = containers.pool_placement(c, pool)
        assert len(placement) == 16
        assert all(live == model for live, model in placement.values()), placement
        pair = up_osds[:2]                    # "a host" of two OSDs on the one-host test cluster
        lost = fd.shards_on([live for live, _ in placement.values()], pair)
        expect_blocked = {pg for pg, n in zip(placement, lost) if n >= 2}
        try:
            for o in pair:
                c.stop_osd(o)
            states, _ = containers.wait_settled(c, pool, pair, timeout=90)
            blocked = {pg for pg, s in states.items() if "active" not in s.split("+")}
            assert blocked == expect_blocked, (states, expect_blocked)
        finally:
            for o in pair:
                c.start_osd(o)
            c.wait_for_clean(progress=False)


@pytest.mark.cluster
def test_pool_stat_counts_objects(lab_cluster):
    c = lab_cluster
    with c.resources() as r:
        pool = r.replicated_pool("t_containers_stat", size=2, pg_num=8)
        c.write_checked_objects(pool, count=12, size=4096)
        deadline = time.monotonic() + 30
        while containers.pool_stat(c, pool, "num_objects") < 12 and time.monotonic() < deadline:
            time.sleep(1)
        assert containers.pool_stat(c, pool, "num_objects") == 12
        assert containers.pool_stat(c, pool, "no_such_counter") == 0
