"""models.placement: PGs per OSD on distinct OSDs, the fullest OSD, movement when OSDs join.

Golden values are worked by hand from the formulas (each case says how); the CRUSH cases run
the bit-exact CRUSH model (models.crush, checked against crushtool in tests/crush/) on a flat
map of equal OSDs, the layout of the lab cluster.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models import pgs
from models import placement as pl
from models.crush import analysis as an
from models.crush import build, mapper, objects

# (pg_num, size, osds) -> (mean, std): q = size/osds, std = sqrt(pg_num q (1-q))
STATS = {
    (128, 3, 4): (96.0, np.sqrt(128 * 0.75 * 0.25)),      # 4.899: every PG skips one OSD
    (64, 2, 4): (32.0, 4.0),                               # q = 1/2: sqrt(64/4)
    (100, 3, 3): (100.0, 0.0),                             # size = osds: every OSD, every PG
    (4096, 3, 100): (122.88, np.sqrt(4096 * 0.03 * 0.97)),
}

# (osds, size, added) -> (shards moved, PGs changed): added/(osds+added), 1 - C(n,s)/C(n+a,s)
MOVES = {
    (4, 3, 1): (0.2, 0.6),                    # the lab: 4 -> 5 OSDs, size 3
    (3, 3, 1): (0.25, 0.75),
    (4, 3, 2): (1 / 3, 1 - 4 / 20),           # C(4,3)=4, C(6,3)=20
    (10, 2, 1): (1 / 11, 2 / 11),
}

def flat_map(n):
    """One host holding n equal OSDs; rule "by_osd" = choose firstn 0 type osd (the lab cluster)."""
    return build.hosts_map(1, n)


@pytest.mark.parametrize("case", STATS)
def test_count_stats_golden(case):
    mean, std = STATS[case]
    got = pl.pg_count_stats(*case)
    assert got.mean == pytest.approx(mean)
    assert got.std == pytest.approx(std, abs=1e-12)


def test_distinct_osds_are_tighter_than_the_binomial_shard_model():
    """Size 3 on 4 OSDs: std ratio sqrt((1 - 3/4) / (1 - 1/4)) = sqrt(1/3) against models.pgs."""
    ratio = pl.pg_count_stats(128, 3, 4).std / pgs.pgs_per_osd_stats(128, 3, 4).std
    assert ratio == pytest.approx(np.sqrt(1 / 3))
    # on 1,000 OSDs the two models agree to 0.1 %
    assert pl.pg_count_stats(8192, 3, 1000).std == pytest.approx(
        pgs.pgs_per_osd_stats(8192, 3, 1000).std, rel=2e-3)


@pytest.mark.parametrize("case", MOVES)
def test_movement_golden(case):
    shards, changed = MOVES[case]
    got = pl.movement_on_add(*case)
    assert got.shards_moved == pytest.approx(shards)
    assert got.pgs_changed == pytest.approx(changed)


def test_fullest_when_every_osd_holds_every_pg():
    assert pl.expected_fullest(10, 4, 4) == pytest.approx(10.0)
    assert pl.fullest_factor(10, 4, 4) == pytest.approx(1.0)


def test_fullest_matches_crush_on_a_flat_map():
    """300 pools (pool ids 1..300) of 16 and 128 PGs, size 3, on 4 equal OSDs, placed by the
    CRUSH model: the std of the counts matches the formula to 3 %, and the mean fullest count
    sits within 3 % of expected_fullest (measured: 13.95 vs 13.71, 101.7 vs 101.0)."""
    cmap = flat_map(4)
    for pg_num in (16, 128):
        x = np.concatenate([an.pg_inputs(pool, pg_num) for pool in range(1, 301)])
        placed, _ = mapper.do_rule(cmap, "by_osd", x, 3)   # one vectorised call, 300 pools
        placed = placed.reshape(300, pg_num * 3)
        counts = np.stack([(placed == osd).sum(axis=1) for osd in range(4)], axis=1)
        assert (counts.sum(axis=1) == 3 * pg_num).all()
        model = pl.pg_count_stats(pg_num, 3, 4)
        assert counts.std() == pytest.approx(model.std, rel=0.03)
        assert counts.max(axis=1).mean() == pytest.approx(pl.expected_fullest(pg_num, 3, 4), rel=0.03)


def test_movement_matches_crush_when_a_fifth_osd_joins():
    """2,048 PGs of size 3: CRUSH moves 20 % of shards (the minimum) and changes 60 % of
    PGs, within the binomial noise of 2,048 PGs (3 sigma ~ 3 %)."""
    before, after = flat_map(4), flat_map(5)
    moved = an.compare_maps(before, after, "by_osd", 3, an.pg_inputs(7, 2048))
    model = pl.movement_on_add(4, 3)
    assert moved["replicas_moved"] == pytest.approx(model.shards_moved, abs=0.03)
    assert moved["inputs_changed"] == pytest.approx(model.pgs_changed, abs=0.04)


def test_fast_form_is_close_to_the_exact_sum():
    """The slider form: within 1.5 % of the exact sum for 4-20 OSDs from 16 PGs up (measured
    0.7 % at 4 OSDs, 1.4 % at 20 OSDs size 2)."""
    x = np.unique(np.geomspace(16, 4096, 60).astype(int))
    for osds, size in ((4, 3), (5, 3), (10, 3), (20, 2)):
        exact = pl.fullest_factor(x, size, osds)
        fast = pl.fullest_factor(x, size, osds, fast=True)
        assert np.abs(fast / exact - 1).max() < 0.015, (osds, size)


@settings(max_examples=40, deadline=None)
@given(pg=st.integers(1, 2048), osds=st.integers(2, 60), size=st.integers(1, 6))
def test_fullest_is_between_mean_and_pg_num(pg, osds, size):
    size = min(size, osds)
    mean = pl.pg_count_stats(pg, size, osds).mean
    top = pl.expected_fullest(pg, size, osds)
    assert mean - 1e-9 <= top <= pg + 1e-9


@settings(max_examples=40, deadline=None)
@given(osds=st.integers(2, 40), size=st.integers(1, 6))
def test_spread_shrinks_as_pgs_grow(osds, size):
    size = min(size, osds - 1)      # size = osds has no spread at all
    factors = pl.fullest_factor([16, 64, 256, 1024], size, osds)
    assert (np.diff(factors) < 0).all()
    assert (factors >= 1).all()


def test_vectorised_over_pg_num():
    out = pl.pg_count_stats(np.array([16, 32, 128]), 3, 4)
    assert out.mean.shape == (3,)
    assert pl.expected_fullest(np.array([16, 32, 128]), 3, 4).shape == (3,)


@pytest.mark.parametrize("call,name", [
    (lambda: pl.pg_count_stats(0, 3, 4), "pg_num"),
    (lambda: pl.pg_count_stats(32, 5, 4), "size"),
    (lambda: pl.pg_count_stats(32, 3, 2.5), "osds"),
    (lambda: pl.expected_fullest(32, 0, 4), "size"),
    (lambda: pl.movement_on_add(4, 3, added=0), "added"),
    (lambda: pl.movement_on_add(2, 3), "size"),
    (lambda: pl.pg_count_density(4, 2, 4, [-0.1, 1.0]), "load"),
    (lambda: pl.observed_count_density([2, -1, 3, 4], 4, 2, [1.0]), "counts"),
    (lambda: pl.observed_count_density([3, 3], 2, 3, [1.0]), "size"),
    (lambda: pl.observed_count_density([], 2, 3, [1.0]), "counts"),
    (lambda: pl.pg_count_density([64, 128], 3, 10, [1.0]), "pg_num"),
    (lambda: an.pg_counts_by_pg_num(flat_map(4), "by_osd", 3, [16, 0]), "pg_nums"),
])
def test_invalid_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ---- lab 02's 10,000-OSD slider: PG counts per pg_num, and their histogram -----------------

def test_smaller_pg_nums_are_a_prefix_in_cephs_own_terms():
    """pg_counts_by_pg_num's exactness: Ceph's pps of PGs 0..p-1 (stable_mod onto pgp_num, then
    hash32_2 with the pool, objects.Pool.pps) are the first p inputs of any larger pool, for
    powers of two and others. A pool still splitting (pgp_num < pg_num) is not: the control."""
    largest = an.pg_inputs(5, 1024)
    for p in (1, 7, 64, 100, 1000, 1024):
        pool = objects.Pool(id=5, name="p", pg_num=p, size=3, crush_rule=0)
        assert (pool.pps(np.arange(p)) == largest[:p]).all(), p
    splitting = objects.Pool(id=5, name="p", pg_num=100, size=3, crush_rule=0, pgp_num=64)
    assert not (splitting.pps(np.arange(100)) == largest[:100]).all()


def test_pg_counts_by_pg_num_equal_separate_placements():
    """One CRUSH run over the largest pg_num gives, for every pg_num (any order, repeats), the
    counts of placing that pool on its own; each row sums to pg_num x size."""
    cmap = build.hosts_map(8, 3, prefix="h", first=0)
    pg_nums = [64, 10, 200, 64, 1]
    counts = an.pg_counts_by_pg_num(cmap, "by_host", 3, pg_nums, pool_id=4)
    assert counts.shape == (5, 24)
    for row, n in zip(counts, pg_nums):
        assert (row == an.osd_counts(cmap, "by_host", 3, an.pg_inputs(4, n))).all(), n
        assert row.sum() == 3 * n


def test_large_placements_are_cached_by_everything_they_depend_on(tmp_path, monkeypatch):
    """From CACHED_COPIES copies up, the same call reads its counts back without placing again;
    another map, rule, size, pg_nums, pool or weights places anew; a damaged file or a cache
    that cannot be written only means placing again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(an, "CACHED_COPIES", 300)
    cmap, args = build.hosts_map(8, 3, prefix="h", first=0), ("by_host", 3, [100, 64])
    placed = []
    real = an._pg_counts
    monkeypatch.setattr(an, "_pg_counts", lambda *a: placed.append(a[1:5]) or real(*a))
    first = an.pg_counts_by_pg_num(cmap, *args, pool_id=4)
    again = an.pg_counts_by_pg_num(build.hosts_map(8, 3, prefix="h", first=0), *args, pool_id=4)
    assert (first == again).all() and len(placed) == 1
    other_weights = cmap.device_weights({0: 0})
    for call in [lambda: an.pg_counts_by_pg_num(cmap, *args, pool_id=5),
                 lambda: an.pg_counts_by_pg_num(build.hosts_map(8, 3, prefix="g", first=0), *args, pool_id=4),
                 lambda: an.pg_counts_by_pg_num(cmap, "by_host", 2, [100, 64], pool_id=4),
                 lambda: an.pg_counts_by_pg_num(cmap, "by_host", 3, [64, 100], pool_id=4),
                 lambda: an.pg_counts_by_pg_num(cmap, *args, pool_id=4, weights=other_weights)]:
        before = len(placed)
        call()
        assert len(placed) == before + 1, "a different placement was read from the cache"
    assert an.pg_counts_by_pg_num(cmap, *args, pool_id=4, weights=other_weights)[:, 0].sum() == 0
    small = len(placed)
    an.pg_counts_by_pg_num(cmap, "by_host", 3, [50], pool_id=4)
    an.pg_counts_by_pg_num(cmap, "by_host", 3, [50], pool_id=4)
    assert len(placed) == small + 2, "150 copies (under CACHED_COPIES) were cached"
    for f in (tmp_path / "cephlab").glob("pg-counts-*.npy"):
        f.write_bytes(b"not an array")
    assert (an.pg_counts_by_pg_num(cmap, *args, pool_id=4) == first).all() and len(placed) == small + 3
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/no-such-folder")
    assert (an.pg_counts_by_pg_num(cmap, *args, pool_id=4) == first).all()


def test_count_bin_width():
    """max(1, round(std / 3)): std 12.54 at 524,288 PGs of size 3 on 10,000 OSDs -> 4 PGs; std
    2.22 at 16,384 -> 1."""
    assert pl.count_bin_width(524288, 3, 10000) == 4
    assert pl.count_bin_width(16384, 3, 10000) == 1


def test_pg_count_density_golden():
    """4 PGs of size 2 on 4 OSDs: count ~ Binomial(4, 1/2), mean 2, std 1, bins of 1 PG, so
    d = P(count = k) x 2 at loads (k +- 1/2) / 2: 1/16, 4/16, 6/16, 4/16, 1/16 times 2."""
    load = np.array([0.0, 0.25, 0.5, 1.0, 1.2, 1.5, 2.0, 2.2, 2.3, 3.0])
    want = np.array([1, 4, 4, 6, 6, 4, 1, 1, 0, 0]) / 16 * 2
    assert pl.pg_count_density(4, 2, 4, load) == pytest.approx(want)
    # 65,536 PGs of size 3 on 10,000 OSDs: P(count = 20) x 19.66 = 1.742
    assert pl.pg_count_density(65536, 3, 10000, 1.0) == pytest.approx(1.7418, abs=1e-4)


@pytest.mark.parametrize("pg_num,osds", [(64, 10), (4096, 1000), (524288, 10000)])
def test_pg_count_density_is_a_density(pg_num, osds):
    """Summed over the bins (density x bin width in loads) the shares make 1."""
    mean, w = pl.pg_count_stats(pg_num, 3, osds).mean, pl.count_bin_width(pg_num, 3, osds)
    centres = (np.arange(0, 4 * mean + 50, w) + (w - 1) / 2) / mean
    assert (pl.pg_count_density(pg_num, 3, osds, centres) * w / mean).sum() == pytest.approx(1.0, abs=1e-9)


def test_observed_count_density_golden_and_same_bins():
    """Counts 2, 2, 1, 3 (4 PGs x size 2 on 4 OSDs, mean 2, bins of 1 PG): half the OSDs at
    count 2 -> d = 1/2 x 2 = 1 at load 1; a quarter at 1 and at 3 -> 0.5; none at 0 or 4."""
    load = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0])
    assert pl.observed_count_density([2, 2, 1, 3], 4, 2, load) == pytest.approx([0, 0.5, 1, 0.5, 0, 0])
    # 16 OSDs holding 0..4 PGs in the proportions 1:4:6:4:1 (16 PGs x size 2, mean 2, bins of 1 PG)
    counts = np.repeat([0, 1, 2, 3, 4], [1, 4, 6, 4, 1])
    assert pl.observed_count_density(counts, 16, 2, load) == pytest.approx(np.array([1, 4, 6, 4, 1, 0]) / 16 * 2)


def test_observed_count_density_follows_crush_to_the_model():
    """CRUSH's counts for 4,096 PGs of size 3 on 100 hosts x 20 OSDs (6.1 PGs per OSD, bins of
    1 PG) against the binomial model, count by count: each count's share of the 2,000 OSDs within
    4 sigma of its binomial noise sqrt(s (1 - s) / 2000). The control, the classic slip of
    pg_num / OSDs PGs per OSD (size 1: Binomial(4096, 1/2000)), is not."""
    cmap = build.hosts_map(100, 20, prefix="h", first=0)
    counts = an.pg_counts_by_pg_num(cmap, "by_host", 3, [4096])[0]
    k = np.arange(25)

    def shares(density, size):    # density at each count k -> share of the OSDs (bins of 1 PG)
        mean = pl.pg_count_stats(4096, size, 2000).mean
        assert pl.count_bin_width(4096, size, 2000) == 1
        return density(k / mean) / mean

    crush = shares(lambda x: pl.observed_count_density(counts, 4096, 3, x), 3)
    model = shares(lambda x: pl.pg_count_density(4096, 3, 2000, x), 3)
    control = shares(lambda x: pl.pg_count_density(4096, 1, 2000, x), 1)
    noise = np.sqrt(model * (1 - model) / 2000)
    assert crush.sum() == pytest.approx(1.0)
    assert (np.abs(crush - model) <= 4 * noise + 1e-12).all()
    assert not (np.abs(crush - control) <= 4 * noise + 1e-12).all()
