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
    _deselect(config, items, solutions_on_cephadm(config, items),
              "the native nbval of {}, whose solutions tests/cephadm runs under nbval on the "
              "host's Ceph release")
    if os.environ.get("CEPHLAB_CHECK_PASSED") != "1":
        return
    root = Path(config.rootpath)
    folders = [root / f for f in CHECKED_FOLDERS]
    done = [i for i in items if any(i.path.is_relative_to(f) for f in folders)
            and i.get_closest_marker("oracle") is None]
    _deselect(config, items, done, f"the tests of {', '.join(CHECKED_FOLDERS)}, which `make check` "
              "passed (and ran ruff and mypy) in this CI job")


def _deselect(config, items, drop, why):
    if drop:
        config.hook.pytest_deselected(items=drop)
        gone = set(drop)
        items[:] = [i for i in items if i not in gone]
        names = sorted({i.path.stem for i in drop})
        print(f"\n[ci] {len(drop)} deselected: " + why.format(", ".join(names)))


def solutions_on_cephadm(config, items) -> list:
    """The native nbval items of the solutions that tests/cephadm/test_labs.py runs under nbval in
    this session on the host's release (labs 01, 08, 11): each release runs each solution once.
    Pacific's runs there; the native backend runs the same labs on Reef and Tentacle in the bare
    roots, and tests/cluster its fault and recovery helpers on the host's release. Only when the
    cephadm cluster can be built here (its own skip reason) and holds the host's Ceph (no
    CEPHLAB_CEPHADM_SUITE); `pytest solutions/08-...` alone still runs natively."""
    on_cephadm = {i.callspec.params["lab"] for i in items
                  if i.path.name == "test_labs.py" and i.path.parent.name == "cephadm"
                  and i.originalname == "test_solution_under_nbval"}
    if not on_cephadm or os.environ.get("CEPHLAB_CEPHADM_SUITE"):
        return []
    from tests.cephadm.conftest import _skip_reason
    if _skip_reason():
        return []
    solutions = Path(config.rootpath) / "solutions"
    return [i for i in items if i.path.parent == solutions and i.path.stem in on_cephadm]


def pytest_collection_finish(session):
    """The bare roots of tests/setup/test_bare_system.py start their set-up now, beside the rest
    of the suite (their labs still wait for their own test), and the student versions they will
    run are not run natively too, nor lab 11's on the host's cephadm cluster when another
    release's cephadm cluster runs it (tests/cephadm_releases): CI's 75 minutes."""
    later = next((i.module for i in session.items if i.path.parent.name == "cephadm_releases"
                  and i.path.name == "test_lab11.py" and hasattr(i, "module")), None)
    if later is not None:
        notebook_plugin.CEPHADM_STUDENT_LATER.update(later.student_runs(session.items))
    bare = next((i.module for i in session.items if i.path.name == "test_bare_system.py"
                 and hasattr(i, "module")), None)
    if bare is not None:
        notebook_plugin.STUDENT_RAN_ELSEWHERE.update(bare.student_runs(session.items))
        bare.start_early(session.config, session.items)
