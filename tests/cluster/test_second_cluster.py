"""A second cluster (FileStore, its own name and ports) runs beside the shared one, its
filestore_* options change at run time, and `down` leaves nothing behind."""
import os
import time
from pathlib import Path

import pytest

from cephlab import Cluster
from cephlab.backends.native import daemons

pytestmark = pytest.mark.cluster

NAME = f"pytest-{os.getpid()}-fs"    # own name per session (see conftest.py)
SYSTEM_DIRS = ("/var/log/ceph", "/etc/ceph", "/var/lib/ceph", "/run/ceph", "/var/run/ceph")


def snapshot():
    files = set()
    for top in SYSTEM_DIRS:
        for root, dirs, names in os.walk(top):
            files.update(os.path.join(root, n) for n in dirs + names)
    return files


def tmp_with_name():
    return sorted(p.name for p in Path("/tmp").iterdir() if NAME in p.name)


def test_filestore_cluster_side_by_side_then_down_leaves_nothing(lab_cluster):
    before_files = snapshot()
    c = Cluster.start(name=NAME, osds=2, objectstore="filestore", progress=False)
    try:
        assert c.state["ports"]["mon_v2"] != lab_cluster.state["ports"]["mon_v2"]
        assert c.health() == "HEALTH_OK" and lab_cluster.health() == "HEALTH_OK"
        assert (c.dir / "osd" / "0" / "journal").exists()
        assert c.ceph("osd", "metadata", "0")["osd_objectstore"] == "filestore"
        assert c.config_show("osd.0")["filestore_queue_max_ops"] == "50"
        with c.tuning() as t:
            t.set("osd", "filestore_queue_max_ops", 500)
            deadline = time.monotonic() + 15
            while c.config_show("osd.0")["filestore_queue_max_ops"] != "500":
                assert time.monotonic() < deadline, "filestore_queue_max_ops never reached osd.0"
                time.sleep(0.3)
            # the daemon itself reports the new value, not only the database
            assert c.ceph("tell", "osd.1", "config", "get", "filestore_queue_max_ops") == \
                {"filestore_queue_max_ops": "500"}
        # grow it by one OSD, then stop and restart that OSD politely
        assert c.add_osd() == 2
        assert c.state["osds"] == [0, 1, 2]
        c.wait_for_clean(timeout=120, progress=False)
        c.stop_osd(2)
        assert "osd.2" not in c.pids()
        c.start_osd(2)
        c.wait_for_clean(timeout=120, progress=False)
        assert c.health() == "HEALTH_OK"
    finally:
        pids = c.pids()
        folder = c.dir
        c.stop()
    assert len(pids) == 5
    assert not any(daemons.is_ours(pid, folder / "ceph.conf") for pid in pids.values())
    for pid in pids.values():            # dead, or a zombie waiting for an init that never reaps
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    assert not folder.exists()
    assert snapshot() - before_files == set()
    assert tmp_with_name() == []
    assert lab_cluster.health() == "HEALTH_OK"      # the shared cluster did not notice
