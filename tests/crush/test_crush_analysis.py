"""Balance, spread and data movement on known maps (numbers measured with the model)."""
import crush_maps as maps
import numpy as np
import pytest

from models.crush import analysis as an
from models.crush import mapper, parse_text

ONE = 0x10000


@pytest.fixture(scope="module")
def layered_map():
    return parse_text.parse(maps.layered_text())


@pytest.fixture(scope="module")
def flat_hosts():
    """10 hosts x 4 OSDs of weight 1 under one root, rule 0 = chooseleaf firstn by host
    (what `crushtool --build --num_osds 40 host straw2 4 root straw2 0` makes)."""
    lines = ["type 0 osd", "type 1 host", "type 2 root"]
    lines += [f"device {i} osd.{i}" for i in range(40)]
    for h in range(10):
        lines += [f"host host{h} {{", f"id {-1 - h}", "alg straw2", "hash 0"]
        lines += [f"item osd.{4 * h + j} weight 1.000" for j in range(4)] + ["}"]
    lines += ["root root {", "id -11", "alg straw2", "hash 0"]
    lines += [f"item host{h} weight 4.000" for h in range(10)] + ["}"]
    lines += ["rule replicated_rule {", "id 0", "type replicated",
              "step take root", "step chooseleaf firstn 0 type host", "step emit", "}"]
    return parse_text.parse(maps.TUNABLES + "\n".join(lines))


def test_weight_share_follows_crush_weights(layered_map):
    """osd.2 weighs 2.0 of the root's 26.64 (crush_maps._HOSTS): share 2/26.64."""
    share = an.weight_share(layered_map, 0)
    assert share.sum() == pytest.approx(1.0)
    assert share[2] == pytest.approx(2.0 / 26.64, rel=1e-4)
    reweighted = an.weight_share(layered_map, 0, layered_map.device_weights({2: 0}))
    assert reweighted[2] == 0


def test_pgs_follow_weights_on_an_uneven_map(layered_map):
    """20,000 PGs x 3: every OSD within 7 % of its weight share (measured max 6.2 %: the
    host constraint bends the shares of uneven hosts a little)."""
    counts = an.osd_counts(layered_map, 0, 3, an.pg_inputs(1, 20_000))
    dev = an.deviation(counts, an.weight_share(layered_map, 0), 3 * 20_000)
    assert counts.sum() == 60_000
    assert np.abs(dev).max() < 0.07


def test_spread_shrinks_with_pg_count(flat_hosts):
    """Relative spread ~ 1 / sqrt(PGs per OSD): 16x the PGs, about a quarter the spread."""
    rows = an.spread(flat_hosts, 0, 3, [256, 4096])
    assert rows[0]["std"] > 3 * rows[1]["std"]
    assert 0.15 < rows[0]["std"] < 0.35          # binomial: 1/sqrt(256*3/40) = 0.23
    assert rows[1]["max_excess"] < rows[0]["max_excess"]


def test_adding_an_osd_moves_about_twice_the_minimum(flat_hosts):
    """Adding a 41st OSD (weight 1 in host0) must fill it: at least its share 1/41 of the
    replicas moves. Measured 1.88x: host0 grows from 4 to 5, so the root sends it ~1/41 of
    the replicas from other hosts, and inside host0 the new OSD also takes 1/5 of what
    host0 already held (4/40 * 1/5 = 1/50): 1/41 + 1/50 = 1.82x the minimum. A flat map
    would move exactly the minimum (test_crush_mapper: adding moves data only to it)."""
    x = an.pg_inputs(1, 20_000)
    after = an.add_osd(flat_hosts, "host0", 40, ONE)
    moved = an.compare_maps(flat_hosts, after, 0, 3, x)
    ratio = moved["replicas_moved"] / (1 / 41)
    assert 1.7 < ratio < 2.05
    assert moved["inputs_changed"] > moved["replicas_moved"]   # reorderings count as changes


def test_removing_or_reweighting_moves_about_the_share(flat_hosts):
    """`ceph osd crush rm osd.7` moves 1.87x its share (same hierarchy effect: host1 shrinks
    and reshuffles); `ceph osd out 7` (reweight 0) moves exactly osd.7's replicas: is_out
    rejects it and the retry lands elsewhere, nothing else changes (measured 0.987 of 1/40)."""
    x = an.pg_inputs(1, 20_000)
    gone = an.compare_maps(flat_hosts, an.remove_item(flat_hosts, 7), 0, 3, x)
    assert 1.7 < gone["replicas_moved"] * 40 < 2.05
    out = an.compare_maps(flat_hosts, flat_hosts, 0, 3, x, None,
                          flat_hosts.device_weights({7: 0}))
    assert 0.9 / 40 < out["replicas_moved"] < 1.1 / 40
    same = an.compare_maps(flat_hosts, flat_hosts, 0, 3, x)
    assert same == {"inputs_changed": 0.0, "replicas_moved": 0.0}


def test_set_crush_weight_updates_ancestors(flat_hosts):
    half = an.set_crush_weight(flat_hosts, "osd.5", ONE // 2)
    host1 = half.buckets[-2]
    assert host1.weights[host1.items.index(5)] == ONE // 2
    root = half.buckets[-11]
    assert root.weights[root.items.index(-2)] == 4 * ONE - ONE // 2
    x = an.pg_inputs(1, 20_000)
    a, _ = mapper.do_rule(flat_hosts, 0, x, 3)
    b, _ = mapper.do_rule(half, 0, x, 3)
    lost = (a == 5).sum() - (b == 5).sum()
    assert 0.35 < lost / (a == 5).sum() < 0.65     # about half of its PGs leave


def test_shadow_trees_follow_edits(layered_map):
    """Adding an ssd OSD rebuilds the class shadows: the hdd rule never picks it."""
    after = an.add_osd(layered_map, "h1", 19, 2 * ONE, device_class="ssd")
    res, _ = mapper.do_rule(after, 4, np.arange(5000), 3)
    assert 19 not in res
    res, _ = mapper.do_rule(after, 0, np.arange(5000), 3)
    assert 19 in res
