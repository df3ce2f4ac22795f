"""Shared fixtures. `lab_cluster`: ONE real mini Ceph cluster for the whole test session.

It is named "pytest" (so it never touches a learner's "lab" cluster), has 4 BlueStore OSDs
(so a recovery test can lose one and still re-replicate size-3 pools), and is removed at the
end unless CEPHLAB_KEEP_TEST_CLUSTER=1 (then the next session reuses it in ~0 s).
"""
import os

import pytest

TEST_CLUSTER = "pytest"
TEST_OSDS = 4


@pytest.fixture(scope="session")
def lab_cluster():
    from cephlab import Cluster
    from cephlab.paths import find_binary
    if not find_binary("ceph-mon"):
        pytest.skip("Ceph is not installed (sudo apt-get install ceph-mon ceph-mgr ceph-osd "
                    "ceph-mds ceph-base fio); cluster tests need it")
    cluster = Cluster.start(name=TEST_CLUSTER, osds=TEST_OSDS, progress=False)
    yield cluster
    if os.environ.get("CEPHLAB_KEEP_TEST_CLUSTER") == "1":
        cluster.close()
    else:
        cluster.stop()
