"""Mount points on this machine: read /proc/mounts, unmount every mount under a folder.

Used by the native backend's `down` (ceph-fuse mounts a lab left under the cluster's tmp/) and
by the CephFS helper; a failure is reported in one line (teardown) and the others still go.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from cephlab.core import teardown


def mount_point(line: str) -> str:
    """The mount point of one /proc/mounts line; the kernel writes a space, tab, newline or
    backslash in a path as an octal escape (\\040 for a space), which is undone here."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[1])


def mounts_under(prefix: str) -> list[str]:
    """Mount points whose path starts with `prefix`."""
    points = [mount_point(line) for line in Path("/proc/mounts").read_text().splitlines()]
    return [p for p in points if p.startswith(prefix)]


def unmount(point: str | os.PathLike) -> None:
    """Unmount a FUSE mount and remove its mount point (teardown.unmount); a busy mount is
    detached lazily and said so, since its FUSE server lives on until the last user leaves it."""
    if teardown.unmount(point) == "detached":
        teardown.report(f"{point} was busy (a process has a file or its working folder there); "
                        "detached it: it goes once that process ends")


def unmount_all(prefix: str) -> list[str]:
    """Unmount every mount point whose path starts with `prefix`; returns those unmounted."""
    return [p for p in mounts_under(prefix) if teardown.attempt(f"unmount {p}", unmount, p)]
