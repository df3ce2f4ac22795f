"""The Ceph version installed, and which labs will not behave as written on it.

The labs are written for, and measured on, Ceph 16.2 "Pacific" (Debian 12's packages). Elsewhere
(Ubuntu 22.04 has Quincy, 24.04 Squid; Binder builds on Ubuntu 22.04) most labs run, but some
rely on behaviour a later release changed. `cephlab up` says which, once, instead of a lab
failing half-way:

    parse_version("ceph version 17.2.7 (b12291d1...) quincy (stable)")  # (17, 2, 7, "quincy")
    lab_caveats(17)      # [("04 throttles", "FileStore is deprecated ..."), ...]
"""
from __future__ import annotations

import re
from functools import cache
from typing import Callable

from cephlab.core import run
from cephlab.core.errors import ClusterError

WRITTEN_FOR = 16                # Pacific: the release the labs and their reference values come from
CODENAMES = {14: "nautilus", 15: "octopus", 16: "pacific", 17: "quincy", 18: "reef", 19: "squid",
             20: "tentacle"}
VERSION_RE = re.compile(r"ceph version (\d+)\.(\d+)\.(\d+)\S*(?: \([0-9a-f]+\))?(?: ([a-z]+))?")

FILESTORE_LABS = ("04 throttles", "07 write amplification")


def parse_version(text: str) -> tuple[int, int, int, str]:
    """(major, minor, patch, codename) from `ceph --version` / `ceph-mon --version` output.

    The codename comes from the text, else from the major number ("" when unknown). Raises
    ValueError when the text holds no Ceph version.
    """
    m = VERSION_RE.search(text)
    if not m:
        raise ValueError(f"no Ceph version in {text.strip()[:80]!r} "
                         "(expected e.g. 'ceph version 16.2.15 (...) pacific (stable)')")
    major, minor, patch = (int(g) for g in m.groups()[:3])
    return major, minor, patch, m.group(4) or CODENAMES.get(major, "")


def lab_caveats(major: int) -> list[tuple[str, str]]:
    """(lab, why it will not behave as written) for a Ceph of release `major`; [] for Pacific."""
    if major == WRITTEN_FOR:
        return []
    if major < WRITTEN_FOR:
        return [("all labs", "they are written for Pacific (16.2); older releases lack options and "
                             "defaults the labs use (e.g. the 4 KiB bluestore_min_alloc_size_hdd of "
                             "lab 07); install Ceph 16.2 (Debian 12's packages)")]
    caveats = []
    if major == 17:
        caveats += [(lab, "FileStore, which it compares with BlueStore, is deprecated in Quincy; its "
                          "second cluster may not start or stay healthy") for lab in FILESTORE_LABS]
    else:
        caveats += [(lab, "FileStore, which it compares with BlueStore, is gone since Reef (18): "
                          "its second cluster cannot be created") for lab in FILESTORE_LABS]
    caveats.append(("08 failure and recovery",
                    "the mClock scheduler (the default since Quincy) overrides osd_recovery_sleep_* and "
                    "osd_max_backfills, so the 'tuned' recovery is not faster as the model says; "
                    "`ceph config set osd osd_op_queue wpq` and restarting the OSDs restore Pacific's "
                    "behaviour"))
    return caveats


def caveat_text(version: tuple[int, int, int, str]) -> str:
    """The note `cephlab up` prints for this version; "" when the labs run as written."""
    major, minor, patch, codename = version
    caveats = lab_caveats(major)
    if not caveats:
        return ""
    head = (f"note: Ceph {major}.{minor}.{patch} {codename} is installed; the labs are written for "
            f"16.2 pacific. These will not behave as written:")
    tail = "  (Debian 12's Ceph 16.2 runs every lab as written: `make lab` there)"
    return "\n".join([head] + [f"  - lab {lab}: {why}" for lab, why in caveats] + [tail])


_noted: set = set()


def note_once(binary: str | None, write: Callable[[str], object]) -> None:
    """write() the caveats for the Ceph of `binary` once per process (nothing on Pacific)."""
    version = installed_ceph_release(binary) if binary else None
    if version and version not in _noted:
        _noted.add(version)
        if text := caveat_text(version):
            write(text)


@cache
def installed_ceph_release(binary: str) -> tuple[int, int, int, str] | None:
    """The version of the Ceph program `binary` (e.g. ceph-mon's path), or None when it does
    not say (the caller goes on: a missing note must never stop `cephlab up`)."""
    try:
        out = run.run([binary, "--version"], timeout=30, check=False)
        return parse_version(out.stdout + out.stderr)
    except (OSError, ValueError, ClusterError):
        return None
