"""The Ceph version installed. What each release can do is in cephlab.core.releases.

    parse_version("ceph version 17.2.7 (b12291d1...) quincy (stable)")  # (17, 2, 7, "quincy")
    installed_ceph_release("/usr/bin/ceph-mon")                         # (16, 2, 15, "pacific")
"""
from __future__ import annotations

import re
from functools import cache

from cephlab.core import run
from cephlab.core.errors import ClusterError

WRITTEN_FOR = 16                # Pacific: the release the labs and their reference values come from
CODENAMES = {14: "nautilus", 15: "octopus", 16: "pacific", 17: "quincy", 18: "reef", 19: "squid",
             20: "tentacle"}
VERSION_RE = re.compile(r"ceph version (\d+)\.(\d+)\.(\d+)\S*(?: \([0-9a-f]+\))?(?: ([a-z]+))?")


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


@cache
def installed_ceph_release(binary: str) -> tuple[int, int, int, str] | None:
    """The version of the Ceph program `binary` (e.g. ceph-mon's path), or None when it does
    not say (the caller goes on: a missing note must never stop `cephlab up`)."""
    try:
        out = run.run([binary, "--version"], timeout=30, check=False)
        return parse_version(out.stdout + out.stderr)
    except (OSError, ValueError, ClusterError):
        return None
