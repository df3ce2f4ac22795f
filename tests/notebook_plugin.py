"""pytest plugin (loaded by pyproject's addopts): ONE real lab cluster for the whole session,
shared by the cluster tests (fixture `lab_cluster` in conftest.py) and the solution notebooks
that nbval runs.

The cluster has 4 BlueStore OSDs (so a recovery test can lose one and still re-replicate size-3
pools) and is named "pytest-<pid of this session>", so a learner's "lab" cluster and test
sessions running at the same time never share one; notebooks find it through $CEPHLAB_NAME
(cephlab.helpers.lab.cluster_name). Clusters left by crashed sessions (their pid is gone) are removed
first. CEPHLAB_TEST_CLUSTER=<name> picks a fixed name instead, and CEPHLAB_KEEP_TEST_CLUSTER=1
keeps the cluster for the next session (then reused in ~0 s). Notebook items run last.
"""
import os

import pytest

TEST_OSDS = 4
PREFIX = "pytest-"
_shared = {}
# Labs whose student version runs top to bottom elsewhere in this session, and where: on the
# cephadm cluster (tests/cephadm/test_labs.py), in the image (tests/container/test_image.py),
# or in a bare root of a Debian release (tests/setup/test_bare_system.py,
# which runs later: its list is known at collection). tests/notebooks/test_labs.py then skips
# the native run, and tests/cephadm/test_labs.py a root's lab that has no cephadm-only cells:
# a student version differs from its solution only by the answers and hidden tests it lacks,
# which no release or backend changes, and once per session proves it runs
# with its answers blank; each release's behaviour is proven by the runs themselves (Pacific's
# solutions natively and, for 01, 08 and 11, on the cephadm cluster; the trixie root's on Reef;
# the student versions with their agreement checks on Tentacle).
STUDENT_RAN_ELSEWHERE: dict[str, str] = {}
# Labs whose student version, cephadm half included, runs later in this session on another
# release's cephadm cluster (tests/cephadm_releases), and where: the host's cephadm run skips it.
CEPHADM_STUDENT_LATER: dict[str, str] = {}


def test_cluster_name(suffix=""):
    return os.environ.get("CEPHLAB_TEST_CLUSTER") or f"{PREFIX}{os.getpid()}{suffix}"


def remove_stale_test_clusters():
    """Remove clusters of sessions that are gone; a failure is reported in one line, never raised."""
    from cephlab.backends.native import lifecycle as native
    from cephlab.backends.native import paths
    from cephlab.core import teardown
    home = paths.state_home()
    if not home.is_dir():
        return
    for folder in home.glob(PREFIX + "*"):
        owner = folder.name[len(PREFIX):].split("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            teardown.attempt(f"remove the stale test cluster {folder.name}", native.down, folder.name)


def shared_cluster():
    """Start the session's cluster once; later calls return the same Cluster."""
    if "cluster" not in _shared:
        from cephlab import Cluster
        from cephlab.backends.native.paths import find_binary
        if not find_binary("ceph-mon"):
            pytest.skip("Ceph is not installed (sudo apt-get install ceph-mon ceph-mgr ceph-osd "
                        "ceph-mds ceph-base fio); cluster tests need it")
        remove_stale_test_clusters()
        name = test_cluster_name()
        os.environ["CEPHLAB_NAME"] = name          # inherited by the notebooks' kernels
        _shared["cluster"] = Cluster.start(name=name, osds=TEST_OSDS, progress=False, backend="native")
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


def stop_side_clusters(name):
    """Clusters a notebook started next to the shared one ("<name>-04" in lab 04) are removed
    in the notebook's cleanup cell; a notebook that failed before it leaves them running."""
    from cephlab.backends.native import lifecycle as native
    from cephlab.backends.native import paths
    from cephlab.core import teardown
    for folder in paths.state_home().glob(f"{name}-*"):
        teardown.attempt(f"stop the side cluster {folder.name}", native.down, folder.name)


def pytest_sessionfinish(session, exitstatus):
    """Stop the session's clusters; never raises, so pytest still prints its summary line."""
    from cephlab.core import teardown
    cluster = _shared.pop("cluster", None)
    if cluster is None:
        return
    teardown.attempt(f"stop the side clusters of {cluster.name}", stop_side_clusters, cluster.name)
    keep = os.environ.get("CEPHLAB_KEEP_TEST_CLUSTER") == "1"
    teardown.attempt(f"{'close' if keep else 'stop'} the test cluster {cluster.name}",
                     cluster.close if keep else cluster.stop)


_seconds_by_part: dict[str, float] = {}


def _part(nodeid: str) -> str:
    """'tests/grading', 'solutions', ...: where CI's time goes, a line each."""
    head = nodeid.split("::")[0].split("/")
    return "/".join(head[:2]) if head[0] == "tests" and len(head) > 2 else head[0]


def pytest_runtest_logreport(report):
    part = _part(report.nodeid)
    _seconds_by_part[part] = _seconds_by_part.get(part, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    if not _seconds_by_part:
        return
    terminalreporter.write_sep("-", "seconds per part of the suite (setup + call + teardown)")
    for part, seconds in sorted(_seconds_by_part.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{seconds:8.1f}  {part}")
