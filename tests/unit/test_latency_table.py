"""cephlab.helpers.latency.model_vs_measured: lab 00's latency table, from numbers alone."""
import pytest

from cephlab.helpers.latency import model_vs_measured


def _m(median, cpu, wait, p10=None, p90=None):
    return {"median ms": median, "p10 ms": p10 if p10 is not None else median * 0.9,
            "p90 ms": p90 if p90 is not None else median * 1.2, "OSD CPU ms per copy": cpu,
            "run-queue wait ms per write": wait}


def test_committed_run_by_hand():
    """Solution 00's committed run: disk 0.175 ms, loopback 0.05 ms. Size 3: parallel
    0.05 + 0.941 + max(0.175, 0.1 + 0.941 + 0.175) + 0.05 = 2.257 ms; serial adds one more hop,
    OSD share and disk (1.216 ms) and the primary's own disk (0.175 ms): 3.648 ms."""
    t = model_vs_measured({1: _m(1.364, 0.840, 0.280, 1.229, 1.627),
                           3: _m(2.696, 0.941, 2.370, 2.338, 3.342)}, disk_ms=0.175, net_ms=0.05)
    assert t.loc[1, "model"] == pytest.approx(0.05 + 0.840 + 0.175 + 0.05)
    assert t.loc[1, "models differ by"] == pytest.approx(0.0)       # one copy: nothing to fan out
    assert t.loc[3, "model"] == pytest.approx(2.257)
    assert t.loc[3, "serial model"] == pytest.approx(3.648)
    assert t.loc[3, "gap"] == pytest.approx(2.696 - 2.257)
    assert t.loc[3, "blur"] == pytest.approx(2.370 + 3.342 - 2.338)
    assert not t["tells apart"].any()          # 1.39 ms between the models, 3.37 ms of blur


def test_a_slow_disk_and_a_quiet_cpu_tell_the_models_apart():
    """Negative control of the 'cannot tell' finding: with 12.7 ms disks (7.2k SATA) and little
    wait, the serial model is 25 ms slower and the run can decide."""
    t = model_vs_measured({3: _m(14.0, 0.5, 0.1, 13.5, 14.8)}, disk_ms=12.7, net_ms=0.05)
    assert t.loc[3, "models differ by"] > 20 and bool(t.loc[3, "tells apart"])
