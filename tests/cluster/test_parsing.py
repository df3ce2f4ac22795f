"""Parsing tool output (no cluster): rados bench JSON as Ceph 16.2.15 prints it on this machine."""
import pytest

from cephlab.cluster.measure import parse_rados_bench

# `rados bench 3 write -b 4096 -t 16 --no-cleanup --format json` on the lab cluster (Pacific 16.2.15)
RADOS_BENCH_WRITE = 'hints = 1\n{"concurrent_ios":"16","object_size":"4096","op_size":"4096","seconds_to_run":"3","max_objects":"0","object_prefix":"benchmark_data_vm_10781","datas":[{"sec":"0","cur_ops":"0","started":"0","finished":"0","avg_bw":"0.000000","cur_bw":"0.000000","last_lat":"0.000000","avg_lat":"0.000000"},{"sec":"1","cur_ops":"16","started":"912","finished":"896","avg_bw":"3.499767","cur_bw":"3.500000","last_lat":"0.013290","avg_lat":"0.017636"},{"sec":"2","cur_ops":"16","started":"1717","finished":"1701","avg_bw":"3.321861","cur_bw":"3.144531","last_lat":"0.022317","avg_lat":"0.018692"},{"sec":"3","cur_ops":"16","started":"2608","finished":"2592","avg_bw":"3.374583","cur_bw":"3.480469","last_lat":"0.019411","avg_lat":"0.018457"}],"total_time_run":"3.007135","total_writes_made":"2608","write_size":"4096","object_size":"4096","bandwidth":"3.387776","stddev_bandwidth":"0.199831","max_bandwidth":"3.500000","min_bandwidth":"3.144531","average_iops":"867","stddev_iops":"914793392","max_iops":"896","min_iops":"805","average_latency":"0.018422","stddev_latency":"0.006442","max_latency":"0.052869","min_latency":"0.004366"}\n'  # noqa: E501  (Ceph's own output, verbatim)

GOLDEN = {"iops": 867.0, "mb_s": 3.387776, "lat_mean_ms": 18.422, "lat_max_ms": 52.869,
          "ops": 2608, "seconds": 3.007135}


def test_rados_bench_summary_and_series():
    res = parse_rados_bench(RADOS_BENCH_WRITE, "write", 4096)
    for key, value in GOLDEN.items():
        assert getattr(res, key) == pytest.approx(value), key
    # per second: completions in that second (896, 1701-896, 2592-1701) and the running mean latency
    assert [(t, n) for t, n, _, _ in res.series] == [(1, 896.0), (2, 805.0), (3, 891.0)]
    assert res.series[1][2] == pytest.approx(805 * 4096 / 2**20)
    assert res.series[2][3] == pytest.approx(18.457)
