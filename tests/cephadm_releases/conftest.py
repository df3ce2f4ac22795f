"""The cephadm container cluster of Ceph releases other than the host's, one at a time.

vagrant/containers/up.sh builds a release's cluster from its Debian suite (CEPHLAB_CEPHADM_SUITE:
Reef from trixie, Tentacle from sid on a Debian 12 host), with a state and an export folder of its
own, and down.sh takes it away before the next release's: the clusters share container names and
the private network, so they never run together, and pytest ends tests/cephadm's cluster (a
package fixture) before this package starts.

Which releases: CEPHLAB_CEPHADM_RELEASES ("trixie sid": both; "": none), by default CI_SUITES less
the host's. CI builds Reef's (trixie: Debian's stable release, what a learner installs this year),
about 270 s (measured 2026-11-29: start 129 s, lab 11 118 s, removal 23 s). Tentacle's (sid)
passed in the CI of stops 43 and 49 and is no longer in CI_SUITES: it cost 337 s with its images
present, and the CI of stop 49 took 86 min of the 90 it is allowed (2026-12-02). Run it by hand,
as root, whenever sid's Ceph changes:

    CEPHLAB_CEPHADM_RELEASES="sid" bash cephlab/bootstrap.sh test tests/cephadm_releases

CEPHLAB_CEPHADM_TESTS=0 skips these as it skips tests/cephadm.
"""
import os
import shutil

import pytest

from cephlab.core import releases
from tests.cephadm.conftest import ROOT, cluster_up

CI_SUITES = ("trixie",)


def suites() -> list[str]:
    """The suites to build clusters of: CEPHLAB_CEPHADM_RELEASES, else CI_SUITES but the host's."""
    chosen = os.environ.get("CEPHLAB_CEPHADM_RELEASES")
    if chosen is not None:
        try:
            return [releases.for_suite(s).debian for s in chosen.split()]
        except ValueError as e:
            raise ValueError(f"CEPHLAB_CEPHADM_RELEASES: {e}") from None
    host = releases.installed(shutil.which("ceph"))
    return [s for s in CI_SUITES if host is None or host.debian != s]


SUITES = suites()


@pytest.fixture(scope="package", params=SUITES,
                ids=[f"{s}-{releases.for_suite(s).codename}" for s in SUITES])
def release_cluster(request):
    """(suite, export folder) of that suite's cluster, up for this package's tests of it."""
    suite = request.param
    state = ROOT / "vagrant" / "containers" / f".state-{suite}"
    export = ROOT / "vagrant" / f".export-containers-{suite}"
    with cluster_up(export, CEPHLAB_CEPHADM_SUITE=suite, CEPHLAB_CEPHADM_STATE=str(state)) as folder:
        yield suite, folder
