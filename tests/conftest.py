"""Shared fixtures. `lab_cluster`: the ONE real mini Ceph cluster of this test session, started on
first use and shared with the solution notebooks (see tests/notebook_plugin.py for its name, size
and life cycle). `otter_assigned`: one `otter assign` of every solution for the session, shared
by the grading tests and the student-version check (each assign takes ~10 s)."""
import os
from pathlib import Path

import pytest

from tests import notebook_plugin
from tests.notebook_plugin import TEST_OSDS, shared_cluster, test_cluster_name  # noqa: F401


@pytest.fixture(scope="session")
def lab_cluster(request):
    cluster = shared_cluster()
    if not request.config.pluginmanager.has_plugin("tests.notebook_plugin"):
        # Run with addopts overridden (`-o addopts=""`), the plugin whose sessionfinish stops the
        # cluster is not loaded: stop it here instead of leaving its daemons running.
        request.addfinalizer(lambda: notebook_plugin.pytest_sessionfinish(request.session, 0))
    return cluster


@pytest.fixture(scope="session")
def otter_assigned(tmp_path_factory):
    """{lab stem: the folder of a fresh otter assign of its solution (student/, autograder/), or
    the GradingError}: made once, two at a time, in children forked from this process."""
    from cephlab.course import grading
    from cephlab.course.notebooks import solution_notebooks
    work = tmp_path_factory.mktemp("otter-assign")
    zips = grading.assign_many(solution_notebooks(), work, parallel=2)
    return {Path(s).stem: (z if isinstance(z, Exception) else z.parent.parent) for s, z in zips.items()}


def assigned_folder(otter_assigned, lab):
    """The lab's otter assign folder from otter_assigned (its error raised)."""
    folder = otter_assigned[lab]
    if isinstance(folder, Exception):
        raise folder
    return folder


def assigned_zip(otter_assigned, lab):
    """The lab's autograder zip from otter_assigned (its error raised)."""
    return sorted((assigned_folder(otter_assigned, lab) / "autograder").glob("*.zip"))[-1]


# What `make check` runs (cephlab/bootstrap.sh: ruff and mypy directly, then the pure tests of
# these folders less the oracle tests). .ci/run sets CEPHLAB_CHECK_PASSED=1 for the `make test`
# that follows a passing `make check`, so those tests do not run twice in one CI job.
CHECKED_FOLDERS = ("tests/unit", "tests/models")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("CEPHLAB_CHECK_PASSED") != "1":
        return
    root = Path(config.rootpath)
    folders = [root / f for f in CHECKED_FOLDERS]
    done = [i for i in items if any(i.path.is_relative_to(f) for f in folders)
            and i.get_closest_marker("oracle") is None]
    if done:
        config.hook.pytest_deselected(items=done)
        skip = set(done)
        items[:] = [i for i in items if i not in skip]
        print(f"\n[ci] {len(done)} tests of {', '.join(CHECKED_FOLDERS)} deselected: `make check` "
              "passed them (and ran ruff and mypy) in this CI job")


def pytest_collection_finish(session):
    """The bare roots of tests/setup/test_bare_system.py start their set-up now, beside the rest
    of the suite (their labs still wait for their own test), and the student versions they will
    run are not run natively too: CI's 75 minutes."""
    bare = next((i.module for i in session.items if i.path.name == "test_bare_system.py"
                 and hasattr(i, "module")), None)
    if bare is not None:
        notebook_plugin.STUDENT_RAN_ELSEWHERE.update(bare.student_runs(session.items))
        bare.start_early(session.config, session.items)
