"""models.database: commit latency on Ceph, closed-loop tps, group commit, seed 002's batch time."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import database as db
from models import writepath

COMMIT = {
    # (net_ms, wal_ms, osd_ms, replicas, flushes): ms
    (0.05, 0.3, 0.0, 3, 1): 0.05 + max(0.3, 0.1 + 0.3) + 0.05,        # 0.5: the replica trip binds
    (0.05, 0.3, 0.7, 3, 1): 0.05 + 0.7 + max(0.3, 0.1 + 0.7 + 0.3) + 0.05,   # 1.9 (lab 03 CPU/op)
    (0.05, 0.3, 0.7, 3, 2): 2 * 1.9,                                    # a journal commit too
    (0.05, 0.3, 0.0, 1, 1): 0.4,                                        # size 1: no fan-out
    (0.5, 10.0, 0.0, 3, 1): 0.5 + max(10, 1 + 10) + 0.5,                # seed 002-like: slow disks
}


@pytest.mark.parametrize("args", list(COMMIT))
def test_ceph_commit_golden(args):
    assert db.ceph_commit_ms(*args) == pytest.approx(COMMIT[args])


def test_ceph_commit_is_writepath_times_flushes():
    assert db.ceph_commit_ms(0.1, 2, 0.5, 3, 3) == pytest.approx(3 * writepath.write_latency_ms(0.1, 2, 0.5, 3))


def test_closed_loop_seed002_range():
    # 4..20 users at R0 = 10 ms: 400..2000 tps until a 1,500 tps ceiling
    users = np.arange(4, 21, 4)
    assert np.allclose(db.closed_loop_tps(users, 10.0, 1500), [400, 800, 1200, 1500, 1500])
    # seed 002's 1024-query batch: time falls as users are added, then flattens
    assert np.allclose(db.batch_seconds(1024, db.closed_loop_tps(users, 10.0, 1500)),
                       [2.56, 1.28, 0.8533, 0.6827, 0.6827], rtol=1e-3)


def test_group_commit_and_cpu_ceilings():
    assert db.max_tps(cpu_ms_per_txn=1.0, cores=2) == pytest.approx(2000)
    assert db.max_tps(commit_ms=5.0, group_commit=False) == pytest.approx(200)
    assert db.max_tps(cpu_ms_per_txn=1.0, cores=2, commit_ms=5.0, group_commit=True) == pytest.approx(2000)
    assert db.max_tps() == np.inf
    assert db.transaction_ms(2.0, 5.0) == 7.0
    assert db.latency_ms(20, 755.0) == pytest.approx(26.49, rel=1e-3)


@pytest.mark.parametrize("call, name", [
    (lambda: db.ceph_commit_ms(-1, 1), "net_ms"),
    (lambda: db.ceph_commit_ms(0.1, 1, flushes=0), "flushes"),
    (lambda: db.ceph_commit_ms(0.1, 1, replicas=0), "replicas"),
    (lambda: db.transaction_ms(0, 0), "cpu_ms \\+ commit_ms"),
    (lambda: db.transaction_ms(-1, 1), "cpu_ms"),
    (lambda: db.max_tps(cores=0), "cores"),
    (lambda: db.closed_loop_tps(0, 10), "clients"),
    (lambda: db.closed_loop_tps(4, 0), "r0_ms"),
    (lambda: db.latency_ms(4, 0), "tps"),
    (lambda: db.batch_seconds(-1, 10), "transactions"),
])
def test_invalid_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@given(st.integers(1, 200), st.floats(0.1, 100), st.floats(1, 1e5))
def test_closed_loop_bounds(n, r0, cap):
    tps = db.closed_loop_tps(n, r0, cap)
    assert tps <= cap * (1 + 1e-12) and tps <= n * 1000 / r0 * (1 + 1e-12)
    # Little's law: the latency a client sees never beats one transaction alone
    assert db.latency_ms(n, tps) >= r0 * (1 - 1e-9)
    assert db.closed_loop_tps(n + 1, r0, cap) >= tps
