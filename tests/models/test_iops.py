"""models.iops: seed 000's planning rule and measurements, Little's law, mixes, bounds."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import iops
from models import throttle as thr

# Seed 000_ff3932318711fad8.txt (NAVER 2017), "Expect Result : 4K Rand Write".
EXPECTED_WRITE_IOPS = {
    # (disk_iops, disks, replicas, journal_writes): expected
    (600, 9, 3, 1): 1800,      # case 1: SAS 10k x 3 per node x 3 nodes / 3 replicas
    (15000, 3, 3, 1): 15000,   # case 2: one journal SSD per node, 3 nodes / 3 replicas
    (600, 9, 3, 2): 900,       # journal on the same disk: every write lands twice
    (100, 12, 2, 1): 600,
}


@pytest.mark.parametrize("args", list(EXPECTED_WRITE_IOPS))
def test_expected_write_iops_seed000(args):
    assert iops.expected_write_iops(*args) == pytest.approx(EXPECTED_WRITE_IOPS[args])


def test_seed000_expected_column_matches_the_rule():
    cases = {row["case"]: row for row in iops.seed000_cases()}
    assert iops.expected_write_iops(iops.disk_class("10k SAS HDD")["iops"], 9, 3) == cases[1]["expected_iops"]
    assert iops.expected_write_iops(iops.disk_class("SATA SSD")["iops"], 3, 3) == cases[2]["expected_iops"]


def test_seed000_measured_table():
    # Seed 000: case 1 2,094 IOPS / 34.36 ms; case 2 2,273 / 31.65; case 3 2,899 (174.76 as
    # printed); case 4 14,264 / 40.65. Gains: +38 % (case 3) and x7 (case 4) over case 1.
    rows = {r["case"]: r for r in iops.seed000_cases()}
    assert [(rows[c]["measured_iops"], rows[c]["latency_ms"]) for c in (1, 2, 3, 4)] == [
        (2094, 34.36), (2273, 31.65), (2899, 174.76), (14264, 40.65)]
    assert round((rows[3]["measured_iops"] / rows[1]["measured_iops"] - 1) * 100) == 38
    assert round(rows[4]["measured_iops"] / rows[1]["measured_iops"]) == 7
    assert iops.measured_vs_expected(2094, 1800) == pytest.approx(1.1633, rel=1e-4)
    assert "filestore_queue_max_ops = 500000" in rows[3]["settings"]


def test_disk_classes_table():
    classes = {r["class"]: r for r in iops.disk_classes()}
    assert list(classes) == ["7.2k SATA HDD", "10k SAS HDD", "15k SAS HDD", "SATA SSD", "NVMe SSD"]
    assert classes["10k SAS HDD"]["iops"] == 600          # seed 000
    assert classes["SATA SSD"]["iops"] == 15000           # seed 000
    assert 75 <= classes["7.2k SATA HDD"]["iops"] <= 100  # seed 000: ~75-100
    assert all(r["source"] for r in classes.values())
    with pytest.raises(ValueError, match="class"):
        iops.disk_class("floppy")


LITTLE = {
    # (iops, queue_depth): latency_ms
    (2094, 72): 34.384,     # seed 000 case 1: 2,094 IOPS at 34.36 ms is ~72 in flight
    (1000, 1): 1.0,
    (10174, 16): 1.5726,    # native-cluster note: rados bench 4 KiB rand read, 16 ops, 1.6 ms
    (984, 16): 16.26,       # native-cluster note: rados bench 4 KiB write, 16 ops, 16 ms
}


@pytest.mark.parametrize("args", list(LITTLE))
def test_littles_law(args):
    assert iops.latency_ms(*args) == pytest.approx(LITTLE[args], rel=1e-3)
    assert iops.iops_from_latency(LITTLE[args], args[1]) == pytest.approx(args[0], rel=1e-3)


def test_queue_depth_from_seed000_case1():
    assert iops.queue_depth_from(2094, 34.36) == pytest.approx(71.95, rel=1e-3)


def test_mixed_iops_endpoints_and_midpoint():
    assert iops.mixed_iops(1000, 100, 0.0) == pytest.approx(100)
    assert iops.mixed_iops(1000, 100, 1.0) == pytest.approx(1000)
    assert iops.mixed_iops(1000, 100, 0.5) == pytest.approx(2 / (1 / 1000 + 1 / 100))


HDD = {(7200, 8.5): 78.947, (10000, 4.5): 133.333, (15000, 3.5): 181.818}


@pytest.mark.parametrize("args", list(HDD))
def test_hdd_mechanics(args):
    assert iops.hdd_iops(*args) == pytest.approx(HDD[args], rel=1e-4)


def test_seed000_sas_figure_is_above_disk_mechanics():
    # The slide's 600 IOPS is ~4.5x what seek + rotation allow at QD 1.
    assert iops.disk_class("10k SAS HDD")["iops"] / iops.hdd_iops(10000, 4.5) == pytest.approx(4.5)


def test_cpu_ceiling_seed004():
    # Seed 004: "10^4 IOPS per CPU (CPU: Xeon E5-2630 v3)", all-SSD Hammer; the model reads it per core.
    assert iops.cpu_ceiling_iops(16) == pytest.approx(160000)
    assert iops.cpu_ceiling_iops(16, 5000) == pytest.approx(80000)


def test_cluster_write_iops_takes_the_lower_bound():
    nvme = iops.disk_class("NVMe SSD")["iops"]
    assert iops.cluster_write_iops(nvme, 12, 3) == pytest.approx(700000)
    assert iops.cluster_write_iops(nvme, 12, 3, cores=24) == pytest.approx(240000)   # CPU-bound
    assert iops.cluster_write_iops(600, 9, 3, 1, cores=24) == pytest.approx(1800)     # disk-bound


def test_device_writes_count_data_and_commit_deferred_or_not():
    """Lab 03 Q3 used to count a direct 64 KiB write as 1 device write (its data) and a deferred 4 KiB
    one as 2 (WAL, then in place), while lab 04 charged the 64 KiB write 2 I/Os (its data and the
    RocksDB commit). One model now: data and commit, 2 for both when each commits alone."""
    assert iops.device_writes_per_write(4096) == 2.0
    assert iops.device_writes_per_write(65535) == 2.0
    assert iops.device_writes_per_write(65536) == 2.0                # was 1.0
    assert iops.device_writes_per_write(4 * 2**20) == 65.0          # one aio per 64 KiB blob
    sizes = np.array([4096, 65536, 4 * 2**20])
    assert np.array_equal(iops.device_writes_per_write(sizes), thr.bluestore_device_ios(sizes))
    # many writes in flight share one commit: one device write per replica write (lab 03 Q4's flash)
    assert iops.device_writes_per_write(4096, commit_share=0) == 1.0
    hdd_small = iops.cluster_write_iops(150, 3, 3, iops.device_writes_per_write(4096))
    assert hdd_small == pytest.approx(75)


def test_seed000_case1_beats_the_queue_depth_1_rule():
    """Case 1 (journals on the SAS disks, 72 in flight) measured 2,094: 2.3x the journal-aware rule with
    the seed's 600 IOPS per disk (900), 10.5x the rule with seek + half a rotation (133 IOPS, 200)."""
    assert iops.expected_write_iops(600, 9, 3, 2) == pytest.approx(900)
    qd1 = iops.expected_write_iops(iops.hdd_iops(10000, 4.5), 9, 3, 2)
    assert qd1 == pytest.approx(200)
    assert iops.measured_vs_expected(2094, 900) == pytest.approx(2.327, abs=1e-3)
    assert iops.measured_vs_expected(2094, qd1) == pytest.approx(10.47, abs=0.01)
    assert iops.queue_depth_from(2094, 34.36) == pytest.approx(71.95, abs=0.01)


@pytest.mark.parametrize("call, name", [
    (lambda: iops.expected_write_iops(600, 9, 0), "replicas"),
    (lambda: iops.expected_write_iops(600, 9, 2.5), "replicas"),
    (lambda: iops.expected_write_iops(-1, 9), "disk_iops"),
    (lambda: iops.expected_write_iops(600, 0), "disks"),
    (lambda: iops.expected_write_iops(600, 9, 3, 0.5), "journal_writes"),
    (lambda: iops.mixed_iops(100, 10, -0.1), "read_fraction"),
    (lambda: iops.mixed_iops(100, 10, 1.1), "read_fraction"),
    (lambda: iops.mixed_iops(0, 10, 0.5), "read_iops"),
    (lambda: iops.mixed_iops(100, 0, 0.5), "write_iops"),
    (lambda: iops.latency_ms(0, 16), "iops"),
    (lambda: iops.latency_ms(100, 0), "queue_depth"),
    (lambda: iops.iops_from_latency(0, 16), "latency_ms"),
    (lambda: iops.cpu_ceiling_iops(-1), "cores"),
    (lambda: iops.hdd_iops(0, 4), "rpm"),
    (lambda: iops.device_writes_per_write(0), "io_size"),
    (lambda: iops.device_writes_per_write(4096, commit_share=-0.1), "commit_share"),
])
def test_invalid_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_vectorised_equals_scalar_and_scalars_are_floats():
    f = np.linspace(0, 1, 11)
    out = iops.mixed_iops(1000, 100, f)
    assert isinstance(out, np.ndarray) and out.shape == (11,)
    assert np.allclose(out, [iops.mixed_iops(1000, 100, float(x)) for x in f])
    qd = np.array([1, 4, 16, 64])
    assert np.allclose(iops.latency_ms(1000, qd), [iops.latency_ms(1000, int(q)) for q in qd])
    for value in (iops.mixed_iops(1000, 100, 0.3), iops.expected_write_iops(600, 9),
                  iops.latency_ms(1000, 4), iops.cpu_ceiling_iops(8), iops.hdd_iops(7200, 8.5)):
        assert type(value) is float


@given(r=st.floats(1, 1e6), w=st.floats(1, 1e6), f=st.floats(0, 1))
def test_mix_lies_between_pure_read_and_pure_write(r, w, f):
    mix = iops.mixed_iops(r, w, f)
    assert min(r, w) * (1 - 1e-9) <= mix <= max(r, w) * (1 + 1e-9)


@given(r=st.floats(2, 1e6), w=st.floats(1, 1e6), f1=st.floats(0, 1), f2=st.floats(0, 1))
def test_more_reads_help_when_reads_are_faster(r, w, f1, f2):
    lo, hi = sorted((f1, f2))
    if r > w:
        assert iops.mixed_iops(r, w, hi) >= iops.mixed_iops(r, w, lo) * (1 - 1e-12)


@given(i=st.floats(1, 1e6), qd=st.floats(1, 256))
def test_latency_and_iops_are_inverse(i, qd):
    assert iops.iops_from_latency(iops.latency_ms(i, qd), qd) == pytest.approx(i, rel=1e-9)


@given(d=st.floats(1, 1e5), n=st.integers(1, 1000), rep=st.integers(1, 5))
def test_expected_iops_scales_with_disks_and_falls_with_replicas(d, n, rep):
    base = iops.expected_write_iops(d, n, rep)
    assert iops.expected_write_iops(d, 2 * n, rep) == pytest.approx(2 * base)
    assert iops.expected_write_iops(d, n, rep + 1) < base
