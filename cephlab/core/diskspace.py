"""Free space on the host file system that holds a cluster folder.

A native cluster keeps everything on that one file system: the mon's store, the logs and each
OSD's BlueStore block file. The block files are sparse (8 GiB apparent, only what was written
takes space), so Ceph believes it has room the host disk may no longer have: when the host file
system fills, an OSD's next write into its file fails with ENOSPC and the OSD stops. Ceph's own
full ratios never see this coming; this module does.

    disk = host_disk(cluster_folder)
    disk.level            # "ok", "low" or "full"
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 ** 2
GIB = 1024 ** 3
# Below this much free space the lab stops writing: one more object, a RocksDB compaction or a
# log line may be the write that fails and stops an OSD (or the mon).
FULL_BYTES = 256 * MIB
# Ceph's mon_data_avail_crit (default 5 %, the lab keeps it): at or below it the mon reports
# MON_DISK_CRIT, and a stopped mon refuses to start again until space is freed.
MON_AVAIL_CRIT_PERCENT = 5
LOW_BYTES = 1 * GIB


def _size(n: float) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB else f"{n / MIB:.0f} MiB"


@dataclass(frozen=True)
class HostDisk:
    """The file system under `path`: its size and what an unprivileged writer can still use."""

    path: str
    total: int          # bytes
    free: int           # bytes available to a normal user (statvfs f_bavail)

    @property
    def free_percent(self) -> float:
        return 100.0 * self.free / self.total if self.total else 0.0

    @property
    def level(self) -> str:
        """"full" (the lab refuses writes), "low" (a stopped mon may not start again) or "ok"."""
        if self.free < FULL_BYTES:
            return "full"
        if self.free_percent <= MON_AVAIL_CRIT_PERCENT or self.free < LOW_BYTES:
            return "low"
        return "ok"

    def summary(self) -> str:
        """"3.1 GiB free of 3.3 GiB (94 %) under /path"."""
        return (f"{_size(self.free)} free of {_size(self.total)} ({self.free_percent:.0f} %) "
                f"under {self.path}")

    def warning(self) -> str:
        """What the level means for the cluster and what to do; "" when ok."""
        if self.level == "full":
            return ("FULL: OSDs grow their sparse block files on this disk, and an OSD whose "
                    "write finds no space stops (ENOSPC); the lab refuses writes. Free space on "
                    "this disk (other files, not the cluster folder), then run `cephlab up` to "
                    "restart daemons that stopped")
        if self.level == "low":
            return (f"LOW: below {MON_AVAIL_CRIT_PERCENT} % free the mon reports MON_DISK_CRIT and "
                    f"does not start again; below {_size(FULL_BYTES)} the lab refuses writes. "
                    "Free space on this disk")
        return ""


def host_disk(path: str | os.PathLike[str]) -> HostDisk:
    """The file system holding `path` (or its nearest existing parent)."""
    p = Path(path)
    while not p.exists() and p != p.parent:
        p = p.parent
    st = os.statvfs(p)
    return HostDisk(str(path), st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize)
