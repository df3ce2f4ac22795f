"""Lab 11's cephadm half on the other releases' cephadm clusters (conftest.py builds them).

The native half of every lab runs on Reef and Tentacle in the bare roots (tests/setup), but lab
11's cephadm half needs a cephadm cluster, which a root cannot hold (no systemd, no podman). So its
student version runs here top to bottom, agreement checks included, and the host's cephadm
cluster then runs only its solution (under nbval, against the outputs saved on Pacific): each
student version once per CI, and lab 11's cephadm half on every release built. Lab 11 also
benchmarks the native test cluster of the host's release, as in tests/cephadm.
"""
import re
from pathlib import Path

from cephlab.core.releases import for_suite
from tests.cephadm.conftest import Ceph, _skip_reason
from tests.cephadm.test_labs import student_top_to_bottom

LAB = "11-containers-and-cephadm"


def student_runs(items) -> dict[str, str]:
    """{lab: where} for this session's runs here (tests/notebook_plugin's CEPHADM_STUDENT_LATER)."""
    suites = [i.callspec.params["release_cluster"] for i in items
              if i.path == Path(__file__) and hasattr(i, "callspec")]
    if not suites or _skip_reason():
        return {}
    names = " and ".join(f"{for_suite(s).codename.title()}'s" for s in suites)
    clusters = "cluster" if len(suites) == 1 else "clusters"
    return {LAB: f"on {names} cephadm {clusters} (tests/cephadm_releases, later in this session)"}


def test_lab11_student_version_on_the_release(release_cluster, lab_cluster, monkeypatch):
    suite, export = release_cluster
    ceph = Ceph(export)
    majors = {int(m) for m in re.findall(r"ceph version (\d+)\.", " ".join(ceph.json("versions")["overall"]))}
    assert majors == {for_suite(suite).major}, f"the {suite} cluster runs Ceph {majors}, not {for_suite(suite).major}"
    student_top_to_bottom(export, ceph, LAB, monkeypatch)
