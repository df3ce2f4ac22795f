"""Taking a cluster down from the lab's side: first what the labs attached on this machine,
then the backend's own `down`.

Lab 10 leaves, when interrupted, PostgreSQL servers, an ext4 mount on a loop device and an
rbd-fuse mount; lab 09 ceph-fuse mounts. A loop device or FUSE mount whose cluster is gone hangs
every process that touches it, so these are freed before the daemons stop. Each step that
fails is reported in one line and the others still run (cephlab.core.teardown).
"""
from __future__ import annotations

from pathlib import Path

from cephlab.cluster.api import Cluster
from cephlab.core import mounts, teardown
from cephlab.core.names import DEFAULT_NAME
from cephlab.helpers import database


def free_lab_clients(name: str, folder: str | Path) -> None:
    """Undo the client side the labs attach to cluster `name` (its folder: `folder`)."""
    teardown.attempt(f"unmount the FUSE mounts of {name}", mounts.unmount_all,
                     str(Path(folder) / "tmp") + "/")
    teardown.attempt(f"remove lab 10's leftovers of {name}", database.remove_leftovers,
                     database.work_folder(name))


def down(name: str = DEFAULT_NAME, dir: str | Path | None = None, backend: str | None = None,
         keep: bool = False, destroy: bool = False) -> list[str]:
    """free_lab_clients, then Cluster.down: what `cephlab down` does. The daemons stopped."""
    free_lab_clients(name, Cluster.folder(name, dir, backend))
    return Cluster.down(name, dir, backend=backend, keep=keep, destroy=destroy)
