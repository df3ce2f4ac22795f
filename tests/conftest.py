"""Shared fixtures. `lab_cluster`: the ONE real mini Ceph cluster of this test session, started on
first use and shared with the solution notebooks (see tests/notebook_plugin.py for its name, size
and life cycle)."""
import pytest

from tests.notebook_plugin import TEST_OSDS, shared_cluster, test_cluster_name  # noqa: F401


@pytest.fixture(scope="session")
def lab_cluster():
    return shared_cluster()
