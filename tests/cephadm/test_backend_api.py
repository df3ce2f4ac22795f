"""The cephadm container backend through the lab's own API: Cluster.connect(backend=
"cephadm"), faults through cephadm (orch stop/start, a SIGKILL of the unit in its node), the
smoke check the Vagrant cluster runs, and `cephlab status`. The cluster: conftest.py."""
import os
import subprocess
import sys

import pytest

from cephlab.core.errors import ClusterError
from cephlab.helpers import containers, smoke


def test_connect_sees_a_remote_cephadm_cluster(cluster, ceph):
    assert cluster.backend.name == "cephadm" and cluster.local_daemons is False
    assert cluster.pids() == {} and cluster.daemon_pid("osd.0") is None    # /proc is not theirs
    assert cluster.state["osds"] == sorted(o["osd"] for o in ceph.json("osd", "dump")["osds"])
    assert cluster.health() == "HEALTH_OK"
    with pytest.raises(ClusterError, match="raise osd_disks"):
        cluster.add_osd()                   # OSDs come from each host's disks, not from the lab


def test_stop_kill_and_start_an_osd_through_cephadm(cluster):
    osd = max(cluster.state["osds"])
    cluster.stop_osd(osd)                   # `ceph orch daemon stop`: the mons see it go down
    assert not cluster._osd_state(osd)["up"]
    cluster.start_osd(osd)
    assert cluster._osd_state(osd)["up"]
    cluster.kill_osd(osd)                   # SIGKILL of its unit inside the node container
    assert not cluster._osd_state(osd)["up"]
    cluster.start_osd(osd)
    cluster.wait_for_clean(timeout=300, progress=False)


def test_a_command_runs_on_a_host(cluster):
    host = sorted(containers.hosts(cluster))[0]          # from the CRUSH tree: ceph1
    assert cluster.host_command(host, "hostname -s").strip() == host


def test_the_smoke_check_of_the_vms_passes_here(cluster):
    result = smoke.smoke_check(cluster, osds=len(cluster.state["osds"]), hosts=3,
                               failure_domain="host", bench_seconds=3, faults=False)
    assert result["objects_verified"] == 20 and result["bench_write_iops"] > 0
    assert smoke.SMOKE_POOL not in cluster.df()


def test_cli_status_lists_the_daemons_per_host(cephadm_export):
    env = {**os.environ, "CEPHLAB_CEPHADM_EXPORT": str(cephadm_export)}
    out = subprocess.run([sys.executable, "-m", "cephlab.cli", "status", "--backend", "cephadm"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "cephadm container cluster" in out.stdout and "daemons (cephadm containers):" in out.stdout
    assert "ceph2" in out.stdout and "osd." in out.stdout
