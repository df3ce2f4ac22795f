"""cephlab.helpers.latency.model_vs_measured: lab 00's latency table, from numbers alone."""
import pytest

from cephlab.helpers.latency import model_vs_measured


def _m(mean, commit, subop=None):
    return {"mean ms": mean, "commit ms": commit, "subop_w ms": subop}


def test_a_run_by_hand():
    """A run of lab 00 here (Pacific, 3 OSDs, loopback 0.05 ms): size 1 mean 1.387 ms with a
    0.941 ms commit leaves 1.387 - 0.941 - 0.1 = 0.346 ms outside the commit. Size 3: commit
    1.493, sub-op 1.729: parallel 0.346 + 0.1 + max(1.493, 0.1 + 1.729) = 2.275 ms; serial
    0.346 + 0.1 + 1.493 + 2 x 1.829 = 5.597 ms; measured 2.509."""
    t = model_vs_measured({1: _m(1.387, 0.941), 2: _m(2.205, 1.286, 1.451), 3: _m(2.509, 1.493, 1.729)}, net_ms=0.05)
    assert t.loc[1, "outside the commit"] == pytest.approx(0.346)
    assert t.loc[1, "model"] == pytest.approx(1.387)                 # size 1 is the parts' source
    assert t.loc[1, "serial model"] == pytest.approx(1.387)          # one copy: nothing to fan out
    assert t.loc[3, "model"] == pytest.approx(2.275)
    assert t.loc[3, "serial model"] == pytest.approx(5.597)
    assert t.loc[2, "model"] == pytest.approx(0.346 + 0.1 + 1.551)
    assert t.loc[3, "gap"] == pytest.approx(2.509 - 2.275)
    # size 3 spent 2.509 - 0.1 - 1.829 = 0.580 ms outside the commit and the replica's round trip
    assert t.loc[3, "outside, this size"] == pytest.approx(0.580)
    assert t.loc[1, "outside, this size"] == pytest.approx(0.346)


def test_a_commit_longer_than_the_replicas_round_trip_sets_the_pace():
    """A slow primary disk: its commit (12.7 ms, a 7.2k SATA disk) outlasts the replica's round
    trip, and the parallel write costs no more than the size-1 write's commit; the serial one pays
    both."""
    t = model_vs_measured({1: _m(13.2, 12.7), 2: _m(13.3, 12.7, 3.0)}, net_ms=0.05)
    assert t.loc[2, "model"] == pytest.approx(13.2)
    assert t.loc[2, "serial model"] == pytest.approx(13.2 + 3.1)


def test_outside_is_never_negative():
    """Means of different events can cross (the size-1 commit's mean above the mean write): the
    part outside the commit is then 0, not a negative time."""
    t = model_vs_measured({1: _m(1.20, 1.25)}, net_ms=0.05)
    assert t.loc[1, "outside the commit"] == 0.0
