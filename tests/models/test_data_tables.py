"""The CSV tables behind models.iops: shape, units and that every row names its source."""
from models import data


def test_disk_classes_columns_and_ordering():
    rows = data.load("disk_classes")
    assert set(rows[0]) == {"class", "iops", "mb_s", "latency_ms", "source"}
    assert all(r["iops"] > 0 and r["mb_s"] > 0 and r["latency_ms"] > 0 for r in rows)
    hdd = [r for r in rows if "HDD" in r["class"]]
    # faster spindles: shorter access time
    assert [r["latency_ms"] for r in hdd] == sorted((r["latency_ms"] for r in hdd), reverse=True)
    assert sum("seed 000" in r["source"] for r in rows) == 3


def test_seed000_table_columns():
    rows = data.load("seed000_4k_randwrite")
    assert [r["case"] for r in rows] == [1, 2, 3, 4]
    assert set(rows[0]) == {"case", "description", "expected_iops", "measured_iops", "latency_ms",
                            "settings", "source"}
    assert [r["expected_iops"] for r in rows] == [1800, 15000, "", ""]   # not given for cases 3, 4
    assert all("000_ff3932318711fad8" in r["source"] for r in rows)


def test_reference_measurements_are_labelled_measured_and_match_the_models():
    """The lab's own reference measurements live in the repository (no citation of files outside
    it), every row says it was measured, and the constants the models keep equal the table."""
    from models import threads
    rows = {r["quantity"]: r for r in data.load("native_cluster_reference")}
    assert all("measured" in r["source"] for r in rows.values())
    assert rows["osd_threads"]["value"] == threads.ASYNC_OSD_THREADS_MEASURED
    assert rows["rep3_raw_per_stored"]["value"] == 3.0 and rows["ec21_raw_per_stored"]["value"] == 1.5
    waf = {(r["config"], r["component"]): r["waf"] for r in data.load("bluestore_waf_reference")}
    assert waf[("prefer_deferred_size_hdd_65536", "total")] == 10.0
