"""Labs 01, 08 and 11 on the cephadm container cluster: they behave there as on the native one.

Each solution runs under nbval as on the native cluster (a nested pytest: its saved outputs are
compared the same way), then each student version runs top to bottom (01's and 08's only when no
bare root runs them later in the session, 11's only when no other release's cephadm cluster does:
tests/cephadm_releases). On the host's release these nbval runs stand for the
native ones, which tests/conftest.py then deselects (solutions_on_cephadm): each release runs each
solution once. The kernels find the cephadm cluster through CEPHLAB_BACKEND=cephadm and its export
folder; lab 11 also benchmarks the native test cluster, so that one is started first and shared
(CEPHLAB_TEST_CLUSTER).
"""
import os
import sys

import pytest

from cephlab.core.run import run
from tests.cephadm.conftest import ROOT
from tests.notebook_plugin import CEPHADM_STUDENT_LATER, STUDENT_RAN_ELSEWHERE
from tests.notebook_plugin import test_cluster_name as native_cluster_name
from tests.setup import run_notebook

LABS = ["01-redundancy", "08-failure-and-recovery", "11-containers-and-cephadm"]
# Lab 11's student version has cells that only this cluster runs (its cephadm half). 01's and
# 08's run the cells their solutions ran here just before, so when a bare root runs them later in
# the session (tests/setup) they are not run here too: each student version once per CI. Lab 11's
# runs here unless another release's cephadm cluster runs it later (CEPHADM_STUDENT_LATER).
CEPHADM_ONLY_CELLS = {"11-containers-and-cephadm"}
NOTEBOOK_TIMEOUT_S = 3600


def _env(export) -> dict[str, str]:
    return {"CEPHLAB_BACKEND": "cephadm", "CEPHLAB_CEPHADM_EXPORT": str(export),
            "CEPHLAB_TEST_CLUSTER": native_cluster_name(), "CEPHLAB_KEEP_TEST_CLUSTER": "1"}


def _pool_max(ceph) -> int:
    """The highest pool id the cluster ever gave: it grows with every pool a lab makes, even
    after the lab's clean-up removed them (proof the notebook worked on this cluster)."""
    return int(ceph.json("osd", "dump")["pool_max"])


@pytest.mark.parametrize("lab", LABS)
def test_solution_under_nbval(cephadm_export, ceph, lab_cluster, lab):
    pools_before = _pool_max(ceph)
    notebook = ROOT / "solutions" / f"{lab}.ipynb"
    r = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(notebook)],
            what=f"nbval {notebook.name} on the cephadm cluster", timeout=NOTEBOOK_TIMEOUT_S,
            env=dict(os.environ, **_env(cephadm_export)), cwd=ROOT, check=False)
    assert r.returncode == 0, f"{notebook.name} on cephadm:\n" + "\n".join(r.stdout.splitlines()[-60:])
    assert _pool_max(ceph) > pools_before, f"{notebook.name} made no pool on the cephadm cluster"


def student_top_to_bottom(export, ceph, lab: str, monkeypatch) -> None:
    """As tests/notebooks/test_labs.py does on the native cluster: every cell runs (even after an
    error, so the clean-up cell still undoes the lab), and none raises."""
    for key, value in _env(export).items():
        monkeypatch.setenv(key, value)         # the kernel inherits this process's environment
    monkeypatch.setenv("CEPHLAB_NAME", native_cluster_name())
    pools_before = _pool_max(ceph)
    nb = run_notebook.execute(ROOT / "labs" / lab / f"{lab}.ipynb", timeout=NOTEBOOK_TIMEOUT_S)
    errors = run_notebook.error_outputs(nb)
    assert not errors, "\n".join(f"cell {i}: {o.ename}: {o.evalue}" for i, _, o in errors)
    skipped = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
               for o in c.outputs if "skipped: needs a cephadm cluster" in str(o.get("text", ""))]
    assert not skipped, f"cells {skipped} skipped their cluster part: the kernel did not find the cephadm cluster"
    assert _pool_max(ceph) > pools_before, f"{lab}'s student version made no pool on the cephadm cluster"
    STUDENT_RAN_ELSEWHERE[lab] = "on the cephadm cluster (tests/cephadm)"


@pytest.mark.parametrize("lab", LABS)
def test_student_version_runs_top_to_bottom(cephadm_export, ceph, lab_cluster, lab, monkeypatch):
    elsewhere = (CEPHADM_STUDENT_LATER if lab in CEPHADM_ONLY_CELLS else STUDENT_RAN_ELSEWHERE).get(lab)
    if elsewhere:
        pytest.skip(f"this student version runs top to bottom {elsewhere}")
    student_top_to_bottom(cephadm_export, ceph, lab, monkeypatch)
