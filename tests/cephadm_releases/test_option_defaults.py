"""The option defaults book/ceph-facts.md claims for the releases other than the host's (Reef and
Tentacle on a Debian 12 host), read in those releases' own Ceph images.

tests/unit/test_ceph_facts.py checks the host's release with its ceph-conf. The other releases have
no ceph-conf on the host, but their cluster images do: localhost/ceph:vX.Y.Z, which
vagrant/provision/build-image.sh makes from that Debian suite's packages. `podman run ... ceph-conf
-c /dev/null -D` prints the compiled-in defaults with no cluster and no /etc/ceph (about 0.4 s).

Why this folder: on a fresh CI machine those images exist only once this package's clusters
(conftest.release_cluster, vagrant/containers/up.sh) have been built, and test_lab11.py, which
brings them up, sorts before this file (tests/cephadm_releases after tests/cephadm, before
tests/cluster). In tests/unit or tests/book the check would find no image and skip in every fresh
CI run. This test does not bring a cluster up itself: it takes the newest image of the release in
podman's store (a cached one too, also under CEPHLAB_CEPHADM_TESTS=0), skips naming how to build
one when there is none, and fails when this session's lab 11 test of that release should have
built it.
"""
import shutil
from pathlib import Path

import pytest

from book import ceph_facts
from cephlab.core import releases
from tests.cephadm.conftest import _skip_reason

LAB11 = Path(__file__).with_name("test_lab11.py")


def _host_major():
    host = releases.installed(shutil.which("ceph-conf") or shutil.which("ceph"))
    return host.major if host else None


# every release the facts cover but the host's (whose ceph-conf tests/unit checks)
OTHERS = [letter for letter, major in ceph_facts.RELEASES.items() if major != _host_major()]


def _suite(letter):
    return releases.for_major(ceph_facts.RELEASES[letter]).debian


def _lab11_built_it(session, suite):
    """This session's lab 11 test of `suite` (before this file) has brought up its cluster, whose
    image is the one wanted, unless cephadm clusters cannot run here."""
    return not _skip_reason() and any(
        i.path == LAB11 and hasattr(i, "callspec") and i.callspec.params.get("release_cluster") == suite
        for i in session.items)


@pytest.mark.parametrize("letter", OTHERS, ids=[f"{_suite(x)}-{releases.for_major(ceph_facts.RELEASES[x]).codename}"
                                                for x in OTHERS])
def test_the_release_image_has_every_default_the_facts_claim_for_it(letter, request):
    major, suite = ceph_facts.RELEASES[letter], _suite(letter)
    name = ceph_facts.NAMES[letter]
    how = (f"vagrant/containers/up.sh with CEPHLAB_CEPHADM_SUITE={suite} builds it, as root (tests/cephadm_releases/"
           "test_lab11.py runs it; vagrant/containers/down.sh then removes the cluster and keeps the image)")
    if shutil.which("podman") is None:
        pytest.skip(f"podman is missing (apt-get install podman): {name}'s defaults are read in its image")
    images = ceph_facts.release_images().get(major, [])
    if not images:
        missing = f"no {ceph_facts.IMAGE_REPO}:v{major}.x.y image of {name} in podman's store"
        if _lab11_built_it(request.session, suite):
            pytest.fail(f"{missing}, though this session's lab 11 test brought up {suite}'s cluster from it: {how}")
        pytest.skip(f"{missing}: {how}" + (f" ({_skip_reason()})" if _skip_reason() else ""))
    image = images[0]
    version, actual = ceph_facts.image_defaults(image)
    got, number = ceph_facts.release_of(version)
    assert got == letter and image.endswith(f":v{number}"), f"{image} holds {version}"
    assert len(actual) > 1000, f"ceph-conf -D in {image} printed {len(actual)} options"
    stated = ceph_facts.defaults(ceph_facts.FACTS.read_text(encoding="utf-8"))
    claimed = [d for d in stated if letter in d.releases]
    wrong = ceph_facts.mismatches(stated, letter, actual)
    assert not wrong, f"{len(wrong)} of {len(claimed)} defaults differ from `ceph-conf -D` in {image}:\n" + \
        "\n".join(wrong)
