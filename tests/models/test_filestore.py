"""models.filestore: the seed 000 FileStore story (NAVER, OpenStack Days 2017) in numbers."""
import numpy as np
import pytest

from models.filestore import CASE4_WBTHROTTLE, burst_seconds, simulate

# Seed 000_ff3932318711fad8.txt golden values.
SEED000 = {
    "case4_iops": 14264,          # WBThrottle tuned, SSD journal
    "collapse_s": 35,             # "After 35 secs, performance drops ..."
    "collapsed_iops": (100, 200),  # "... below 100~200 IOPS"
    "expected_disk_iops": 1800,   # 3 x 3 SAS x 600 / 3 replicas
    "case1_iops": 2094,           # default WBThrottle, no SSD journal
    "case2_iops": 2273,           # default WBThrottle, SSD journal
}


@pytest.fixture(scope="module")
def runs():
    return {
        "none": simulate(throttle="none"),
        "case4": simulate(throttle="wbthrottle", **CASE4_WBTHROTTLE),
        "wbthrottle": simulate(throttle="wbthrottle"),
        "backoff": simulate(throttle="backoff"),
    }


def test_unthrottled_holds_journal_speed_then_collapses_at_35s(runs):
    run = runs["none"]
    assert run.mean_iops(5, 30) == pytest.approx(SEED000["case4_iops"], rel=0.10)
    assert run.collapse_time == pytest.approx(SEED000["collapse_s"], abs=3)
    lo, hi = SEED000["collapsed_iops"]
    assert lo <= run.mean_iops(40, 120) <= hi


def test_seed_case4_limits_collapse_like_no_wbthrottle(runs):
    # The raised WBThrottle limits (seed case 4) never bite before the page cache does.
    assert runs["case4"].collapse_time == runs["none"].collapse_time
    assert np.array_equal(runs["case4"].client_iops, runs["none"].client_iops)


def test_default_wbthrottle_stays_level_near_the_disks(runs):
    run = runs["wbthrottle"]
    assert run.collapse_time is None
    level = run.mean_iops(10, 120)
    assert SEED000["expected_disk_iops"] * 0.95 <= level <= SEED000["case2_iops"]
    assert run.client_iops[100:].std() < 1.0          # level: no sawtooth
    assert run.dirty_mb.max() < 100                    # dirty data kept small (3 OSDs x 19.5 MiB)


def test_backoff_bursts_then_glides_without_collapse(runs):
    run = runs["backoff"]
    assert run.collapse_time is None
    assert run.mean_iops(0, 20) == pytest.approx(15000)          # the burst
    assert np.all(np.diff(run.client_iops[300:]) <= 1e-9)       # then only slows down
    assert run.mean_iops(110, 120) == pytest.approx(SEED000["expected_disk_iops"], rel=0.05)
    assert run.queue_fill.max() < 1


def test_backoff_burst_is_80_percent_of_the_collapse_not_the_seeds_60s(runs):
    """Seed 000: "Burst (~ 60 secs)", "Throttle From 80%". The model's throttle watches the page cache
    whose limit sets the 35 s collapse, so its delays begin at 0.8 x 34.9 s = 27.9 s; the simulation
    counts 28.4 s at 15,000 IOPS (the first delays are shorter than 1 / 15,000 s). Not the seed's 60 s:
    the seed throttled FileStore's op queue, with a max_ops it does not give."""
    assert burst_seconds() == pytest.approx(0.8 * 0.2 * 9000 / (13200 * 4 / 1024))
    assert burst_seconds() == pytest.approx(27.927, abs=1e-3)
    burst = (runs["backoff"].client_iops >= 15000).sum() * 0.1
    assert burst == pytest.approx(28.4, abs=1e-9)
    assert burst_seconds() <= 0.8 * runs["none"].collapse_time + 0.1
    assert burst < 0.5 * 60                                  # the seed's figure is not reproduced
    # what 60 s would take inside the model, and the seed's other dirty_ratio (50 %)
    assert burst_seconds(dirty_ratio=0.4296875) == pytest.approx(60)
    assert 0.8 * 0.4296875 * 9000 == pytest.approx(3093.75)
    assert burst_seconds(dirty_ratio=0.5) == pytest.approx(69.818, abs=1e-3)
    assert np.allclose(burst_seconds(journal_iops=np.array([15000, 14264])), [27.927, 29.576], atol=1e-3)


@pytest.mark.parametrize("kwargs,word", [
    (dict(journal_iops=1800), "journal_iops"), (dict(backoff_low=0), "backoff_low"),
    (dict(dirty_ratio=1.5), "dirty_ratio"), (dict(page_cache_mb=-1), "page_cache_mb"),
    (dict(nodes=0), "nodes"),
])
def test_burst_seconds_rejects_invalid_input(kwargs, word):
    with pytest.raises(ValueError, match=word):
        burst_seconds(**kwargs)


def test_bigger_dirty_ratio_only_delays_the_collapse():
    # Seed 000 lists vm.dirty_ratio 20 % and 50 %: the wall moves, it does not go away.
    late = simulate(dirty_ratio=0.5)
    assert late.collapse_time == pytest.approx(35 * 0.5 / 0.2, rel=0.02)


def test_writers_are_released_below_dirty_background():
    run = simulate(seconds=400)
    after = run.t > run.collapse_time
    released = np.flatnonzero(after & ~run.stalled)
    assert released.size, "the backlog should drain and release the writers"
    assert run.dirty_mb[released[0]] <= 0.10 * 9000 + 1e-6


def test_shapes_and_units():
    run = simulate(seconds=12, dt=0.5)
    assert run.t.shape == run.client_iops.shape == run.dirty_mb.shape == (24,)
    assert run.t[1] - run.t[0] == 0.5
    # dirty data grows by (15000 - 1800) writes/s x 4 KiB per node in the first seconds
    assert run.dirty_mb[1] == pytest.approx(2 * 13200 * 4 / 1024 / 2)


@pytest.mark.parametrize("kwargs,word", [
    (dict(throttle="fast"), "throttle"),
    (dict(dt=0), "dt"),
    (dict(dirty_ratio=0), "dirty_ratio"),
    (dict(dirty_background_ratio=0.3), "dirty_background_ratio"),
    (dict(replicas=0), "replicas"),
    (dict(stall_iops=5000), "stall_iops"),
    (dict(offered_iops=-5), "offered_iops"),
    (dict(backoff_low=0.95, backoff_high=0.9, throttle="backoff"), "low"),
])
def test_invalid_parameters_raise(kwargs, word):
    with pytest.raises(ValueError, match=word):
        simulate(**kwargs)


def test_offered_load_below_disk_speed_never_collapses():
    run = simulate(offered_iops=1000)
    assert run.collapse_time is None
    assert np.all(run.client_iops == 1000)
