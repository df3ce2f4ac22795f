"""cephlab.helpers.cephfs's pure part: reading /proc/mounts, the table of the MDS's CPU pairs."""
import pytest

from cephlab.helpers.cephfs import MetadataResult, cpu_pair, mds_cpu_table, mount_point


def test_mount_points_with_spaces_are_decoded():
    """/proc/mounts escapes a space as \\040; unmount_all must see the real path."""
    line = r"ceph-fuse /home/a\040learner/lab\134x fuse.ceph-fuse rw,nosuid 0 0"
    assert mount_point(line) == "/home/a learner/lab\\x"


def test_cpu_table_takes_the_median_of_each_column_not_a_ratio_of_medians():
    """Lab 09's reading: per pair (requests ratio, CPU ratio) and the CPU per request; the median
    row is each column's median, so the per-request median is a pair's own figure."""
    t = mds_cpu_table([(4.0, 2.0), (3.0, 3.0), (5.0, 2.5)])
    assert list(t.index) == ["pair 1", "pair 2", "pair 3", "median"]
    assert t.loc["pair 2", "MDS CPU per request, shared / private"] == pytest.approx(1.0)
    assert t.loc["median"].tolist() == pytest.approx([4.0, 2.5, 0.5])   # 2.5 / 4 would be 0.625


def test_cpu_pair_is_second_over_first_with_every_phase_s_requests():
    """A pair's requests ratio sums every phase's requests (create, stat, rename, remove), and
    both ratios are the second run over the first (shared over private in lab 09)."""
    private = MetadataResult("separate", 4, 100, requests={"create": 400, "stat": 0, "rename": 400, "remove": 400})
    shared = MetadataResult("shared", 4, 100, requests={"create": 1500, "stat": 900, "rename": 1400, "remove": 1000})
    requests, cpu = cpu_pair((private, 0.5), (shared, 1.4))
    assert requests == pytest.approx(4800 / 1200) and cpu == pytest.approx(2.8)
