"""cephlab.helpers.diskbench on the real test cluster: fio on the OSDs' disk, CPU seconds per write."""
import pytest

from cephlab.helpers.diskbench import cpu_meter, fio_file, process_cpu_seconds

pytestmark = pytest.mark.cluster


def test_fio_file_measures_the_disk_and_cleans_up(lab_cluster, tmp_path):
    res = fio_file(tmp_path, iodepth=4, seconds=1, size_mib=8)
    synced = fio_file(tmp_path, iodepth=1, seconds=1, size_mib=8, fdatasync=True)
    assert res.iops > 0 and synced.iops > 0 and res.block_size == 4096
    # Little's law inside fio: at queue depth 4 the mean latency is ~4 / IOPS
    assert res.lat_mean_ms == pytest.approx(4e3 / res.iops, rel=0.25)
    assert list(tmp_path.iterdir()) == []


def test_cpu_meter_counts_osd_and_client_cpu(lab_cluster):
    # earlier tests stop and restart OSDs: a restart inside the window would reset a CPU counter
    lab_cluster.wait_for_clean(timeout=180, progress=False)
    with lab_cluster.resources() as r:
        pool = r.replicated_pool("t_diskbench", size=3, pg_num=8)
        with cpu_meter(lab_cluster) as cpu:
            res = lab_cluster.rados_bench(pool, 2, "write", block_size=4096, threads=8, cleanup=False)
    assert res.ops > 0
    # every client write is three OSD ops: some CPU on the OSDs, some in the rados client
    assert cpu["osd_s"] > 0 and cpu["client_s"] > 0
    assert cpu["wall_s"] >= res.seconds and 0 < cpu["host_busy"] <= 1
    osd_pids = [pid for name, pid in lab_cluster.pids().items() if name.startswith("osd.")]
    assert osd_pids and all(process_cpu_seconds(pid) > 0 for pid in osd_pids)
