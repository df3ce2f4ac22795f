"""Shared fixtures. `lab_cluster`: ONE real mini Ceph cluster for the whole test session.

It has 4 BlueStore OSDs (so a recovery test can lose one and still re-replicate size-3 pools)
and is named "pytest-<pid of this session>", so a learner's "lab" cluster and test sessions
running at the same time never share a cluster. Clusters left by crashed sessions (their pid
is gone) are removed first. CEPHLAB_TEST_CLUSTER=<name> picks a fixed name instead, and
CEPHLAB_KEEP_TEST_CLUSTER=1 keeps the cluster for the next session (then reused in ~0 s).
"""
import os

import pytest

TEST_OSDS = 4
PREFIX = "pytest-"


def test_cluster_name(suffix=""):
    return os.environ.get("CEPHLAB_TEST_CLUSTER") or f"{PREFIX}{os.getpid()}{suffix}"


def remove_stale_test_clusters():
    from cephlab import native, paths
    home = paths.state_home()
    if not home.is_dir():
        return
    for folder in home.glob(PREFIX + "*"):
        owner = folder.name[len(PREFIX):].split("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            native.down(folder.name)


@pytest.fixture(scope="session")
def lab_cluster():
    from cephlab import Cluster
    from cephlab.paths import find_binary
    if not find_binary("ceph-mon"):
        pytest.skip("Ceph is not installed (sudo apt-get install ceph-mon ceph-mgr ceph-osd "
                    "ceph-mds ceph-base fio); cluster tests need it")
    remove_stale_test_clusters()
    cluster = Cluster.start(name=test_cluster_name(), osds=TEST_OSDS, progress=False)
    yield cluster
    if os.environ.get("CEPHLAB_KEEP_TEST_CLUSTER") == "1":
        cluster.close()
    else:
        cluster.stop()
