"""The Vagrant backend from the host's side: the Vagrantfile's export (run by Ruby with a stand-in
machine whose commands run against the real native test cluster), Cluster.connect(backend=
"vagrant") on that export, the smoke test of up-and-check.sh, and the CLI's --backend vagrant."""
import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from cephlab.backends.vagrant import lifecycle as vagrant
from cephlab.cluster.api import Cluster
from cephlab.core.errors import ClusterError, ClusterNotRunning
from cephlab.helpers import smoke

from .conftest import ROOT, VAGRANT_DIR, need

CEPHLAB = [sys.executable, "-m", "cephlab.cli"]

# Loads the Vagrantfile with a stand-in `Vagrant` and runs its export on a stand-in machine whose
# `sudo` runs the command here (against the cluster named by CEPH_CONF).
EXPORT_RB = r'''
require "open3"
module Vagrant; def self.configure(*); end; end
load ARGV[0]
class FakeComm
  def sudo(cmd, opts = {})
    out, status = Open3.capture2("/bin/sh", "-c", cmd)   # as over ssh: a shell runs it
    yield :stdout, out if block_given?
    status.exitstatus
  end
end
class FakeUI; def info(m) puts m end; def warn(m) $stderr.puts m end; end
Machine = Struct.new(:name, :communicate, :ui)
CephlabExport.run(Machine.new(:ceph1, FakeComm.new, FakeUI.new), ARGV[1], NODES)
'''


def run_export(export, conf=None, tmp_path=None):
    ruby = need("ruby")
    env = {**os.environ, "CEPHLAB_VAGRANT_EXPORT": str(tmp_path / "key-home")}
    env.pop("CEPHLAB_VAGRANT_SETTINGS", None)
    if conf:
        env["CEPH_CONF"] = conf
    else:
        env["PATH"] = "/nonexistent"               # no `ceph`: as on a node not bootstrapped yet
    return subprocess.run([ruby, "-e", EXPORT_RB, str(VAGRANT_DIR / "Vagrantfile"), str(export)],
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def exported(lab_cluster, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vagrant-export")
    export = tmp / "export"
    out = run_export(export, lab_cluster.conf, tmp)
    assert out.returncode == 0, out.stderr
    assert "exported ceph.conf and keyring" in out.stdout
    return export


def test_export_without_a_cluster_says_so(tmp_path):
    out = run_export(tmp_path / "export", None, tmp_path)
    assert out.returncode == 0
    assert "nothing exported" in out.stderr and "vagrant provision ceph1" in out.stderr
    assert not (tmp_path / "export" / "ceph.conf").exists()


def test_connect_without_export(tmp_path):
    with pytest.raises(ClusterNotRunning, match="cephlab up --backend vagrant"):
        Cluster.connect(backend="vagrant", dir=tmp_path)


def test_connect_to_a_cluster_that_does_not_answer(tmp_path):
    (tmp_path / "ceph.conf").write_text("[global]\nmon_host = 127.0.0.1:9\n")
    (tmp_path / "keyring").write_text("[client.admin]\n\tkey = AQBfeltkAAAAABAAk7K/8lOxeLjMZq7xdjjnTQ==\n")
    with pytest.raises(ClusterNotRunning, match="does not answer"):
        Cluster.connect(backend="vagrant", dir=tmp_path)


@pytest.mark.cluster
def test_export_files(exported, lab_cluster):
    meta = json.loads((exported / "cluster.json").read_text())
    assert meta["backend"] == "vagrant"
    assert meta["fsid"] == lab_cluster.ceph("fsid")["fsid"]
    assert meta["nodes"] == dict(vagrant.nodes(vagrant.DEFAULTS))
    conf = (exported / "ceph.conf").read_text()
    assert f"keyring = {exported / 'keyring'}" in conf and "mon_host" in conf
    assert (exported / "keyring").stat().st_mode & 0o077 == 0
    assert "[client.admin]" in (exported / "keyring").read_text()


@pytest.mark.cluster
def test_connect_through_the_export(exported, lab_cluster):
    c = Cluster.connect(backend="vagrant", dir=exported)
    try:
        assert c.local_daemons is False and lab_cluster.local_daemons is True
        assert c.pids() == {} and c.thread_counts() == {}        # /proc is not ours to read
        assert c.state["osds"] == sorted(lab_cluster.state["osds"])
        assert c.health() == lab_cluster.health()
        assert c.env() == {"CEPH_CONF": str(exported / "ceph.conf")}
        assert isinstance(c, Cluster)
        with pytest.raises(ClusterError, match="raise osd_disks in vagrant/settings.yml"):
            c.add_osd()                        # OSDs come from disks in VMs, not from this host
    finally:
        c.close()


@pytest.mark.cluster
def test_backend_from_environment(exported, monkeypatch):
    monkeypatch.setenv("CEPHLAB_BACKEND", "vagrant")
    monkeypatch.setenv("CEPHLAB_VAGRANT_EXPORT", str(exported))
    c = Cluster.connect()
    assert c.dir == exported and not c.local_daemons
    c.close()


@pytest.mark.cluster
def test_ceph_cli_uses_the_exported_conf_alone(exported):
    out = subprocess.run(["ceph", "--conf", str(exported / "ceph.conf"), "health"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("HEALTH_")


@pytest.mark.cluster
def test_smoke_check_through_the_export(exported, lab_cluster):
    """The smoke test of up-and-check.sh, on the native cluster (one host, failure domain osd)."""
    c = Cluster.connect(backend="vagrant", dir=exported)
    try:
        result = smoke.smoke_check(c, osds=len(lab_cluster.state["osds"]), hosts=1,
                                   failure_domain="osd", bench_seconds=2, faults=False)
    finally:
        c.close()
    assert result["objects_verified"] == 20
    assert result["bench_write_iops"] > 0
    assert smoke.SMOKE_POOL not in lab_cluster.df()                # cleaned up


@pytest.mark.cluster
def test_cli_status_and_env(exported):
    env = {**os.environ, "CEPHLAB_VAGRANT_EXPORT": str(exported)}
    status = subprocess.run([*CEPHLAB, "status", "--backend", "vagrant"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stderr
    assert "Vagrant cluster" in status.stdout and "PGs:" in status.stdout
    out = subprocess.run([*CEPHLAB, "env", "--backend", "vagrant"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == f"export CEPH_CONF={shlex.quote(str(exported / 'ceph.conf'))}"


def test_cli_without_a_cluster(tmp_path):
    env = {**os.environ, "CEPHLAB_VAGRANT_EXPORT": str(tmp_path)}
    out = subprocess.run([*CEPHLAB, "status", "--backend", "vagrant"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "no Vagrant cluster exported" in out.stderr


def test_cli_down_without_vagrant(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}                   # no vagrant on PATH
    out = subprocess.run([*CEPHLAB, "down", "--backend", "vagrant"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "vagrant is not installed" in out.stderr and "apt-get install vagrant" in out.stderr


def test_cli_up_rejects_bad_settings_before_vagrant(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("nodes: 2\n")
    env = {**os.environ, "CEPHLAB_VAGRANT_SETTINGS": str(bad), "PATH": str(tmp_path)}
    out = subprocess.run([*CEPHLAB, "up", "--backend", "vagrant"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "nodes must be a whole number from 3 to 9, got 2" in out.stderr


def run_health_gate(conf, expected, timeout, path_first=None):
    """health.sh with a look every second (its default 10 s would make a 4 s timeout take 10)."""
    env = {**os.environ, "CEPH_CONF": conf, "CEPHLAB_EXPECTED_OSDS": str(expected),
           "CEPHLAB_HEALTH_TIMEOUT": str(timeout), "CEPHLAB_HEALTH_POLL": "1", "CEPHLAB_LOGGING": "1"}
    if path_first:
        env["PATH"] = f"{path_first}:{env['PATH']}"
    return subprocess.run(["bash", str(VAGRANT_DIR / "provision" / "health.sh")], env=env,
                          capture_output=True, text=True, timeout=timeout + 120)


@pytest.mark.cluster
def test_health_gate_passes_on_a_healthy_cluster(lab_cluster):
    """provision/health.sh for real, pointed at the native test cluster by CEPH_CONF."""
    if os.geteuid() != 0:
        pytest.skip("health.sh runs as root on the nodes and refuses otherwise")
    lab_cluster.wait_for_clean(progress=False)
    out = run_health_gate(lab_cluster.conf, len(lab_cluster.state["osds"]), 60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"HEALTH_OK with {len(lab_cluster.state['osds'])} of" in out.stdout
    pgs = lab_cluster.status()["pgmap"]["num_pgs"]
    assert f"monitors 1/1 in quorum, PGs {pgs}/{pgs} active+clean" in out.stdout, out.stdout


# `ceph` for health.sh: the real one, except that `status` is changed by `edit` (the
# cluster's real status, one part changed: what a cluster shows during a monitor election or
# while PGs peer, which a one-monitor test cluster at HEALTH_OK cannot be made to show).
STATUS_EDIT = r'''#!{python}
import json, subprocess, sys
out = subprocess.run(["{ceph}", *sys.argv[1:]], capture_output=True, text=True)
if out.returncode or "status" not in sys.argv[1:2]:
    sys.stdout.write(out.stdout); sys.stderr.write(out.stderr); sys.exit(out.returncode)
s = json.loads(out.stdout)
{edit}
print(json.dumps(s))
'''


@pytest.mark.cluster
@pytest.mark.parametrize("edit, shows", [
    ('s["quorum_names"] = s["quorum_names"][:-1]', "0/1"),     # an election: nobody in quorum yet
    ('s["pgmap"].update(num_pgs=8, pgs_by_state=[{"state_name": "peering", "count": 8}])', "0/8"),
], ids=["no-quorum", "pgs-peering"])
def test_health_gate_waits_for_the_quorum_and_clean_pgs(lab_cluster, tmp_path, edit, shows):
    """HEALTH_OK with every OSD up is not enough: Tentacle's cephadm cluster said so mid-election."""
    if os.geteuid() != 0:
        pytest.skip("health.sh runs as root on the nodes and refuses otherwise")
    lab_cluster.wait_for_clean(progress=False)
    fake = tmp_path / "ceph"
    fake.write_text(STATUS_EDIT.format(python=sys.executable, ceph=shutil.which("ceph"), edit=edit))
    fake.chmod(0o755)
    out = run_health_gate(lab_cluster.conf, len(lab_cluster.state["osds"]), 4, path_first=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "the cluster is not healthy after 4 s" in out.stderr
    assert f"HEALTH_OK {len(lab_cluster.state['osds'])}" in out.stdout and shows in out.stdout, out.stdout


@pytest.mark.cluster
def test_health_gate_reports_missing_osds(lab_cluster):
    if os.geteuid() != 0:
        pytest.skip("health.sh runs as root on the nodes and refuses otherwise")
    n = len(lab_cluster.state["osds"])
    out = run_health_gate(lab_cluster.conf, n + 2, 4)
    assert out.returncode == 1
    assert "the cluster is not healthy after 4 s" in out.stderr
    assert f"OSDs: {n} up, {n} in, {n} exist; {n + 2} expected" in out.stderr
    assert "Fewer OSDs than disks" in out.stderr and "health.sh" in out.stderr
