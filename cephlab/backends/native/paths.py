"""Where a lab cluster lives: its folder, its ports, and the Ceph binaries it runs.

Everything a cluster writes stays inside its folder (see cephlab/README.md for the layout).
"""
from __future__ import annotations

import os
import shutil
import socket
import zlib
from pathlib import Path

from cephlab.core.errors import SetupError
from cephlab.core.folders import expand
from cephlab.core.names import check_name

MARKER = "cluster.json"          # written first in a new folder; proves the folder is ours

# Ports: one block of PORT_BLOCK ports per cluster, below the kernel's ephemeral range
# (32768+) so client connections never take them. Block 0 starts at PORT_BASE.
PORT_BASE = 10000
PORT_BLOCK = 100
PORT_SLOTS = 220

REQUIRED_BINARIES = ("ceph-mon", "ceph-mgr", "ceph-osd", "ceph")
INSTALL_HINT = "sudo apt-get install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-base fio"


def state_home():
    """The parent folder of all lab clusters: $CEPHLAB_DIR, else the XDG state directory."""
    if os.environ.get("CEPHLAB_DIR"):
        return expand(os.environ["CEPHLAB_DIR"])
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "cephlab"


def cluster_dir(name, dir=None):
    """The folder of cluster `name`: `dir` when given, else <state home>/<name>."""
    check_name(name)
    return expand(dir).resolve() if dir else (state_home() / name).resolve()


def find_binary(prog):
    """Absolute path of a Ceph program, from $CEPHLAB_BIN_DIR when set, else from PATH."""
    bin_dir = os.environ.get("CEPHLAB_BIN_DIR")
    if bin_dir:
        path = Path(bin_dir) / prog
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(prog)


def require_binaries(extra=()):
    """{program: path} for every program the cluster needs; SetupError names what is missing."""
    found = {p: find_binary(p) for p in (*REQUIRED_BINARIES, *extra)}
    missing = sorted(p for p, path in found.items() if not path)
    if missing:
        where = (f"in CEPHLAB_BIN_DIR={os.environ['CEPHLAB_BIN_DIR']}"
                 if os.environ.get("CEPHLAB_BIN_DIR") else "on PATH")
        raise SetupError(f"Ceph is not installed: {', '.join(missing)} not found {where}. "
                         f"Install it with: {INSTALL_HINT}")
    return found


def port_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # as Ceph binds: connections of a stopped daemon lingering in TIME_WAIT do not count
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def block_ports(slot):
    base = PORT_BASE + slot * PORT_BLOCK
    return {"mon_v2": base, "mon_v1": base + 1,
            "bind_min": base + 2, "bind_max": base + PORT_BLOCK - 1}


def choose_ports(name):
    """Ports for a new cluster: the block derived from its name, or the next free block."""
    first = zlib.crc32(name.encode()) % PORT_SLOTS
    for i in range(PORT_SLOTS):
        ports = block_ports((first + i) % PORT_SLOTS)
        if all(port_free(p) for p in range(ports["mon_v2"], ports["bind_max"] + 1)):
            return ports
    raise SetupError(f"no free block of {PORT_BLOCK} ports between {PORT_BASE} and "
                     f"{PORT_BASE + PORT_SLOTS * PORT_BLOCK} on 127.0.0.1; stop other services")


def check_ports_free(ports):
    """Before restarting a kept cluster: its recorded mon ports must be free."""
    busy = [p for p in (ports["mon_v2"], ports["mon_v1"]) if not port_free(p)]
    if busy:
        raise SetupError(f"port {busy[0]} on 127.0.0.1 is in use by another program; "
                         "stop it, or remove this cluster (cephlab down) and start it again "
                         "to get new ports")
