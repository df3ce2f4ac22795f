"""cephlab.helpers.throttles: throttle counters around a benchmark, on the shared BlueStore cluster."""
import pytest

from cephlab.core.errors import ClusterError
from cephlab.helpers.throttles import bench_with_throttle, throttle_counters, wait_for_option
from models.throttle import bluestore_txc_cost

pytestmark = pytest.mark.cluster

SECTION = "throttle-bluestore_throttle_bytes"


def test_counters_of_a_bluestore_throttle(lab_cluster):
    got = throttle_counters(lab_cluster, 0, SECTION)
    assert got["max"] == 67108864                       # bluestore_throttle_bytes, Pacific
    assert set(got) == {"val", "max", "get", "get_sum", "wait_count", "wait_sum"}
    with pytest.raises(ClusterError, match="throttle-filestore_ops"):
        throttle_counters(lab_cluster, 0, "throttle-filestore_ops")   # a BlueStore OSD has none


def test_bench_with_throttle_counts_every_transaction(lab_cluster):
    osds = [int(o) for o in lab_cluster.ceph("osd", "ls")]
    with lab_cluster.resources() as r:
        pool = r.replicated_pool("pytest-throttles", size=3, pg_num=16)
        run = bench_with_throttle(lab_cluster, pool, 2, SECTION, osds=osds)
    assert run.bench.ops > 0 and run.samples, "the bench ran and the counters were sampled"
    # size 3: every client write is one transaction on each of 3 OSDs (a few PG-info extras)
    assert run.total("get") == pytest.approx(3 * run.bench.ops, rel=0.05)
    # each 4 KiB deferred write costs ~ one HDD I/O (670000) + its bytes (BlueStore._txc_calc_cost)
    per_get = run.total("get_sum") / run.total("get")
    assert per_get == pytest.approx(bluestore_txc_cost(4096), rel=0.01)
    assert 0 <= run.peak_fill() <= 1


def test_wait_for_option_sees_a_change_and_times_out(lab_cluster):
    with lab_cluster.tuning() as t:
        t.set("osd", "osd_max_backfills", 3)
        wait_for_option(lab_cluster, [0, 1], "osd_max_backfills", 3)
    with pytest.raises(ClusterError, match="osd_max_backfills"):
        wait_for_option(lab_cluster, [0], "osd_max_backfills", 99, timeout=1)
