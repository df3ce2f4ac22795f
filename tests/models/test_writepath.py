"""models.writepath: seed 000's write flow (primary -> replicas in parallel -> ack) as a latency sum."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import iops
from models.writepath import (
    measured_parts_latency_ms,
    replica_round_trip_ms,
    serial_write_latency_ms,
    write_latency_ms,
    write_path_steps,
)

# Worked by hand from T = net + osd + max(disk, [R > 1] (2 net + osd + slowest)) + net.
GOLDEN = {
    # (net, disk, osd, replicas, slowest): ms
    (0.1, 5.0, 0.5, 1, None): 5.7,        # one copy: 0.1 + 0.5 + 5 + 0.1
    (0.1, 5.0, 0.5, 3, None): 6.4,        # replica trip 0.2 + 0.5 + 5 = 5.7 > 5: +0.7 ms
    (0.1, 5.0, 0.5, 2, None): 6.4,        # one replica or two: the same, they run in parallel
    (0.0, 1.0, 0.0, 3, None): 1.0,        # no network, no CPU: just one disk commit
    (0.1, 10.0, 0.0, 3, 0.0): 10.2,       # replicas on instant disks: the primary's disk decides
}


@pytest.mark.parametrize("args,expected", GOLDEN.items())
def test_golden(args, expected):
    net, disk, osd, r, slow = args
    assert write_latency_ms(net, disk, osd, r, slowest_disk_ms=slow) == pytest.approx(expected)


def test_seed000_slow_sata_replica_sets_the_pace():
    # Seed 000's slow-disk slide: one replica on a 7.2k SATA disk (12.7 ms in data/disk_classes.csv)
    # among SSDs (0.07 ms) makes every write wait for it.
    ssd, sata = iops.disk_class("SATA SSD")["latency_ms"], iops.disk_class("7.2k SATA HDD")["latency_ms"]
    fast = write_latency_ms(0.05, ssd, 0.5, 3)
    slow = write_latency_ms(0.05, ssd, 0.5, 3, slowest_disk_ms=sata)
    assert fast == pytest.approx(0.05 + 0.5 + (0.1 + 0.5 + 0.07) + 0.05)
    assert slow == pytest.approx(0.05 + 0.5 + (0.1 + 0.5 + 12.7) + 0.05)
    assert slow / fast > 10


def test_serial_contrast():
    # Three copies one after another: 0.1 + 0.5 + 5 + 2 x (0.2 + 0.5 + 5) + 0.1 = 17.1 ms.
    assert serial_write_latency_ms(0.1, 5.0, 0.5, 3) == pytest.approx(17.1)
    assert serial_write_latency_ms(0.1, 5.0, 0.5, 1) == pytest.approx(write_latency_ms(0.1, 5.0, 0.5, 1))
    assert replica_round_trip_ms(0.1, 5.0, 0.5) == pytest.approx(5.7)


def test_steps_add_up():
    steps = write_path_steps(0.05, 0.25, 1.7, 3)
    assert [s[0][:3] for s in steps] == ["(1)", "pri", "(2)", "(2)", "(4)"]
    assert sum(ms for _, ms, critical in steps if critical) == pytest.approx(write_latency_ms(0.05, 0.25, 1.7, 3))
    assert len(write_path_steps(0.05, 0.25, 1.7, 1)) == 4
    with pytest.raises(ValueError, match="scalars"):
        write_path_steps(0.05, [0.25, 1.0], 1.7, 3)


finite = st.floats(0, 100, allow_nan=False)


@given(finite, finite, finite, st.integers(1, 10), finite)
def test_parallel_never_slower_than_serial_nor_faster_than_one_copy(net, disk, osd, r, slow):
    par = write_latency_ms(net, disk, osd, r, slowest_disk_ms=slow)
    assert par <= serial_write_latency_ms(net, disk, osd, r, slowest_disk_ms=slow) + 1e-9
    assert par >= write_latency_ms(net, disk, osd, 1) - 1e-9


@given(finite, finite, finite, st.integers(2, 10))
def test_parallel_does_not_depend_on_replica_count(net, disk, osd, r):
    # The fan-out is parallel: 2 copies or 10 cost the same in this model.
    assert write_latency_ms(net, disk, osd, r) == pytest.approx(write_latency_ms(net, disk, osd, 2))


def test_vectorised_equals_scalar_loop():
    disks = np.linspace(0, 20, 50)
    got = write_latency_ms(0.1, 1.0, 0.5, 3, slowest_disk_ms=disks)
    assert np.allclose(got, [write_latency_ms(0.1, 1.0, 0.5, 3, slowest_disk_ms=d) for d in disks])
    assert np.allclose(write_latency_ms(0.1, 1.0, 0.5, np.array([1, 2, 3])), [1.7, 2.4, 2.4])


@pytest.mark.parametrize("kw,word", [
    ({"net_ms": -1}, "net_ms"), ({"disk_ms": float("nan")}, "disk_ms"), ({"osd_ms": -0.1}, "osd_ms"),
    ({"replicas": 0}, "replicas"), ({"replicas": 2.5}, "replicas"), ({"slowest_disk_ms": -3}, "slowest_disk_ms"),
])
def test_invalid_inputs_name_the_parameter(kw, word):
    args = {"net_ms": 0.1, "disk_ms": 1.0, "osd_ms": 0.5, "replicas": 3, **kw}
    with pytest.raises(ValueError, match=word):
        write_latency_ms(**args)


@given(st.floats(0, 1), st.floats(0, 20), st.floats(0, 5), st.integers(1, 6))
def test_measured_parts_is_write_latency_in_other_words(net, disk, osd, r):
    """outside = osd, commit = disk and a replica's sub-op = its osd + disk: the same write."""
    parts = measured_parts_latency_ms(net, osd, disk, osd + disk, r)
    assert parts == pytest.approx(write_latency_ms(net, disk, osd, r))
    serial = measured_parts_latency_ms(net, osd, disk, osd + disk, r, serial=True)
    assert serial == pytest.approx(serial_write_latency_ms(net, disk, osd, r))


def test_measured_parts_golden():
    """Lab 00's run by hand (tests/unit/test_latency_table.py): 0.346 ms outside, 1.493 ms commit,
    1.729 ms sub-op, size 3 over loopback: 2.275 ms in parallel, 5.597 ms one by one."""
    assert measured_parts_latency_ms(0.05, 0.346, 1.493, 1.729, 3) == pytest.approx(2.275)
    assert measured_parts_latency_ms(0.05, 0.346, 1.493, 1.729, 3, serial=True) == pytest.approx(5.597)
    assert np.allclose(measured_parts_latency_ms(0.05, 0.346, 1.493, 1.729, np.array([1, 2, 3])),
                       [1.939, 2.275, 2.275])


@pytest.mark.parametrize("kw, word", [(dict(outside_ms=-1), "outside_ms"), (dict(commit_ms=-0.1), "commit_ms"),
                                      (dict(subop_ms=-2), "subop_ms"), (dict(replicas=0), "replicas")])
def test_measured_parts_rejects_bad_input(kw, word):
    args = {**dict(net_ms=0.05, outside_ms=0.3, commit_ms=1.0, subop_ms=1.2, replicas=3), **kw}
    with pytest.raises(ValueError, match=word):
        measured_parts_latency_ms(**args)
