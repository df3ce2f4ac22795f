"""Files a lab puts on a ceph-mgr's module path where the release needs them (the release table,
cephlab/core/releases.py, says which). One source for both kinds of cluster: the native backend
links them into its mgr's module folder, and vagrant/containers/up.sh bakes them into the Ceph
image that cephadm deploys.

    mgr_files.extra(release)                   # {file name: text}, empty where none is needed
    python -m cephlab.core.mgr_files 18 DIR    # Ceph 18's files for the cephadm image, into DIR
    python -m cephlab.core.mgr_files --table   # vagrant/provision/releases.tsv: what the shell
                                               # scripts read (the Vagrant VMs have no .venv)

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
# PyPI releases the cephadm image adds to the mgr. Pacific's cephadm module speaks remoto, which
# Debian 12 does not package. Where the mgr loads PyO3 extensions in its modules' sub-interpreters
# (Reef), Debian 13's cryptography (43, PyO3 0.22) refuses to load in any of them; these (PyO3
# 0.18) load in one per process (ceph tracker 64213; Tentacle moves the mgr's cryptography out of
# process instead, ceph PR 62951).
REMOTO_PINS = ("remoto==1.2.1",)
CRYPTO_PINS = ("cryptography==40.0.2", "pyOpenSSL==23.1.1")
TABLE_FILE = Path(__file__).resolve().parents[2] / "vagrant" / "provision" / "releases.tsv"

BCRYPT_STAND_IN = '''"""Written by cephlab: bcrypt stand-in for the lab's ceph-mgr (cephlab/core/mgr_files.py)."""


def _unavailable(*args, **kwargs):
    raise RuntimeError("bcrypt is not available in the lab cluster's mgr (PyO3 extensions cannot "
                       "load in its sub-interpreters on this Ceph release)")


gensalt = hashpw = checkpw = _unavailable
'''


# Appended to the image's sitecustomize.py where the mgr's Python defaults to forkserver: fork, the
# default the release's mgr modules were written for, in ceph-mgr only (other programs keep theirs).
START_METHOD_FILE = "mgr-start-method.sitecustomize"
FORK_IN_MGR = '''
# Written by cephlab (cephlab/core/mgr_files.py): fork as multiprocessing's start method in
# ceph-mgr, whose cephadm module cannot start forkserver's resource tracker.
try:
    with open("/proc/self/comm") as _f:
        _cephlab_comm = _f.read().strip()
except OSError:
    _cephlab_comm = ""
if _cephlab_comm == "ceph-mgr":
    import multiprocessing
    multiprocessing.set_start_method("fork", force=True)
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
    image installs for it (CRYPTO_PINS) loads in only one sub-interpreter per process, so no
    other module may import it first. Where the mgr's Python defaults to forkserver,
    START_METHOD_FILE, for the image's sitecustomize.py."""
    names = write(release, dest)
    if release.mgr_bcrypt_in_process:
        (dest / KEEP_FILE).write_text("\n".join(CEPHADM_MODULES) + "\n")
        names.append(KEEP_FILE)
    if release.mgr_python_forkserver:
        (dest / START_METHOD_FILE).write_text(FORK_IN_MGR)
        names.append(START_METHOD_FILE)
    return names


def image_wheels(release: releases.Release) -> tuple[str, ...]:
    """The PyPI pins the cephadm image installs for `release`'s mgr (REMOTO_PINS, CRYPTO_PINS)."""
    return ((REMOTO_PINS if release.mgr_ssh == "remoto" else ())
            + (CRYPTO_PINS if release.mgr_bcrypt_in_process else ()))


CEPHX_CIPHERS = {1: "aes", 2: "aes256k"}      # cephx key types by number, as `ceph mon dump` names them


def shell_table() -> str:
    """vagrant/provision/releases.tsv: for each row of the release table, what the cephadm image
    needs (major, codename, the cephadm module's ssh library, the wheels), the suite of its
    node containers ("-": the release's own) and the cipher of the cephx keys its monitors make
    (aes: AES-128, aes256k: AES-256), and whether its nodes need empty udev records for
    ceph-volume (yes/no), tab-separated."""
    head = ("# Written by `python -m cephlab.core.mgr_files --table` from cephlab/core/releases.py;\n"
            "# tests/unit/test_mgr_files.py checks that the two agree. Read by releases.sh.\n"
            "# major\tcodename\tssh\twheels\tnode_suite\tcephx_cipher\tudev_records\n")
    rows = ("\t".join((str(r.major), r.codename, r.mgr_ssh, " ".join(image_wheels(r)), r.node_suite or "-",
                        CEPHX_CIPHERS[r.cephx_key[0]], "yes" if r.ceph_volume_needs_udev_records else "no")) + "\n"
            for r in releases.TABLE.values())
    return head + "".join(rows)


def main(argv: list[str]) -> int:
    if argv == ["--table"]:
        TABLE_FILE.write_text(shell_table())
        print(TABLE_FILE)
        return 0
    if len(argv) != 2 or not argv[0].isdigit():
        print("usage: python -m cephlab.core.mgr_files MAJOR DIR (e.g. 18 /tmp/mgr) | --table", file=sys.stderr)
        return 2
    names = write_image_files(releases.for_major(int(argv[0])), Path(argv[1]))
    print(" ".join(names) or "(none needed)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
