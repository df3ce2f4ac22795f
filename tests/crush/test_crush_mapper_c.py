"""The compiled mapper (mapper_c.c) against the numpy mapper, placement for placement.

The crushtool parity tests run whichever mapper do_rule picks (the compiled one wherever a C
compiler is); these tests hold the two mappers to each other, so both stay exact: on the parity
tests' maps, on generated trees and rules (empty buckets, zero weights, reweights, every tunable
and set_* step, rules that emit buckets), on ties and reweight thresholds; and they check how the
library is built and cached, and that do_rule falls back to numpy when there is no compiler.
"""
import os
import subprocess
import sys

import crush_maps as maps
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.crush import build, mapper, mapper_c, parse_text
from models.crush.hash import hash32_2

ONE = 0x10000

pytestmark = pytest.mark.skipif(not mapper_c.available(),
                                reason=f"no compiled mapper: {mapper_c.status()}")


def assert_same(cmap, rule, x, num_rep, weights=None):
    want, want_len = mapper.do_rule(cmap, rule, x, num_rep, weights, engine="numpy")
    got, got_len = mapper.do_rule(cmap, rule, x, num_rep, weights, engine="c")
    bad = np.nonzero((want != got).any(axis=1) | (want_len != got_len))[0]
    if bad.size:
        i = bad[0]
        pytest.fail(f"rule {rule} num_rep {num_rep}, x = {x[i]}: numpy {want[i, :want_len[i]]} "
                    f"vs C {got[i, :got_len[i]]} ({bad.size} inputs differ)")
    return got, got_len


@pytest.mark.parametrize("rule", range(7))
def test_the_layered_parity_map_every_rule_and_size(rule):
    """The uneven rack > host > osd map of the parity tests (hdd/ssd shadow trees, erasure and
    two-step rules), with devices out and partly out."""
    cmap = parse_text.parse(maps.layered_text())
    x = np.arange(3000)
    reweighted = cmap.device_weights({4: 0, 9: ONE // 2, 14: ONE * 3 // 10, 18: ONE - 1, 2: 0})
    for num_rep in range(1, 8):
        assert_same(cmap, rule, x, num_rep)
        got, length = assert_same(cmap, rule, x, num_rep, reweighted)
        assert length.max() > 0
        assert not np.isin(got, [4, 2]).any()        # out devices are never chosen


@pytest.mark.parametrize("hosts,per_host", [(10, 4), (100, 10), (3, 1)])
def test_built_maps(hosts, per_host):
    cmap = build.hosts_map(hosts, per_host)
    x = np.arange(5000)
    for rule in (0, 1):
        for num_rep in (1, 3, 5):
            assert_same(cmap, rule, x, num_rep)


def test_short_results_when_asking_for_more_racks_than_exist():
    """chooseleaf firstn by rack with 4 replicas on 3 racks: every result is short after the
    tries run out, in both mappers alike."""
    cmap = parse_text.parse(maps.layered_text())
    _, length = assert_same(cmap, 1, np.arange(2000), 4)
    assert (length == 3).all()


def test_heavy_items_tie_and_the_first_wins():
    """Items of 65,535 TiB (16.16 weight 0xffff0000): the draws (crush_ln(u) - 2**48) / w
    truncate to one of only 2**16 values, so items tie often, and the first of them must win;
    the compiled mapper's one-division shortcut for equal weights has to keep that."""
    text = "\n".join(["type 0 osd", "type 1 root"] + [f"device {i} osd.{i}" for i in range(8)]
                     + ["root default {", "id -1", "alg straw2", "hash 0"]
                     + [f"item osd.{i} weight 65535" for i in range(8)]
                     + ["}", "rule r {", "id 0", "step take default",
                        "step choose firstn 1 type osd", "step emit", "}"])
    cmap = parse_text.parse(build.PACIFIC_TUNABLES + text)
    assert_same(cmap, 0, np.arange(20_000), 1)
    # hosts of two such items weigh more than 2**32 (16.16): no 32-bit weights on the way
    two = build.hosts_map(5, 2, weight=65535)
    assert two.buckets[-1].weights[0] > 2**32
    assert_same(two, 0, np.arange(5000), 3)


def test_a_device_exactly_at_its_reweight_is_out():
    """is_out keeps a device when hash32_2(x, device) & 0xffff < its reweight: set the reweight
    to exactly that value for the device chosen for x, and x must move elsewhere."""
    cmap = build.hosts_map(4, 3)
    x = np.arange(200)
    full, _ = mapper.do_rule(cmap, 0, x, 3, engine="numpy")
    moved = 0
    for xi in range(50):
        dev = int(full[xi, 0])
        threshold = int(hash32_2(np.uint32(xi), np.uint32(dev))) & 0xFFFF
        if threshold == 0:
            continue
        got, _ = assert_same(cmap, 0, x[xi:xi + 1], 3, cmap.device_weights({dev: threshold}))
        moved += dev not in got[0]
    assert moved > 40


def test_chooseleaf_tries_with_devices_out():
    """set_chooseleaf_tries in a firstn rule: the leaf descent gets that many tries (not the 1 of
    chooseleaf_descend_once), which shows when leaves are out."""
    text = build.hosts_map_text(6, 3).replace(
        "step take default\nstep chooseleaf firstn 0 type host",
        "step set_chooseleaf_tries 5\nstep take default\nstep chooseleaf firstn 0 type host")
    cmap = parse_text.parse(text)
    out = cmap.device_weights({d: 0 for d in (0, 1, 4, 9, 10, 16)})
    got, _ = assert_same(cmap, 0, np.arange(5000), 3, out)
    tries_1, _ = mapper.do_rule(build.hosts_map(6, 3), 0, np.arange(5000), 3, out)
    assert (got != tries_1).any()        # the rule's step does change placements here


_STEPS = [
    ["chooseleaf {mode} {n} type host"],
    ["chooseleaf {mode} {n} type rack"],
    ["choose {mode} {n} type rack", "chooseleaf {mode} {m} type host"],
    ["choose {mode} {n} type rack", "choose {mode} {m} type host", "choose {mode} 1 type osd"],
    ["choose {mode} {n} type osd"],
    ["choose {mode} {n} type host"],                  # emits buckets: negative ids
]
_SETS = ["set_choose_tries {k}", "set_chooseleaf_tries {k}", "set_chooseleaf_vary_r {v}",
         "set_chooseleaf_stable {b}", "set_choose_local_tries {v}"]


@st.composite
def maps_and_rules(draw):
    """root > racks > hosts > osds with empty buckets and zero weights allowed, a rule from
    _STEPS with random set_* steps, random tunables and device reweights."""
    weights = st.sampled_from([0, ONE // 4, ONE, 2 * ONE, 3 * ONE])
    tree = draw(st.lists(st.lists(st.lists(weights, max_size=4), max_size=3),
                         min_size=1, max_size=3))
    tunables = {
        "choose_total_tries": draw(st.integers(1, 50)),
        "choose_local_tries": draw(st.integers(0, 2)),
        "chooseleaf_descend_once": draw(st.integers(0, 1)),
        "chooseleaf_vary_r": draw(st.integers(0, 2)),
        "chooseleaf_stable": draw(st.integers(0, 1)),
    }
    lines = [f"tunable {k} {v}" for k, v in tunables.items()]
    lines += ["tunable choose_local_fallback_tries 0"]
    devices, buckets, rack_items, osd, bid = [], [], [], 0, -2
    for rack in tree:
        host_items = []
        for host in rack:
            items = []
            for w in host:
                devices.append(f"device {osd} osd.{osd}")
                items.append(f"item osd.{osd} weight {w / ONE:.5f}")
                osd += 1
            buckets += [f"host h{-bid} {{", f"id {bid}", "alg straw2", "hash 0", *items, "}"]
            host_items.append(f"item h{-bid}")
            bid -= 1
        buckets += [f"rack r{-bid} {{", f"id {bid}", "alg straw2", "hash 0", *host_items, "}"]
        rack_items.append(f"item r{-bid}")
        bid -= 1
    buckets += ["root default {", "id -1", "alg straw2", "hash 0", *rack_items, "}"]
    mode = draw(st.sampled_from(["firstn", "indep"]))
    steps = [s.format(mode=mode, n=draw(st.integers(-1, 4)), m=draw(st.integers(0, 3)))
             for s in draw(st.sampled_from(_STEPS))]
    sets = [s.format(k=draw(st.integers(0, 5)), v=draw(st.integers(-1, 2)),
                     b=draw(st.integers(0, 1))) for s in draw(st.lists(st.sampled_from(_SETS),
                                                                       max_size=3))]
    rule = ["rule r {", "id 0", "type replicated", *[f"step {s}" for s in sets],
            "step take default", *[f"step {s}" for s in steps], "step emit", "}"]
    text = "\n".join(lines + devices + ["type 0 osd", "type 1 host", "type 2 rack", "type 3 root"]
                     + buckets + rule)
    cmap = parse_text.parse(text)
    out = draw(st.dictionaries(st.integers(0, max(osd - 1, 0)),
                               st.sampled_from([0, ONE // 2, ONE // 5, ONE - 1, 2 * ONE]),
                               max_size=3))
    return cmap, cmap.device_weights(out), draw(st.integers(1, 7))


@settings(max_examples=150, deadline=None)
@given(maps_and_rules(), st.integers(0, 2**32 - 400))
def test_generated_maps_and_rules(case, start):
    cmap, weights, num_rep = case
    if cmap.max_devices == 0:
        return
    assert_same(cmap, 0, np.arange(start, start + 300), num_rep, weights)


def test_refusals_are_the_numpy_mappers():
    """What the model does not cover is refused before the compiled mapper runs."""
    text = build.hosts_map_text(2, 2).replace("step take default",
                                              "step set_choose_local_fallback_tries 3\n"
                                              "step take default")
    cmap = parse_text.parse(text)
    with pytest.raises(ValueError, match="set_choose_local_fallback_tries > 0"):
        mapper.do_rule(cmap, 0, [1], 3, engine="c")
    with pytest.raises(ValueError, match="engine must be"):
        mapper.do_rule(cmap, 0, [1], 3, engine="fast")


def _fresh(env):
    """mapper_c.status() in a new interpreter with env added (its own cache and PATH)."""
    code = "from models.crush import mapper_c; print(mapper_c.status())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, check=True)
    return done.stdout.strip()


def test_builds_once_into_the_cache_then_loads(tmp_path):
    first = _fresh({"XDG_CACHE_HOME": str(tmp_path)})
    built = list((tmp_path / "cephlab").glob("crush-mapper-*.so"))
    assert first.startswith("c (") and len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    assert _fresh({"XDG_CACHE_HOME": str(tmp_path)}) == first
    assert built[0].stat().st_mtime_ns == stamp                  # loaded, not rebuilt
    assert list((tmp_path / "cephlab").iterdir()) == built       # no temporary files left


def test_without_a_compiler_the_numpy_mapper_runs(tmp_path):
    status = _fresh({"XDG_CACHE_HOME": str(tmp_path), "PATH": str(tmp_path)})
    assert status == "numpy (no C compiler: install gcc for the compiled mapper)"
    assert _fresh({mapper_c.ENV: "numpy"}) == f"numpy ({mapper_c.ENV}=numpy)"


def test_the_cli_maps_alike_with_either_mapper(tmp_path):
    """`cephlab crush test` under CEPHLAB_CRUSH_MAPPER=numpy prints what it prints with C."""
    path = tmp_path / "map.txt"
    path.write_text(maps.layered_text())
    args = [sys.executable, "-m", "cephlab.cli", "crush", "test", "-i", str(path), "--rule", "5",
            "--num-rep", "6", "--show-mappings", "--min-x", "0", "--max-x", "999"]
    outs = [subprocess.run(args, capture_output=True, text=True, check=True,
                           env={**os.environ, mapper_c.ENV: engine}).stdout
            for engine in ("c", "numpy")]
    assert outs[0] == outs[1] and outs[0].count("\n") == 1000
