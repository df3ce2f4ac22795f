"""The shared test cluster is healthy, `up` is idempotent and repairs, the CLI explains itself."""
import os
import signal
import subprocess
import sys

import pytest

from cephlab import Cluster, ClusterNotRunning
from cephlab.backends.native import daemons
from cephlab.backends.native import lifecycle as native

pytestmark = pytest.mark.cluster


def cephlab_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "cephlab.cli", *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_healthy_with_every_daemon_running(lab_cluster):
    st = lab_cluster.status()
    assert st["health"]["status"] == "HEALTH_OK", st["health"]
    assert st["osdmap"]["num_up_osds"] == st["osdmap"]["num_in_osds"] == 4
    assert set(lab_cluster.pids()) == {"mon.a", "mgr.x", "osd.0", "osd.1", "osd.2", "osd.3"}
    # tunables live in the mon config database, as the issue asks
    assert lab_cluster.config_db("osd", "osd_memory_target") == "939524096"
    assert lab_cluster.config_get("mon", "osd_pool_default_pg_autoscale_mode") == "off"
    assert float(lab_cluster.config_show("osd.0")["osd_delete_sleep_hdd"]) == 0    # deleted pools free at once


def test_every_path_in_the_conf_is_inside_the_folder(lab_cluster):
    conf = open(lab_cluster.conf).read()
    for line in conf.splitlines():
        if "/" in line and "=" in line and not line.lstrip().startswith("#"):
            value = line.split("=", 1)[1].strip()
            if value.startswith("/"):
                assert value.startswith(str(lab_cluster.dir)), line
    for key in ("run dir", "crash dir", "log file", "mon cluster log file", "admin socket",
                "pid file", "mon data", "osd data", "mgr data", "[client]"):
        assert key in conf
    assert oct(os.stat(lab_cluster.keyring).st_mode & 0o777) == "0o600"
    assert oct(os.stat(lab_cluster.dir / "osd" / "0" / "keyring").st_mode & 0o777) == "0o600"


def test_every_daemon_listens_on_loopback_only(lab_cluster):
    """No port of the lab is open to other machines (a shared server, a laptop on a public
    network): every listening socket of every daemon is on 127.0.0.1, none on any address."""
    from cephlab.helpers.connections import listening, tcp_table
    table = tcp_table()
    found = {name: listening(pid, table) for name, pid in lab_cluster.pids().items()}
    assert all(found.values()), f"a daemon listens nowhere, so the check would see nothing: {found}"
    osd_ports = [port for name, socks in found.items() if name.startswith("osd.") for _, port in socks]
    assert len(osd_ports) >= 4 * 4, f"each OSD has a public, a cluster and two heartbeat sockets: {found}"
    loopback = "0100007F"                 # 127.0.0.1 as /proc/net/tcp prints it
    assert {addr for socks in found.values() for addr, _ in socks} == {loopback}, found


def test_connect_finds_it_and_explains_a_missing_cluster(lab_cluster, tmp_path):
    assert Cluster.connect(lab_cluster.name).pids() == lab_cluster.pids()
    with pytest.raises(ClusterNotRunning, match="cephlab up"):
        Cluster.connect("nosuch", dir=tmp_path / "nosuch")


def test_second_up_changes_nothing(lab_cluster):
    before = lab_cluster.pids()
    d, _, what = native.up(lab_cluster.name, osds=4, progress=False)
    assert what == "running" and d == lab_cluster.dir
    assert lab_cluster.pids() == before


def test_up_adds_tunables_an_older_cluster_lacks(lab_cluster):
    """A cluster made before a tunable existed gains it on the next `cephlab up`; a value set
    on purpose is left as it is."""
    c = lab_cluster
    try:
        c.ceph("config", "rm", "osd", "osd_delete_sleep_hdd")
        c.ceph("config", "set", "mon", "mon_data_avail_warn", "3")
        assert c.config_db("osd", "osd_delete_sleep_hdd") is None
        native.up(c.name, osds=4, progress=False)
        assert c.config_db("osd", "osd_delete_sleep_hdd") == "0"
        assert c.config_db("mon", "mon_data_avail_warn") == "3"
    finally:
        c.ceph("config", "set", "osd", "osd_delete_sleep_hdd", "0")
        c.ceph("config", "set", "mon", "mon_data_avail_warn", "2")


def test_up_restarts_a_killed_daemon(lab_cluster):
    before = lab_cluster.pids()
    os.kill(before["osd.2"], signal.SIGKILL)
    assert daemons.wait_gone(lab_cluster.dir, {"osd.2": before["osd.2"]}, 10) == {}
    out = cephlab_cli("up", "--name", lab_cluster.name, "--osds", "4")
    assert out.returncode == 0, out.stderr
    assert "restarting osd.2" in out.stderr
    after = lab_cluster.pids()
    assert after["osd.2"] != before["osd.2"]
    assert {n: p for n, p in after.items() if n != "osd.2"} == \
        {n: p for n, p in before.items() if n != "osd.2"}
    assert lab_cluster.health() == "HEALTH_OK"


def test_env_and_status_commands(lab_cluster):
    out = cephlab_cli("env", "--name", lab_cluster.name)
    assert out.returncode == 0
    assert out.stdout.strip() == f"export CEPH_CONF={lab_cluster.conf}"
    # plain `ceph` works with only that variable set
    ceph = subprocess.run(["ceph", "health"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CEPH_CONF": lab_cluster.conf})
    assert ceph.stdout.strip() == "HEALTH_OK", ceph.stderr
    out = cephlab_cli("status", "--name", lab_cluster.name)
    assert out.returncode == 0 and "HEALTH_OK" in out.stdout and "osd.3" in out.stdout


def test_ceph_command_forms(lab_cluster):
    tree = lab_cluster.ceph("osd", "tree")
    assert sorted(n["id"] for n in tree["nodes"] if n["type"] == "osd") == [0, 1, 2, 3]
    assert lab_cluster.ceph("tell", "osd.0", "version")["release"] == "pacific"
    assert lab_cluster.osd_df()[0]["kb"] == 8 * 1024 * 1024       # 8 GiB sparse block file
