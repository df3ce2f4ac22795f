"""cephlab.helpers.waf: client vs device bytes on the shared BlueStore cluster, and the arithmetic."""
import pytest

from cephlab.helpers.waf import WriteRun, counters, drain_filestore, measure_writes, prefill_image


def test_component_waf_arithmetic():
    # 1 MiB of client data; BlueStore wrote 3 MiB direct (big 3 MiB + small 4 KiB - 4 KiB deferred)
    run = WriteRun(block_size=4096, client_bytes=2**20, device_bytes={0: 2**20, 1: 2 * 2**20},
                   counters={"rocksdb_wal": 2**19, "rocksdb_sst": 0, "bluefs_log": 2**18,
                             "deferred_data": 4096, "write_big": 3 * 2**20, "write_small": 4096,
                             "write_deferred": 4096, "client_in": 2**20})
    assert run.waf == 3.0
    assert run.component_waf() == {"rocksdb_wal": 0.5, "rocksdb_sst": 0.0, "bluefs_log": 0.25,
                                   "deferred_data": 4096 / 2**20, "data": 3.0}


def test_component_waf_filestore_has_journal_and_no_data_split():
    run = WriteRun(block_size=4096, client_bytes=1000, device_bytes={0: 6000},
                   counters={"ceph_journal": 3000, "filestore_applied": 3100})
    assert run.component_waf() == {"ceph_journal": 3.0, "filestore_applied": 3.1}


@pytest.mark.cluster
def test_large_writes_on_bluestore_cost_three_copies(lab_cluster):
    osds = [int(o) for o in lab_cluster.ceph("osd", "ls")]
    assert {"client_in", "rocksdb_wal", "deferred_data", "write_big"} <= set(counters(lab_cluster, osds))
    with lab_cluster.resources() as r:
        pool = r.replicated_pool("pytest-waf", size=3, pg_num=16)
        r.rbd_image(pool, "img", 16)
        prefill_image(lab_cluster, pool, "img", 16)
        run = measure_writes(lab_cluster, pool, "img", 2**20, seconds=2, osds=osds, settle=0.5)
    assert run.client_bytes >= 2**20
    parts = run.component_waf()
    # 1 MiB writes are direct (above prefer_deferred_size 64 KiB): data once per replica
    assert parts["data"] + parts["deferred_data"] == pytest.approx(3.0, rel=0.1)
    assert run.waf == pytest.approx(3.0, rel=0.15)      # /proc agrees with the counters
    # the size-3 pool's primaries received exactly what fio sent
    assert run.counters["client_in"] == pytest.approx(run.client_bytes, rel=0.02)


@pytest.mark.cluster
def test_drain_returns_at_once_on_bluestore(lab_cluster):
    # BlueStore OSDs have no FileStore op queue: nothing to wait for
    assert drain_filestore(lab_cluster, [0, 1], timeout=5) < 5
