"""`cephlab release`: build the student release, what learners get (no solutions, no hidden tests).

    cephlab release build/release/ceph-storage-lab             # the folder
    cephlab release build/release/ceph-storage-lab --archive   # and ceph-storage-lab.tar.gz next to it
"""
from __future__ import annotations

import sys
from pathlib import Path

from cephlab.course import student_release


def register(sub):
    p = sub.add_parser("release", help="build the student release (no solutions, no hidden tests)",
                       description=student_release.__doc__.split("\n\n")[2])
    p.add_argument("folder", type=Path, metavar="DIR",
                   help="where to build it: a new or empty folder, or a previous release (replaced)")
    p.add_argument("--archive", action="store_true", help="also write DIR.tar.gz to publish")
    p.set_defaults(func=cmd_release)


def cmd_release(args):
    try:
        folder = student_release.build(args.folder)
    except student_release.ReleaseError as err:
        print(f"cephlab release: {err}", file=sys.stderr)
        return 1
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    print(f"student release: {folder} ({files} files; {(folder / student_release.MARKER).read_text().strip()})")
    if args.archive:
        print(f"archive: {student_release.archive(folder)}")
    return 0
