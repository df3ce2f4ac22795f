"""cephlab.helpers.diskbench.against_base (lab 03): a run at the learner's writes in flight
next to the 16-thread run, with their prediction and the saturated model."""
import math

from cephlab.cluster.measure import BenchResult
from cephlab.helpers.diskbench import against_base


def bench(iops, lat_ms):
    return BenchResult(tool="rados bench", op="write", block_size=4096, seconds=5, ops=int(5 * iops),
                       iops=iops, mb_s=iops * 4096 / 2**20, lat_mean_ms=lat_ms, lat_max_ms=2 * lat_ms)


def test_the_saturated_model_keeps_the_base_iops_and_scales_the_latency():
    table = against_base(bench(450.0, 8.9), bench(900.0, 17.8), threads=4, prediction=(1.0, 0.25))
    assert list(table.index) == ["IOPS", "mean latency ms"]
    assert table["saturated model"].tolist() == [900.0, 17.8 * 4 / 16]
    assert table["4 threads: your prediction"].tolist() == [900.0, 17.8 * 0.25]
    assert table["measured"].tolist() == [450.0, 8.9]
    assert table["16 threads, measured"].tolist() == [900.0, 17.8]


def test_an_unanswered_prediction_is_blank():
    for prediction in ((None, None), (..., ...), (True, "0.25")):
        column = against_base(bench(450.0, 8.9), bench(900.0, 17.8), threads=4,
                              prediction=prediction)["4 threads: your prediction"]
        assert all(v is None or math.isnan(v) for v in column)
