"""cephlab.helpers.cephfs's pure part: reading /proc/mounts."""

from cephlab.helpers.cephfs import mount_point


def test_mount_points_with_spaces_are_decoded():
    """/proc/mounts escapes a space as \\040; unmount_all must see the real path."""
    line = r"ceph-fuse /home/a\040learner/lab\134x fuse.ceph-fuse rw,nosuid 0 0"
    assert mount_point(line) == "/home/a learner/lab\\x"
