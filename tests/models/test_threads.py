"""models.threads: seed 004's SimpleMessenger formula and the measured AsyncMessenger count."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import data
from models.threads import (
    async_messenger_threads,
    headroom,
    host_threads,
    kernel_thread_limits,
    simple_messenger_threads,
)

# Seed 004 (Qihoo 360): 2 x (clients + 1 + 6 x pg_num_per_osd), worked by hand.
GOLDEN = {
    (0, 0): 2,
    (1, 0): 4,
    (0, 100): 1202,
    (100, 200): 2602,
    (1000, 300): 5602,
}


@pytest.mark.parametrize("args,expected", GOLDEN.items())
def test_seed004_formula(args, expected):
    assert simple_messenger_threads(*args) == expected


def test_async_is_flat_at_the_measured_59():
    # data/native_cluster_reference.csv: 59 threads per OSD idle and with 1, 8, 32 clients.
    assert np.array_equal(async_messenger_threads([0, 1, 8, 32]), [59, 59, 59, 59])
    assert async_messenger_threads(5, ms_async_op_threads=5) == 61


def test_host_totals():
    assert host_threads(12, 100, 200) == 12 * 2602
    assert host_threads(12, 100, 200, messenger="async") == 12 * 59
    with pytest.raises(ValueError, match="messenger"):
        host_threads(1, 1, 1, messenger="pipe")


def test_headroom_against_default_pid_max():
    # 12 OSDs x 2602 threads = 31,224 fit under pid_max 32,768 with 1,544 to spare ...
    assert headroom(host_threads(12, 100, 200), threads_max=10**6) == 1544
    # ... and 13 OSDs do not.
    assert headroom(host_threads(13, 100, 200), threads_max=10**6) < 0
    assert headroom(100, threads_max=10**6, pid_max=4194304, nproc=500) == 400


@given(st.integers(0, 10**5), st.integers(0, 10**5), st.integers(0, 10**4))
def test_linear_in_clients(c, dc, pgs):
    # Each extra client costs exactly two threads (reader + writer).
    assert simple_messenger_threads(c + dc, pgs) - simple_messenger_threads(c, pgs) == 2 * dc


def test_vectorised_equals_scalar_loop():
    c = np.arange(0, 200)
    pgs = 150
    assert np.array_equal(simple_messenger_threads(c, pgs),
                          [simple_messenger_threads(int(x), pgs) for x in c])


@pytest.mark.parametrize("args,word", [
    ((-1, 10), "clients"),
    ((1, -10), "pgs_per_osd"),
    ((1.5, 10), "clients"),
])
def test_invalid_inputs_raise(args, word):
    with pytest.raises(ValueError, match=word):
        simple_messenger_threads(*args)


def test_headroom_rejects_bad_limits():
    with pytest.raises(ValueError, match="threads_max"):
        headroom(10, threads_max=0)
    with pytest.raises(ValueError, match="threads"):
        headroom(-1, threads_max=100)


def test_kernel_limits_read_from_proc(tmp_path):
    (tmp_path / "threads-max").write_text("123456\n")
    (tmp_path / "pid_max").write_text("32768\n")
    limits = kernel_thread_limits(tmp_path)
    assert (limits["threads_max"], limits["pid_max"]) == (123456, 32768)
    with pytest.raises(ValueError, match="cannot read"):
        kernel_thread_limits(tmp_path / "missing")


# The seed tables this helper keeps (no model reads them yet; labs plot them).
def test_seed004_mdtest_table_is_complete():
    rows = data.load("seed004_mdtest")
    assert len(rows) == 14
    assert {r["clients"] for r in rows} == {70} and {r["active_mds"] for r in rows} == {1}
    ops = {(r["operation"], r["directory"]): r["ops_per_s"] for r in rows}
    assert ops[("File Creation", "shared")] == 2624.09
    assert ops[("Readdir", "n/a")] == 243844.3312
    # separate directories beat a shared one for every operation measured both ways
    for (op, d), v in ops.items():
        if d == "shared":
            assert ops[(op, "separate")] > v, op


def test_seed004_qos_and_seed002_bench_settings():
    qos = {(r["cluster"], r["limit"]): r["value"] for r in data.load("seed004_qos")}
    assert qos[("full_ssd", "iops_per_gb")] == 10 and qos[("hybrid_ssd_hdd", "read_iops")] == 1400
    bench = data.load("seed002_rados_bench")
    runs = {(r["run"], r["parameter"]): r["value"] for r in bench if r["tool"] == "scbench"}
    assert [(runs[(i, "duration")], runs[(i, "threads")]) for i in (1, 2, 3)] == \
        [(10, 16), (30, 32), (60, 64)]


# Seed 004's "one big pool or many small pools", with the peer term capped by the pool's OSDs.
IN_POOL = {
    # (clients, pgs_per_osd, pool_osds, size): threads per OSD, worked by hand
    (100, 200, 1000, 3): 2602,     # big pool: 3 x min(400, 999) = 1200 = 6 x 200, the seed formula
    (100, 200, 30, 3): 376,        # 30-OSD pool: 3 x min(400, 29) = 87 -> 2 x (100 + 1 + 87)
    (0, 0, 1, 3): 2,
    (10, 50, 200, 2): 2 * (10 + 1 + 3 * 50),
}


@pytest.mark.parametrize("args,expected", IN_POOL.items())
def test_in_pool_golden(args, expected):
    from models.threads import simple_messenger_threads_in_pool
    assert simple_messenger_threads_in_pool(*args) == expected


@given(st.integers(0, 10**4), st.integers(0, 10**3), st.integers(1, 5000))
def test_in_pool_never_exceeds_the_seed_formula(c, pgs, osds):
    from models.threads import simple_messenger_threads_in_pool
    capped = simple_messenger_threads_in_pool(c, pgs, osds)
    assert capped <= simple_messenger_threads(c, pgs)
    if osds - 1 >= 2 * pgs:
        assert capped == simple_messenger_threads(c, pgs)


def test_max_clients_per_osd():
    from models.threads import max_clients_per_osd
    # 12 OSDs under pid_max 32,768 with 200 PGs each: floor(32768 / 24) - 1 - 1200 = 164 clients.
    assert max_clients_per_osd(32768, 12, 200) == 164
    assert host_threads(12, 164, 200) <= 32768 < host_threads(12, 165, 200)
    assert max_clients_per_osd(32768, 24, 300) < 0          # over the limit with no clients
    assert list(max_clients_per_osd(32768, [1, 12], 100)) == [15783, 764]   # 16,384 - 601 and 1,365 - 601
    with pytest.raises(ValueError, match="osds_per_host"):
        max_clients_per_osd(32768, 0, 100)


def test_pipe_threads():
    from models.threads import pipe_threads
    assert pipe_threads(49) == 98 and list(pipe_threads([0, 17])) == [0, 34]
    with pytest.raises(ValueError, match="connections"):
        pipe_threads(-1)
