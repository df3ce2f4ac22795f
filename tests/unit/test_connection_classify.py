"""cephlab.helpers.connections.classify: a connection belongs to a daemon peer only when another
daemon holds the same two endpoints reversed - on one address Linux hands the same ephemeral port
to sockets bound for different peers, so a port alone misfiled clients as daemons (lab 05 counted
5.5 connections per OSD for 6 clients, 31.25 for 32)."""
from cephlab.helpers.connections import classify

OSD0, OSD1, MON = ("127.0.0.1", 6800), ("127.0.0.1", 6802), ("127.0.0.1", 3300)


def test_a_client_port_shared_with_a_daemon_socket_stays_a_client():
    shared = ("127.0.0.1", 40000)            # osd.1 -> mon and a client -> osd.0, one port
    conns = {"osd.0": [(OSD0, shared), (OSD0, ("127.0.0.1", 40001))],
             "osd.1": [(shared, MON)],
             "mon.a": [(MON, shared)]}
    client = [(shared, OSD0), (("127.0.0.1", 40001), OSD0)]
    got = classify(conns, client)
    assert got["osd.0"] == {"total": 2, "daemons": 0, "clients": 2, "from_pid": 2}
    assert got["osd.1"] == {"total": 1, "daemons": 1, "clients": 0, "from_pid": 0}
    assert "mon.a" not in got and set(classify(conns, kind=None)) == {"osd.0", "osd.1", "mon.a"}


def test_the_old_rule_would_have_misfiled_it():
    # the remote endpoint alone is also a daemon's local endpoint here
    shared = ("127.0.0.1", 40000)
    daemon_locals = {shared, MON, OSD0}
    assert shared in daemon_locals
    assert classify({"osd.0": [(OSD0, shared)], "osd.1": [(shared, MON)]})["osd.0"]["clients"] == 1
