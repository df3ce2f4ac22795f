"""cephlab.helpers.containers' pure part: counting what `ceph orch ps` shows (fast tier)."""
from cephlab.helpers.containers import daemon_counts


def test_only_running_daemons_count_by_type():
    rows = [{"daemon": "osd.0", "status": "running"}, {"daemon": "osd.1", "status": "stopped"},
            {"daemon": "mon.ceph1", "status": "running"}, {"daemon": "osd.2", "status": "running"},
            {"daemon": "crash.ceph1", "status": "error"}]
    assert daemon_counts(rows) == {"osd": 2, "mon": 1}
    assert daemon_counts([]) == {}
