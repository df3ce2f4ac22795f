"""pytest plugin (loaded by pyproject's addopts): ONE real lab cluster for the whole session,
shared by the cluster tests (fixture `lab_cluster`) and the solution notebooks run by nbval.

The cluster is named "pytest", so a learner's own "lab" cluster is never touched; notebooks find
it through $CEPHLAB_NAME (cephlab.lab.cluster_name). Notebook items run last, after the unit and
cluster tests, and the cluster is stopped when the session ends unless
CEPHLAB_KEEP_TEST_CLUSTER=1 (then the next run reuses it in ~0 s).
"""
import os

import pytest

TEST_CLUSTER = "pytest"
TEST_OSDS = 4
_shared = {}


def shared_cluster():
    """Start (or find) the session's cluster once; later calls return the same object."""
    if "cluster" not in _shared:
        from cephlab import Cluster
        from cephlab.paths import find_binary
        if not find_binary("ceph-mon"):
            pytest.skip("Ceph is not installed (sudo apt-get install ceph-mon ceph-mgr ceph-osd "
                        "ceph-mds ceph-base fio); cluster tests need it")
        os.environ["CEPHLAB_NAME"] = TEST_CLUSTER
        _shared["cluster"] = Cluster.start(name=TEST_CLUSTER, osds=TEST_OSDS, progress=False)
    return _shared["cluster"]


def _is_notebook(item):
    return str(item.path).endswith(".ipynb")


def pytest_collection_modifyitems(session, config, items):
    """Notebooks after everything else: they are the slowest and use the cluster as labs do."""
    items.sort(key=_is_notebook)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Before nbval starts a notebook's kernel, so the kernel inherits CEPHLAB_NAME.
    if _is_notebook(item):
        shared_cluster()


def pytest_sessionfinish(session, exitstatus):
    cluster = _shared.pop("cluster", None)
    if cluster is None:
        return
    if os.environ.get("CEPHLAB_KEEP_TEST_CLUSTER") == "1":
        cluster.close()
    else:
        cluster.stop()
