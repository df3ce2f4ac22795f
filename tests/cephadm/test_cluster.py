"""A multi-host cephadm cluster whose hosts are containers (vagrant/containers/up.sh): health,
the hosts in the CRUSH tree, the orchestrator's daemons, the private network.

What the cluster does under faults is measured by lab 11's solution on this same cluster
(tests/cephadm/test_labs.py, under nbval): a redeployed OSD (a new container, the same uuid,
every checksummed object intact) and a whole node stopped (each PG's state against the placement
model, with negative controls, and the objects written during the outage recovered). Its OSD
stop, kill and start through the orchestrator are tests/cephadm/test_backend_api.py's.
"""
import os

from cephlab.core.run import run


def _osd_hosts(ceph) -> dict[int, str]:
    """OSD id -> host name, from the CRUSH tree."""
    tree = ceph.json("osd", "tree")
    names = {n["id"]: n for n in tree["nodes"]}
    return {c: h["name"] for h in tree["nodes"] if h["type"] == "host" for c in h.get("children", [])
            if names.get(c, {}).get("type") == "osd"}


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


def test_node_containers_are_on_the_private_network_only(ceph):
    """Each node's only route is its private bridge network (internal: no gateway out)."""
    for node in ceph.info["nodes"]:
        routes = run(["podman", "exec", node["container"], "ip", "-4", "route"],
                     what=f"routes of {node['container']}").stdout
        assert "default" not in routes, f"{node['container']} has a default route: {routes}"
    assert os.path.exists(ceph.export / "keyring")
    assert (ceph.export / "keyring").stat().st_mode & 0o077 == 0, "the keyring is 0600"
