"""models.recovery: Pacific's recovery throttles, declustered peers, the degraded window."""
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from models import recovery
from models.redundancy import annual_loss_probability, erasure, replicated

MiB = 1024 * 1024


def test_pacific_defaults():
    # src/common/options.cc, Ceph v16.2.15 (also `ceph-conf --show-config-value` of 16.2.15)
    assert recovery.OSD_MAX_BACKFILLS == 1
    assert recovery.OSD_RECOVERY_SLEEP_HDD == 0.1
    assert recovery.OSD_RECOVERY_MAX_ACTIVE_HDD == 3
    assert recovery.OSD_RECOVERY_MAX_SINGLE_START == 1
    assert recovery.MON_OSD_DOWN_OUT_INTERVAL == 600


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("ceph-conf") is None, reason="ceph-conf not installed")
@pytest.mark.parametrize("option, value", [
    ("osd_max_backfills", recovery.OSD_MAX_BACKFILLS),
    ("osd_recovery_sleep_hdd", recovery.OSD_RECOVERY_SLEEP_HDD),
    ("osd_recovery_sleep_ssd", recovery.OSD_RECOVERY_SLEEP_SSD),
    ("osd_recovery_sleep_hybrid", recovery.OSD_RECOVERY_SLEEP_HYBRID),
    ("osd_recovery_max_active_hdd", recovery.OSD_RECOVERY_MAX_ACTIVE_HDD),
    ("osd_recovery_max_active_ssd", recovery.OSD_RECOVERY_MAX_ACTIVE_SSD),
    ("osd_recovery_max_single_start", recovery.OSD_RECOVERY_MAX_SINGLE_START),
    ("osd_recovery_max_chunk", recovery.OSD_RECOVERY_MAX_CHUNK),
    ("mon_osd_down_out_interval", recovery.MON_OSD_DOWN_OUT_INTERVAL),
    ("osd_heartbeat_grace", recovery.OSD_HEARTBEAT_GRACE),
])
def test_defaults_match_installed_ceph(option, value):
    out = subprocess.run(["ceph-conf", "-c", "/dev/null", "--show-config-value", option],
                         capture_output=True, text=True, check=True).stdout
    assert float(out) == pytest.approx(value)


PEERS = {
    # (osds, pgs_per_osd, size): min(osds - 1, pgs x (size - 1))
    (100, 100, 3): 99, (4, 96, 3): 3, (1000, 100, 3): 200, (10, 2, 2): 2,
}


@pytest.mark.parametrize("args", list(PEERS))
def test_recovery_peers(args):
    assert recovery.recovery_peers(*args) == PEERS[args]
    assert recovery.expected_recovery_peers(*args) <= PEERS[args] + 1e-9


def test_expected_peers_balls_into_bins():
    # 99 survivors, 200 shards: 99 x (1 - (98/99)^200) = 85.99
    assert recovery.expected_recovery_peers(100, 100, 3) == pytest.approx(99 * (1 - (98 / 99) ** 200))


RATES = {
    # (per_osd_rate, max_backfills, sleep, object_size): bytes/s per OSD
    (50e6, 1, 0.0, 4 * MiB): 50e6,                  # no throttle: bandwidth
    (50e6, 1, 0.1, 4 * MiB): 4 * MiB / 0.1,         # Pacific HDD: 1 push / 0.1 s = 41.9 MB/s
    (50e6, 4, 0.1, 4 * MiB): 4 * MiB / 0.1,         # more backfills cannot beat the OSD-wide sleep
    (50e6, 4, 0.0, 4 * MiB): 200e6,
    (50e6, 1, 0.1, 64 * 1024): 655360.0,            # small objects: 10 x 64 KiB per second
}


@pytest.mark.parametrize("args", list(RATES))
def test_per_osd_recovery_rate(args):
    assert recovery.per_osd_recovery_rate(*args) == pytest.approx(RATES[args])


def test_bottleneck_names():
    assert recovery.recovery_bottleneck(50e6, 1, 0.1) == "sleep"
    assert recovery.recovery_bottleneck(50e6, 1, 0.0) == "bandwidth"
    assert recovery.recovery_bottleneck(10e6, 1, 0.1) == "bandwidth"


RECOVERY_TIME = {
    # (data_bytes, peers, per_osd_rate, max_backfills, sleep): seconds
    (100e9, 30, 50e6, 1, 0.0): 100e9 / (30 * 50e6),
    (100e9, 30, 50e6, 1, 0.1): 100e9 / (30 * 41943040),
    (3e9, 3, 50e6, 4, 0.0): 5.0,
}


@pytest.mark.parametrize("args", list(RECOVERY_TIME))
def test_recovery_time_golden(args):
    assert recovery.recovery_time(*args) == pytest.approx(RECOVERY_TIME[args])


def test_kampe_rebuild_time():
    # ceph-tools RadosRely.rebuild_time: size x 0.75 / (50 MB/s x 200 PGs); 4 TB -> 300 s
    assert recovery.kampe_rebuild_time(4e12) == pytest.approx(300.0)


def test_degraded_window_and_durability_link():
    assert recovery.degraded_window(120) == pytest.approx(720)
    assert recovery.degraded_window(120, heartbeat_grace=recovery.OSD_HEARTBEAT_GRACE) == pytest.approx(740)
    assert recovery.window_days(86400) == pytest.approx(1.0)
    direct = annual_loss_probability(replicated(3), 0.02, 720 / 86400)
    assert recovery.annual_loss_with_recovery(replicated(3), 0.02, 120) == pytest.approx(direct, rel=1e-12)


def test_tuning_lesson_sleep_first():
    # Pacific HDD defaults vs the native-cluster note's tuning (sleep 0, backfills 4): the model
    # must rank them the same way the cluster did (119 s -> 21 s).
    data, peers = 2e9, 3
    default = recovery.recovery_time(data, peers, 50e6, 1, recovery.OSD_RECOVERY_SLEEP_HDD)
    backfills_only = recovery.recovery_time(data, peers, 50e6, 4, recovery.OSD_RECOVERY_SLEEP_HDD)
    tuned = recovery.recovery_time(data, peers, 50e6, 4, 0.0)
    assert backfills_only == pytest.approx(default)
    assert tuned < default / 3


@pytest.mark.parametrize("call, name", [
    (lambda: recovery.recovery_time(-1, 3, 50e6), "data_bytes"),
    (lambda: recovery.recovery_time(1e9, 0, 50e6), "peers"),
    (lambda: recovery.recovery_time(1e9, 3, 0), "per_osd_rate"),
    (lambda: recovery.recovery_time(1e9, 3, 50e6, 0), "max_backfills"),
    (lambda: recovery.recovery_time(1e9, 3, 50e6, 1, -0.1), "recovery_sleep"),
    (lambda: recovery.recovery_time(1e9, 3, 50e6, 1, 0.1, 0), "object_size"),
    (lambda: recovery.recovery_peers(1, 100, 3), "osds"),
    (lambda: recovery.recovery_peers(10, 100, 1), "size"),
    (lambda: recovery.degraded_window(-1), "recovery_seconds"),
    (lambda: recovery.kampe_rebuild_time(1e12, fullness=1.5), "fullness"),
    (lambda: recovery.annual_loss_with_recovery(erasure(4, 2), 1.5, 60), "afr"),
])
def test_invalid_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_vectorised_and_types():
    sleeps = np.linspace(0, 0.2, 9)
    out = recovery.recovery_time(1e10, 10, 50e6, 1, sleeps)
    assert out.shape == (9,)
    assert np.allclose(out, [recovery.recovery_time(1e10, 10, 50e6, 1, float(s)) for s in sleeps])
    assert type(recovery.recovery_time(1e10, 10, 50e6)) is float
    assert type(recovery.recovery_peers(10, 100, 3)) is float
    assert type(recovery.annual_loss_with_recovery(replicated(3), 0.02, 60)) is float


@given(data=st.floats(1e6, 1e13), peers=st.integers(1, 500), rate=st.floats(1e6, 1e9),
       backfills=st.integers(1, 16), sleep=st.floats(0, 0.5))
def test_recovery_time_monotone(data, peers, rate, backfills, sleep):
    t = recovery.recovery_time(data, peers, rate, backfills, sleep)
    assert recovery.recovery_time(data, peers + 1, rate, backfills, sleep) <= t
    assert recovery.recovery_time(data * 2, peers, rate, backfills, sleep) == pytest.approx(2 * t)
    assert recovery.recovery_time(data, peers, rate, backfills, sleep + 0.05) >= t * (1 - 1e-12)
    assert recovery.recovery_time(data, peers, rate, backfills + 1, sleep) <= t * (1 + 1e-12)


@given(rec=st.floats(0, 86400 * 3), extra=st.floats(1, 86400), afr=st.floats(1e-3, 0.3))
def test_longer_window_never_improves_durability(rec, extra, afr):
    assert recovery.annual_loss_with_recovery(erasure(4, 2), afr, rec + extra) >= \
        recovery.annual_loss_with_recovery(erasure(4, 2), afr, rec)


CONCURRENT = {
    # (osds, size, max_backfills, backfill): PGs recovering at once (recovery_reservation.rst)
    (3, 3, 1, False): 1,     # lab 08: 3 survivors, each PG reserves both other OSDs -> one at a time
    (3, 3, 4, False): 6,     # lab 08 tuned: 12 remote slots / 2 per PG
    (4, 3, 1, False): 2,
    (3, 3, 1, True): 3,      # backfill reserves only the OSD being filled
    (99, 3, 1, False): 49,
    (10, 2, 1, False): 10,
}


@pytest.mark.parametrize("args", list(CONCURRENT))
def test_concurrent_recoveries(args):
    osds, size, backfills, backfill = args
    assert recovery.concurrent_recoveries(osds, size, backfills, backfill=backfill) == CONCURRENT[args]


def test_one_receiver_recovers_one_pg_at_a_time():
    # 3 hosts of 2 OSDs, failure domain host: only osd.N's host-mate can take its PGs
    assert recovery.concurrent_recoveries(5, 3, 1) == 2
    assert recovery.concurrent_recoveries(5, 3, 1, receivers=1) == 1
    assert recovery.concurrent_recoveries(5, 3, 4, receivers=1) == 4      # its 4 remote slots
    assert recovery.concurrent_recoveries(3, 3, 1, receivers=3) == 1      # lab 08 native: no change


@given(st.integers(1, 500), st.integers(2, 6), st.integers(1, 16), st.integers(1, 500))
def test_concurrent_recoveries_with_receivers_never_exceeds_either_bound(osds, size, backfills, receivers):
    n = recovery.concurrent_recoveries(osds, size, backfills, receivers=receivers)
    assert 1 <= n <= min(recovery.concurrent_recoveries(osds, size, backfills), receivers * backfills)


@given(st.integers(1, 500), st.integers(2, 6), st.integers(1, 16))
def test_concurrent_recoveries_bounds(osds, size, backfills):
    n = recovery.concurrent_recoveries(osds, size, backfills)
    assert 1 <= n <= osds * backfills                       # never more than the local slots
    assert n <= recovery.concurrent_recoveries(osds, size, backfills, backfill=True)
    assert recovery.concurrent_recoveries(osds, size, backfills + 1) >= n


@pytest.mark.parametrize("bad, name", [(dict(osds=0, size=3), "osds"), (dict(osds=3, size=1), "size"),
                                       (dict(osds=3, size=3, max_backfills=0), "max_backfills"),
                                       (dict(osds=3, size=3, receivers=0), "receivers")])
def test_concurrent_recoveries_rejects(bad, name):
    with pytest.raises(ValueError, match=name):
        recovery.concurrent_recoveries(**bad)
