"""A multi-host cephadm cluster whose hosts are containers (vagrant/containers/up.sh).

Health, the hosts in the CRUSH tree, the orchestrator's daemons, an OSD stopped and started by
the orchestrator, a whole host's OSDs stopped (the degraded PGs compared with what placement
predicts), a redeployed daemon, and checksummed objects read back intact after all of it.
"""
import hashlib
import os
import time

import pytest

from cephlab.core.poll import poll_until
from cephlab.core.run import run

POOL = "cephadm-test"
PG_NUM = 16
OBJECTS = 48         # 3 per PG on average: (nearly) every PG holds data, so a lost copy degrades it


def _osd_hosts(ceph) -> dict[int, str]:
    """OSD id -> host name, from the CRUSH tree."""
    tree = ceph.json("osd", "tree")
    names = {n["id"]: n for n in tree["nodes"]}
    return {c: h["name"] for h in tree["nodes"] if h["type"] == "host" for c in h.get("children", [])
            if names.get(c, {}).get("type") == "osd"}


def _osd_up(ceph, osd: int) -> bool:
    return next(o["up"] == 1 for o in ceph.json("osd", "dump")["osds"] if o["osd"] == osd)


def _pgs(ceph):
    doc = ceph.json("pg", "ls-by-pool", POOL)
    return doc["pg_stats"] if isinstance(doc, dict) else doc


def _all_clean(ceph) -> bool:
    pgs = _pgs(ceph)
    return len(pgs) == PG_NUM and all(p["state"] == "active+clean" for p in pgs)


def _payload(i: int) -> bytes:
    return hashlib.sha256(f"object {i}".encode()).digest() * (1024 + i)


@pytest.fixture(scope="module")
def pool(ceph):
    """A size-3 replicated pool (failure domain host), OBJECTS objects and their checksums."""
    ceph("osd", "pool", "create", POOL, str(PG_NUM), str(PG_NUM), "replicated")
    ceph("osd", "pool", "set", POOL, "size", "3")
    ceph("osd", "pool", "application", "enable", POOL, "rados")
    poll_until(lambda: _all_clean(ceph), 300, f"pool {POOL}: {PG_NUM} PGs active+clean", interval=2)
    sums = {}
    for i in range(OBJECTS):
        data = _payload(i)
        ceph.rados("-p", POOL, "put", f"obj-{i}", "-", input=data)
        sums[f"obj-{i}"] = hashlib.sha256(data).hexdigest()
    yield sums
    ceph("osd", "pool", "rm", POOL, POOL, "--yes-i-really-really-mean-it")


def _read_back(ceph, sums):
    bad = [name for name, digest in sums.items()
           if hashlib.sha256(ceph.rados("-p", POOL, "get", name, "-")).hexdigest() != digest]
    assert not bad, f"objects read back with another checksum: {bad}"


def test_health_ok(ceph):
    assert ceph.json("health")["status"] == "HEALTH_OK"


def test_every_host_in_the_osd_tree(ceph):
    nodes = [n["name"] for n in ceph.info["nodes"]]
    hosts = set(_osd_hosts(ceph).values())
    assert hosts == set(nodes), f"hosts with OSDs in `ceph osd tree`: {sorted(hosts)}, nodes: {nodes}"
    assert len(nodes) >= 3


def test_orch_ps_lists_the_daemons(ceph):
    daemons = ceph.json("orch", "ps")
    kinds = {d["daemon_type"] for d in daemons}
    assert {"mon", "mgr", "osd"} <= kinds, kinds
    running_osds = [d for d in daemons if d["daemon_type"] == "osd" and d.get("status_desc") == "running"]
    assert len(running_osds) == len(_osd_hosts(ceph))
    assert {d["hostname"] for d in daemons} == {n["name"] for n in ceph.info["nodes"]}


def test_orch_stops_and_starts_an_osd(ceph, cluster, pool):
    osd = min(_osd_hosts(ceph))
    cluster.stop_osd(osd, wait=False)       # `ceph orch daemon stop`
    poll_until(lambda: not _osd_up(ceph, osd), 180, f"osd.{osd} down after `ceph orch daemon stop`",
               interval=1)
    cluster.start_osd(osd, wait=False)      # `ceph orch daemon start`, until cephadm runs it
    poll_until(lambda: _osd_up(ceph, osd), 300, f"osd.{osd} up after `ceph orch daemon start`",
               interval=2)
    poll_until(lambda: _all_clean(ceph), 600, "PGs active+clean again", interval=3)
    _read_back(ceph, pool)


def test_a_lost_host_degrades_every_pg_with_a_copy_on_it(ceph, cluster, pool):
    hosts = _osd_hosts(ceph)
    victim = ceph.info["nodes"][-1]["name"]
    victim_osds = {o for o, h in hosts.items() if h == victim}
    pgs = _pgs(ceph)
    # the model: size 3 over 3 hosts with failure domain host puts one copy on every host, so
    # every PG loses exactly one copy; in general, the PGs whose acting set has a victim OSD
    predicted = {p["pgid"] for p in pgs if victim_osds & set(p["acting"])}
    if len(ceph.info["nodes"]) == 3:
        assert len(predicted) == PG_NUM, "with 3 hosts and size 3 every PG has a copy on each host"
    with_data = {p["pgid"] for p in pgs if p["stat_sum"]["num_objects"] > 0}
    for osd in sorted(victim_osds):
        cluster.stop_osd(osd, wait=False)
    try:
        poll_until(lambda: not any(_osd_up(ceph, o) for o in victim_osds), 180,
                   f"{victim}'s OSDs {sorted(victim_osds)} down", interval=1)

        def settled():
            now = _pgs(ceph)
            return now if all("peering" not in p["state"] for p in now) else None
        now = poll_until(settled, 120, "PGs peered after the host's loss", interval=1)
        undersized = {p["pgid"] for p in now if "undersized" in p["state"]}
        degraded = {p["pgid"] for p in now if "degraded" in p["state"]}
        assert undersized == predicted
        assert degraded == predicted & with_data
        assert all(len(p["acting"]) == 2 for p in now), "each PG lost exactly one copy"
        assert all("active" in p["state"] for p in now), "min_size 2: I/O goes on with two copies"
        _read_back(ceph, pool)
    finally:
        for osd in sorted(victim_osds):
            cluster.start_osd(osd, wait=False)
    poll_until(lambda: all(_osd_up(ceph, o) for o in victim_osds), 300, f"{victim}'s OSDs up", interval=2)
    poll_until(lambda: _all_clean(ceph), 600, "PGs active+clean after the host came back", interval=3)
    _read_back(ceph, pool)


def test_redeploy_a_daemon(ceph, pool):
    osd = max(_osd_hosts(ceph))
    name = f"osd.{osd}"

    def daemon():
        return next(d for d in ceph.json("orch", "ps", "--refresh") if d["daemon_type"] == "osd"
                    and d["daemon_id"] == str(osd))
    before = daemon().get("started")
    t0 = time.time()
    ceph("orch", "daemon", "redeploy", name)

    def restarted():
        d = daemon()
        return d.get("status_desc") == "running" and d.get("started") not in (None, before)
    poll_until(restarted, 600, f"{name} running again with a new start time after redeploy", interval=5)
    poll_until(lambda: _osd_up(ceph, osd), 300, f"{name} up after redeploy", interval=2)
    poll_until(lambda: _all_clean(ceph), 600, "PGs active+clean after the redeploy", interval=3)
    assert time.time() - t0 < 1200
    _read_back(ceph, pool)


def test_node_containers_are_on_the_private_network_only(ceph):
    """Each node's only route is its private bridge network (internal: no gateway out)."""
    for node in ceph.info["nodes"]:
        routes = run(["podman", "exec", node["container"], "ip", "-4", "route"],
                     what=f"routes of {node['container']}").stdout
        assert "default" not in routes, f"{node['container']} has a default route: {routes}"
    assert os.path.exists(ceph.export / "keyring")
    assert (ceph.export / "keyring").stat().st_mode & 0o077 == 0, "the keyring is 0600"
