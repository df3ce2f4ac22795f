"""models.metadata: closed-loop MDS throughput and seed 004's shared-directory penalty."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import metadata as md

SEED = "seed 004_3d50276d8cea0e54.txt (Xu Xuehan, Qihoo 360, Cephalocon APAC 2018)"

# separate / shared ops/s from the seed's mdtest table (70 clients, one active MDS)
SERIALISATION = {
    "File Creation": 4311.339 / 2624.09,          # 1.643
    "File Removal": 2531.538 / 788.960,           # 3.209
    "Directory Creation": 3497.949 / 794.030,     # 4.405
    "Directory Removal": 2848.889 / 697.333,      # 4.085
    "File Rename": 3073.370671 / 485.083123,      # 6.336
}


@pytest.mark.parametrize("operation", list(SERIALISATION))
def test_seed_serialisation_factors(operation):
    assert md.seed_serialisation(operation) == pytest.approx(SERIALISATION[operation], rel=1e-9)


def test_seed_factor_golden_values():
    # rounded as quoted in the lab (seed 004)
    assert round(md.seed_serialisation("File Creation"), 3) == 1.643
    assert round(md.seed_serialisation("File Rename"), 2) == 6.34
    serialisation = md.seed_serialisation
    assert serialisation("File Rename") > serialisation("File Removal") > serialisation("File Creation")


def test_seed_service_time_and_littles_law():
    # one MDS saturated by 70 clients: S = 1 / 4311.339 s, each client waits 70 / 4311.339 s
    assert md.seed_service_time("File Creation") == pytest.approx(0.000231946502, rel=1e-9)
    assert md.seed_client_latency("File Creation") == pytest.approx(0.0162362551, rel=1e-8)
    assert md.seed_service_time("Stat", "n/a") == pytest.approx(1 / 11000)
    # the closed-loop model reproduces the seed's number at the knee
    s, r = md.seed_service_time("File Creation"), md.seed_client_latency("File Creation")
    assert md.closed_loop_ops(70, r, s) == pytest.approx(4311.339)
    assert md.saturation_clients(r, s) == pytest.approx(70)


CLOSED_LOOP = {
    # (clients, latency_s, service_s): min(N / R0, 1 / S)
    (1, 0.001, 0.0005): 1000.0,      # one client: its own round trip limits it
    (2, 0.001, 0.0005): 2000.0,      # at the knee N* = 2
    (8, 0.001, 0.0005): 2000.0,      # beyond: the MDS caps it
    (70, 0.0162, 0.000232): 1 / 0.000232,
}


@pytest.mark.parametrize("args", list(CLOSED_LOOP))
def test_closed_loop_golden(args):
    assert md.closed_loop_ops(*args) == pytest.approx(CLOSED_LOOP[args])


def test_response_time_is_littles_law():
    assert md.response_time(1, 0.001, 0.0005) == pytest.approx(0.001)     # no queue
    assert md.response_time(8, 0.001, 0.0005) == pytest.approx(0.004)     # 8 x S: queueing


def test_requests_per_op_scales_throughput():
    assert md.ops_with_requests(8, 0.001, 0.0005, 4) == pytest.approx(500.0)
    assert md.ops_with_requests(1, 0.001, 0.0005, 0.5) == pytest.approx(2000.0)   # half from cache


@given(n=st.floats(1, 1e4), r0=st.floats(1e-5, 1), s=st.floats(1e-6, 1e-1), k=st.floats(0.1, 20))
def test_bounds_and_monotonicity(n, r0, s, k):
    x = md.closed_loop_ops(n, r0, s)
    assert x <= 1 / s * (1 + 1e-12) and x <= n / r0 * (1 + 1e-12)
    assert md.closed_loop_ops(n + 1, r0, s) >= x
    assert md.response_time(n, r0, s) >= r0 * (1 - 1e-12)
    assert md.ops_with_requests(n, r0, s, k) == pytest.approx(x / k)


def test_vectorised():
    n = np.arange(1, 101)
    out = md.closed_loop_ops(n, 0.002, 0.0004)
    assert out.shape == (100,) and out[0] == pytest.approx(500) and out[-1] == pytest.approx(2500)
    assert type(md.closed_loop_ops(3, 0.002, 0.0004)) is float


@pytest.mark.parametrize("call, name", [
    (lambda: md.closed_loop_ops(0, 0.001, 0.001), "clients"),
    (lambda: md.closed_loop_ops(1, 0, 0.001), "latency_s"),
    (lambda: md.closed_loop_ops(1, 0.001, -1), "service_s"),
    (lambda: md.ops_with_requests(1, 0.001, 0.001, 0), "requests_per_op"),
    (lambda: md.serialisation_factor(0, 1), "separate_ops"),
    (lambda: md.seed_serialisation("Stat"), "operation"),
    (lambda: md.seed_service_time("File Creation", "private"), "operation"),
])
def test_invalid_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
