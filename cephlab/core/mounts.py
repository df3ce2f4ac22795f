"""Mount points and loop devices on this machine: read /proc/mounts, unmount every mount under a
folder, detach the loop devices backed by a file.

Used by the native backend's `down` (ceph-fuse mounts a lab left under the cluster's tmp/) and
by the CephFS helper; a failure is reported in one line (teardown) and the others still go.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from cephlab.core import teardown
from cephlab.core.poll import poll_until

LOOP_GONE_S = 10    # the kernel releases an auto-cleared loop device shortly after its last close


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


def loop_devices(image: str | os.PathLike) -> list[str]:
    """The loop devices backed by the file `image`, or by any file under it when `image` ends in
    "/"; [] when losetup is missing. Read from losetup's list of every device, which names each
    backing file without opening it (`losetup -j` stats it, and fails when the file sits on a
    FUSE mount whose daemon has died)."""
    try:
        out = teardown.run(["losetup", "-n", "-l", "-O", "NAME,BACK-FILE"])
    except Exception as e:      # StepFailed or a missing program: nothing can be listed
        teardown.report(f"cannot list the loop devices of {image} ({teardown.reason(e)})")
        return []
    wanted = str(image)
    found = []
    for line in out.splitlines():
        name, _, back = line.strip().partition(" ")
        back = back.strip().removesuffix(" (deleted)")
        if name and (back.startswith(wanted) if wanted.endswith("/") else back == wanted):
            found.append(name)
    return found


def detach_loops(image: str | os.PathLike, timeout: float = LOOP_GONE_S) -> list[str]:
    """Detach every loop device backed by `image` and wait until losetup lists none.

    A device attached by `mount -o loop` is auto-cleared when unmounted, but the kernel does it
    asynchronously: right after umount it may still be listed, and `losetup -d` on it may fail
    because it is going anyway. So each device is detached once (a failure is not yet an error)
    and then awaited; only a device still listed after `timeout` s is reported. Returns the
    devices that were found."""
    found = loop_devices(image)
    for dev in found:
        try:
            teardown.run(["losetup", "-d", dev])
        except Exception:       # noqa: BLE001 - already being released; the wait below decides
            pass
    if found:
        try:
            poll_until(lambda: not loop_devices(image), timeout, f"the loop devices of {image} gone",
                       describe=lambda: ", ".join(loop_devices(image)),
                       hint=f"a process still uses them (fuser -v {' '.join(found)})")
        except Exception as e:
            teardown.report(str(e))
    return found
