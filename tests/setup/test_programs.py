"""Every external program the project runs is installed by the project's own set-up.

Issue 11: `make test` failed on a fresh Debian because `fusermount` (package `fuse`, which ceph-fuse
only recommends) was never installed; the developers' machines had it. This test finds every
program the code runs (tests/setup/programs.py says how) and asks dpkg which package provides it.
That package must be one cephlab/packages-<need>.txt lists, or one they depend on (Depends and
Pre-Depends: the set-up skips recommends), or part of every Debian system (Essential or Priority
required, what `debootstrap --variant=minbase` installs). Lab code must be covered by the lab list
alone (`make lab`); test code may also use the test list (`make test`).
"""
import shutil

import pytest

from tests.setup import programs

# Programs the lab code looks up but can do without, each with the reason: checked against the test
# list when installed, skipped when not (fuse3 cannot be installed beside fuse on Debian 12).
OPTIONAL = {
    "fusermount3": "fallback name where only fuse3 is installed (Ubuntu 24.04); fusermount comes first",
    "vagrant": "the Vagrant backend, for instructors with hardware virtualization (vagrant/README.md)",
    "podman": "the cephadm container backend, as root (vagrant/README.md, 'Hosts as containers')",
    "cc": "builds the compiled CRUSH mapper (models/crush/mapper_c.py); without it the numpy one runs",
    "gcc": "the compiled CRUSH mapper's compiler where `cc` is not on PATH",
}

pytestmark = pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs a Debian system (dpkg)")

USES = programs.all_uses()


def _by_program():
    found = {}
    for use in USES:
        scope = "lab" if use.scope == "lab" and use.program not in OPTIONAL else "test"
        prev = found.get(use.program)
        if prev is None or (scope == "lab" and prev[0] == "test"):
            found[use.program] = (scope, use.where)
    return found


PROGRAMS = _by_program()


@pytest.fixture(scope="module")
def allowed():
    packages = programs.installed_packages()
    base = programs.base_system(packages)
    lab = programs.listed_packages("lab")
    test = lab | programs.listed_packages("test")
    return {"lab": base | programs.installed_closure(lab, packages),
            "test": base | programs.installed_closure(test, packages)}


def test_the_scan_finds_what_the_lab_runs():
    """The scanner sees calls of every kind: subprocess lists, which(), the Ceph binaries, shell."""
    lab = {p for p, (scope, _) in PROGRAMS.items() if scope == "lab"}
    assert {"fusermount", "ceph-fuse", "rbd-fuse", "fio", "mkfs.ext4", "losetup", "mount", "pg_ctl",
            "initdb", "pgbench", "rados", "rbd", "crushtool", "ceph-mon", "ceph-osd", "ceph-mds",
            "monmaptool", "apt-get", "sha256sum"} <= lab
    assert {"/usr/bin/chromium", "ruby", "shellcheck", "osdmaptool", "useradd", "cephadm"} <= set(PROGRAMS)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_program_is_installed_by_the_setup(program, allowed):
    scope, where = PROGRAMS[program]
    path, package = programs.providing_package(program)
    if not path and program in OPTIONAL:
        pytest.skip(f"{program} is optional: {OPTIONAL[program]}")
    need = "packages-lab.txt" if scope == "lab" else "packages-test.txt"
    assert path, (f"{program} (run at {where}) is not installed here: add the Debian package that "
                  f"provides it to cephlab/{need}")
    assert package, f"{program} ({path}, run at {where}) belongs to no Debian package: install it from one"
    print(f"{program:14} {package:22} {scope:4} {where}")
    assert package in allowed[scope], (
        f"{program} (run at {where}) comes from the package {package}, which the {scope} set-up "
        f"does not install on a fresh machine: add {package} to cephlab/{need}")


def test_a_list_without_fuse_would_fail(allowed):
    """The negative control: drop `fuse3` from the lab list and fusermount is not covered any more
    (ceph-fuse and rbd-fuse only recommend it): `cephlab down` then could not unmount lab 09's
    ceph-fuse mounts on a fresh machine."""
    packages = programs.installed_packages()
    without = programs.listed_packages("lab") - {"fuse3"}
    covered = programs.base_system(packages) | programs.installed_closure(without, packages)
    _, package = programs.providing_package("fusermount")
    assert package == "fuse3"
    assert package in allowed["lab"] and package not in covered


def test_shell_scan_sees_commands_not_words():
    text = "\n".join([
        'say() { echo hi; }',
        'x="$(git rev-parse HEAD)"   # a comment naming rm',
        'case "$1" in',
        '    lab) shift; run_lab "$@" ;;',
        'esac',
        '"$VENV/bin/cephlab" up --osds 4',
        "echo 'it; rm x' | tr a b && as_root env A=1 apt-get install -y fio",
        "cat <<END",
        "losetup in a here-document",
        "END",
        'n=$((SECONDS - 1)); [ -n "$(sha256sum x | cut -c1-3)" ]',
    ])
    words = {w for line in programs._blank_shell(text).splitlines()
             for w in programs.command_words(line, {"say", "run_lab"})}
    assert words == {"git", "tr", "apt-get", "cat", "sha256sum", "cut"}


def test_depends_are_followed_through_alternatives_and_virtual_packages():
    def pkg(depends="", provides="", essential="no", priority="optional"):
        return {"depends": depends, "provides": provides, "essential": essential, "priority": priority}
    packages = {"a": pkg("b (>= 1) | c, virt"), "b": pkg(), "d": pkg(provides="virt (= 2)"),
                "r": pkg(priority="required"), "e": pkg(essential="yes")}
    assert programs.installed_closure({"a"}, packages) == {"a", "b", "d"}
    assert programs.base_system(packages) == {"r", "e"}
