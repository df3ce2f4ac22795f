"""cephlab.helpers.cephfs (lab 09): an MDS and a file system added to the running test cluster,
ceph-fuse mounts, the metadata benchmark, the MDS's request counter, and a clean removal."""
from pathlib import Path

import pytest

from cephlab.helpers import cephfs
from cephlab.helpers.lab import LabSession


def test_benchmark_validates_its_arguments(tmp_path):
    with pytest.raises(ValueError, match="layout"):
        cephfs.metadata_bench([tmp_path], layout="private")
    with pytest.raises(ValueError, match="files"):
        cephfs.metadata_bench([tmp_path], files=0)


def test_benchmark_on_a_local_folder_counts_and_cleans(tmp_path):
    calls = []
    r = cephfs.metadata_bench([tmp_path], files=20, workers=3, layout="separate",
                              counter=lambda: calls.append(1) or len(calls))
    assert set(r.ops_per_s) == set(cephfs.OPS) and all(v > 0 for v in r.ops_per_s.values())
    assert r.requests == {op: 1 for op in cephfs.OPS}         # the counter is read around each phase
    assert list(tmp_path.iterdir()) == []                      # files and folders removed


@pytest.mark.cluster
def test_cephfs_added_mounted_counted_and_removed(lab_cluster):
    c = lab_cluster
    had_fs = bool(c.client.mon("fs ls"))
    cephfs.CephFS.remove_leftovers(c, "labt9-")
    lab = LabSession("t9", min_osds=3, cluster=c)
    fs = cephfs.CephFS.ensure(lab)
    try:
        assert cephfs.active_mds(c)
        a, b = fs.mount(), fs.mount()                          # two clients, one file system
        (a / "hello").write_text("from client a")
        assert (b / "hello").read_text() == "from client a"
        (a / "hello").unlink()
        before = cephfs.mds_requests(c)
        r, cpu = cephfs.bench_mds_cpu(c, [a, b], files=30, workers=2, layout="separate", tag="t")
        assert cephfs.mds_requests(c) - before >= 3 * 60       # create, rename, remove reach the MDS
        assert r.requests_per_op("create") == pytest.approx(1, abs=0.2)
        assert r.requests_per_op("stat") < 0.2                 # answered from the client's caps
        assert 0 < cpu < cephfs.mds_cpu_seconds(c)
        assert cephfs.mds_backlog(c)["strays"] > 0             # the 60 removed files, not yet purged
        cephfs.wait_mds_idle(c)
        assert cephfs.mds_backlog(c) == {"strays": 0, "purging": 0, "journaled": 0}
        points = [m for m in fs.mounts]
    finally:
        fs.close()
        lab.cleanup()
    mounted = Path("/proc/mounts").read_text()
    assert not any(str(p) in mounted for p in points)
    assert bool(c.client.mon("fs ls")) == had_fs               # only what the test created is gone
    assert not [p for p in c.pools() if p.startswith("labt9-")]
