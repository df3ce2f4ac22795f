"""Measurements return sane numbers on the real cluster."""
import pytest

pytestmark = pytest.mark.cluster


def test_rados_bench_10s(lab_cluster):
    with lab_cluster.resources() as r:
        r.replicated_pool("t_bench", size=3, pg_num=32)
        with lab_cluster.measure_device_writes() as w:
            res = lab_cluster.rados_bench("t_bench", 10, "write", block_size=4096, threads=16,
                                          cleanup=False)
        assert res.iops > 0 and res.mb_s > 0
        assert 0 < res.lat_mean_ms <= res.lat_max_ms
        assert 9 <= len(res.series) <= 11
        assert all(iops >= 0 and lat >= 0 for _, iops, _, lat in res.series)
        assert res.ops == pytest.approx(res.iops * res.seconds, rel=0.1)
        # every 4 KiB write lands on 3 OSDs, plus BlueStore WAL/metadata: device bytes >= 3x
        assert w["total"] >= 3 * res.ops * 4096
        read = lab_cluster.rados_bench("t_bench", 3, "rand")
        assert read.iops > 0 and read.block_size == 4096
        lab_cluster.bench_cleanup("t_bench")
        assert lab_cluster.ceph("df", "detail") is not None


def test_fio_rbd_and_counters(lab_cluster):
    with lab_cluster.resources() as r:
        r.replicated_pool("t_fio", size=3, pg_num=16, application=None)
        r.rbd_image("t_fio", "img", 128)
        res = lab_cluster.fio_rbd("t_fio", "img", rw="randwrite", bs=4096, iodepth=16, runtime=4)
        assert res.iops > 0 and res.lat_mean_ms > 0
        assert 0 < res.lat_p50_ms <= res.lat_p99_ms
        assert 3 <= len(res.series) <= 5
        perf = lab_cluster.perf_dump(0)
        assert perf["osd"]["op_w"] > 0
    threads = lab_cluster.thread_counts()
    assert set(threads) >= {"mon.a", "mgr.x", "osd.0"} and threads["osd.0"] > 10
    assert all(v > 10 * 1024 * 1024 for v in lab_cluster.memory_rss().values())


def test_record_pg_states_in_background(lab_cluster):
    rec = lab_cluster.record_pg_states(seconds=2.5, interval=0.5, background=True)
    series = rec.wait(timeout=30)
    assert 5 <= len(series) <= 7
    assert all(t >= 0 for t, _ in series) and series[0][0] < series[-1][0]
    assert all(set(s) <= {"active+clean"} for _, s in series)
