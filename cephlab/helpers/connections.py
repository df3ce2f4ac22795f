"""Clients, TCP connections and threads of the lab's daemons (lab 05, messenger threads).

    crowd = ClientCrowd(c)                  # librados clients, each with its own connections
    names = primary_object_names(c, pool)   # {osd_id: object name whose primary is that OSD}
    crowd.grow(8)                           # 8 clients, each connected to the mon and mgr
    crowd.touch(pool, names.values())       # ... and now to every OSD (one write each)
    connection_counts(c)                    # {"osd.0": {"total": 25, "daemons": 17, "clients": 8}, ...}
    crowd.close()

Connections are read from /proc: a process's sockets are the `socket:[inode]` links in
/proc/<pid>/fd, and /proc/net/tcp{,6} maps each inode to its endpoints and TCP state. A
connection whose other end is a socket of a cluster daemon is a daemon (peer) connection;
any other is a client's. Only works where the daemons run on this machine.
"""
from __future__ import annotations

import os
from pathlib import Path

from cephlab.cluster import full
from cephlab.core import proc
from cephlab.core.errors import ClusterError

ESTABLISHED = "01"        # TCP state codes in /proc/net/tcp
LISTEN = "0A"


def _endpoint(hex_addr):
    """'0100007F:4844' -> ('7f000001', 18500): address kept as hex (only compared), port as int."""
    addr, port = hex_addr.split(":")
    return addr, int(port, 16)


def tcp_table(proc=Path("/proc/net")):
    """{socket inode: (local endpoint, remote endpoint, state)} for every TCP socket (v4 and v6)."""
    table = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = (Path(proc) / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            table[int(f[9])] = (_endpoint(f[1]), _endpoint(f[2]), f[3])
    return table


def socket_inodes(pid):
    """Inodes of the sockets process `pid` holds open (empty when it is gone)."""
    out: set[int] = set()
    try:
        fds = proc.fds(pid)
    except OSError:
        return out
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(int(target[8:-1]))
    return out


def established(pid, table=None):
    """[(local, remote)] of the established TCP connections of process `pid`."""
    table = tcp_table() if table is None else table
    rows = (table.get(i) for i in socket_inodes(pid))
    return [(loc, rem) for loc, rem, state in filter(None, rows) if state == ESTABLISHED]


def listening(pid, table=None):
    """[(address hex, port)] of the TCP sockets process `pid` listens on ('00000000' is any address)."""
    table = tcp_table() if table is None else table
    rows = (table.get(i) for i in socket_inodes(pid))
    return [loc for loc, _, state in filter(None, rows) if state == LISTEN]


def connection_counts(cluster, kind="osd", client_pid=None):
    """{daemon: {"total", "daemons", "clients"}}: established TCP connections of each daemon of
    `kind` (None: all), split by whether the other end belongs to a cluster daemon.

    client_pid: also count, as "from_pid", the connections whose other end is in that process
    (the clients this notebook or test made), which other programs' clients cannot disturb."""
    if not cluster.local_daemons:
        raise ClusterError("connections are read from /proc, which only sees daemons on this "
                           "machine; use a native cluster (`cephlab up`) for this measurement")
    table = tcp_table()
    conns = {name: established(pid, table) for name, pid in cluster.pids().items()}
    return classify(conns, established(client_pid, table) if client_pid else None, kind)


def classify(conns, client_pairs=None, kind="osd"):
    """connection_counts' split of {daemon: [(local, remote)]}: a connection is a daemon's when
    another daemon holds its other end, the same two endpoints reversed. The whole pair decides,
    not the remote endpoint alone: on one address Linux gives the same ephemeral port to sockets
    bound for different peers, so a client's port may also be a daemon's outgoing one."""
    daemon_pairs = {pair for pairs in conns.values() for pair in pairs}
    own_pairs = set(client_pairs or ())
    out = {}
    for name, pairs in conns.items():
        if kind is None or name.startswith(kind + "."):
            peers = sum((rem, loc) in daemon_pairs for loc, rem in pairs)
            out[name] = {"total": len(pairs), "daemons": peers, "clients": len(pairs) - peers}
            if client_pairs is not None:
                out[name]["from_pid"] = sum((rem, loc) in own_pairs for loc, rem in pairs)
    return out


def process_threads(pid=None):
    """Threads of process `pid` (default: this one) from /proc/<pid>/status."""
    return proc.threads(pid)


def max_threads_during(cluster, fn, interval=0.02):
    """Run fn() in a thread while sampling the daemons' thread counts every `interval` s.

    Returns (fn's result, {daemon: most threads seen}), so a thread started only under load
    (and gone by the time the load ends) still counts.
    """
    import threading
    box = {}

    def work():
        try:
            box["result"] = fn()
        except BaseException as e:       # handed to the caller below
            box["error"] = e

    worker = threading.Thread(target=work, daemon=True)
    peak = dict(cluster.thread_counts())
    worker.start()
    while worker.is_alive():
        for name, n in cluster.thread_counts().items():
            peak[name] = max(peak.get(name, 0), n)
        worker.join(interval)
    if "error" in box:
        raise box["error"]
    return box["result"], peak


def primary_object_names(cluster, pool, prefix="conn", tries=2000):
    """{osd_id: object name} with one name per OSD that is the primary of some PG of `pool`.

    A client talks only to primaries, so writing these names makes it connect to each such OSD.
    """
    primaries = {pg["acting_primary"] for pg in cluster.pg_stats(pool=pool)}
    found: dict[int, str] = {}        # primary OSD -> the first name it serves
    for i in range(tries):
        name = f"{prefix}-{i}"
        # the raw mon command: ~3 ms, where c.ceph("osd", "map", ...) parses the CLI words first
        found.setdefault(cluster.ceph("osd", "map", pool, name)["acting_primary"], name)
        if set(found) >= primaries:
            break
    return dict(sorted(found.items()))


class ClientCrowd:
    """Independent librados clients in this process: each has its own messenger, so its own
    TCP connection to every daemon it talks to (as separate VMs or containers would)."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.handles = []

    def __len__(self):
        return len(self.handles)

    def grow(self, n, timeout=10):
        """Connect more clients until there are `n` (each authenticates with the mon)."""
        import rados
        while len(self.handles) < n:
            h = rados.Rados(conffile=self.cluster.conf, conf={"keyring": self.cluster.keyring})
            h.connect(timeout=timeout)
            self.handles.append(h)
        return self

    def touch(self, pool, names, size=4096):
        """Every client writes every object in `names` (the same objects, so the same primaries),
        all at once (asynchronous writes), and waits: a burst of len(self) x len(names) writes."""
        data = b"x" * size
        ios = [h.open_ioctx(pool) for h in self.handles]
        try:
            for io in ios:
                full.full_try(io)       # a full pool answers ENOSPC rather than hold the burst
            done = [io.aio_write_full(name, data) for io in ios for name in names]
            for completion in done:
                completion.wait_for_complete()
        finally:
            for io in ios:
                io.close()
        if any(-c.get_return_value() in full.FULL_ERRNOS for c in done):
            raise self.cluster.full_state().error(pool, "the clients' burst")
        return len(done)

    def close(self):
        for h in self.handles:
            h.shutdown()
        self.handles = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
