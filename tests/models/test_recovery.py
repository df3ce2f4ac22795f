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
    ("osd_min_pg_log_entries", recovery.OSD_MIN_PG_LOG_ENTRIES),
    ("osd_max_pg_log_entries", recovery.OSD_MAX_PG_LOG_ENTRIES),
    ("osd_target_pg_log_entries_per_osd", recovery.OSD_TARGET_PG_LOG_ENTRIES_PER_OSD),
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


# -- copying back under Ceph's reservations (an OSD marked out) ----------------------------------
def test_pg_log_decides_backfill_or_log_recovery():
    """300,000 / 100 PGs = 3,000 entries; 6 PGs: capped at 10,000; 2,000 PGs: floored at 250.
    An 8 TB disk 60 % full with 100 PGs of 4 MiB objects: 11,444 objects a PG, backfilled; this
    lab's pools (tens of objects a PG) recover from the log."""
    assert recovery.pg_log_entries(100) == 3000
    assert recovery.pg_log_entries(6) == 10000 and recovery.pg_log_entries(2000) == 250
    assert recovery.is_backfilled(0.6 * 8e12 / (4 * MiB) / 100, 100)
    assert not recovery.is_backfilled(24, 6)


def test_reservation_golden_values():
    """Hand-computed. 199 survivors and 100 PGs: 199 x (1 - (198/199)^100) = 78.76 sources; the
    sleep bound 4 MiB / 0.1 s = 41.94 MB/s per source sets the default backfill, 4.8e12 / (78.76 x
    41.94e6) = 1453 s; tuned (sleep 0, 4 slots) each source runs 100/78.76 = 1.27 streams of
    50 MB/s: 960 s. 6 OSDs, 6 PGs, recovery from the log, 1 slot: floor(5 / 2) = 2 PGs, 2 sources
    at 10 MiB/s: 200 MiB in 10 s."""
    assert recovery.recovery_sources(200, 100) == pytest.approx(78.7557, abs=1e-3)
    assert recovery.pgs_at_once(200, 100, 3, 1) == pytest.approx(78.7557, abs=1e-3)
    assert recovery.pgs_at_once(200, 100, 3, 4) == 100          # no more than the OSD held
    assert recovery.pgs_at_once(6, 6, 3, 1, backfill=False) == 2
    assert recovery.pgs_at_once(4, 6, 3, 1, backfill=False) == 1   # this lab's 4-OSD cluster
    data = 0.6 * 8e12
    args = dict(device_rate=150e6)
    assert recovery.reservation_time(data, 200, 100, 50e6, 1, 0.1, **args) == pytest.approx(1453.1, abs=0.1)
    assert recovery.reservation_time(data, 200, 100, 50e6, 4, 0.1, **args) == pytest.approx(1453.1, abs=0.1)
    assert recovery.reservation_time(data, 200, 100, 50e6, 4, 0.0, **args) == pytest.approx(960.0, abs=0.1)
    small = dict(object_size=MiB, device_rate=30 * MiB, backfill=False)
    assert recovery.reservation_time(200 * MiB, 6, 6, 30 * MiB, 1, 0.1, **small) == pytest.approx(10.0)
    assert recovery.recovery_sources(2, 7) == 1.0                  # one survivor pushes everything


@given(st.integers(2, 500), st.integers(1, 400), st.integers(1, 8), st.booleans())
def test_pgs_at_once_bounds(osds, pgs, slots, backfill):
    sources = recovery.recovery_sources(osds, pgs)
    assert 1 - 1e-9 <= sources <= min(osds - 1, pgs) + 1e-9
    at_once = recovery.pgs_at_once(osds, pgs, 3, slots, backfill)
    assert 1 <= at_once <= max(1, min(pgs, slots * (osds - 1))) + 1e-9
    assert recovery.pgs_at_once(osds, pgs, 3, slots + 1, backfill) >= at_once
    assert recovery.pgs_at_once(osds, pgs, 3, slots, True) >= recovery.pgs_at_once(osds, pgs, 3, slots, False)


@given(st.integers(3, 300), st.integers(1, 300), st.floats(1e6, 1e9), st.integers(1, 8), st.booleans())
def test_more_slots_never_slow_copying_and_never_beat_the_sleep(osds, pgs, rate, slots, backfill):
    """No throttle is ever lifted by adding slots: more slots never make copying slower, and under
    the sleep no source moves faster than its sleep schedule allows."""
    args = dict(object_size=4 * MiB, device_rate=np.inf, backfill=backfill)
    t = recovery.reservation_time(1e12, osds, pgs, rate, slots, 0.0, **args)
    assert recovery.reservation_time(1e12, osds, pgs, rate, slots + 1, 0.0, **args) <= t * (1 + 1e-12)
    slept = recovery.reservation_time(1e12, osds, pgs, rate, slots, 0.1, **args)
    floor = 1e12 / (recovery.recovery_sources(osds, pgs) * recovery.sleep_limited_rate(0.1, 4 * MiB))
    assert slept >= floor * (1 - 1e-12)


def test_reservation_bottleneck_moves_with_the_stream_rate():
    """4 MiB / 0.1 s = 41.9 MB/s per source: one 20 MB/s stream is below it, one 60 MB/s above;
    with 4 slots each source runs 100 / 78.76 = 1.27 streams: 1.27 x 30 = 38.1 < 41.9 < 1.27 x 35."""
    assert recovery.reservation_bottleneck(200, 100, 20e6, 1, 0.1) == "bandwidth"
    assert recovery.reservation_bottleneck(200, 100, 60e6, 1, 0.1) == "sleep"
    assert recovery.reservation_bottleneck(200, 100, 60e6, 4, 0.0) == "bandwidth"
    assert recovery.reservation_bottleneck(200, 100, 30e6, 4, 0.1) == "bandwidth"
    assert recovery.reservation_bottleneck(200, 100, 35e6, 4, 0.1) == "sleep"


def test_backfill_slots_counts_each_reserver():
    assert recovery.backfill_slots([0, 0, 1, 2], [3, 3, 4, 4], 1) == 2    # osd.0 primary twice, osd.4 target twice
    assert recovery.backfill_slots([0, 1, 2, 3], [4, 5, 6, 7], 1) == 4
    assert recovery.backfill_slots([0, 0, 0], [1, 2, 3], 2) == 2
    # one OSD both primary and target at once: its local and remote reservers are apart
    assert recovery.backfill_slots([0, 1], [1, 0], 1) == 2
    # taken in order, 0->1 would block both others; the maximum takes two
    assert recovery.backfill_slots([0, 0, 2], [1, 3, 1], 1) == 2
    assert recovery.backfill_slots([], [], 1) == 0


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=9), st.integers(1, 4))
def test_backfill_slots_is_the_maximum(pairs, slots):
    """Brute force on small cases: no subset that respects the slots is larger."""
    import itertools
    p, t = [a for a, _ in pairs], [b for _, b in pairs]
    best = 0
    for k in range(len(pairs), 0, -1):
        if any(all(sum(1 for i in s if p[i] == o) <= slots and sum(1 for i in s if t[i] == o) <= slots
                   for o in range(7)) for s in itertools.combinations(range(len(pairs)), k)):
            best = k
            break
    assert recovery.backfill_slots(p, t, slots) == best


@pytest.mark.parametrize("call, name", [
    (lambda: recovery.recovery_sources(1, 5), "osds"),
    (lambda: recovery.pgs_at_once(10, 0, 3, 1), "pgs_on_failed"),
    (lambda: recovery.pgs_at_once(10, 5, 3, 0), "max_backfills"),
    (lambda: recovery.pgs_at_once(10, 5, 1, 1), "size"),
    (lambda: recovery.reservation_time(-1, 10, 5, 1e6), "data_bytes"),
    (lambda: recovery.pg_log_entries(0), "pgs_per_osd"),
    (lambda: recovery.backfill_slots([0, 1], [2], 1), "primaries and targets"),
    (lambda: recovery.backfill_slots([0], [-1], 1), "targets"),
])
def test_reservation_input_errors_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
