"""Files a lab puts on a ceph-mgr's module path where the release needs them (the release table,
cephlab/core/releases.py, says which). One source for both kinds of cluster: the native backend
links them into its mgr's module folder, and vagrant/containers/up.sh bakes them into the Ceph
image that cephadm deploys.

    mgr_files.extra(release)                   # {file name: text}, empty where none is needed
    python -m cephlab.core.mgr_files 18 DIR    # Ceph 18's files for the cephadm image, into DIR

Reef's mgr_util imports bcrypt, a PyO3 extension that refuses to load in the mgr's second and
later Python sub-interpreters (Ceph tracker 64213), so every module failed to load, the cephadm
orchestrator among them. The lab's modules never hash a password (that is the dashboard's); the
stand-in, first on the mgr's module path, lets mgr_util import and says so if anything calls it.
"""
from __future__ import annotations

import sys
from pathlib import Path

from cephlab.core import releases

# Modules the mgr always loads in Pacific, plus those the labs use. The mgr imports every
# module found in its module path at start, so a path holding only these starts faster.
MGR_MODULES = ("balancer", "crash", "devicehealth", "orchestrator", "pg_autoscaler",
               "progress", "rbd_support", "status", "telemetry", "volumes", "iostat")
# What a cephadm cluster's mgr needs beyond them: its orchestrator.
CEPHADM_MODULES = MGR_MODULES + ("cephadm",)
KEEP_FILE = "keep-modules"

BCRYPT_STAND_IN = '''"""Written by cephlab: bcrypt stand-in for the lab's ceph-mgr (cephlab/core/mgr_files.py)."""


def _unavailable(*args, **kwargs):
    raise RuntimeError("bcrypt is not available in the lab cluster's mgr (PyO3 extensions cannot "
                       "load in its sub-interpreters on this Ceph release)")


gensalt = hashpw = checkpw = _unavailable
'''


def extra(release: releases.Release) -> dict[str, str]:
    """The files (name -> text) `release`'s mgr needs on its module path beyond Ceph's own."""
    return {"bcrypt.py": BCRYPT_STAND_IN} if release.mgr_bcrypt_in_process else {}


def write(release: releases.Release, dest: Path) -> list[str]:
    """Write `release`'s extra mgr files into the folder `dest`; the names written."""
    dest.mkdir(parents=True, exist_ok=True)
    files = extra(release)
    for name, text in files.items():
        (dest / name).write_text(text)
    return sorted(files)


def write_image_files(release: releases.Release, dest: Path) -> list[str]:
    """What the cephadm image's build takes from `dest`: the extra files, and where the release
    loads PyO3 extensions in the mgr's sub-interpreters, KEEP_FILE naming the only modules to
    keep. Reef's cephadm module imports cryptography (asyncssh, its certificates); the version the
    image installs for it (vagrant/provision/build-image.sh, MGR_CRYPTO_WHEELS) loads in only one
    sub-interpreter per process, so no other module may import it first."""
    names = write(release, dest)
    if release.mgr_bcrypt_in_process:
        (dest / KEEP_FILE).write_text("\n".join(CEPHADM_MODULES) + "\n")
        names.append(KEEP_FILE)
    return names


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python -m cephlab.core.mgr_files MAJOR DIR (e.g. 18 /tmp/mgr)", file=sys.stderr)
        return 2
    names = write_image_files(releases.for_major(int(argv[0])), Path(argv[1]))
    print(" ".join(names) or "(none needed)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
