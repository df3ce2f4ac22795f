"""The read-mix sweep's bookkeeping (cephlab.helpers.readmix): the order of the runs, the summary,
the model fed with the measured ends, a tolerance from the spread, and its negative control."""
from __future__ import annotations

import types

import pandas as pd
import pytest

from cephlab.helpers import readmix
from models import iops


class FakeCluster:
    """fio_rbd answering from a cost model: a read costs 1/R s, a write 1/W s of one resource."""

    def __init__(self, read=5000.0, write=800.0, noise=()):
        self.read, self.write, self.calls, self.noise = read, write, [], list(noise)

    def fio_rbd(self, pool, image, rw, bs, iodepth, runtime, extra):
        pct = int(extra[0].split("=")[1])
        self.calls.append(pct)
        total = float(iops.mixed_iops(self.read, self.write, pct / 100)) * (self.noise.pop(0) if self.noise else 1.0)
        raw = {"jobs": [{"read": {"iops": total * pct / 100}, "write": {"iops": total * (1 - pct / 100)}}]}
        return types.SimpleNamespace(iops=total, lat_mean_ms=iodepth / total * 1e3, raw=raw)


def test_rounds_alternate_their_order():
    c = FakeCluster()
    frame = readmix.sweep(c, "p", "img", read_pcts=(0, 50, 100), rounds=3, seconds=1)
    assert c.calls == [0, 50, 100, 100, 50, 0, 0, 50, 100]
    assert list(frame["round"]) == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    row = frame[(frame["round"] == 1) & (frame["read %"] == 50)].iloc[0]
    assert row["read IOPS"] + row["write IOPS"] == pytest.approx(row["IOPS"])


def test_a_harmonic_cluster_agrees_and_the_linear_control_fails():
    noise = [1.0, 1.02, 0.98, 0.99, 1.01, 1.0] * 3        # about 4 % spread over the rounds
    c = FakeCluster(noise=noise)
    points = readmix.summary(readmix.sweep(c, "p", "img", read_pcts=(0, 30, 50, 70, 100), rounds=3))
    assert list(points["rounds"]) == [3] * 5
    cmp = readmix.compare(points)
    assert [r.quantity for r in cmp.rows] == ["IOPS at 30 % reads", "IOPS at 50 % reads", "IOPS at 70 % reads"]
    assert all(r.agrees for r in cmp.rows) and all(r.control_fails for r in cmp.rows)
    cmp.assert_agree()
    # the tolerance is the ends' largest spread plus the point's own, not a constant
    assert cmp.rows[1].rel_tol == pytest.approx(max(points.loc[0, "spread"], points.loc[100, "spread"])
                                                + points.loc[50, "spread"])
    pct, model, control, measured = readmix.widest_gap(points)
    assert pct in (30, 50, 70) and control > 1.5 * model


def test_a_linear_cluster_fails_the_harmonic_model():
    """Negative control the other way round: a cluster whose IOPS do mix linearly (reads and
    writes on separate resources) must fail the check."""
    rows = [{"round": r, "read %": p, "IOPS": 800 + (5000 - 800) * p / 100} for r in (1, 2, 3) for p in (0, 50, 100)]
    points = readmix.summary(pd.DataFrame(rows))
    cmp = readmix.compare(points)
    assert not cmp.rows[0].agrees
    with pytest.raises(AssertionError):
        cmp.assert_agree()


def test_summary_spread_and_ends():
    rows = [{"round": r, "read %": p, "IOPS": v} for r, p, v in
            [(1, 0, 90), (2, 0, 100), (3, 0, 110), (1, 100, 1000), (2, 100, 1000), (3, 100, 1000)]]
    points = readmix.summary(pd.DataFrame(rows))
    assert points.loc[0, "median IOPS"] == 100 and points.loc[0, "spread"] == pytest.approx(0.2)
    assert readmix.ends(points) == (100.0, 1000.0, 10.0)
    assert readmix.model(points, [50])[50] == pytest.approx(1 / (0.5 / 1000 + 0.5 / 100))
